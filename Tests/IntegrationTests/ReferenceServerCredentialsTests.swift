import Foundation
import XCTest

/// `vitalsim serve --dev`: per-device bearer tokens, a device may post only for its own patient,
/// and reading alerts needs a reader token.
final class ReferenceServerCredentialsTests: XCTestCase {
    func testDevTokensAuthorizePostsAndAlertReads() throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: TestSupport.vitalsimPath)
        p.arguments = ["serve", "--port", "0", "--dev", "--patient", "502=adult"]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        defer {
            p.terminate()
            p.waitUntilExit()
        }
        var text = ""
        let deadline = Date(timeIntervalSinceNow: 30)
        while !text.contains("listening on"), Date() < deadline {
            text += String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
        }
        let lines = text.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        let tokens = Dictionary(uniqueKeysWithValues: lines.filter { $0.first == "device-token" && $0.count == 4 }.map { ($0[1], $0[3]) })
        let reader = lines.first { $0.first == "reader-token" }?.last ?? ""
        let base = lines.first { $0.first == "listening" }?.last ?? ""
        XCTAssertEqual(tokens.keys.sorted(), ["501", "502"])
        XCTAssertEqual(reader.count, 32)

        func post(_ token: String?, user: String) throws -> String {
            var args = [
                "-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", "--data-binary",
                #"{"userId": "\#(user)", "timestamp": "2024-11-07T12:34:58Z", "heartRate": 75}"#, base + "/api/iot-heart-rate",
            ]
            if let token { args += ["-H", "Authorization: Bearer \(token)"] }
            return try TestSupport.run("curl", args).out
        }
        XCTAssertEqual(try post(tokens["501"], user: "501"), "200")
        XCTAssertEqual(try post(nil, user: "501"), "401")
        XCTAssertEqual(try post("0123456789abcdef0123456789abcdef", user: "501"), "401")
        XCTAssertEqual(try post(tokens["502"], user: "501"), "403", "a device may post only for its own patient")
        func alerts(_ token: String?) throws -> String {
            var args = ["-s", "-o", "/dev/null", "-w", "%{http_code}", base + "/api/v1/alerts"]
            if let token { args += ["-H", "Authorization: Bearer \(token)"] }
            return try TestSupport.run("curl", args).out
        }
        XCTAssertEqual(try alerts(nil), "401")
        XCTAssertEqual(try alerts(tokens["501"]), "403", "device tokens cannot read alerts")
        XCTAssertEqual(try alerts(reader), "200")
    }
}
