/// Attribute Protocol opcodes (Bluetooth Core 5.4, Vol 3, Part F, §3.4.8).
package enum ATTOpcode {
    package static let errorResponse: UInt8 = 0x01
    package static let exchangeMTURequest: UInt8 = 0x02
    package static let exchangeMTUResponse: UInt8 = 0x03
    package static let findInformationRequest: UInt8 = 0x04
    package static let findInformationResponse: UInt8 = 0x05
    package static let findByTypeValueRequest: UInt8 = 0x06
    package static let findByTypeValueResponse: UInt8 = 0x07
    package static let readByTypeRequest: UInt8 = 0x08
    package static let readByTypeResponse: UInt8 = 0x09
    package static let readRequest: UInt8 = 0x0A
    package static let readResponse: UInt8 = 0x0B
    package static let readBlobRequest: UInt8 = 0x0C
    package static let readByGroupTypeRequest: UInt8 = 0x10
    package static let readByGroupTypeResponse: UInt8 = 0x11
    package static let writeRequest: UInt8 = 0x12
    package static let writeResponse: UInt8 = 0x13
    package static let handleValueNotification: UInt8 = 0x1B
    package static let handleValueIndication: UInt8 = 0x1D
    package static let handleValueConfirmation: UInt8 = 0x1E
    package static let writeCommand: UInt8 = 0x52
    /// The command flag: a PDU with it set gets no error response.
    package static let commandFlag: UInt8 = 0x40
}

/// Attribute Protocol error codes (Vol 3, Part F, §3.4.1.1) and the CCCD error of the Core
/// Specification Supplement.
package enum ATTErrorCode {
    package static let invalidHandle: UInt8 = 0x01
    package static let readNotPermitted: UInt8 = 0x02
    package static let writeNotPermitted: UInt8 = 0x03
    package static let invalidPDU: UInt8 = 0x04
    package static let requestNotSupported: UInt8 = 0x06
    package static let invalidOffset: UInt8 = 0x07
    package static let attributeNotFound: UInt8 = 0x0A
    package static let invalidAttributeValueLength: UInt8 = 0x0D
    package static let unsupportedGroupType: UInt8 = 0x10
    package static let cccdImproperlyConfigured: UInt8 = 0xFD
}
