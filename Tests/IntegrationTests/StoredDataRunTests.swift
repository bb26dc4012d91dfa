import Foundation
import XCTest

/// The stored-data check end to end: the reference SUT's acknowledged readings read back after each
/// scenario (JSON and FHIR search), its faulty modes that lose or alter stored readings failing the
/// run with the right finding, and a read-back the profile gets wrong ending with exit 3.
final class StoredDataRunTests: XCTestCase {
    var directory = ""
    let golden = TestSupport.repositoryRoot + "/golden"
    let fever = TestSupport.repositoryRoot + "/scenarios/core/fever-spike.yaml"
    let vitaledge = TestSupport.repositoryRoot + "/scenarios/core/vitaledge-daily-summary.yaml"

    override func setUpWithError() throws { directory = TestSupport.temporaryDirectory("stored-data") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    func vitalsim(_ args: [String]) throws -> (status: Int32, out: String, err: String) {
        try TestSupport.vitalsim(args, in: directory)
    }

    /// The stored-data checks of a JSON report: name → (finding or "", detail).
    func storedChecks(_ json: String) throws -> [String: (String, String)] {
        let j = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as! [String: Any]
        var out: [String: (String, String)] = [:]
        for s in j["scenarios"] as! [[String: Any]] {
            for c in s["checks"] as! [[String: Any]] where c["kind"] as? String == "stored-data" {
                out[c["name"] as! String] = (c["finding"] as? String ?? "", c["detail"] as? String ?? "")
            }
        }
        return out
    }

    func testAcknowledgedReadingsAreReadBackAsSent() throws {
        let json = directory + "/v.json"
        let r = try vitalsim(["run", vitaledge, "--golden-dir", golden, "--json", json])
        XCTAssertEqual(r.status, 0, r.out + r.err)
        let checks = try storedChecks(json)
        XCTAssertEqual(checks.count, 3, "\(checks)")
        XCTAssertEqual(checks["stored readings of patient 501 kept"]?.1, "all 567 acknowledged reading(s) read back")
        XCTAssertEqual(
            checks["stored reading counts of patient 501 per day and month"]?.1,
            "567 reading(s) over 2 day(s), counted alike per day and month"
        )
        XCTAssertTrue(r.out.contains("read-back GET /api/v1/patients/{patient}/readings"), r.out)
        // The same through FHIR search, Observations read by LOINC code.
        let fhir = directory + "/fhir.json"
        let f = try vitalsim([
            "run", fever, "--golden-dir", golden, "--sut", TestSupport.repositoryRoot + "/profiles/fhir-r4.yaml",
            "--json", fhir,
        ])
        XCTAssertEqual(f.status, 0, f.out + f.err)
        XCTAssertTrue(f.out.contains("read-back GET /fhir/Observation"), f.out)
        let kept = try storedChecks(fhir)["stored readings of patient 508 unaltered"]
        XCTAssertEqual(kept?.0, "")
        XCTAssertTrue(
            kept?.1.hasSuffix("reading(s) read back with the value, unit and device time they were sent with") == true,
            "\(kept as Any)"
        )
    }

    func testAReadBackTheProfileGetsWrongIsAMisconfiguration() throws {
        let wrongURL = TestSupport.write(
            """
            name: wrong-read-back
            stored-readings:
              url: /api/v1/patients/{patient}/stored
              fields: {id: /readingId, time: /timestamp, values: /values}
            """,
            to: directory,
            name: "wrong-url.yaml"
        )
        let r = try vitalsim(["run", fever, "--golden-dir", golden, "--sut", wrongURL])
        XCTAssertEqual(r.status, 3, r.out + r.err)
        XCTAssertTrue(
            r.err.contains("the SUT answered 404 for patient 508, whose 74 reading(s) it acknowledged"),
            r.err
        )
        XCTAssertFalse(r.out.contains("lost-after-ack"), r.out)
        let wrongList = TestSupport.write(
            """
            name: wrong-list
            stored-readings:
              url: /api/v1/patients/{patient}/readings
              list: /readings
              fields: {id: /readingId, time: /timestamp, values: /values}
            """,
            to: directory,
            name: "wrong-list.yaml"
        )
        let l = try vitalsim(["run", fever, "--golden-dir", golden, "--sut", wrongList])
        XCTAssertEqual(l.status, 3, l.out + l.err)
        XCTAssertTrue(
            l.err.contains("answered 200 without a list of readings at '/readings' (stored-readings.list)"),
            l.err
        )
    }
}
