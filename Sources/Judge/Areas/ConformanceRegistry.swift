import Foundation

/// Every conformance area, in the order a verdict holds their checks: the judge, the merge of a
/// sharded run, the requirement trace, coverage, the check locator and every report iterate it.
/// An area is added here, once (CONTRIBUTING.md, "How to add a conformance area").
package struct ConformanceRegistry: Sendable {
    /// The areas, in check order.
    package let areas: [any ConformanceArea]

    /// VitalSim's areas.
    package static let standard = ConformanceRegistry(areas: [
        TrafficDigestArea(),
        AlertsArea(),
        EvidenceArea(),
        PushDeliveryArea(),
        IngestionArea(),
        StoredDataArea(),
        AccessMatrixArea(),
        CareActionsArea(),
        RecipientsArea(),
        AuditTrailArea(),
        DeletionArea(),
        BudgetsArea(),
    ])

    /// The area that made `check`, nil for the gate's own checks.
    package func area(of check: Check) -> (any ConformanceArea)? {
        guard let name = check.area else { return nil }
        return areas.first { $0.name == name }
    }

    /// The report rows of a verdict's checks: one per area that made any, in registry order.
    package func rows(of verdict: Verdict) -> [AreaRow] {
        areas.compactMap { area in
            let own = verdict.checks.filter { $0.area == area.name }
            return own.isEmpty ? nil : area.reportRow(own)
        }
    }
}

extension Verdict {
    /// The checks the area named `area` made.
    package func checks(of area: some ConformanceArea) -> [Check] { checks.filter { $0.area == area.name } }
}

extension Array where Element == Check {
    /// The checks sorted by `key`, keeping the order of checks with equal keys.
    package func stablySorted<Key: Comparable>(by key: (Check) -> Key) -> [Check] {
        enumerated().sorted { (key($0.element), $0.offset) < (key($1.element), $1.offset) }.map(\.element)
    }

    /// The checks of `parts` with the same name as one: the first, unless a later one failed where it
    /// did not (or, with `skippedYields`, where it was skipped).
    package static func oncePerName(_ all: [Check], skippedYields: Bool = false) -> [Check] {
        var merged: [Check] = []
        for check in all {
            if let position = merged.firstIndex(where: { $0.name == check.name }) {
                if merged[position].finding == nil, check.finding != nil || (skippedYields && merged[position].skipped)
                {
                    merged[position] = check
                }
            } else {
                merged.append(check)
            }
        }
        return merged
    }
}

extension Check {
    /// The patient the check's name is about (`… of patient P …`), empty when it names none.
    package var patient: String {
        guard let range = name.range(of: " of patient ") else { return "" }
        return String(name[range.upperBound...].prefix { $0 != " " })
    }
}
