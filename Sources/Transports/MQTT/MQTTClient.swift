import CMosquitto
import Dispatch
import Locking
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// An MQTT 5 client over libmosquitto: connect (clean or persistent session, optional TLS),
/// subscribe (SUBACK awaited), publish with QoS 0/1/2 and user properties, and awaited acknowledgements.
///
/// The connection's I/O runs on a thread of its own (``MQTTNetworkLoop``); callbacks hand received
/// messages to ``messages`` and complete publishes through a lock-protected table.
///
/// The client is also a `TaskExecutor`: a task started with it as its executor preference runs on
/// that thread between network events, so its publishes reach the socket, and the acknowledgements
/// resume it, without waking another thread.
/// Subscriptions are renewed on every (re)connection.
///
/// Sendable: mutable state is in a `Locked` value; the libmosquitto handle is immutable and, in external
/// thread mode, safe to queue packets on from any thread; callbacks reach the client through a weak
/// reference (``MQTTCallbackTarget``) that the network loop owns for as long as the handle lives.
package final class MQTTClient: @unchecked Sendable {
    /// How to reach and authenticate with the broker.
    package struct Configuration: Sendable {
        package var host: String
        package var port: Int
        package var clientID: String
        /// False keeps the session (and queued QoS 1/2 messages) across reconnections.
        package var cleanStart: Bool
        /// Session expiry in seconds for persistent sessions.
        package var sessionExpiry: UInt32
        package var keepAlive: Int32
        /// PEM file of the CA that signed the broker's certificate; nil for plain TCP.
        package var caFile: String?
        package var username: String?
        package var password: String?
        /// A client certificate for brokers that require one (with ``caFile``).
        package var clientCertificate: ClientCertificate?
        /// The largest packet the client takes (MQTT 5 Maximum Packet Size, §3.1.2.11.4): the
        /// broker does not send it larger ones, so they are never read into the client's memory.
        /// Nil: as large as the broker allows.
        package var maximumPacketSize: UInt32?

        package init(
            host: String,
            port: Int,
            clientID: String,
            cleanStart: Bool = true,
            sessionExpiry: UInt32 = 3600,
            keepAlive: Int32 = 30,
            caFile: String? = nil,
            username: String? = nil,
            password: String? = nil
        ) {
            self.host = host
            self.port = port
            self.clientID = clientID
            self.cleanStart = cleanStart
            self.sessionExpiry = sessionExpiry
            self.keepAlive = keepAlive
            self.caFile = caFile
            self.username = username
            self.password = password
        }
    }

    struct State {
        var connectWaiter: CheckedContinuation<Int32, Never>?
        var connected = false
        /// Called once with a publish's reason code (PUBACK/PUBCOMP; -1 when it timed out), by message id.
        var publishWaiters: [Int32: @Sendable (Int32) -> Void] = [:]
        /// When each awaited publish times out (checked by one sweeper timer, not a timer per message).
        var publishDeadlines: [Int32: DispatchTime] = [:]
        var early: [Int32: Int32] = [:]
        /// Message ids whose publish timed out: their acknowledgement, should it come late, is dropped.
        var abandoned: Set<Int32> = []
        var subscriptions: [(String, Int32)] = []
        var subscribeWaiters: [Int32: CheckedContinuation<Bool?, Never>] = [:]
        var subscribedEarly: [Int32: Bool] = [:]
    }

    static let libraryReady: Bool = { mosquitto_lib_init() == MOSQ_ERR_SUCCESS.rawValue }()

    let handle: OpaquePointer
    let configuration: Configuration
    let state = Locked(State())
    let continuation: AsyncStream<MQTTMessage>.Continuation
    let sweeper = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "vitalsim.mqtt.timeouts"))
    let loop: MQTTNetworkLoop
    /// Messages of every subscription, in arrival order.
    package let messages: AsyncStream<MQTTMessage>

    /// Creates the client; ``connect(timeout:)`` opens the connection.
    package init(_ configuration: Configuration) throws(MQTTError) {
        guard MQTTClient.libraryReady else { throw .setup("mosquitto_lib_init failed") }
        guard let h = mosquitto_new(configuration.clientID, configuration.cleanStart, nil) else {
            throw .setup("mosquitto_new failed for client id '\(configuration.clientID)'")
        }
        handle = h
        loop = MQTTNetworkLoop(handle: h)
        self.configuration = configuration
        (messages, continuation) = AsyncStream.makeStream(of: MQTTMessage.self, bufferingPolicy: .unbounded)
        // The callbacks' user data is a target the loop owns, which outlives the handle (see MQTTCallbackTarget).
        let target = MQTTCallbackTarget(self)
        loop.own(target)
        mosquitto_user_data_set(h, Unmanaged.passUnretained(target).toOpaque())
        sweeper.schedule(deadline: .now() + 0.25, repeating: 0.25)
        sweeper.setEventHandler { [weak self] in self?.expirePublishes() }
        sweeper.resume()
        mosquitto_int_option(h, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5)
        mosquitto_reconnect_delay_set(h, 1, 8, true)
        if let user = configuration.username { mosquitto_username_pw_set(h, user, configuration.password) }
        if let ca = configuration.caFile {
            let cert = configuration.clientCertificate
            let rc = mosquitto_tls_set(h, ca, nil, cert?.certificate, cert?.key, nil)
            guard rc == MOSQ_ERR_SUCCESS.rawValue else {
                throw .setup("TLS with CA file \(ca): \(MQTTClient.reason(rc))")
            }
        } else if configuration.clientCertificate != nil {
            throw .setup("a client certificate needs TLS to the broker: give the broker's CA")
        }
        mosquitto_connect_v5_callback_set(h) { _, user, rc, _, _ in MQTTClient.from(user)?.connected(rc) }
        mosquitto_disconnect_v5_callback_set(h) { _, user, _, _ in MQTTClient.from(user)?.disconnected() }
        mosquitto_publish_v5_callback_set(h) { _, user, mid, reason, _ in MQTTClient.from(user)?.published(mid, reason)
        }
        mosquitto_subscribe_v5_callback_set(h) { _, user, mid, count, granted, _ in
            let ok = count > 0 && (granted.map { $0[0] < 0x80 } ?? false)
            MQTTClient.from(user)?.subscribeAcknowledged(mid, ok)
        }
        mosquitto_message_v5_callback_set(h) { _, user, message, props in
            guard let message else { return }
            MQTTClient.from(user)?.received(message.pointee, props)
        }
        loop.executor = asUnownedTaskExecutor()
    }

    deinit {
        sweeper.cancel()
        // Callbacks still to come (the loop's last writes) find no client: the target's reference is weak.
        if loop.onLoopThread {
            // Released by a task running on the loop: the loop destroys the handle when it ends.
            loop.destroyOnExit.store(true, ordering: .releasing)
            loop.stop()
        } else {
            loop.stop()
            mosquitto_destroy(handle)
        }
        continuation.finish()
    }

    /// Fails awaited publishes whose deadline has passed (runs every 250 ms).
    func expirePublishes() {
        let now = DispatchTime.now()
        let expired = state.withLock { s -> [@Sendable (Int32) -> Void] in
            let due = s.publishDeadlines.filter { $0.value <= now }.map(\.key)
            return due.compactMap { mid in
                s.publishDeadlines[mid] = nil
                s.abandoned.insert(mid)
                return s.publishWaiters.removeValue(forKey: mid)
            }
        }
        for w in expired { w(-1) }
    }

    /// The client behind a callback's user data (nil once the client is going away).
    static func from(_ user: UnsafeMutableRawPointer?) -> MQTTClient? {
        user.flatMap { Unmanaged<MQTTCallbackTarget>.fromOpaque($0).takeUnretainedValue().client }
    }
    static func reason(_ rc: Int32) -> String { String(cString: mosquitto_strerror(rc)) }

    /// Connects and waits for the broker's CONNACK.
    package func connect(timeout: Double = 10) async throws(MQTTError) {
        var props: OpaquePointer?
        if !configuration.cleanStart {
            mosquitto_property_add_int32(
                &props,
                Int32(MQTT_PROP_SESSION_EXPIRY_INTERVAL.rawValue),
                configuration.sessionExpiry
            )
        }
        if let maximum = configuration.maximumPacketSize {
            mosquitto_property_add_int32(&props, Int32(MQTT_PROP_MAXIMUM_PACKET_SIZE.rawValue), maximum)
        }
        let rc = mosquitto_connect_bind_v5(
            handle,
            configuration.host,
            Int32(configuration.port),
            configuration.keepAlive,
            nil,
            props
        )
        mosquitto_property_free_all(&props)
        guard rc == MOSQ_ERR_SUCCESS.rawValue else {
            throw .connect(host: configuration.host, port: configuration.port, reason: MQTTClient.reason(rc))
        }
        let code: Int32 = await withCheckedContinuation { c in
            let done = state.withLock { s -> Bool in
                if s.connected { return true }
                s.connectWaiter = c
                return false
            }
            if done { c.resume(returning: 0) }
            loop.start()
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [weak self] in
                self?.state.withLock { s in s.connectWaiter.take() }?.resume(returning: -1)
            }
        }
        if code == -1 { throw .timeout(operation: "CONNECT", seconds: timeout) }
        if code != 0 { throw .refused(reason: String(cString: mosquitto_reason_string(code))) }
    }

    /// Subscribes and waits for the broker's SUBACK, so that messages published from now on reach
    /// this client (renewed after every reconnection).
    package func subscribeAcknowledged(_ filter: String, qos: Int = 1, timeout: Double = 10) async throws(MQTTError) {
        state.withLock { $0.subscriptions.append((filter, Int32(qos))) }
        var mid: Int32 = 0
        let rc = mosquitto_subscribe_v5(handle, &mid, filter, Int32(qos), 0, nil)
        loop.wake()
        guard rc == MOSQ_ERR_SUCCESS.rawValue else {
            throw .operation("SUBSCRIBE \(filter)", reason: MQTTClient.reason(rc))
        }
        let sent = mid
        let granted: Bool? = await withCheckedContinuation { (c: CheckedContinuation<Bool?, Never>) in
            let early = state.withLock { s -> Bool? in
                if let r = s.subscribedEarly.removeValue(forKey: sent) { return r }
                s.subscribeWaiters[sent] = c
                return nil
            }
            if let early {
                c.resume(returning: early)
                return
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [weak self] in
                self?.state.withLock { s in s.subscribeWaiters.removeValue(forKey: sent) }?.resume(returning: nil)
            }
        }
        guard let granted else { throw .timeout(operation: "SUBSCRIBE \(filter)", seconds: timeout) }
        if !granted { throw .operation("SUBSCRIBE \(filter)", reason: "the broker refused the subscription") }
    }

    /// Publishes; for QoS 1 and 2 returns when the broker has acknowledged (PUBACK / PUBCOMP).
    package func publish(_ message: MQTTMessage, timeout: Double) async throws(MQTTError) {
        var failure: MQTTError?
        let reason: Int32 = await withCheckedContinuation { c in
            do throws(MQTTError) {
                try publish(message, timeout: timeout) { c.resume(returning: $0) }
            } catch {
                failure = error
                c.resume(returning: 0)
            }
        }
        if let failure { throw failure }
        if reason == -1 { throw .timeout(operation: "PUBLISH \(message.topic)", seconds: timeout) }
        if reason >= 0x80 {
            throw .operation("PUBLISH \(message.topic)", reason: String(cString: mosquitto_reason_string(reason)))
        }
    }

    /// Publishes without waiting (pipelined: libmosquitto keeps up to its in-flight limit on the
    /// wire and queues the rest): `acknowledged` is called once with the broker's reason code
    /// (below 0x80 success; -1 when no acknowledgement came within `timeout` seconds), on the
    /// client's network thread (the -1 on its timeout sweeper), or at once for QoS 0. Throws when
    /// the message could not be queued (payload too large; for QoS 0 also no connection); `acknowledged` is then never
    /// called. A QoS 1 or 2 message published while the connection is down is kept by libmosquitto
    /// and sent once it has reconnected, so it is awaited like any other.
    package func publish(
        _ message: MQTTMessage,
        timeout: Double,
        acknowledged: @escaping @Sendable (Int32) -> Void
    ) throws(MQTTError) {
        var props: OpaquePointer?
        for p in message.userProperties {
            mosquitto_property_add_string_pair(&props, Int32(MQTT_PROP_USER_PROPERTY.rawValue), p.name, p.value)
        }
        var mid: Int32 = 0
        let rc = message.payload.withUnsafeBytes { raw in
            mosquitto_publish_v5(
                handle,
                &mid,
                message.topic,
                Int32(raw.count),
                raw.baseAddress,
                Int32(message.qos),
                message.retain,
                props
            )
        }
        mosquitto_property_free_all(&props)
        if loop.onLoopThread { loop.queuedFromLoop() } else { loop.wake() }
        let queuedOffline = rc == MOSQ_ERR_NO_CONN.rawValue && message.qos > 0 && mid != 0
        guard rc == MOSQ_ERR_SUCCESS.rawValue || queuedOffline else {
            throw .operation("PUBLISH \(message.topic)", reason: MQTTClient.reason(rc))
        }
        guard message.qos > 0 else {
            acknowledged(0)
            return
        }
        let sent = mid
        // The acknowledgement may already have arrived (the network thread runs meanwhile).
        let early = state.withLock { s -> Int32? in
            // A reused message id: an old acknowledgement of it is no longer expected.
            if !s.abandoned.isEmpty { s.abandoned.remove(sent) }
            if let r = s.early.removeValue(forKey: sent) { return r }
            s.publishWaiters[sent] = acknowledged
            s.publishDeadlines[sent] = .now() + timeout
            return nil
        }
        if let early { acknowledged(early) }
    }

    /// Disconnects cleanly and stops the network thread.
    package func disconnect() {
        mosquitto_disconnect_v5(handle, 0, nil)
        loop.stop()
        continuation.finish()
    }

    // MARK: callbacks (the client's network thread)

    func connected(_ rc: Int32) {
        if rc == 0 { loop.accepted.store(true, ordering: .releasing) }
        let (waiter, subs) = state.withLock { s in
            s.connected = rc == 0
            return (s.connectWaiter.take(), s.subscriptions)
        }
        if rc == 0 { for (filter, qos) in subs { mosquitto_subscribe_v5(handle, nil, filter, qos, 0, nil) } }
        waiter?.resume(returning: rc)
    }

    func subscribeAcknowledged(_ mid: Int32, _ granted: Bool) {
        let waiter = state.withLock { s -> CheckedContinuation<Bool?, Never>? in
            if let w = s.subscribeWaiters.removeValue(forKey: mid) { return w }
            s.subscribedEarly[mid] = granted
            return nil
        }
        waiter?.resume(returning: granted)
    }

    func disconnected() { state.withLock { $0.connected = false } }

    func published(_ mid: Int32, _ reason: Int32) {
        let waiter = state.withLock { s -> (@Sendable (Int32) -> Void)? in
            if let w = s.publishWaiters.removeValue(forKey: mid) {
                s.publishDeadlines[mid] = nil
                return w
            }
            if s.abandoned.remove(mid) != nil { return nil }
            s.early[mid] = reason
            return nil
        }
        waiter?(reason)
    }

    func received(_ m: mosquitto_message, _ props: OpaquePointer?) {
        let topic = m.topic.map { String(cString: $0) } ?? ""
        var payload: [UInt8] = []
        if let p = m.payload, m.payloadlen > 0 {
            payload = Array(UnsafeRawBufferPointer(start: p, count: Int(m.payloadlen)))
        }
        var properties: [UserProperty] = []
        var cursor = props
        var skipFirst = false
        while true {
            var name: UnsafeMutablePointer<CChar>?
            var value: UnsafeMutablePointer<CChar>?
            guard
                let found = mosquitto_property_read_string_pair(
                    cursor,
                    Int32(MQTT_PROP_USER_PROPERTY.rawValue),
                    &name,
                    &value,
                    skipFirst
                )
            else { break }
            if let name, let value { properties.append(UserProperty(String(cString: name), String(cString: value))) }
            free(name)
            free(value)
            cursor = found
            skipFirst = true
        }
        continuation.yield(
            MQTTMessage(topic: topic, payload: payload, qos: Int(m.qos), retain: m.retain, userProperties: properties)
        )
    }
}

extension MQTTClient: TaskExecutor {
    /// Runs `job` on the client's network thread (once the client is gone: on the global executor).
    package func enqueue(_ job: consuming ExecutorJob) {
        loop.enqueue(UnownedJob(job))
    }
}
