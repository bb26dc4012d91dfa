import Foundation
import HTTPTypes
import InProcessSUT
import TestFixtures
import Testing

/// Read-back in-process: what the SUT stored is answered from its storage — after a
/// restart too — by patient, kind and period, page by page, with per-day and per-month counts, and
/// bad parameters are refused naming them. PostgreSQL and the FHIR search's validation by an
/// independent referee stay live (`IntegrationTests.ReferenceReadBackTests`).
struct ReadBackRouteTests {
    /// Patient 701's readings (heart rate on three days, one blood pressure) and another patient's.
    static func store(_ sut: SUTTestClient) async throws {
        let bodies = ObservationBodies.readBack
        #expect(try await sut.post("/api/v1/observations", bodies.batch).status == 200)
        #expect(try await sut.post("/api/v1/observations", bodies.single).status == 200)
        #expect(
            try await sut.post("/api/v1/observations", bodies.otherPatient).status == 200,
            "another patient's reading is never listed"
        )
    }

    @Test func testReadingsAreReadBackFromStorageAfterARestart() async throws {
        let folder = NSTemporaryDirectory() + "vitalsim-read-back-\(UInt64.random(in: 0...UInt64.max))"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var sut = try InProcessSUT()
        sut.databaseDirectory = folder
        try await sut.test { sut async throws in try await Self.store(sut) }
        // A second server on the same database: from storage, not from the first one's memory.
        try await sut.test { sut async throws in
            let all = try await sut.get("/api/v1/patients/701/readings").object["items"] as? [[String: Any]] ?? []
            #expect(all.map { $0["readingId"] as? String } == ["h1", "h2", "h3", "bp1", "h4"])
            let h2 = all.first { $0["readingId"] as? String == "h2" } ?? [:]
            #expect((h2["values"] as? [String: Any])?["heart-rate"] as? Double == 75.5)
            #expect((h2["units"] as? [String: String])?["heart-rate"] == "/min")
            #expect(h2["timestamp"] as? String == "2024-11-07T23:59:59.000Z")
            #expect(h2["deviceId"] as? String == "hr-701")
            let pressure = all.first { $0["readingId"] as? String == "bp1" } ?? [:]
            #expect(pressure["kind"] as? String == "blood-pressure")
            #expect((pressure["values"] as? [String: Any])?["diastolic"] as? Double == 84)
            #expect(pressure["timestamp"] as? String == "2024-11-08T07:30:00.250Z")
        }
    }

    @Test func testKindPeriodAndPagesFilterTheReadings() async throws {
        try await InProcessSUT().test { sut async throws in
            try await Self.store(sut)
            func ids(_ query: String) async throws -> [String?] {
                let items =
                    try await sut.get("/api/v1/patients/701/readings" + query).object["items"] as? [[String: Any]] ?? []
                return items.map { $0["readingId"] as? String }
            }
            #expect(
                try await ids("?kind=heart-rate&from=2024-11-08T00:00:00Z&to=2024-12-01T00:00:00Z") == ["h3"],
                "from is inclusive, to exclusive, kind filters"
            )
            #expect(try await ids("?kind=blood-pressure") == ["bp1"])
            var pages: [String] = []
            var path = "/api/v1/patients/701/readings?limit=2"
            for _ in 0..<5 {
                let page = try await sut.get(path).object
                pages += (page["items"] as? [[String: Any]] ?? []).compactMap { $0["readingId"] as? String }
                guard let next = page["next"] as? String else { break }
                path = "/api/v1/patients/701/readings?limit=2&after=\(next)"
            }
            #expect(pages == ["h1", "h2", "h3", "bp1", "h4"], "next leads on until a short page")
        }
    }

    @Test func testCountsPerDayAndMonth() async throws {
        try await InProcessSUT().test { sut async throws in
            try await Self.store(sut)
            let days =
                try await sut.get("/api/v1/patients/701/readings/counts?by=day").object["counts"] as? [[String: Any]]
                ?? []
            #expect(
                days.map { "\($0["period"] ?? "") \($0["kind"] ?? "") \($0["readings"] ?? "")" }
                    == [
                        "2024-11-07 heart-rate 2", "2024-11-08 blood-pressure 1", "2024-11-08 heart-rate 1",
                        "2024-12-01 heart-rate 1",
                    ]
            )
            let months =
                try await sut.get("/api/v1/patients/701/readings/counts?by=month&kind=heart-rate").object["counts"]
                as? [[String: Any]]
                ?? []
            #expect(months.map { "\($0["period"] ?? "") \($0["readings"] ?? "")" } == ["2024-11 3", "2024-12 1"])
        }
    }

    /// Counts of whole days come from the counts table kept at commit (no scan of the readings:
    /// 4.4 s a request at 700,000 readings before), and agree with counting the readings, after a
    /// restart and a duplicate too; a range within days is counted from the readings.
    @Test func testCountsFromTheTableAgreeWithTheReadings() async throws {
        let folder = NSTemporaryDirectory() + "vitalsim-counts-\(UInt64.random(in: 0...UInt64.max))"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var sut = try InProcessSUT()
        sut.databaseDirectory = folder
        @Sendable func rows(_ sut: SUTTestClient, _ query: String) async throws -> [String] {
            let counts = try await sut.get("/api/v1/patients/701/readings/counts?" + query).object["counts"]
            return ((counts as? [[String: Any]]) ?? []).map {
                "\($0["period"] ?? "") \($0["kind"] ?? "") \($0["readings"] ?? "")"
            }
        }
        try await sut.test { sut async throws in
            try await Self.store(sut)
            let single = ObservationBodies.readBack.single
            #expect(try await sut.post("/api/v1/observations", single).status == 200, "a duplicate")
        }
        try await sut.test { sut async throws in
            let store = try await sut.get("/api/v1/patients/701/readings").object["items"] as? [[String: Any]] ?? []
            #expect(store.count == 5)
            #expect(
                try await rows(sut, "by=day&from=2024-11-08T00:00:00Z")
                    == ["2024-11-08 blood-pressure 1", "2024-11-08 heart-rate 1", "2024-12-01 heart-rate 1"]
            )
            #expect(
                try await rows(sut, "by=month&to=2024-11-08T00:00:00Z") == ["2024-11 heart-rate 2"],
                "to is exclusive"
            )
            // Within a day: counted from the readings themselves.
            #expect(try await rows(sut, "by=day&from=2024-11-07T23:59:00Z&to=2024-11-08T00:00:00Z").count == 1)
            let deleted = try await sut.send("/api/v1/patients/701", method: .delete)
            #expect(deleted.status < 300, "\(deleted.text)")
            #expect(try await sut.get("/api/v1/patients/701/readings/counts?by=day").status == 404)
        }
    }

    @Test func testBadParametersAreRefusedNamingThem() async throws {
        try await InProcessSUT().test { sut async throws in
            try await Self.store(sut)
            for (query, field) in [
                ("kind=pulse", "kind"), ("from=yesterday", "from"), ("limit=0", "limit"), ("after=-1", "after"),
            ] {
                let answer = try await sut.get("/api/v1/patients/701/readings?\(query)")
                #expect(answer.status == 400, "\(query)")
                #expect(answer.object["field"] as? String == field, "\(answer.text)")
            }
            #expect(try await sut.get("/api/v1/patients/701/readings/counts?by=week").status == 400)
            #expect(try await sut.get("/api/v1/patients/799/readings").status == 404)
        }
    }
}
