import Judge
import RunRecord
import Traffic
import XCTest

/// The broker's PUBACK is not the SUT's word: a reading is delivered over MQTT when the SUT confirms
/// or rejects it (where it publishes confirmations), and what the broker dropped is a loss.
final class MQTTDeliveryTests: XCTestCase {
    func delivery(
        acknowledged: Int = 10,
        confirmed: Int,
        rejected: Int = 0,
        sutConfirms: Bool = true,
        dropped: Int? = 0
    ) -> MQTTDelivery {
        var mqttDelivery = MQTTDelivery()
        mqttDelivery.acknowledged = acknowledged
        mqttDelivery.confirmed = confirmed
        mqttDelivery.rejected = rejected
        mqttDelivery.unconfirmedCount = sutConfirms ? acknowledged - confirmed - rejected : 0
        mqttDelivery.unconfirmed = (0..<min(mqttDelivery.unconfirmedCount, MQTTDelivery.namedLimit)).map {
            "1/hr/\($0)"
        }
        mqttDelivery.sutConfirms = sutConfirms
        mqttDelivery.brokerDropped = dropped
        return mqttDelivery
    }

    func testEveryReadingConfirmedOrRejectedPasses() {
        let check = IngestionArea().mqttDeliveryCheck(delivery(confirmed: 8, rejected: 2))
        XCTAssertNil(check.finding)
        XCTAssertEqual(check.kind, .delivery)
        XCTAssertTrue(check.detail.contains("the SUT confirmed 8 and refused 2"), check.detail)
        XCTAssertTrue(check.detail.contains("the broker dropped 0 message(s)"), check.detail)
    }

    func testAReadingTheSUTNeverConfirmedIsLost() {
        let check = IngestionArea().mqttDeliveryCheck(delivery(acknowledged: 20, confirmed: 12, dropped: nil))
        XCTAssertEqual(check.finding, .lost)
        XCTAssertTrue(
            check.detail.hasPrefix("8 reading(s) acknowledged by the broker were never confirmed"),
            check.detail
        )
        XCTAssertTrue(check.detail.contains("1/hr/0, 1/hr/1, 1/hr/2, 1/hr/3, 1/hr/4, …"), check.detail)
        XCTAssertFalse(check.detail.contains("dropped"), "no counter, no claim: \(check.detail)")
    }

    func testWithoutConfirmationsOnlyTheBrokersDropsCount() {
        let word = IngestionArea().mqttDeliveryCheck(delivery(confirmed: 0, sutConfirms: false))
        XCTAssertNil(word.finding)
        XCTAssertTrue(word.detail.contains("count as delivered on the broker's word"), word.detail)
        let dropped = IngestionArea().mqttDeliveryCheck(delivery(confirmed: 0, sutConfirms: false, dropped: 3))
        XCTAssertEqual(dropped.finding, .lost)
        XCTAssertTrue(
            dropped.detail.contains("the broker dropped 3 message(s) ($SYS/broker/publish/messages/dropped"),
            dropped.detail
        )
    }

    /// The verdict's headline counts follow the SUT: an unconfirmed reading failed.
    func testTheVerdictCountsUnconfirmedReadingsAsFailed() {
        let plan = (0..<4).map { i in
            SentRequest(
                PlannedRequest(
                    path: "",
                    body: [],
                    readings: [("1/hr/\(i)", 0)],
                    patientID: "1",
                    sendAt: 0,
                    expectedRejection: nil,
                    topic: "vitals/1/heart-rate"
                )
            )
        }
        var result = JudgeFixtures.result([], outcomes: Array(repeating: RequestOutcome(status: 200), count: 4))
        result.traffic.mqtt = delivery(acknowledged: 4, confirmed: 3)
        let golden = JudgeFixtures.golden()
        let verdict = Verdict(scenario: "s", golden: golden, plan: plan, digest: "sha256:x", result: result)
        XCTAssertEqual(verdict.checks.compactMap(\.finding), [.lost])
        XCTAssertEqual(verdict.acknowledged, 3)
        XCTAssertEqual(verdict.failed, 1)
    }
}
