import SUTAdapter
import Transports
import XCTest

/// `mqtt.device-credentials: user-properties`: a message carries its device's credential header as
/// MQTT 5 user properties, the name in lower case, looked up under the ids at the SUT first.
final class DeviceCredentialPropertiesTests: XCTestCase {
    func auth(header: String) -> RequestAuth {
        var auth = SUTProfile.Auth()
        auth.devices = DeviceCredentials(
            file: "keys.yaml",
            header: header,
            tokens: ["501/hr-501": "t-501", "run-501/run-hr": "t-wire"],
            readers: []
        )
        return RequestAuth(auth, base: "", client: HTTPMultiClient())
    }

    func testTheDeviceHeaderBecomesUserProperties() {
        let bearer = auth(header: "Authorization: Bearer {token}")
        let properties = bearer.deviceProperties(patient: "501", device: "hr-501")
        XCTAssertEqual(properties?.map(\.name), ["authorization"])
        XCTAssertEqual(properties?.map(\.value), ["Bearer t-501"])
        let key = auth(header: "X-API-Key: {token}").deviceProperties(patient: "501", device: "hr-501")
        XCTAssertEqual(key?.map(\.name), ["x-api-key"])
        XCTAssertEqual(key?.map(\.value), ["t-501"])
    }

    func testIdsAtTheSUTComeFirstAndAnUnknownDeviceHasNone() {
        let held = auth(header: "Authorization: Bearer {token}")
        XCTAssertEqual(
            held.deviceProperties(patient: "501", device: "hr-501", wire: ("run-501", "run-hr"))?.first?.value,
            "Bearer t-wire"
        )
        XCTAssertEqual(
            held.deviceProperties(patient: "501", device: "hr-501", wire: ("run-9", "x"))?.first?.value,
            "Bearer t-501"
        )
        XCTAssertNil(held.deviceProperties(patient: "502", device: "hr-502"))
    }
}
