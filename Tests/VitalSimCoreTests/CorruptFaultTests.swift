import VitalSimCore
import XCTest

/// Which corruptions a `corrupt` fault may take depends on what its device sends: GATT bytes (a
/// Bluetooth device over BLE or MQTT), JSON (a phone bridge, a feeding log, any device over HTTPS).
final class CorruptFaultTests: XCTestCase {
    func scenario(_ device: String, corruption: String?) -> String {
        """
        name: corrupt
        duration: 2h
        patients:
          - id: "501"
            profile: adult
            devices:
              - \(device)
        timeline:
          - at: 10m
            fault: corrupt
            device: d
            duration: 20m
        \(corruption.map { "    corruption: \($0)" } ?? "")
        """
    }

    func corruption(_ device: String, _ c: String? = nil) throws -> Corruption? {
        let s = try ScenarioLoader.parse(scenario(device, corruption: c), file: "c.yaml")
        for case let .fault(f) in s.timeline { return f.corruption }
        return nil
    }

    func issue(_ device: String, _ c: String) -> String {
        do {
            _ = try ScenarioLoader.parse(scenario(device, corruption: c), file: "c.yaml")
            return ""
        } catch { return error.issues.map { "\($0.field): \($0.message)" }.joined(separator: "\n") }
    }

    static let phone = "{id: d, type: phone-bridge, cadence: 5m}"
    static let strap = "{id: d, type: heart-rate-strap}"
    static let relayedCuff = "{id: d, type: bp-cuff, transport: https}"

    func testAPhoneBridgeTakesEveryJSONFormInTurnByDefault() throws {
        XCTAssertEqual(try corruption(Self.phone), .mixed)
        for form in Corruption.jsonForms { XCTAssertEqual(try corruption(Self.phone, form.rawValue), form) }
        let refused = issue(Self.phone, "bad-crc")
        XCTAssertTrue(
            refused.contains("timeline[0].corruption") && refused.contains("sending JSON over https"),
            refused
        )
        XCTAssertTrue(
            refused.contains("wrong-type") && !refused.contains("bad-flags"),
            "lists the JSON forms only: \(refused)"
        )
    }

    /// A phone bridge's other fields (the VitalEdge SDS §3.3.1): only a phone bridge takes those forms.
    func testOnlyAPhoneBridgeTakesTheUserIdAndCaloriesForms() throws {
        XCTAssertEqual(try corruption(Self.phone, "bad-user-id"), .badUserID)
        XCTAssertEqual(try corruption(Self.phone, "bad-calories"), .badCalories)
        let refused = issue(Self.relayedCuff, "bad-calories")
        XCTAssertTrue(refused.contains("bad-calories does not apply"), refused)
        XCTAssertTrue(issue("{id: d, type: respiration-monitor}", "bad-user-id").contains("does not apply"))
    }

    func testGATTDevicesTakeTheGATTFormsAndRelayedOnesBoth() throws {
        XCTAssertEqual(try corruption(Self.strap), .truncation, "the GATT default is unchanged")
        XCTAssertEqual(try corruption("{id: d, type: cgm}"), .badCRC)
        let refused = issue(Self.strap, "wrong-type")
        XCTAssertTrue(refused.contains("sending GATT bytes over ble") && refused.contains("bad-flags"), refused)
        XCTAssertTrue(issue("{id: d, type: heart-rate-strap, transport: mqtt}", "missing-field").contains("over mqtt"))
        XCTAssertEqual(try corruption(Self.relayedCuff, "missing-field"), .missingField)
        XCTAssertEqual(try corruption(Self.relayedCuff, "bad-flags"), .badFlags)
        XCTAssertTrue(issue(Self.relayedCuff, "bad-crc").contains("bad-crc does not apply"), "bad-crc needs an E2E-CRC")
    }
}
