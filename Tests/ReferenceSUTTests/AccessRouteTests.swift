import Foundation
import HTTPTypes
import InProcessSUT
import ReferenceEngine
import TestFixtures
import Testing

/// Who may do what, in-process: per-device tokens post only for their own patient, alerts need a
/// reader token, enrolment an admin token; a device over its rate gets 429 with `Retry-After`.
struct AccessRouteTests {
    static let device501 = "0123456789abcdef0123456789abc501"
    static let device502 = "0123456789abcdef0123456789abc502"
    static let reader = "0123456789abcdef01234567reader00"
    static let admin = "0123456789abcdef012345678admin00"

    static var credentials: Credentials {
        var credentials = Credentials()
        credentials.devices[device501] = ("501", "vitaledge-501")
        credentials.devices[device502] = ("502", "vitaledge-502")
        credentials.readers.insert(reader)
        credentials.admins.insert(admin)
        return credentials
    }

    @Test func testDeviceTokensAuthorizePostsForTheirOwnPatientOnly() async throws {
        var sut = try InProcessSUT()
        sut.credentials = Self.credentials
        try await sut.test { sut async throws in
            let body = #"{"userId": "501", "timestamp": "2024-11-07T12:34:58Z", "heartRate": 75}"#
            #expect(try await sut.post("/api/iot-heart-rate", body, token: Self.device501).status == 200)
            let missing = try await sut.post("/api/iot-heart-rate", body)
            #expect(missing.status == 401)
            #expect(missing.object["field"] as? String == "Authorization")
            #expect(
                try await sut.post("/api/iot-heart-rate", body, token: "0123456789abcdef0123456789abcdef").status == 401
            )
            let other = try await sut.post("/api/iot-heart-rate", body, token: Self.device502)
            #expect(other.status == 403, "a device may post only for its own patient")
            #expect(other.object["field"] as? String == "patient")
        }
    }

    @Test func testAlertsNeedAReaderToken() async throws {
        var sut = try InProcessSUT()
        sut.credentials = Self.credentials
        try await sut.test { sut async throws in
            #expect(try await sut.get("/api/v1/alerts").status == 401)
            #expect(
                try await sut.get("/api/v1/alerts", token: Self.device501).status == 403,
                "device tokens cannot read alerts"
            )
            #expect(
                try await sut.get("/api/v1/alerts", token: Self.admin).status == 403,
                "admin tokens enrol, they do not read"
            )
            #expect(try await sut.get("/api/v1/alerts", token: Self.reader).status == 200)
            // A token the SUT does not know is no valid credential: 401, as docs/openapi.yaml says
            // (it was 403, as for a known credential without the right).
            let unknown = try await sut.get("/api/v1/alerts", token: "0123456789abcdef0123456789abcdef")
            #expect(unknown.status == 401, "\(unknown.text)")
            #expect(
                try await sut.get("/api/v1/patients/501/readings", token: "0123456789abcdef0123456789abcdef").status
                    == 401
            )
        }
    }

    @Test func testPerDeviceRateLimitAnswers429WithRetryAfter() async throws {
        var sut = try InProcessSUT()
        sut.rateLimit = 5
        try await sut.test { sut async throws in
            var statuses: [Int] = []
            var retryAfter: String?
            for index in 0..<30 {
                let body = observationJSON(
                    id: "r\(index)",
                    patient: "801",
                    device: "hr",
                    kind: "heart-rate",
                    value: 70,
                    unit: "/min",
                    at: "2024-11-07T08:00:00Z"
                )
                let answer = try await sut.post("/api/v1/observations", body)
                statuses.append(answer.status)
                if answer.status == 429 { retryAfter = answer.headers[.retryAfter] }
            }
            #expect(statuses.prefix(10).filter { $0 == 200 }.count == 10, "a burst of twice the rate is allowed")
            #expect(statuses.filter { $0 == 429 }.count > 0)
            #expect(retryAfter == "1")
            let other = observationJSON(
                id: "o1",
                patient: "802",
                device: "hr",
                kind: "heart-rate",
                value: 70,
                unit: "/min",
                at: "2024-11-07T08:00:00Z"
            )
            #expect(
                try await sut.post("/api/v1/observations", other).status == 200,
                "another device is not throttled by the first"
            )
            let metrics = try await sut.get("/metrics")
            #expect(metrics.status == 200)
            #expect(metrics.text.contains("outcome=\"rate-limited\""), "\(metrics.text)")
        }
    }
}
