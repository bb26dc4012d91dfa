import Foundation
import Judge
import RunRecord
import SUTAdapter
import Traffic
import VitalSimCore
import XCTest

/// The `stored-readings:` section: where stored readings are read back, every mistake named.
final class StoredReadingsLoaderTests: XCTestCase {
    func parse(_ section: String) throws(ScenarioLoadError) -> SUTProfile {
        try SUTProfileLoader.parse("name: acme\n" + section, file: "/tmp/p.yaml", environment: [:])
    }

    func problem(_ section: String) -> String {
        do throws(ScenarioLoadError) {
            _ = try parse(section)
            return "loaded"
        } catch { return error.description }
    }

    let acme = """
        stored-readings:
          url: https://127.0.0.1:9443/v2/patients/{patient}/vitals
          list: /data
          paging: {next: /links/next}
          time-format: unix-s
          fields:
            time: /taken_at
            values: /measurements
            units: /units
            names: {sys: systolic, dia: diastolic, bg: glucose}
          counts:
            url: /v2/patients/{patient}/vitals/summary?granularity={by}
            list: /buckets
            period: /bucket
            count: /n
        """

    func testAForeignShapeIsRead() throws {
        let profile = try parse(acme)
        let source = try XCTUnwrap(profile.storedReadings)
        XCTAssertNil(source.fields.id, "no id: readings are matched by kind and time")
        XCTAssertEqual(source.paging, .next(try JSONPointer("/links/next")))
        let item: [String: Any] = [
            "taken_at": 1_730_973_600.5, "measurements": ["bg": 5.6, "note": 1], "units": ["bg": "mmol/L"],
        ]
        let reading = try XCTUnwrap(source.read(item).reading)
        XCTAssertEqual(
            reading,
            StoredReading(id: nil, time: 1_730_973_600_500, values: [.glucose: 5.6], units: [.glucose: "mmol/L"])
        )
        XCTAssertEqual(
            StoredReadingsSource.url(source.url, patient: "run 1/501", base: "https://127.0.0.1:9443"),
            "https://127.0.0.1:9443/v2/patients/run%201%2F501/vitals"
        )
        let counts: [String: Any] = ["buckets": [["bucket": "2024-11-07", "n": 3], ["bucket": "2024-11-07", "n": 2]]]
        XCTAssertEqual(try source.counted(in: counts).get(), ["2024-11-07": 5], "a period's kinds are added up")
    }

    func testUnreadableItemsSayWhy() throws {
        let source = try XCTUnwrap(try parse(acme).storedReadings)
        let noTime: [String: Any] = ["measurements": ["sys": 150]]
        XCTAssertEqual(source.read(noTime).unreadable, "it has no time (at /taken_at)")
        let text: [String: Any] = ["taken_at": 1, "measurements": ["sys": "150"]]
        XCTAssertEqual(source.read(text).unreadable, "its value sys '150' is not a number")
        XCTAssertEqual(
            source.counted(in: ["buckets": [["bucket": "2024-11-07", "n": 2.5]]]).failureReason,
            "an item of 2024-11-07 has no whole count at /n"
        )
    }

    func testTheCursorIsPassedBackAsAQueryParameter() throws {
        let source = try XCTUnwrap(SUTProfile.vitalsim.storedReadings)
        let page: [String: Any] = ["items": [], "next": "1000"]
        let url = "https://127.0.0.1:8443/api/v1/patients/501/readings?limit=1000"
        XCTAssertEqual(source.paging.next(page, current: url, base: ""), url + "&after=1000")
        XCTAssertEqual(
            source.paging.next(["items": [], "next": "2000"], current: url + "&after=1000", base: ""),
            url + "&after=2000"
        )
        XCTAssertNil(source.paging.next(["items": [], "next": NSNull()], current: url, base: ""))
    }

    func testMistakesAreNamedWithTheirLine() {
        let url = problem("stored-readings:\n  url: /v2/vitals\n  fields: {time: /t, values: /v}\n")
        XCTAssertTrue(url.contains("/tmp/p.yaml:3:"), url)
        XCTAssertTrue(
            url.contains(
                "stored-readings.url: the URL must name the patient: put {patient} where the patient's id goes"
            ),
            url
        )
        XCTAssertTrue(
            problem("stored-readings:\n  url: /p/{patient}\n  fields: {time: /t}\n").contains(
                "required key 'values' is missing"
            ),
            problem("stored-readings:\n  url: /p/{patient}\n  fields: {time: /t}\n")
        )
        let names = problem(
            "stored-readings:\n  url: /p/{patient}\n  fields: {time: /t, values: /v, names: {bp: blood-pressure}}\n"
        )
        XCTAssertTrue(
            names.contains(
                "stored-readings.fields.names.bp: 'blood-pressure' is not a VitalSim signal; valid: heart-rate"
            ),
            names
        )
        let counts = problem(
            "stored-readings:\n  url: /p/{patient}\n  fields: {time: /t, values: /v}\n  counts: {url: \"/c/{patient}\", period: /p, count: /n}\n"
        )
        XCTAssertTrue(
            counts.contains(
                "stored-readings.counts.url: the URL must name the period: put {by} where day or month goes"
            ),
            counts
        )
        let cursor = problem(
            "stored-readings:\n  url: /p/{patient}\n  paging: {cursor: /next}\n  fields: {time: /t, values: /v}\n"
        )
        XCTAssertTrue(cursor.contains("/tmp/p.yaml:4:"), cursor)
        XCTAssertTrue(cursor.contains("a cursor needs the query parameter it is passed back in"), cursor)
        XCTAssertTrue(
            problem("stored-readings:\n  url: /p/{patient}\n  fields: {time: /t, values: /v}\n  extra: 1\n").contains(
                "extra"
            )
        )
    }
}

extension Result {
    /// The reason of a failure to read, nil on success.
    var failureReason: String? {
        guard case .failure(let failure) = self else { return nil }
        return (failure as? UnreadableAlert)?.reason ?? "\(failure)"
    }
}

extension StoredReadingsSource.Item {
    /// The reading read, nil otherwise.
    var reading: StoredReading? {
        guard case .reading(let reading) = self else { return nil }
        return reading
    }

    /// Why the item cannot be read, nil otherwise.
    var unreadable: String? {
        guard case .unreadable(_, let why) = self else { return nil }
        return why.reason
    }
}

extension Result where Success == FHIRStoredValues.Read {
    /// The values read, nil when the resource is not a reading or cannot be read.
    var values: [Signal: Double]? {
        guard case .success(.values(let values, _)) = self else { return nil }
        return values
    }
}

/// Stored FHIR Observations read by LOINC code (`fields.values: fhir`).
final class FHIRStoredValuesTests: XCTestCase {
    func json(_ text: String) throws -> Any { try JSONSerialization.jsonObject(with: Data(text.utf8)) }

    func testAPanelsComponentsAndAQuantitysUnit() throws {
        let bp = try json(
            """
            {"resourceType": "Observation", "identifier": [{"value": "507/cuff/3"}], "effectiveDateTime": "2024-11-07T10:00:00Z",
             "code": {"coding": [{"system": "http://loinc.org", "code": "85354-9"}]},
             "component": [
               {"code": {"coding": [{"system": "http://loinc.org", "code": "8480-6"}]}, "valueQuantity": {"value": 182, "code": "mm[Hg]"}},
               {"code": {"coding": [{"system": "http://loinc.org", "code": "8462-4"}]}, "valueQuantity": {"value": 121, "unit": "mmHg"}},
               {"code": {"coding": [{"system": "urn:iso:std:iso:11073:10101", "code": "147240"}]}, "valueQuantity": {"value": 800}}]}
            """
        )
        XCTAssertEqual(
            FHIRStoredValues.read(bp).values,
            [.systolic: 182, .diastolic: 121],
            "the panel has no value; an RR interval is no vital sign"
        )
        guard case .success(.values(_, let units)) = FHIRStoredValues.read(bp) else { return XCTFail("unread") }
        XCTAssertEqual(units, [.systolic: "mm[Hg]", .diastolic: "mmHg"])
        var source = try XCTUnwrap(SUTProfile.vitalsim.storedReadings)
        source.fields = StoredReadingsSource.Fields(
            id: FieldSpec(try JSONPointer("/identifier/0/value")),
            time: FieldSpec(try JSONPointer("/effectiveDateTime")),
            values: .fhir
        )
        let reading = try XCTUnwrap(source.read(bp).reading)
        XCTAssertEqual(reading.id, "507/cuff/3")
        XCTAssertEqual(reading.time, 1_730_973_600_000)
        let glucose = try json(
            """
            {"resourceType": "Observation", "code": {"coding": [{"system": "http://snomed.info/sct", "code": "1"},
             {"system": "http://loinc.org", "code": "15074-8"}]}, "valueQuantity": {"value": 3.1, "code": "mmol/L"}}
            """
        )
        XCTAssertEqual(FHIRStoredValues.read(glucose).values, [.glucose: 3.1])
    }

    func testWhatCannotBeReadAndWhatIsNoReading() throws {
        XCTAssertEqual(
            FHIRStoredValues.read(try json(#"{"resourceType": "Flag"}"#)).failureReason,
            "it is not a FHIR Observation"
        )
        let unknown = try json(
            #"{"resourceType": "Observation", "code": {"coding": [{"code": "0000-0"}]}, "valueQuantity": {"value": 1}}"#
        )
        XCTAssertEqual(
            try FHIRStoredValues.read(unknown).get(),
            .notAReading("an Observation of a code VitalSim does not send (http://loinc.org|0000-0)")
        )
        let outcome = try json(#"{"resourceType": "OperationOutcome", "issue": []}"#)
        XCTAssertEqual(try FHIRStoredValues.read(outcome).get(), .notAReading("an OperationOutcome of the searchset"))
        let text = try json(
            #"{"resourceType": "Observation", "code": {"coding": [{"code": "8867-4"}]}, "valueQuantity": {"value": "72"}}"#
        )
        XCTAssertEqual(FHIRStoredValues.read(text).failureReason, "its heart-rate valueQuantity has no numeric value")
    }

    /// Every reading VitalSim sends in FHIR form reads back as the values the judge expects of it.
    func testEveryKindVitalSimSendsReadsBack() throws {
        let start: Int64 = 1_730_937_600_000
        let ecg = { (classification: ECGClassification) in
            VitalSimCore.Measurement.ecg(
                ECGRecording(
                    classification: classification,
                    averageHeartRate: 118,
                    samplingFrequency: 512,
                    microvolts: [0, 5, -5],
                    symptomatic: false,
                    beats: []
                )
            )
        }
        let measurements: [VitalSimCore.Measurement] = [
            .battery(percent: 63), .feeding(mL: 90), .breastfeeding(minutes: 12),
            .equipment(.oxygen, setting: 0.5, action: .adjusted), .equipment(.ngTube, setting: 6, action: .replaced),
            .equipment(.feedingPump, setting: 25, action: .inUse), .symptom(.chestPain, severity: .severe),
            .dailySummary(steps: 4200, calories: 1800),
            .heartRate(bpm: 71, rrIntervals: [800], energyExpended: nil, contact: .detected),
            .bloodPressure(systolic: 150, diastolic: 95, meanArterial: 113, pulse: 70, status: 0),
            ecg(.atrialFibrillation), ecg(.sinusRhythm), ecg(.inconclusivePoorReading),
        ]
        for (i, m) in measurements.enumerated() {
            let reading = Reading(
                source: DeviceIdentity(patientID: "p", deviceID: "d", deviceType: .ecgWatch),
                seq: UInt32(i),
                measuredAt: 0,
                deviceTime: 0,
                intendedEmitTime: 0,
                measurement: m,
                truth: 0
            )
            let body = try XCTUnwrap(FHIRObservationJSON.encode(reading, start: start)).serialized()
            let read = FHIRStoredValues.read(try json(body))
            var expected = try XCTUnwrap(StoredDataExpectations.values(m))
            if case .dailySummary = m { expected[Signal.calories] = nil }
            XCTAssertEqual(read.values, expected, "\(m)")
        }
    }

    func testTheShippedFHIRProfileReadsBackByFHIRSearch() throws {
        let path = SUTProfileLoaderTests.repository.appendingPathComponent("profiles/fhir-r4.yaml").path
        let source = try XCTUnwrap(try SUTProfileLoader.load(path: path, environment: [:]).storedReadings)
        XCTAssertEqual(source.fields.values, .fhir)
        XCTAssertEqual(source.paging, .fhirBundle)
        XCTAssertEqual(source.kinds?.contains(.battery), false, "battery levels are not Observations there")
        XCTAssertNotNil(source.counts)
        XCTAssertTrue(
            problem("stored-readings:\n  url: /p/{patient}\n  fields: {time: /t, values: fhir, units: /u}\n").contains(
                "a FHIR Observation names its values by LOINC code and its units itself: remove units"
            )
        )
    }

    func problem(_ section: String) -> String {
        do throws(ScenarioLoadError) {
            _ = try SUTProfileLoader.parse("name: acme\n" + section, file: "/tmp/p.yaml", environment: [:])
            return "loaded"
        } catch { return error.description }
    }
}

/// `stored-readings.by-period`, `by-kind` and `kind-names`: narrowed read-backs.
final class NarrowedReadBackLoaderTests: XCTestCase {
    func load(_ extra: String) -> Result<SUTProfile, ScenarioLoadError> {
        let text = """
            name: acme
            stored-readings:
              url: /v2/patients/{patient}/vitals
              fields: {time: /t, values: /v}
            \(extra)
            """
        do throws(ScenarioLoadError) {
            return .success(try SUTProfileLoader.parse(text, file: "/tmp/p.yaml", environment: [:]))
        } catch { return .failure(error) }
    }

    func testTheQueriesFillTheirPlaceholders() throws {
        let profile = try load(
            """
              by-period: /v2/patients/{patient}/vitals?date=ge{from}&date=lt{to}
              by-kind: /v2/patients/{patient}/vitals?code={kind}
              kind-names: {heart-rate: "http://loinc.org|8867-4"}
            """
        ).get()
        let source = try XCTUnwrap(profile.storedReadings)
        let base = "https://127.0.0.1:9443"
        XCTAssertEqual(
            source.url(of: .period(from: 1_730_419_200_000, to: 1_733_011_200_000), patient: "p 1", base: base),
            "https://127.0.0.1:9443/v2/patients/p%201/vitals?date=ge2024-11-01T00:00:00Z&date=lt2024-12-01T00:00:00Z"
        )
        XCTAssertEqual(
            source.url(of: .kind(.heartRate), patient: "501", base: base),
            "https://127.0.0.1:9443/v2/patients/501/vitals?code=http://loinc.org%7C8867-4"
        )
        XCTAssertEqual(
            source.url(of: .kind(.glucose), patient: "501", base: base),
            "https://127.0.0.1:9443/v2/patients/501/vitals?code=glucose",
            "a kind not named goes as VitalSim's"
        )
        XCTAssertNil(try load("").get().storedReadings?.url(of: .kind(.glucose), patient: "501", base: base))
    }

    func testMistakesAreNamedWithTheirLine() {
        let cases: [(String, String)] = [
            ("  by-period: /v2/patients/{patient}/vitals?from={from}", "the URL must carry {to}"),
            ("  by-kind: /v2/vitals?kind={kind}", "put {patient} where the patient's id goes"),
            ("  by-kind: /v2/patients/{patient}/vitals\n", "the URL must carry {kind}"),
            ("  by-kind: /p/{patient}?k={kind}\n  kind-names: {pulse: hr}", "'pulse' is not a VitalSim reading kind"),
            ("  kind-names: {heart-rate: hr}", "kind-names needs by-kind"),
        ]
        for (extra, expected) in cases {
            switch load(extra) {
            case .success: XCTFail("loaded: \(extra)")
            case .failure(let error):
                XCTAssertTrue(error.description.contains(expected), "\(extra): \(error.description)")
                XCTAssertTrue(error.description.contains("p.yaml:"), error.description)
            }
        }
    }
}
