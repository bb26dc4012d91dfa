/// Equipment a caregiver logs (the Health Hearts SRS's "record the equipment the caregiver is using to tend to
/// their child"): the home-care equipment of an interstage infant whose setting matters.
public enum EquipmentItem: String, Sendable, CaseIterable {
    /// Home oxygen (concentrator or cylinder): its flow, L/min.
    case oxygen
    /// A nasogastric feeding tube: its size, French (Charrière).
    case ngTube = "ng-tube"
    /// An enteral feeding pump: its rate, mL/h.
    case feedingPump = "feeding-pump"

    /// The signal that carries the item's setting.
    public var signal: Signal {
        switch self {
        case .oxygen: .oxygenFlow
        case .ngTube: .ngTubeSize
        case .feedingPump: .feedingPumpRate
        }
    }

    /// The settings a caregiver can log (in the signal's unit).
    public var range: ClosedRange<Double> {
        switch self {
        case .oxygen: 0...15
        case .ngTube: 3...20
        case .feedingPump: 0...500
        }
    }

    /// The item whose setting `signal` carries, if any.
    public init?(signal: Signal) {
        guard let item = EquipmentItem.allCases.first(where: { $0.signal == signal }) else { return nil }
        self = item
    }
}

/// What a log entry records.
public enum EquipmentAction: String, Sendable, CaseIterable {
    /// In use at this setting (the first entry, and the daily check).
    case inUse = "in-use"
    /// Replaced by a new one (a tube's regular change).
    case replaced
    /// Its setting changed (oxygen turned up during a desaturation, and back).
    case adjusted
}

/// One equipment item of an equipment log and its setting at the scenario's start.
public struct EquipmentSetting: Sendable, Equatable {
    /// The item.
    public var item: EquipmentItem
    /// Its setting at the start, in the item's unit.
    public var setting: Double
    /// A value with every field given.
    public init(_ item: EquipmentItem, _ setting: Double) {
        self.item = item
        self.setting = setting
    }
}
