import Foundation
import Judge
import RunRecord
import SUTAdapter
import Testing
import Transports
import XCTest

/// JSON Pointers, field transforms, alert lists and the rule/severity mapping.
final class AlertMappingTests: XCTestCase {
    func json(_ text: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
    }

    func pointer(_ text: String) throws -> JSONPointer { try JSONPointer(text) }

    func testPointerFollowsRFC6901AndCollectsWildcards() throws {
        let doc = try json(#"{"a/b": {"m~n": [10, 20]}, "list": [{"x": 1}, {"x": 2}, {"y": 3}], "*": "star", "": 0}"#)
        XCTAssertEqual(try pointer("/a~1b/m~0n/1").value(in: doc) as? Int, 20)
        XCTAssertNil(try pointer("/a~1b/m~0n/01").value(in: doc), "a leading zero is not an index")
        XCTAssertNil(try pointer("/a~1b/m~0n/2").value(in: doc))
        XCTAssertEqual(try pointer("/list/*/x").values(in: doc).compactMap { $0 as? Int }, [1, 2])
        XCTAssertEqual(try pointer("/*").value(in: doc) as? String, "star", "on an object * is a member name")
        XCTAssertEqual(try pointer("/").value(in: doc) as? Int, 0, "'/' is the member named ''")
        XCTAssertEqual(JSONPointer(tokens: ["a/b", "m~n"]).description, "/a~1b/m~0n")
        XCTAssertThrowsError(try JSONPointer("a"))
        XCTAssertThrowsError(try JSONPointer("/a~"))
    }

    func testTheReferenceContractReadsAsItIs() throws {
        let item = try json(
            #"{"alertId":"a1","patientId":"501","rule":"hr.tachycardia","severity":"medium","raisedAt":"2024-11-07T10:00:00Z","evidence":["r1","r2"]}"#
        )
        let alert = try AlertFields.vitalsim.read(item, mapping: .init()).get()
        XCTAssertEqual(
            alert,
            ObservedAlert(
                alertID: "a1",
                patientID: "501",
                rule: "hr.tachycardia",
                severity: "medium",
                raisedAt: 1_730_973_600_000,
                evidence: ["r1", "r2"]
            )
        )
        XCTAssertNil(alert.unmapped)
    }

    /// The issue's example backend: `{"items":[{id, patient_id, type, level, created_at}]}`, its own names.
    func testAnotherShapeWithItsOwnNamesMapsToVitalSims() throws {
        var fields = AlertFields(
            id: FieldSpec(try pointer("/id")),
            patient: FieldSpec(try pointer("/patient_id"), stripPrefix: "Patient/"),
            rule: FieldSpec(try pointer("/type")),
            severity: FieldSpec(try pointer("/level"), values: ["H": "HIGH"]),
            raisedAt: FieldSpec(try pointer("/created_at")),
            evidence: nil
        )
        fields.timeFormat = .unixSeconds
        let mapping = SUTProfile.NameMapping(rules: ["HIGH_BP": "bp.hypertensive-crisis"], severities: ["HIGH": "high"])
        let source = AlertSource(url: "/v2/alerts", list: try pointer("/items"), fields: fields)
        let doc = try json(
            #"{"items":[{"id":17,"patient_id":"Patient/507","type":"HIGH_BP","level":"H","created_at":1730973600.5},{"id":18,"patient_id":"507","type":"LOW_SPO2","level":"LOW","created_at":1730973601}]}"#
        )
        let items = try XCTUnwrap(source.items(in: doc))
        let first = try fields.read(items[0], mapping: mapping).get()
        XCTAssertEqual(first.alertID, "17", "a numeric id reads as its decimal text")
        XCTAssertEqual(first.patientID, "507")
        XCTAssertEqual(first.rule, "bp.hypertensive-crisis")
        XCTAssertEqual(first.severity, "high")
        XCTAssertEqual(first.raisedAt, 1_730_973_600_500)
        XCTAssertNil(first.unmapped)
        let second = try fields.read(items[1], mapping: mapping).get()
        XCTAssertEqual(second.unmapped, "rule 'LOW_SPO2' and severity 'LOW'")
        XCTAssertEqual(second.rule, "LOW_SPO2", "an unmapped name stays the SUT's own")
    }

    func testFHIRDetectedIssueBundleWithPaging() throws {
        let fields = AlertFields(
            id: FieldSpec(try pointer("/id")),
            patient: FieldSpec(try pointer("/patient/reference"), stripPrefix: "Patient/"),
            rule: FieldSpec(try pointer("/code/coding/0/code")),
            severity: FieldSpec(try pointer("/severity")),
            raisedAt: FieldSpec(try pointer("/identifiedDateTime")),
            evidence: FieldSpec(try pointer("/evidence/*/detail/*/reference"), stripPrefix: "Observation/")
        )
        let source = AlertSource(
            url: "/fhir/DetectedIssue",
            list: try pointer("/entry/*/resource"),
            paging: .fhirBundle,
            fields: fields
        )
        let page = try json(
            #"{"resourceType":"Bundle","type":"searchset","link":[{"relation":"self","url":"/fhir/DetectedIssue"},{"relation":"next","url":"/fhir/DetectedIssue?_offset=1"}],"entry":[{"resource":{"resourceType":"DetectedIssue","id":"d1","code":{"coding":[{"code":"spo2.low"}]},"severity":"moderate","patient":{"reference":"Patient/502"},"identifiedDateTime":"2024-11-07T10:00:00.250Z","evidence":[{"detail":[{"reference":"Observation/r1"},{"reference":"Observation/r2"}]},{"detail":[{"reference":"Observation/r3"}]}]}}]}"#
        )
        let items = try XCTUnwrap(source.items(in: page))
        XCTAssertEqual(items.count, 1)
        let alert = try fields.read(items[0], mapping: .init(severities: ["moderate": "medium"])).get()
        XCTAssertEqual(alert.evidence, ["r1", "r2", "r3"])
        XCTAssertEqual(alert.severity, "medium")
        XCTAssertEqual(alert.patientID, "502")
        XCTAssertEqual(
            source.nextPage(page, base: "https://127.0.0.1:8443/"),
            "https://127.0.0.1:8443/fhir/DetectedIssue?_offset=1"
        )
        // An empty searchset has no entry: an empty list, not a missing one.
        XCTAssertEqual(source.items(in: try json(#"{"resourceType":"Bundle","type":"searchset","total":0}"#))?.count, 0)
        XCTAssertNil(
            source.items(in: try json(#"{"resourceType":"OperationOutcome"}"#)),
            "no list where the profile points"
        )
        XCTAssertNil(
            source.nextPage(try json(#"{"resourceType":"Bundle","link":[{"relation":"self","url":"x"}]}"#), base: "")
        )
        // A searchset's outcome entry (a parameter the server ignored) is what it said, not an alert.
        let withOutcome =
            #"{"resourceType":"Bundle","type":"searchset","entry":[{"resource":{"resourceType":"OperationOutcome","issue":[{"severity":"warning","code":"not-supported","diagnostics":"_count ignored"}]},"search":{"mode":"outcome"}}]}"#
        let list = try AlertList.read(
            HTTPReply(status: 200, body: Array(withOutcome.utf8)),
            url: "/fhir/DetectedIssue",
            source: source
        ).get()
        XCTAssertEqual(list.alerts.count, 0)
        XCTAssertEqual(list.unreadable, 0)
        XCTAssertEqual(list.outcomes, ["warning not-supported: _count ignored"])
    }
}

/// Alert list items the profile's fields cannot read, one test case each: the reason names the
/// field, the pointer it was read at, and what is wrong with it.
struct UnreadableAlertItemTests {
    static let items: [(String, String)] = [
        (
            #"{"id":"a","rule":"r","severity":"high","raisedAt":"2024-11-07T10:00:00Z"}"#,
            "it has no patientId (at /who)"
        ),
        (
            #"{"id":true,"who":"1","rule":"r","severity":"high","raisedAt":"2024-11-07T10:00:00Z"}"#,
            "its alertId (at /id) is not a non-empty string or number"
        ),
        (
            #"{"id":"a","who":"1","rule":{"x":1},"severity":"high","raisedAt":"2024-11-07T10:00:00Z"}"#,
            "its rule is not a non-empty string or number"
        ),
        (
            #"{"id":"a","who":"1","rule":"r","severity":"high","raisedAt":"yesterday"}"#,
            "its raisedAt 'yesterday' is not an RFC 3339 time stamp"
        ),
        (
            #"{"id":"a","who":"1","rule":"r","severity":"high","raisedAt":"2024-11-07T10:00:00Z","evidence":"r1"}"#,
            "its evidence is not an array of reading ids"
        ),
    ]

    @Test(arguments: items)
    func anUnreadableItemSaysWhatIsWrongAndWhere(_ text: String, _ expected: String) throws {
        let fields = AlertFields(
            id: FieldSpec(try JSONPointer("/id")),
            patient: FieldSpec(try JSONPointer("/who")),
            rule: FieldSpec(try JSONPointer("/rule")),
            severity: FieldSpec(try JSONPointer("/severity")),
            raisedAt: FieldSpec(try JSONPointer("/raisedAt")),
            evidence: FieldSpec(try JSONPointer("/evidence"))
        )
        let item = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
        switch fields.read(item, mapping: .init()) {
        case .success: Issue.record("\(text) was read")
        case .failure(let error): #expect(error.reason == expected)
        }
    }
}
