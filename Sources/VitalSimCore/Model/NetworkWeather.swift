import Foundation

/// The network between the devices and the SUT (a scenario's `network:`, or `vitalsim run
/// --network`): latency and jitter, packet loss, bandwidth, connections reset mid-request and short
/// partitions, applied by the weather proxy the harness runs in front of the SUT (LiveHarness's
/// `WeatherProxy`) for the devices' HTTP requests and their MQTT connection. The harness's own
/// reads (alerts, read-back, the SUT's verdicts on MQTT messages) go to the SUT directly: it is the
/// instrument, not a device. Every random choice is drawn from ``seed``, so a run's weather is
/// reproducible.
package struct NetworkWeather: Sendable, Equatable {
    /// The preset's name, or `custom`.
    package var name: String
    /// One-way delay added to every chunk, and its spread (uniform ±).
    package var latency: Duration = .zero
    package var jitter: Duration = .zero
    /// The chance that a chunk is lost once and resent (TCP): it arrives ``retransmission`` late.
    package var loss = 0.0
    /// Bytes per second each way of a connection; 0 is unlimited.
    package var bandwidth = 0
    /// The chance that a connection is cut (reset) as the SUT's answer to a request arrives: the
    /// request reached the SUT, the device never learns it, and sends it again.
    package var resets = 0.0
    /// Every ``partitionEvery`` nothing passes for ``partitionFor`` (zero: no partitions).
    package var partitionFor: Duration = .zero
    package var partitionEvery: Duration = .zero
    /// What the random choices are drawn from.
    package var seed: UInt64 = 0x4E45_5457

    /// How late a lost chunk arrives: TCP's minimum retransmission timeout (RFC 6298 §2.4 allows
    /// 1 s; Linux uses 200 ms).
    package static let retransmission = Duration.milliseconds(200)

    package init(name: String) { self.name = name }

    /// The named presets.
    package static let presets: [String: NetworkWeather] = {
        var phone = NetworkWeather(name: "4g")
        // A phone on LTE: about 50 ms each way with spread, a little loss, a few dropped connections.
        phone.latency = .milliseconds(40)
        phone.jitter = .milliseconds(20)
        phone.loss = 0.005
        phone.bandwidth = 2_000_000
        phone.resets = 0.02
        phone.partitionFor = .seconds(2)
        phone.partitionEvery = .seconds(90)
        var wifi = NetworkWeather(name: "congested-wifi")
        // A crowded access point: short but very uneven delays, more loss, less bandwidth.
        wifi.latency = .milliseconds(10)
        wifi.jitter = .milliseconds(40)
        wifi.loss = 0.03
        wifi.bandwidth = 250_000
        wifi.resets = 0.03
        var gateway = NetworkWeather(name: "hospital-gateway")
        // A wired bedside gateway: fast and steady, with a rare failover that parts it for a while.
        gateway.latency = .milliseconds(3)
        gateway.jitter = .milliseconds(2)
        gateway.bandwidth = 10_000_000
        gateway.resets = 0.002
        gateway.partitionFor = .seconds(5)
        gateway.partitionEvery = .seconds(300)
        return ["4g": phone, "congested-wifi": wifi, "hospital-gateway": gateway]
    }()

    /// How long the harness's MQTT client may take to notice a cut connection and connect again: it
    /// tries again at once (Transports' `ReconnectSchedule`), and its loop wakes at least every 250 ms.
    package static let reconnection = Duration.milliseconds(250)

    /// No weather at all: `--network none` runs a scenario that names a network over loopback as it is.
    package static let noneName = "none"

    /// True for `none`: the devices' traffic goes to the SUT directly.
    package var isNone: Bool { name == Self.noneName }

    /// What a reading's latency may grow by under this weather over HTTP, added to the golden file's
    /// latency budgets (``allowance(reconnecting:)`` without MQTT).
    package var allowance: Duration { allowance(reconnecting: false) }

    /// What a reading's latency may grow by under this weather, added to the golden file's latency
    /// budgets: a request and an answer each way at the worst latency, a loss's resend each way, a
    /// partition, and a reset's cost — an HTTP retry (the harness backs off 250 ms) or, with
    /// `reconnecting` (MQTT devices on a connection the weather cuts), the client's reconnection
    /// (``reconnection``, a CONNECT and its CONNACK) and the messages in flight sent again.
    package func allowance(reconnecting: Bool) -> Duration {
        let worst = latency + jitter
        var total = worst * 4
        if loss > 0 { total += Self.retransmission * 2 }
        if resets > 0 {
            total += reconnecting ? Self.reconnection + worst * 4 : .milliseconds(250) + worst * 2
        }
        if partitionEvery > .zero { total += partitionFor }
        return total
    }

    /// A preset's name, or `key=value` settings separated by commas (`latency=40ms, jitter=20ms,
    /// loss=1%, bandwidth=250000, resets=2%, partition=2s/90s, seed=7`), on a preset or on none.
    package static func parse(_ text: String) throws(NetworkWeatherError) -> NetworkWeather {
        let parts = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        var weather = NetworkWeather(name: "custom")
        if parts == [noneName] { return NetworkWeather(name: noneName) }
        for part in parts where !part.isEmpty {
            guard let eq = part.firstIndex(of: "=") else {
                guard let preset = presets[part] else {
                    throw NetworkWeatherError(
                        "unknown network preset '\(part)'; presets: \(presets.keys.sorted().joined(separator: ", ")), or key=value settings (latency, jitter, loss, bandwidth, resets, partition, seed), or none"
                    )
                }
                weather = preset
                continue
            }
            try weather.set(String(part[..<eq]), String(part[part.index(after: eq)...]))
        }
        return weather
    }

    mutating func set(_ key: String, _ value: String) throws(NetworkWeatherError) {
        func duration(_ v: String) throws(NetworkWeatherError) -> Duration {
            guard let duration = VirtualDuration(parsing: v) else {
                throw NetworkWeatherError("\(key)=\(v): expected a duration (40ms, 2s)")
            }
            return .milliseconds(duration.milliseconds)
        }
        func share(_ v: String) throws(NetworkWeatherError) -> Double {
            let number = v.hasSuffix("%") ? Double(v.dropLast()).map { $0 / 100 } : Double(v)
            guard let number, (0...1).contains(number) else {
                throw NetworkWeatherError("\(key)=\(v): expected a share between 0 and 1 (0.02 or 2%)")
            }
            return number
        }
        switch key {
        case "latency": latency = try duration(value)
        case "jitter": jitter = try duration(value)
        case "loss": loss = try share(value)
        case "resets": resets = try share(value)
        case "bandwidth":
            guard let count = Int(value), count >= 0 else {
                throw NetworkWeatherError("bandwidth=\(value): expected bytes per second (0: unlimited)")
            }
            bandwidth = count
        case "partition":
            let halves = value.split(separator: "/").map(String.init)
            guard halves.count == 2 else {
                throw NetworkWeatherError("partition=\(value): expected LENGTH/EVERY (2s/90s)")
            }
            partitionFor = try duration(halves[0])
            partitionEvery = try duration(halves[1])
            guard partitionFor < partitionEvery else {
                throw NetworkWeatherError("partition=\(value): a partition must be shorter than its period")
            }
        case "seed":
            guard let s = UInt64(value) else { throw NetworkWeatherError("seed=\(value): expected a whole number") }
            seed = s
        default:
            throw NetworkWeatherError(
                "unknown network setting '\(key)'; settings: latency, jitter, loss, bandwidth, resets, partition, seed"
            )
        }
        name = name.hasSuffix("+") || name == "custom" ? name : name + "+"
    }

    /// One line for the run's console and report.
    package var summary: String {
        if isNone { return "network none: loopback as it is" }
        var parts = ["latency \(Self.ms(latency)) ± \(Self.ms(jitter))"]
        if loss > 0 { parts.append("loss \(Self.percent(loss))") }
        if bandwidth > 0 { parts.append("\(bandwidth / 1000) kB/s") }
        if resets > 0 { parts.append("resets \(Self.percent(resets))") }
        if partitionEvery > .zero {
            parts.append("partitions \(Self.ms(partitionFor)) every \(Self.ms(partitionEvery))")
        }
        return "network \(name): " + parts.joined(separator: ", ")
    }

    package static func ms(_ d: Duration) -> String {
        "\(d.components.seconds * 1000 + d.components.attoseconds / 1_000_000_000_000_000) ms"
    }
    package static func percent(_ p: Double) -> String { String(format: "%g %%", p * 100) }
}

/// A `--network` value that cannot be used, and why.
package struct NetworkWeatherError: Error, Sendable, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
