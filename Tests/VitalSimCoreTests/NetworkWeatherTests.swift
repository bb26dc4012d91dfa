import Foundation
import Testing
import VitalSimCore

/// `--network` values and scenarios' `network:`: presets, settings on a preset or on none, `none`,
/// and mistakes named; what a network lets the latency budgets allow; a scenario's network loaded.
@Suite struct NetworkWeatherTests {
    @Test func presetsAndSettings() throws {
        let phone = try NetworkWeather.parse("4g")
        #expect(phone.name == "4g" && phone.latency == .milliseconds(40) && phone.resets == 0.02)
        let tuned = try NetworkWeather.parse("4g, resets=5%, latency=100ms, partition=1s/30s, seed=7")
        #expect(tuned.name == "4g+")
        #expect(tuned.resets == 0.05 && tuned.latency == .milliseconds(100) && tuned.jitter == .milliseconds(20))
        #expect(tuned.partitionFor == .seconds(1) && tuned.partitionEvery == .seconds(30) && tuned.seed == 7)
        let custom = try NetworkWeather.parse("loss=0.01,bandwidth=1000")
        #expect(custom.name == "custom" && custom.loss == 0.01 && custom.bandwidth == 1000)
        #expect(Set(NetworkWeather.presets.keys) == ["4g", "congested-wifi", "hospital-gateway"])
        let none = try NetworkWeather.parse("none")
        #expect(none.isNone && none.summary == "network none: loopback as it is" && none.allowance == .zero)
        #expect(!phone.isNone)
    }

    /// A scenario names its network as `--network` does; without `network:` it has none.
    @Test func aScenarioNamesItsNetwork() throws {
        let text = """
            name: weathered
            duration: 10m
            network: congested-wifi, seed=3
            patients:
              - id: "501"
                profile: adult
                devices: [{id: hrm-1, type: heart-rate-strap}]
            """
        let scenario = try ScenarioLoader.parse(text, file: "weathered.yaml")
        #expect(scenario.network?.name == "congested-wifi+" && scenario.network?.seed == 3)
        #expect(scenario.network?.jitter == .milliseconds(40))
        let plain = try ScenarioLoader.parse(
            text.replacingOccurrences(of: "network: congested-wifi, seed=3\n", with: ""),
            file: "plain.yaml"
        )
        #expect(plain.network == nil)
    }

    @Test(arguments: [
        ("5g", "unknown network preset '5g'"),
        ("latency=fast", "latency=fast: expected a duration"),
        ("loss=150%", "loss=150%: expected a share between 0 and 1"),
        ("partition=2s", "expected LENGTH/EVERY"),
        ("partition=5s/2s", "a partition must be shorter than its period"),
        ("mtu=1500", "unknown network setting 'mtu'"),
    ])
    func mistakesAreNamed(_ text: String, _ message: String) {
        #expect {
            try NetworkWeather.parse(text)
        } throws: { error in
            "\(error)".contains(message)
        }
    }

    /// Budgets allow the worst latency four times (a request and its answer, each way of a read), a
    /// resend each way, a retry after a reset and a partition.
    @Test func theAllowanceAddsUpWhatTheWeatherCanCost() throws {
        #expect(try NetworkWeather.parse("latency=10ms,jitter=5ms").allowance == .milliseconds(60))
        #expect(try NetworkWeather.parse("latency=10ms,loss=1%").allowance == .milliseconds(440))
        #expect(try NetworkWeather.parse("latency=10ms,resets=1%").allowance == .milliseconds(40 + 250 + 20))
        #expect(try NetworkWeather.parse("partition=2s/60s").allowance == .seconds(2))
        #expect(try NetworkWeather.parse("4g").allowance == .milliseconds(3010))
    }

    /// An MQTT device's connection cut by a reset costs the client's reconnection (noticed within
    /// 250 ms), its CONNECT and CONNACK, and the messages in flight sent again, in place of an HTTP
    /// retry.
    @Test func aReconnectionCostsMoreThanARetry() throws {
        let resets = try NetworkWeather.parse("latency=10ms,resets=1%")
        #expect(resets.allowance(reconnecting: true) == .milliseconds(40 + 250 + 40))
        #expect(resets.allowance(reconnecting: false) == resets.allowance)
        let calm = try NetworkWeather.parse("latency=10ms")
        #expect(calm.allowance(reconnecting: true) == calm.allowance, "without resets nothing reconnects")
        #expect(try NetworkWeather.parse("4g").allowance(reconnecting: true) == .milliseconds(3010 - 120 + 240))
    }
}
