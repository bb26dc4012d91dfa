/// HCI packet indicators of the H4 transport (Bluetooth Core 5.4, Vol 4, Part A, §2).
package enum HCIPacketType {
    package static let command: UInt8 = 0x01
    package static let aclData: UInt8 = 0x02
    package static let event: UInt8 = 0x04
}

/// HCI command opcodes (OGF << 10 | OCF; Vol 4, Part E, §7).
package enum HCICommand {
    package static let disconnect: UInt16 = 0x0406
    package static let setEventMask: UInt16 = 0x0C01
    package static let reset: UInt16 = 0x0C03
    package static let leSetEventMask: UInt16 = 0x2001
    package static let leReadBufferSize: UInt16 = 0x2002
    package static let leSetRandomAddress: UInt16 = 0x2005
    package static let leSetAdvertisingParameters: UInt16 = 0x2006
    package static let leSetAdvertisingData: UInt16 = 0x2008
    package static let leSetAdvertisingEnable: UInt16 = 0x200A
    package static let leSetScanParameters: UInt16 = 0x200B
    package static let leSetScanEnable: UInt16 = 0x200C
    package static let leCreateConnection: UInt16 = 0x200D
}

/// HCI event codes and LE meta subevent codes (Vol 4, Part E, §7.7).
package enum HCIEvent {
    package static let disconnectionComplete: UInt8 = 0x05
    package static let commandComplete: UInt8 = 0x0E
    package static let commandStatus: UInt8 = 0x0F
    package static let numberOfCompletedPackets: UInt8 = 0x13
    package static let leMeta: UInt8 = 0x3E
    package static let leConnectionComplete: UInt8 = 0x01
    package static let leAdvertisingReport: UInt8 = 0x02
    package static let leEnhancedConnectionComplete: UInt8 = 0x0A
    package static let leExtendedAdvertisingReport: UInt8 = 0x0D
    /// Disconnect reason: remote user terminated connection.
    package static let remoteUserTerminated: UInt8 = 0x13
}

/// L2CAP channel ids and advertising data types (Core Specification Supplement, Part A, §1).
package enum L2CAP {
    /// The fixed channel of the Attribute Protocol.
    package static let attChannel: UInt16 = 0x0004
}

/// Advertising data types (Assigned Numbers, §2.3).
package enum AdvertisingDataType {
    package static let flags: UInt8 = 0x01
    package static let incompleteServiceUUIDs16: UInt8 = 0x02
    package static let completeServiceUUIDs16: UInt8 = 0x03
    package static let shortenedLocalName: UInt8 = 0x08
    package static let completeLocalName: UInt8 = 0x09
}
