import Foundation
import Judge
import Mustache
import VitalSimCore

/// A suite's coverage as the console, JSON and HTML (a Mustache template) show it.
package enum CoverageDocument {
    /// The console: the shares per level and every uncovered requirement with its source.
    package static func text(_ coverage: SuiteCoverage, suites: [String]) -> String {
        var out =
            "coverage of \(suites.joined(separator: ", ")) (\(coverage.scenarios.count) scenario(s)), "
            + "requirements catalogue \(coverage.catalogue.version)\n"
        for level in RequirementLevel.allCases {
            let (done, total) = counts(coverage, level)
            out += "\(level.rawValue): \(done) of \(total) exercised (\(percent(coverage, level)) %)\n"
        }
        out +=
            "(not counted: the harness's own requirements, vitalsim.*, and ingest.any.*, what a check names "
            + "when a run could not tell a reading's kind)\n"
        for level in RequirementLevel.allCases {
            let missing = coverage.uncovered(level)
            guard !missing.isEmpty else { continue }
            out += "uncovered \(level.rawValue) (\(missing.count)):\n"
            for r in missing { out += "  \(r.id): \(r.text) (\(r.source))\n" }
        }
        for mode in Requirement.Applicability.allCases where !coverage.modes.contains(mode) {
            let apart = RequirementLevel.allCases.flatMap { coverage.inapplicable($0) }.filter { $0.applies == mode }
            guard !apart.isEmpty else { continue }
            out += "not counted: \(apart.count) requirement(s) only \(mode.phrase) exercise: "
            out += apart.map(\.id).joined(separator: ", ") + "\n"
        }
        return out
    }

    /// The coverage as JSON: shares, every requirement with what exercises it, the uncovered ones.
    package static func json(_ coverage: SuiteCoverage, suites: [String]) -> String {
        let levels: [(String, JSONValue)] = RequirementLevel.allCases.map { level in
            let (done, total) = counts(coverage, level)
            return (
                level.rawValue,
                .object([
                    ("exercised", .int(Int64(done))), ("total", .int(Int64(total))),
                    ("percent", .double((coverage.percent(level) * 10).rounded() / 10)),
                    ("uncovered", .array(coverage.uncovered(level).map { .string($0.id) })),
                    ("otherModes", .array(coverage.inapplicable(level).map { .string($0.id) })),
                ])
            )
        }
        let rows: [JSONValue] = coverage.catalogue.requirements.map { r in
            let by = coverage.exercised[r.id] ?? []
            return .object([
                ("id", .string(r.id)), ("level", .string(r.level.rawValue)), ("source", .string(r.source)),
                ("applies", .string(r.applies.rawValue)),
                (
                    "exercisedBy",
                    .array(by.map { .object([("scenario", .string($0.scenario)), ("check", .string($0.how))]) })
                ),
            ])
        }
        return JSONValue.object([
            ("catalogueVersion", .string(coverage.catalogue.version)),
            ("suites", .array(suites.map { .string($0) })),
            ("scenarios", .array(coverage.scenarios.map { .string($0) })),
            ("modes", .array(coverage.modes.map(\.rawValue).sorted().map { .string($0) })),
            ("levels", .object(levels)),
            ("requirements", .array(rows)),
        ]).serialized() + "\n"
    }

    /// The matrix of requirements against scenarios as an HTML page.
    package static func html(_ coverage: SuiteCoverage) throws(CatalogueDocument.Problem) -> String {
        guard let url = Bundle.module.url(forResource: "coverage.html", withExtension: "mustache"),
            let text = try? String(contentsOf: url, encoding: .utf8)
        else { throw CatalogueDocument.Problem(description: "coverage.html.mustache is missing from the build") }
        let template: MustacheTemplate
        do { template = try MustacheTemplate(string: text) } catch {
            throw CatalogueDocument.Problem(description: "coverage.html.mustache: \(error)")
        }
        let rows: [[String: Any]] = coverage.catalogue.requirements.map { r in
            let by = coverage.exercised[r.id] ?? []
            let cells: [[String: Any]] = coverage.scenarios.map { s in
                let hows = by.filter { $0.scenario == s }.map(\.how)
                return ["hit": !hows.isEmpty, "how": hows.joined(separator: "; ")]
            }
            return [
                "id": r.id, "level": r.level.rawValue, "levelClass": r.level.rawValue.lowercased(), "text": r.text,
                "state": !coverage.modes.contains(r.applies) ? "other-mode" : by.isEmpty ? "uncovered" : "covered",
                "cells": cells,
            ]
        }
        let (shallDone, shallTotal) = counts(coverage, .shall)
        let (shouldDone, shouldTotal) = counts(coverage, .should)
        let context: [String: Any] = [
            "version": coverage.catalogue.version, "scenarioCount": coverage.scenarios.count,
            "scenarios": coverage.scenarios, "rows": rows,
            "shallExercised": shallDone, "shallTotal": shallTotal, "shallPercent": percent(coverage, .shall),
            "shouldExercised": shouldDone, "shouldTotal": shouldTotal, "shouldPercent": percent(coverage, .should),
        ]
        return template.render(context)
    }

    static func counts(_ coverage: SuiteCoverage, _ level: RequirementLevel) -> (Int, Int) {
        let total = coverage.counted(level).count
        return (total - coverage.uncovered(level).count, total)
    }

    static func percent(_ coverage: SuiteCoverage, _ level: RequirementLevel) -> String {
        String(format: "%.1f", coverage.percent(level))
    }
}
