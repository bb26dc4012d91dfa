import Foundation
import Locking
import RunRecord
import VitalSimCore

/// Places alerts stamped with the SUT's own clock (`alerts.clock: server`) on the scenario's device
/// time: the run notes, per patient, the wall moment each request or MQTT message is sent and the
/// latest device time it carries; an alert's server time stamp is then read as the device time of
/// its patient's last request sent at or before it. Safe to share between tasks.
package final class AlertClock: Sendable {
    /// One request of a patient: sent at `wall` (Unix ms), carrying readings up to `time` (virtual
    /// ms from the scenario's start).
    package struct Mark: Sendable, Equatable {
        package var wall: Int64
        package var time: Int64

        package init(wall: Int64, time: Int64) {
            self.wall = wall
            self.time = time
        }
    }

    let marks = Locked<[String: [Mark]]>([:])
    /// The scenario's start, Unix ms.
    let start: Int64

    package init(start: Int64) { self.start = start }

    /// Unix ms by the wall clock, to compare with a SUT's own time stamps (it never shapes traffic).
    package static func wallMilliseconds() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }

    /// Notes that a request of `patient` carrying readings up to device time `time` is sent now.
    package func sent(patient: String, time: Int64) {
        let wall = AlertClock.wallMilliseconds()
        marks.withLock { $0[patient, default: []].append(Mark(wall: wall, time: time)) }
    }

    /// `a` with its server time stamp replaced by the device time (Unix ms) of its patient's last
    /// request sent at or before it; unchanged when none of its patient's was sent.
    package func onDeviceTime(_ observedAlert: ObservedAlert) -> ObservedAlert {
        guard
            let time = marks.withLock({
                AlertClock.deviceTime(at: observedAlert.raisedAt, marks: $0[observedAlert.patientID] ?? [])
            })
        else {
            return observedAlert
        }
        var out = observedAlert
        out.raisedAt = start + time
        return out
    }

    /// The device time of the last of `marks` (in sending order) sent at or before `wall`, the
    /// first one's when `wall` is earlier than them all; nil without marks.
    package static func deviceTime(at wall: Int64, marks: [Mark]) -> Int64? {
        guard let first = marks.first else { return nil }
        var lo = 0
        var hi = marks.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if marks[mid].wall <= wall { lo = mid + 1 } else { hi = mid }
        }
        return (lo == 0 ? first : marks[lo - 1]).time
    }

    /// A misconfiguration when every alert is stamped more than a day outside the scenario's time
    /// while the profile says they are on the device's clock: the SUT stamps them with its own.
    package static func problem(
        _ alerts: [ObservedAlert],
        start: Int64,
        span: Int64,
        clock: AlertSource.Clock
    ) -> String? {
        guard clock == .device, let first = alerts.first else { return nil }
        let day: Int64 = 86_400_000
        guard alerts.allSatisfy({ $0.raisedAt < start - day || $0.raisedAt > start + span + day }) else { return nil }
        func iso(_ milliseconds: Int64) -> String {
            CivilTime(unixMilliseconds: milliseconds).iso8601(fractional: true)
        }
        return
            "every alert the SUT listed (\(alerts.count)) is stamped more than a day outside the scenario's time (\(iso(start)) to \(iso(start + span))), first: \(first.alertID) at \(iso(first.raisedAt)); a SUT that stamps its alerts with its own clock needs alerts.clock: server in its SUT profile"
    }
}
