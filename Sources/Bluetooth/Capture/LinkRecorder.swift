import VitalSimCore

/// Records the HCI traffic of one simulated peripheral's connection to a central into a btsnoop
/// capture, from the peripheral host's side: advertising, LE Connection Complete, the central's
/// full GATT discovery (so Wireshark maps handles to characteristics), CCCD writes, then the
/// notifications and indications (each indication confirmed) at their scenario times.
package final class LinkRecorder {
    package let database: GATTDatabase
    let writer: BTSnoopWriter
    let connectionHandle: UInt16 = 0x0040
    let mtu = 23
    let aclBuffer = 27
    /// µs added to each frame inside one exchange so frames stay strictly ordered.
    var lastTime: Int64 = .min
    /// Timestamp of the last record written (µs).
    package var lastTimestamp: Int64 { lastTime }
    package private(set) var connected = false
    var backfillOpen = false

    package init(database: GATTDatabase, writer: BTSnoopWriter) {
        self.database = database
        self.writer = writer
    }

    func stamp(_ t: Int64) -> Int64 {
        lastTime = max(t, lastTime + 1)
        return lastTime
    }

    func command(_ opcode: UInt16, _ params: [UInt8], at t: Int64) {
        writer.append(
            h4: [HCIPacketType.command, UInt8(opcode & 0xFF), UInt8(opcode >> 8), UInt8(params.count)] + params,
            direction: .sentCommand,
            unixMicroseconds: stamp(t)
        )
        // Command Complete: 1 packet allowed, opcode, status success.
        event(HCIEvent.commandComplete, [0x01, UInt8(opcode & 0xFF), UInt8(opcode >> 8), 0x00], at: t)
    }

    func event(_ code: UInt8, _ params: [UInt8], at t: Int64) {
        writer.append(
            h4: [HCIPacketType.event, code, UInt8(params.count)] + params,
            direction: .receivedEvent,
            unixMicroseconds: stamp(t)
        )
    }

    /// Sends (host→controller, fragmented to the 27-byte LE buffer) or receives an ATT PDU over L2CAP CID 4.
    func att(_ pdu: [UInt8], sent: Bool, at t: Int64) {
        let l2cap =
            [
                UInt8(pdu.count & 0xFF), UInt8(pdu.count >> 8), UInt8(L2CAP.attChannel & 0xFF),
                UInt8(L2CAP.attChannel >> 8),
            ] + pdu
        let chunk = sent ? aclBuffer : l2cap.count
        var offset = 0
        while offset < l2cap.count {
            let part = Array(l2cap[offset..<min(l2cap.count, offset + chunk)])
            let pb: UInt16 = offset == 0 ? (sent ? 0x0000 : 0x2000) : 0x1000
            let flagged = connectionHandle | pb
            writer.append(
                h4: [
                    HCIPacketType.aclData, UInt8(flagged & 0xFF), UInt8(flagged >> 8), UInt8(part.count & 0xFF),
                    UInt8(part.count >> 8),
                ] + part,
                direction: sent ? .sentData : .receivedData,
                unixMicroseconds: stamp(t)
            )
            offset += part.count
        }
    }

    /// Controller set-up and advertising (HCI Reset, event masks, random static address, advertising).
    package func powerOn(at t: Int64, name: String, address: [UInt8]) {
        command(HCICommand.reset, [], at: t)
        command(HCICommand.setEventMask, [0xFF, 0xFF, 0xFB, 0xFF, 0x07, 0xF8, 0xBF, 0x3D], at: t)
        command(HCICommand.leSetEventMask, [0x1F, 0, 0, 0, 0, 0, 0, 0], at: t)
        command(HCICommand.leSetRandomAddress, address, at: t)
        command(
            HCICommand.leSetAdvertisingParameters,
            [0xA0, 0x00, 0xA0, 0x00, 0x00, 0x01, 0x00, 0, 0, 0, 0, 0, 0, 0x07, 0x00],
            at: t
        )
        var ad: [UInt8] = [0x02, AdvertisingDataType.flags, 0x06]
        let nameBytes = Array(name.utf8.prefix(31 - ad.count - 2 - 4))
        if let primary = database.services.dropFirst().first {
            ad += [
                0x03, AdvertisingDataType.completeServiceUUIDs16, UInt8(primary.uuid & 0xFF), UInt8(primary.uuid >> 8),
            ]
        }
        ad += [UInt8(nameBytes.count + 1), AdvertisingDataType.completeLocalName] + nameBytes
        command(
            HCICommand.leSetAdvertisingData,
            [UInt8(ad.count)] + ad + Array(repeating: 0, count: 31 - ad.count),
            at: t
        )
        command(HCICommand.leSetAdvertisingEnable, [0x01], at: t)
    }

    /// LE Connection Complete (peripheral role) from `central`.
    package func connect(at t: Int64, central: [UInt8]) {
        var parameters: [UInt8] =
            [
                HCIEvent.leConnectionComplete, 0x00, UInt8(connectionHandle & 0xFF), UInt8(connectionHandle >> 8), 0x01,
                0x01,
            ] + central
        parameters += [0x18, 0x00, 0x00, 0x00, 0xC8, 0x00, 0x00]
        event(HCIEvent.leMeta, parameters, at: t)
        connected = true
    }

    /// Disconnection Complete (remote user terminated or connection timeout).
    package func disconnect(at t: Int64) {
        event(
            HCIEvent.disconnectionComplete,
            [0x00, UInt8(connectionHandle & 0xFF), UInt8(connectionHandle >> 8), 0x08],
            at: t
        )
        connected = false
    }

    /// The central's primary-service, characteristic and descriptor discovery, answered from the database.
    package func discovery(at t: Int64) {
        // Read By Group Type (primary services), 3 per response at MTU 23.
        var start: UInt16 = 1
        while true {
            att(
                [ATTOpcode.readByGroupTypeRequest] + le(start) + le(0xFFFF) + le(GATTAttributeType.primaryService),
                sent: false,
                at: t
            )
            let group = database.services.filter { $0.startHandle >= start }.prefix(3)
            if group.isEmpty {
                att(
                    [ATTOpcode.errorResponse, ATTOpcode.readByGroupTypeRequest] + le(start) + [
                        ATTErrorCode.attributeNotFound
                    ],
                    sent: true,
                    at: t
                )
                break
            }
            var rsp: [UInt8] = [ATTOpcode.readByGroupTypeResponse, 6]
            for g in group {
                rsp += le(g.startHandle)
                rsp += le(g.endHandle)
                rsp += le(g.uuid)
            }
            att(rsp, sent: true, at: t)
            start = group.last!.endHandle + 1
        }
        for s in database.services {
            var handle = s.startHandle
            while true {
                att(
                    [ATTOpcode.readByTypeRequest] + le(handle) + le(s.endHandle) + le(GATTAttributeType.characteristic),
                    sent: false,
                    at: t
                )
                let decls = s.characteristics.filter { $0.declarationHandle >= handle }.prefix(3)
                if decls.isEmpty {
                    att(
                        [ATTOpcode.errorResponse, ATTOpcode.readByTypeRequest] + le(handle) + [
                            ATTErrorCode.attributeNotFound
                        ],
                        sent: true,
                        at: t
                    )
                    break
                }
                var rsp: [UInt8] = [ATTOpcode.readByTypeResponse, 7]
                for d in decls {
                    rsp += le(d.declarationHandle)
                    rsp.append(d.properties.rawValue)
                    rsp += le(d.valueHandle)
                    rsp += le(d.uuid)
                }
                att(rsp, sent: true, at: t)
                handle = decls.last!.declarationHandle + 1
            }
            for c in s.characteristics {
                guard let cccd = c.cccdHandle else { continue }
                att([ATTOpcode.findInformationRequest] + le(c.valueHandle + 1) + le(cccd), sent: false, at: t)
                att(
                    [ATTOpcode.findInformationResponse, 0x01] + le(cccd)
                        + le(GATTAttributeType.clientCharacteristicConfiguration),
                    sent: true,
                    at: t
                )
            }
        }
    }

    /// The central enables notifications or indications on every characteristic that has them.
    package func subscribeAll(at t: Int64) {
        for s in database.services {
            for c in s.characteristics {
                guard let cccd = c.cccdHandle else { continue }
                let value: UInt16 =
                    c.properties.contains(.indicate) && !c.properties.contains(.notify)
                    ? 2 : (c.uuid == RecordAccessControlPoint.uuid || c.uuid == CGMSpecificOpsControlPoint.uuid ? 2 : 1)
                att([ATTOpcode.writeRequest] + le(cccd) + le(value), sent: false, at: t)
                att([ATTOpcode.writeResponse], sent: true, at: t)
            }
        }
    }

    /// The central asks a record store for everything from sequence `from` on (RACP, Write Request).
    package func racpRequest(_ request: RecordAccessControlPoint, at t: Int64) {
        guard let racp = database.characteristic(RecordAccessControlPoint.uuid) else { return }
        att([ATTOpcode.writeRequest] + le(racp.valueHandle) + ((try? request.encode()) ?? []), sent: false, at: t)
        att([ATTOpcode.writeResponse], sent: true, at: t)
        backfillOpen = true
    }

    /// RACP Response Code indication (and its confirmation) after a backfill.
    package func racpDone(_ op: RecordAccessControlPoint.OpCode, at t: Int64) {
        guard backfillOpen else { return }
        backfillOpen = false
        send(
            characteristic: RecordAccessControlPoint.uuid,
            value: (try? RecordAccessControlPoint.response(to: op, .success).encode()) ?? [],
            indicate: true,
            at: t
        )
    }

    /// A notification or indication of `value` on `characteristic`; an indication is confirmed by the central.
    package func send(characteristic uuid: UInt16, value: [UInt8], indicate: Bool, at t: Int64) {
        guard let c = database.characteristic(uuid) else { return }
        att(
            [indicate ? ATTOpcode.handleValueIndication : ATTOpcode.handleValueNotification] + le(c.valueHandle)
                + value,
            sent: true,
            at: t
        )
        if indicate { att([ATTOpcode.handleValueConfirmation], sent: false, at: t + 2_000) }
    }

    /// Flushes buffered records to the file.
    package func finish() throws { try writer.flush() }

    private func le(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
}
