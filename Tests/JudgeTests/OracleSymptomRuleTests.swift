import Judge
import VitalSimCore
import XCTest

/// The oracle's symptom rules, derived without the reference SUT: red flags on every chest-pain
/// or fainting report, escalation on a worse report of the same symptom within 24 h.
final class OracleSymptomRuleTests: XCTestCase {
    let hour: Int64 = 3_600_000

    func judge(_ id: String, _ reports: [(Signal, Double, Int64)]) throws -> [Int64] {
        let rule = try XCTUnwrap(Oracle.windowedRules.first { $0.id == id })
        let samples = reports.enumerated().map { i, r in
            Oracle.Sample(time: r.2, values: [r.0: r.1], id: "p/diary/\(i)", device: "diary")
        }
        return Oracle.judge(rule, "p", samples, end: (samples.last?.time ?? 0) + hour).map(\.raisedAt)
    }

    func testRedFlags() throws {
        XCTAssertEqual(
            try judge(
                "symptom.red-flag",
                [(.chestPain, 1, 0), (.chestPain, 1, hour), (.palpitations, 3, 2 * hour), (.fainting, 2, 3 * hour)]
            ),
            [0, hour, 3 * hour]
        )
    }

    func testECGClassifiedAFOncePerEpisode() throws {
        let rule = try XCTUnwrap(Oracle.rules.first { $0.id == "ecg.af-classified" })
        let rhythm: [Double?] = [0, 1, 1, nil, 1, 0, 1]
        let samples = rhythm.enumerated().map { i, af in
            var values: [Signal: Double] = [.ecgHeartRate: 100]
            values[.ecgAF] = af
            return Oracle.Sample(time: Int64(i) * hour, values: values, id: "p/w/\(i)", device: "w")
        }
        XCTAssertEqual(
            Oracle.judge(rule, "p", samples).map(\.raisedAt),
            [hour, 6 * hour],
            "inconclusive (nil) does not re-arm"
        )
    }

    func testEscalation() throws {
        let reports: [(Signal, Double, Int64)] = [
            (.palpitations, 1, 0), (.palpitations, 1, hour), (.dizziness, 2, 2 * hour), (.palpitations, 2, 3 * hour),
            (.palpitations, 3, 4 * hour), (.palpitations, 2, 5 * hour), (.dizziness, 3, 26 * hour + 60_000),
            (.palpitations, 3, 29 * hour),
        ]
        XCTAssertEqual(try judge("symptom.escalation", reports), [3 * hour, 4 * hour, 29 * hour])
        // Judged as they arrive: a mild report logged late, after a worse one with a later onset,
        // is no comparison for the report that came before it (a SUT cannot judge what it lacks).
        let rule = try XCTUnwrap(Oracle.windowedRules.first { $0.id == "symptom.escalation" })
        let late = [
            Oracle.Sample(time: 0, emit: 2 * hour, values: [.dizziness: 1], id: "p/d/0", device: "d"),
            Oracle.Sample(time: hour, emit: hour + 600_000, values: [.dizziness: 2], id: "p/d/1", device: "d"),
            Oracle.Sample(time: 3 * hour, emit: 3 * hour, values: [.dizziness: 3], id: "p/d/2", device: "d"),
        ]
        XCTAssertEqual(Oracle.judge(rule, "p", late, end: 4 * hour).map(\.raisedAt), [3 * hour])
        XCTAssertEqual(
            Oracle.windowedRules.first { $0.id == "symptom.escalation" }?.profiles.contains(.chdInfant),
            false
        )
    }
}
