import Foundation
import Judge
import RunRecord
import VitalSimCore
import XCTest

/// Mutation test of the judge: from each golden file's exact alert list, each single mutation
/// (drop, shift within and beyond the tolerance, beyond the pairing bound, duplicate, another
/// severity, an extra alert) yields exactly the expected findings and nothing else.
extension FindingTests {
    /// The core golden files with alerts, their validation and budgets left out (alerts only).
    func coreGoldenAlertLists() throws -> [GoldenFile] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let folder = root.appendingPathComponent("golden").path
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".golden.yaml") }
            .sorted()
        XCTAssertGreaterThanOrEqual(names.count, 12)
        return try names.compactMap { name in
            var goldenFile = try GoldenFile.parse(
                String(contentsOfFile: folder + "/" + name, encoding: .utf8),
                file: name
            )
            goldenFile.validation = []
            goldenFile.budgets = []
            return goldenFile.alerts.isEmpty ? nil : goldenFile
        }
    }

    /// The alerts exactly as recorded: at the recorded time, with the expected severity.
    func exactAlerts(_ goldenFile: GoldenFile) -> [ObservedAlert] {
        goldenFile.alerts.enumerated().map { i, e in
            ObservedAlert(
                alertID: "a\(i)",
                patientID: e.patientID,
                rule: e.rule,
                severity: e.severity.rawValue,
                raisedAt: e.from + goldenFile.earlyTolerance,
                evidence: []
            )
        }
    }

    /// The findings of the alert checks (expected alerts and unexpected ones), sorted.
    func alertFindings(_ goldenFile: GoldenFile, _ alerts: [ObservedAlert]) -> [String] {
        judge(goldenFile, result(alerts)).checks.filter { $0.kind == .alert || $0.kind == .noOtherAlerts }.compactMap(
            \.finding?.rawValue
        ).sorted()
    }

    /// True when no other expectation of the rule and patient is near enough to pair with a
    /// mutation of expectation `i` (shifted up to one bound and a minute beyond its window).
    func isIsolated(_ i: Int, in goldenFile: GoldenFile) -> Bool {
        let expected = goldenFile.alerts[i]
        let reach = 2 * AlertMatching.pairingBound + 2 * minute
        return goldenFile.alerts.indices.allSatisfy { j in
            let other = goldenFile.alerts[j]
            return j == i || other.patientID != expected.patientID || other.rule != expected.rule
                || other.from > expected.to + reach
                || other.to < expected.from - reach
        }
    }

    func testEachSingleMutationOfAGoldenAlertListYieldsExactlyItsFinding() throws {
        var mutated = 0
        for g in try coreGoldenAlertLists() {
            let exact = exactAlerts(g)
            XCTAssertEqual(alertFindings(g, exact), [], "\(g.scenario): the exact list passes")
            XCTAssertEqual(
                alertFindings(
                    g,
                    exact + [observed("extra", "test.unexpected", patient: g.alerts[0].patientID, at: g.alerts[0].from)]
                ),
                ["spurious"]
            )
            // A list of hundreds (the load ward's) is judged whole for each mutation: every
            // expectation of a short list is mutated, about twenty-five of a long one, spread over it.
            let stride = max(1, g.alerts.count / 25)
            for i in Swift.stride(from: 0, to: g.alerts.count, by: stride) where isIsolated(i, in: g) {
                mutated += 1
                try checkMutations(of: i, in: g, exact: exact)
            }
        }
        XCTAssertGreaterThanOrEqual(mutated, 20, "enough expectations were mutated")
    }

    func checkMutations(of i: Int, in goldenFile: GoldenFile, exact: [ObservedAlert]) throws {
        let expected = goldenFile.alerts[i]
        func with(_ change: (inout ObservedAlert) -> Void) -> [ObservedAlert] {
            var alerts = exact
            change(&alerts[i])
            return alerts
        }
        let label = "\(goldenFile.scenario) \(expected.rule) #\(i)"
        XCTAssertEqual(
            alertFindings(goldenFile, exact.enumerated().filter { $0.offset != i }.map(\.element)),
            ["missed"],
            "drop \(label)"
        )
        XCTAssertEqual(
            alertFindings(goldenFile, with { $0.raisedAt = expected.to }),
            [],
            "latest in tolerance \(label)"
        )
        XCTAssertEqual(
            alertFindings(goldenFile, with { $0.raisedAt = expected.from }),
            [],
            "earliest in tolerance \(label)"
        )
        XCTAssertEqual(
            alertFindings(goldenFile, with { $0.raisedAt = expected.to + minute }),
            ["late"],
            "late \(label)"
        )
        XCTAssertEqual(
            alertFindings(goldenFile, with { $0.raisedAt = expected.from - minute }),
            ["early"],
            "early \(label)"
        )
        let beyond = with { $0.raisedAt = expected.to + AlertMatching.pairingBound + minute }
        XCTAssertEqual(alertFindings(goldenFile, beyond), ["missed", "spurious"], "beyond the pairing bound \(label)")
        var copy = exact[i]
        copy.alertID = "copy"
        XCTAssertEqual(alertFindings(goldenFile, exact + [copy]), ["duplicate"], "duplicate \(label)")
        let other = try XCTUnwrap(Severity.allCases.first { $0 != expected.severity })
        XCTAssertEqual(
            alertFindings(goldenFile, with { $0.severity = other.rawValue }),
            ["wrong-severity"],
            "severity \(label)"
        )
    }
}
