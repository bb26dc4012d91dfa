import VitalSimCore

/// The scenario still produces the traffic its golden file was recorded from: the digest of every
/// request's bytes, computed by the run (in a sharded run, by the shard running the scenario's first
/// patient, over the whole scenario's traffic).
package struct TrafficDigestArea: ConformanceArea {
    package var name: String { "traffic-digest" }
    package var title: String { "traffic digest" }
    package var kinds: Set<CheckKind> { [.traffic] }
    package var observedBy: ObservationSource { .runner }
    package var requirementIDs: [String] { ["vitalsim.traffic-digest"] }

    package init() {}

    package func checks(of run: JudgedRun, into verdict: inout Verdict) -> [Check] {
        guard let digest = run.digest, digest != run.golden.trafficDigest else { return [] }
        let detail =
            "the scenario now produces different traffic (\(digest)) than when the golden file was recorded "
            + "(\(run.golden.trafficDigest)); re-record and review"
        return [Check(kind: .traffic, name: "traffic digest", rule: nil, finding: .trafficChanged, detail: detail)]
    }

    /// The one shard that computed the digest judged it.
    package func merged(_ parts: [Verdict], golden: GoldenFile, into verdict: inout Verdict) -> [Check] {
        parts.flatMap { $0.checks(of: self) }
    }

    package func requirements(of check: Check, kinds: (String) -> [VitalKind]) -> [String] { requirementIDs }

    package func exercised(by plan: ExercisePlan) -> [Check] {
        plan.golden == nil ? [] : [plan.check(.traffic, "traffic digest")]
    }

    package func location(of check: Check, in sources: CheckLocator) -> SourceLocation { sources.digest }

    package func reportRow(_ checks: [Check]) -> AreaRow {
        AreaRow(self, checks, about: checks.allSatisfy(\.passed) ? "" : "re-record and review the golden file")
    }
}
