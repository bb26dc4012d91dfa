import Foundation
import TestFixtures
import XCTest

/// Read-back on a live server: the reference SUT answers what it stored, from its
/// storage (so after a restart too), by patient, kind and period, page by page, with per-day and
/// per-month counts, on PostgreSQL; FHIR search Bundles validated by fhir.resources. The same
/// checks on SQLite run in-process (`ReferenceSUTTests.ReadBackRouteTests`).
final class ReferenceReadBackTests: XCTestCase {
    func testReadBackOnPostgreSQL() throws {
        let pg = try PostgresServer()
        let dir = TestSupport.temporaryDirectory("read-back-pg")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try checkReadBack(database: pg.url, directory: dir)
    }

    func checkReadBack(database: String, directory dir: String) throws {
        var sut = try SUTProcess(["--database", database], directory: dir)
        try store(sut)
        // Read back after a restart: from storage, not from the process's memory.
        XCTAssertEqual(sut.stop(), 0)
        sut = try SUTProcess(["--database", database], directory: dir)
        defer { XCTAssertEqual(sut.stop(), 0) }

        let all = try items(sut, "/api/v1/patients/701/readings")
        XCTAssertEqual(all.map { $0["readingId"] as? String }, ["h1", "h2", "h3", "bp1", "h4"])
        let h2 = try XCTUnwrap(all.first { $0["readingId"] as? String == "h2" })
        XCTAssertEqual((h2["values"] as? [String: Any])?["heart-rate"] as? Double, 75.5)
        XCTAssertEqual((h2["units"] as? [String: String])?["heart-rate"], "/min")
        XCTAssertEqual(h2["timestamp"] as? String, "2024-11-07T23:59:59.000Z")
        XCTAssertEqual(h2["deviceId"] as? String, "hr-701")
        let pressure = try XCTUnwrap(all.first { $0["readingId"] as? String == "bp1" })
        XCTAssertEqual(pressure["kind"] as? String, "blood-pressure")
        XCTAssertEqual((pressure["values"] as? [String: Any])?["diastolic"] as? Double, 84)
        XCTAssertEqual(pressure["timestamp"] as? String, "2024-11-08T07:30:00.250Z")

        let november8 = try items(
            sut,
            "/api/v1/patients/701/readings?kind=heart-rate&from=2024-11-08T00:00:00Z&to=2024-12-01T00:00:00Z"
        )
        XCTAssertEqual(
            november8.map { $0["readingId"] as? String },
            ["h3"],
            "from is inclusive, to exclusive, kind filters"
        )
        XCTAssertEqual(try items(sut, "/api/v1/patients/701/readings?kind=blood-pressure").count, 1)

        // Pages: `next` leads on until a short page.
        var ids: [String] = []
        var path = "/api/v1/patients/701/readings?limit=2"
        for _ in 0..<5 {
            let page = try object(sut, path)
            ids += ((page["items"] as? [[String: Any]]) ?? []).compactMap { $0["readingId"] as? String }
            guard let next = page["next"] as? String else { break }
            path = "/api/v1/patients/701/readings?limit=2&after=\(next)"
        }
        XCTAssertEqual(ids, ["h1", "h2", "h3", "bp1", "h4"])

        let days = try object(sut, "/api/v1/patients/701/readings/counts?by=day")["counts"] as? [[String: Any]] ?? []
        XCTAssertEqual(
            days.map { "\($0["period"] ?? "") \($0["kind"] ?? "") \($0["readings"] ?? "")" },
            [
                "2024-11-07 heart-rate 2", "2024-11-08 blood-pressure 1", "2024-11-08 heart-rate 1",
                "2024-12-01 heart-rate 1",
            ]
        )
        let months =
            try object(sut, "/api/v1/patients/701/readings/counts?by=month&kind=heart-rate")["counts"]
            as? [[String: Any]] ?? []
        XCTAssertEqual(months.map { "\($0["period"] ?? "") \($0["readings"] ?? "")" }, ["2024-11 3", "2024-12 1"])

        try checkRefusals(sut)
    }

    /// Patient 701's readings (heart rate on three days, one blood pressure) and another patient's.
    func store(_ sut: SUTProcess) throws {
        let bodies = ObservationBodies.readBack
        XCTAssertEqual(try sut.curl("POST", "/api/v1/observations", body: bodies.batch).status, 200)
        XCTAssertEqual(try sut.curl("POST", "/api/v1/observations", body: bodies.single).status, 200)
        // Another patient's reading is never listed.
        XCTAssertEqual(try sut.curl("POST", "/api/v1/observations", body: bodies.otherPatient).status, 200)
    }

    /// Bad read-back parameters are refused naming them; an unknown patient is a 404.
    func checkRefusals(_ sut: SUTProcess) throws {
        for (query, field) in [
            ("kind=pulse", "kind"), ("from=yesterday", "from"), ("limit=0", "limit"), ("after=-1", "after"),
        ] {
            let answer = try sut.curl("GET", "/api/v1/patients/701/readings?\(query)")
            XCTAssertEqual(answer.status, 400, query)
            XCTAssertEqual((SUTProcess.json(answer.body) as? [String: Any])?["field"] as? String, field, answer.body)
        }
        XCTAssertEqual(try sut.curl("GET", "/api/v1/patients/701/readings/counts?by=week").status, 400)
        XCTAssertEqual(try sut.curl("GET", "/api/v1/patients/799/readings").status, 404)
    }

    /// FHIR search over what is stored: every Bundle validates as FHIR (fhir.resources from PyPI,
    /// an independent referee), codes and dates filter, `next` pages, bad parameters are named.
    func testFHIRSearchOnStoredReadings() throws {
        let dir = TestSupport.temporaryDirectory("fhir-search")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sut = try SUTProcess(["--database", dir + "/sut.sqlite"], directory: dir)
        defer { XCTAssertEqual(sut.stop(), 0) }
        let hr = { (id: String, at: String, value: Double) in
            observationJSON(
                id: id,
                patient: "701",
                device: "hr-701",
                kind: "heart-rate",
                value: value,
                unit: "/min",
                at: at
            )
        }
        let bp =
            #"{"readingId":"bp1","patientId":"701","deviceId":"cuff-701","kind":"blood-pressure","systolic":128,"diastolic":84,"unit":"mm[Hg]","timestamp":"2024-11-08T07:30:00Z"}"#
        let battery = observationJSON(
            id: "b1",
            patient: "701",
            device: "hr-701",
            kind: "battery",
            value: 80,
            unit: "%",
            at: "2024-11-08T07:00:00Z"
        )
        let batch =
            "["
            + [hr("h1", "2024-11-07T08:00:00Z", 72), hr("h2", "2024-11-08T00:00:00Z", 80), bp, battery].joined(
                separator: ","
            ) + "]"
        XCTAssertEqual(try sut.curl("POST", "/api/v1/observations", body: batch).status, 200)

        let all = try bundle(sut, "/fhir/Observation?patient=Patient/701", directory: dir)
        let resources = (all["entry"] as? [[String: Any]] ?? []).compactMap { $0["resource"] as? [String: Any] }
        XCTAssertEqual(resources.count, 3, "the battery level is not an observation of the patient")
        let identifiers = resources.map { (($0["identifier"] as? [[String: Any]])?.first?["value"] as? String) ?? "" }
        XCTAssertEqual(identifiers, ["h1", "h2", "bp1"])
        let first = try XCTUnwrap(resources.first)
        XCTAssertEqual((first["valueQuantity"] as? [String: Any])?["value"] as? Double, 72)
        XCTAssertEqual(first["effectiveDateTime"] as? String, "2024-11-07T08:00:00.000Z")
        let panel = try XCTUnwrap(resources.last?["component"] as? [[String: Any]])
        XCTAssertEqual(panel.compactMap { ($0["valueQuantity"] as? [String: Any])?["value"] as? Double }, [128, 84])

        func ids(_ query: String) throws -> [String] {
            let bundleJSON = try bundle(sut, "/fhir/Observation?" + query, directory: dir)
            return (bundleJSON["entry"] as? [[String: Any]] ?? []).compactMap {
                (($0["resource"] as? [String: Any])?["identifier"] as? [[String: Any]])?.first?["value"] as? String
            }
        }
        XCTAssertEqual(try ids("patient=701&date=ge2024-11-08&date=lt2024-12-01"), ["h2", "bp1"])
        XCTAssertEqual(try ids("patient=701&date=2024-11-07"), ["h1"], "a day is the whole UTC day")
        XCTAssertEqual(try ids("patient=701&date=gt2024-11-08T00:00:00Z"), ["bp1"], "gt a second: after that second")
        XCTAssertEqual(try ids("patient=701&code=http://loinc.org%7C85354-9"), ["bp1"])
        XCTAssertEqual(try ids("patient=701&code=8867-4"), ["h1", "h2"])
        XCTAssertEqual(try ids("patient=799"), [], "a patient without readings: an empty Bundle")

        let page = try bundle(sut, "/fhir/Observation?patient=701&code=8867-4&_count=1", directory: dir)
        let next = try XCTUnwrap(
            (page["link"] as? [[String: Any]])?.first { $0["relation"] as? String == "next" }?["url"] as? String
        )
        let second = try bundle(sut, next, directory: dir)
        XCTAssertEqual((second["entry"] as? [[String: Any]])?.count, 1, next)

        for (query, field) in [
            ("code=8867-4", "patient"), ("patient=701&code=1234-5", "code"), ("patient=701&date=yesterday", "date"),
        ] {
            let answer = try sut.curl("GET", "/fhir/Observation?" + query)
            XCTAssertEqual(answer.status, 400, query)
            let issue = ((SUTProcess.json(answer.body) as? [String: Any])?["issue"] as? [[String: Any]])?.first
            XCTAssertEqual((issue?["expression"] as? [String])?.first, field, answer.body)
        }
    }

    /// A searchset Bundle, validated as FHIR R4B by fhir.resources.
    func bundle(_ sut: SUTProcess, _ path: String, directory: String) throws -> [String: Any] {
        let answer = try sut.curl("GET", path)
        XCTAssertEqual(answer.status, 200, path + ": " + answer.body)
        let file = TestSupport.write(answer.body, to: directory, name: "bundle.json")
        let check = try TestSupport.run(
            try Self.fhirPython(),
            [
                "-c",
                "import sys; from fhir.resources.R4B.bundle import Bundle; Bundle.model_validate_json(open(sys.argv[1]).read())",
                file,
            ]
        )
        XCTAssertEqual(check.status, 0, path + ": " + check.err)
        return SUTProcess.json(answer.body) as? [String: Any] ?? [:]
    }

    /// `.venv-test/bin/python` with fhir.resources (pinned), installed when missing.
    static func fhirPython() throws -> String {
        let python = TestSupport.repositoryRoot + "/.venv-test/bin/python"
        if try TestSupport.run(python, ["-c", "import fhir.resources"]).status != 0 {
            let pip = try TestSupport.run(
                TestSupport.repositoryRoot + "/.venv-test/bin/pip",
                ["install", "-q", "fhir.resources==8.1.0"]
            )
            guard pip.status == 0 else { throw XCTSkip("fhir.resources could not be installed: \(pip.err)") }
        }
        return python
    }

    func object(_ sut: SUTProcess, _ path: String) throws -> [String: Any] {
        let answer = try sut.curl("GET", path)
        XCTAssertEqual(answer.status, 200, path + ": " + answer.body)
        return SUTProcess.json(answer.body) as? [String: Any] ?? [:]
    }

    func items(_ sut: SUTProcess, _ path: String) throws -> [[String: Any]] {
        try object(sut, path)["items"] as? [[String: Any]] ?? []
    }
}
