import SUTAdapter

extension SettingNames {
    /// The command line's flags for the settings that library messages point at.
    static let flags = SettingNames { setting in
        switch setting {
        case .target: "--target"
        case .header: "--header"
        case .caFile: "--cacert"
        case .insecure: "--insecure"
        case .clientCertificate: "--client-cert and --client-key"
        case .mqttBroker: "--mqtt HOST:PORT"
        case .alertWait: "--alert-wait"
        case .outageLimit: "--outage-limit"
        case .webhookPort: "--webhook-port"
        case .speed: "a finite --speed"
        case .bleMode: "--ble hci"
        case .hci: "--hci"
        case .bumblePython: "--bumble-python PYTHON"
        }
    }
}
