import Clocks
import Histogram
import Judge
import RunRecord
import VitalSimCore

extension LiveRunner {
    /// Until the run stops: sleeps ``RunObservation/hiccupInterval`` again and again on the runner's
    /// clock and records how much later than asked each wake-up came (jHiccup's method, the wake-ups
    /// a stall kept from happening counted too). The meter does nothing a SUT affects, so what it
    /// sees is the machine and the harness: when it woke late, so did the dispatch of the readings
    /// due then and the alert polls, and every latency measured from an intended send time grew by
    /// as much (``RunObservation/hiccups``).
    func meterHiccups(_ shared: State) async {
        while !shared.withLock({ $0.stopped }) {
            let asked = clock.now.advanced(by: RunObservation.hiccupInterval)
            do { try await clock.sleep(until: asked) } catch { return }
            let late = Duration.nonNegativeMicroseconds(clock.now - asked)
            // A stall of a second is one late wake-up but a hundred missed ones: each is counted
            // (HdrHistogram's correction for coordinated omission), so the percentiles are of time.
            let interval = Duration.nonNegativeMicroseconds(RunObservation.hiccupInterval)
            shared.withLock { _ = $0.hiccups.recordCorrectedValue(late, expectedInterval: interval) }
        }
    }
}
