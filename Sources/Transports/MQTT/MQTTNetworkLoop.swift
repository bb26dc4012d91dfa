import CMosquitto
import Dispatch
import Foundation
import Locking
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Drives one libmosquitto handle from a thread of its own, in place of `mosquitto_loop_start`, and
/// runs the jobs of tasks that prefer its ``MQTTClient`` as their executor on the same thread.
///
/// libmosquitto's own loop is woken for every message published from another thread: a byte
/// through an internal socket pair, read back one byte per `pselect` round. This loop is woken
/// (through a pipe) only while it is asleep in `poll`, and then writes everything queued meanwhile,
/// so a burst of publishes costs one wake-up and no extra round of the loop per message; a task
/// running on the loop publishes without waking anything, and the acknowledgement that resumes it
/// is read on the same thread. The handle is put in libmosquitto's "external thread" mode, in which
/// publish, subscribe and disconnect from any thread only queue their packet. The loop reconnects
/// at once, then after 1 s, 4 s and every 8 s until stopped (``ReconnectSchedule``).
///
/// Sendable: shared flags are in a `Locked` value and atomics; `executor` is set before the first job
/// arrives, and `queuedOnLoop` is touched only on the loop's own thread.
final class MQTTNetworkLoop: @unchecked Sendable {
    struct Flags {
        /// The loop is in (or about to enter) `poll` and must be woken for new packets or jobs.
        var sleeping = false
        /// ``start()`` was called: the handle has a connection (or is reconnecting) to drive.
        var active = false
        var stopping = false
        /// The loop has ended: jobs go to the global executor.
        var stopped = false
        /// Jobs of tasks preferring this loop's client, in arrival order.
        var jobs: [UnownedJob] = []
    }

    let handle: OpaquePointer
    /// What the handle's callbacks reach through its user data (``own(_:)``); lives as long as the
    /// loop does, so as long as the handle. Read by no one: callbacks reach it through the pointer.
    private let callbackTarget = Locked<MQTTCallbackTarget?>(nil)
    /// The pipe that wakes the loop: the loop polls its read end, ``wake()`` writes to the other.
    let wakeFD: Int32
    let wakeWriteFD: Int32
    let flags = Locked(Flags())
    let finished = DispatchSemaphore(value: 0)
    /// The executor jobs run on (the client's; set before the first job arrives).
    var executor: UnownedTaskExecutor?
    /// `pthread_self()` of the loop's thread (0 until it runs).
    let threadID = Atomic<UInt>(0)
    /// Set when the client went away while its loop was still running: the loop destroys the handle.
    let destroyOnExit = Atomic<Bool>(false)
    /// Set when the broker accepted a connection (its CONNACK, ``connectionAccepted()``): the loop
    /// starts its reconnection schedule again.
    let accepted = Atomic<Bool>(false)
    /// The longest `poll` wait: keep-alive pings and reconnection are checked at least this often.
    static let idleMilliseconds: Int32 = 250

    /// Takes over `handle`'s network I/O and starts the loop's thread (which runs jobs at once
    /// and drives the connection from ``start()`` on).
    init(handle: OpaquePointer) {
        self.handle = handle
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for fd in ends {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            }
        }
        (wakeFD, wakeWriteFD) = (ends[0], ends[1])
        mosquitto_threaded_set(handle, true)
        Thread { [self] in run() }.start()
    }

    deinit { for fd in [wakeFD, wakeWriteFD] where fd >= 0 { close(fd) } }

    /// Starts driving the connection opened (or being opened) on the handle.
    func start() {
        flags.withLock { $0.active = true }
        signal()
    }

    /// Wakes the loop if it is asleep: call after queuing a packet from another thread.
    func wake() {
        let asleep = flags.withLock { f -> Bool in
            defer { f.sleeping = false }
            return f.sleeping
        }
        if asleep { signal() }
    }

    /// Runs `job` on the loop's thread, or on the global executor once the loop has ended.
    func enqueue(_ job: UnownedJob) {
        let (accepted, asleep) = flags.withLock { f -> (Bool, Bool) in
            if f.stopped { return (false, false) }
            f.jobs.append(job)
            defer { f.sleeping = false }
            return (true, f.sleeping)
        }
        if !accepted { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
        if asleep { signal() }
    }

    /// Stops the loop once it has written what is queued (at most ~1 s), and waits for it to end
    /// unless called from the loop's own thread (it then ends after the current job).
    func stop() {
        let first = flags.withLock { f -> Bool in
            defer { f.stopping = true }
            return !f.stopping
        }
        if first { signal() }
        if !onLoopThread, first { finished.wait() }
    }

    /// Keeps `target` alive as long as this loop (set once, before the connection is opened).
    func own(_ target: MQTTCallbackTarget) { callbackTarget.withLock { $0 = target } }

    /// Whether the caller runs on the loop's thread (a task preferring the client, or a callback).
    var onLoopThread: Bool { threadID.load(ordering: .relaxed) == UInt(pthread_self()) }

    /// Packets queued from the loop's own thread since it last wrote (touched on that thread only).
    var queuedOnLoop = 0

    /// Notes a packet queued from the loop's own thread (a publish from a task running on the
    /// loop). The loop writes them after the task's step; every 64th is written at once, because
    /// such a task may publish many QoS 0 messages without ever suspending.
    func queuedFromLoop() {
        queuedOnLoop += 1
        if queuedOnLoop >= 64 { writeQueued() }
    }

    /// Writes every queued packet. libmosquitto writes each with a `write` of its own; when tasks on
    /// the loop queued more than one, the socket is corked meanwhile (`TCP_CORK`), so that they leave
    /// in full segments when it is uncorked: on loopback each `write` of an uncorked socket also runs
    /// the receiving side's TCP path, and the broker reads a burst in fewer, larger reads.
    func writeQueued() {
        let burst = queuedOnLoop > 1
        queuedOnLoop = 0
        guard mosquitto_want_write(handle) else { return }
        let socket = burst ? mosquitto_socket(handle) : -1
        if socket >= 0 { cork(socket, true) }
        _ = mosquitto_loop_write(handle, 1)
        if socket >= 0 { cork(socket, false) }
    }

    func cork(_ socket: Int32, _ on: Bool) {
        var value: Int32 = on ? 1 : 0
        _ = setsockopt(socket, Int32(IPPROTO_TCP), TCP_CORK, &value, socklen_t(MemoryLayout<Int32>.size))
    }

    func signal() {
        var one: UInt8 = 1
        _ = Glibc.write(wakeWriteFD, &one, 1)
    }

    func drainWakeups() {
        withUnsafeTemporaryAllocation(byteCount: 64, alignment: 1) { bytes in
            while read(wakeFD, bytes.baseAddress, bytes.count) == bytes.count {}
        }
    }

    func run() {
        // The kernel's name for this thread (top -H, perf): Foundation's Thread.name does not reach it.
        _ = try? "vitalsim-mqtt".write(toFile: "/proc/thread-self/comm", atomically: false, encoding: .utf8)
        threadID.store(UInt(pthread_self()), ordering: .relaxed)
        var schedule = ReconnectSchedule()
        while true {
            // Once stopping, jobs are left for the global executor (below).
            let (jobs, active, stopping) = flags.withLock { f in
                if f.stopping { return ([UnownedJob](), f.active, true) }
                defer { f.jobs.removeAll() }
                return (f.jobs, f.active, false)
            }
            if !jobs.isEmpty, let executor { for job in jobs { job.runSynchronously(on: executor) } }
            if stopping { break }
            if accepted.exchange(false, ordering: .acquiringAndReleasing) { schedule.accepted() }
            let socket = active ? mosquitto_socket(handle) : -1
            if active && socket < 0, schedule.due(now: .now()) {
                _ = mosquitto_reconnect(handle)
                continue
            }
            if active && socket >= 0 { writeQueued() }
            service(socket: socket, active: active)
        }
        if flags.withLock({ $0.active }) { flush() }
        // Tasks that still prefer this loop's client go on elsewhere.
        let left = flags.withLock { f -> [UnownedJob] in
            f.stopped = true
            defer { f.jobs.removeAll() }
            return f.jobs
        }
        for job in left { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
        if destroyOnExit.load(ordering: .acquiring) { mosquitto_destroy(handle) }
        finished.signal()
    }

    /// Waits for the socket or a wake-up (sleeping only when no job is queued), then reads, writes
    /// and runs libmosquitto's housekeeping.
    func service(socket: Int32, active: Bool) {
        let idle = flags.withLock { f -> Bool in
            f.sleeping = f.jobs.isEmpty && !f.stopping
            return f.sleeping
        }
        // Checked after `sleeping` is set: a packet queued before a publisher saw the flag is seen here.
        let wantWrite = active && socket >= 0 && mosquitto_want_write(handle)
        var fds = [
            pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0),
            pollfd(fd: socket, events: Int16(POLLIN) | (wantWrite ? Int16(POLLOUT) : 0), revents: 0),
        ]
        let ready = poll(&fds, socket >= 0 ? 2 : 1, idle ? Self.idleMilliseconds : 0)
        flags.withLock { $0.sleeping = false }
        if ready > 0 && fds[0].revents != 0 { drainWakeups() }
        guard socket >= 0 else { return }
        let events = ready > 0 ? fds[1].revents : 0
        if events & Int16(POLLIN | POLLERR | POLLHUP) != 0 {
            // On a lost connection libmosquitto closes the socket and reports the disconnection.
            if mosquitto_loop_read(handle, 1) != MOSQ_ERR_SUCCESS.rawValue { return }
            // Nothing to send that would carry the acknowledgement: send it on its own now.
            if !mosquitto_want_write(handle) && flags.withLock({ $0.jobs.isEmpty }) { acknowledgeAtOnce(socket) }
        }
        if events & Int16(POLLOUT) != 0 { _ = mosquitto_loop_write(handle, 1) }
        _ = mosquitto_loop_misc(handle)
    }

    /// Acknowledges what was read at once rather than after the kernel's delayed-ACK timer (up to
    /// 40 ms; the kernel re-arms it, so this follows every read). A broker with Nagle's algorithm
    /// on (mosquitto's default) holds each PUBACK until its previous one is acknowledged: with every
    /// message of the window in flight and nothing left to send, each window waited 40 ms
    /// (docs/performance.md, "MQTT QoS 1: where the time goes").
    func acknowledgeAtOnce(_ socket: Int32) {
        var on: Int32 = 1
        _ = setsockopt(socket, Int32(IPPROTO_TCP), TCP_QUICKACK, &on, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Writes what is queued (a DISCONNECT, after which libmosquitto closes the socket) for up to a
    /// second, reading meanwhile so that the broker is never blocked on a full socket.
    func flush() {
        let deadline = DispatchTime.now() + .seconds(1)
        while mosquitto_socket(handle) >= 0 && mosquitto_want_write(handle) && DispatchTime.now() < deadline {
            var fd = pollfd(fd: mosquitto_socket(handle), events: Int16(POLLIN | POLLOUT), revents: 0)
            guard poll(&fd, 1, 100) > 0 else { continue }
            if fd.revents & Int16(POLLIN | POLLERR | POLLHUP) != 0,
                mosquitto_loop_read(handle, 1) != MOSQ_ERR_SUCCESS.rawValue
            {
                return
            }
            if fd.revents & Int16(POLLOUT) != 0 { _ = mosquitto_loop_write(handle, 1) }
        }
    }
}
