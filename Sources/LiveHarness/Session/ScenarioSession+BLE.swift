import Foundation
import Judge
import RunRecord
import Traffic
import VitalSimCore

extension ScenarioSession {
    /// The network the scenario ran under and its budgets' allowance, for the judge; says what the
    /// weather did to the devices' traffic.
    func weathered() -> (summary: String, allowance: Double)? {
        let mqtt = mqttWeather
        guard let weather = setup.network else { return nil }
        let http = resources.weather.first.map(\.tally).flatMap { $0.connections == 0 ? nil : $0 }
        let carried = [
            http.map { "the devices' HTTP requests \($0)" },
            mqtt.map { "the devices' MQTT connection \($0.tally)" },
        ]
        setup.options.note("\(setup.name): the network carried \(carried.compactMap { $0 }.joined(separator: "; "))")
        return (weather.summary, weather.allowance(reconnecting: mqtt != nil).seconds * 1000)
    }
    /// The BLE devices as live peripherals, connected by the SUT's gateway before the run starts;
    /// nil without a BLE link.
    func bleLink() throws(HarnessError) -> LiveRunner.Alongside? {
        let options = setup.options
        guard setup.overBLE, let speed = options.pacing.speed else { return nil }
        let captures = options.reports.evidence.map { "\($0)/\(setup.name)/ble-live" }
        if let captures {
            try? FileManager.default.createDirectory(atPath: captures, withIntermediateDirectories: true)
        }
        let link = try BLELink(
            scenario: setup.scenario,
            seed: options.pacing.seed,
            hci: peripheralHCI,
            speed: speed,
            captureDirectory: captures
        )
        resources.link = link
        if options.target.url != nil {
            options.note(
                "\(setup.name): BLE devices advertising on \(peripheralHCI.joined(separator: ", ")) — waiting for the SUT's gateway to subscribe"
            )
        }
        try link.connect(timeout: options.target.url == nil ? 60 : 300)
        return link.alongside(startUnixMilliseconds: setup.scenario.startUnixMilliseconds, clock: runner.clock)
    }
}
