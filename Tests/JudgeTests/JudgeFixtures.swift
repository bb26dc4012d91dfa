import Histogram
import Judge
import RunRecord

/// Constructed golden files and run results the judge's tests share.
enum JudgeFixtures {
    /// A golden file of scenario `s` with default tolerances and no budgets.
    static func golden(
        alerts: [GoldenFile.ExpectedAlert] = [],
        validation: [GoldenFile.ExpectedValidation] = []
    ) -> GoldenFile {
        GoldenFile(
            scenario: "s",
            seed: 1,
            trafficDigest: "sha256:x",
            earlyTolerance: GoldenFile.defaultEarly,
            lateTolerance: GoldenFile.defaultLate,
            alerts: alerts,
            validation: validation,
            budgets: []
        )
    }

    /// A latency histogram holding `samples` (µs).
    static func histogram(_ samples: [UInt64] = [1000]) -> Histogram<UInt64> {
        var histogram = Histogram<UInt64>.latency()
        for v in samples { histogram.record(v) }
        return histogram
    }

    /// A run that listed `alerts` and answered with `outcomes`, every latency 1 ms.
    static func result(_ alerts: [ObservedAlert], outcomes: [RequestOutcome] = []) -> RunObservation {
        RunObservation(
            traffic: TrafficObservation(
                outcomes: outcomes,
                ackLatency: histogram(),
                schedulingLag: histogram(),
                unreachable: false
            ),
            alerts: AlertObservation(observed: alerts, latency: histogram())
        )
    }
}

extension Check {
    /// The check as its area stamps it: the area of the registry that makes checks of its kind
    /// (the deletion area's and the push channels' told apart by their names).
    func stamped() -> Check {
        var check = self
        switch kind {
        case .access:
            check.area = name.hasSuffix(" readable after deletion") ? DeletionArea().name : AccessMatrixArea().name
        case .delivery:
            check.area = name.hasPrefix("alerts delivered via ") ? PushDeliveryArea().name : IngestionArea().name
        default:
            check.area = ConformanceRegistry.standard.areas.first { $0.kinds.contains(kind) }?.name
        }
        return check
    }
}
