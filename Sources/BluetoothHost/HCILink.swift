import Bluetooth
import Foundation
import VitalSimCore

/// The HCI plumbing shared by the peripheral and central hosts: a reader thread, commands waiting
/// for Command Complete (or Command Status), LE buffer sizing and ACL flow control from Number Of
/// Completed Packets, L2CAP fragmentation and reassembly on the ATT channel (CID 4), connection
/// tracking, and a btsnoop capture of every packet.
///
/// Sendable: every mutable field is read and written with `state` locked, except `rx` and
/// `rxExpected`, which only the reader thread touches, and the hooks, which are set before
/// ``start(name:randomAddress:)``.
final class HCILink: @unchecked Sendable {
    let transport: any HCITransport
    let capture: BTSnoopWriter?
    /// Guards every mutable field below and the owner's state; signalled on every event.
    let state = NSCondition()
    var commandWaiting: UInt16?
    var commandResult: [UInt8]?
    var statusCompletes = false
    var connection: UInt16?
    var credits = 8
    var aclLength = 27
    var rx: [UInt8] = []
    var rxExpected = 0
    var readerError: HCIError?
    /// Set by ``stop()``: nothing is captured after the capture's last flush.
    var stopped = false
    /// Whether ``start(name:randomAddress:)`` started the reader thread, and a signal when it has ended.
    var readerStarted = false
    let readerEnded = DispatchSemaphore(value: 0)
    /// Owner hook for events, called with `state` locked after the link's own bookkeeping.
    var onEvent: ((UInt8, [UInt8]) -> Void)?
    /// Owner hook for complete ATT PDUs, called on the reader thread without the lock.
    var onATT: (([UInt8]) -> Void)?

    init(transport: any HCITransport, capture: BTSnoopWriter?) {
        self.transport = transport
        self.capture = capture
    }

    /// Starts the reader and brings the controller up: reset, event masks, LE buffer size, random address.
    func start(name: String, randomAddress: [UInt8]) throws(HCIError) {
        let thread = Thread { [self] in
            readLoop()
            readerEnded.signal()
        }
        thread.name = name
        state.lock()
        readerStarted = true
        state.unlock()
        thread.start()
        _ = try command(HCICommand.reset, [])
        _ = try command(HCICommand.setEventMask, [0xFF, 0xFF, 0xFB, 0xFF, 0x07, 0xF8, 0xBF, 0x3D])
        // LE events: connection complete, advertising report, … (bits 0–4), enhanced connection complete (9),
        // extended advertising report (12).
        _ = try command(HCICommand.leSetEventMask, [0x1F, 0x1A, 0, 0, 0, 0, 0, 0])
        let buffer = try command(HCICommand.leReadBufferSize, [])
        state.lock()
        let length = buffer.count >= 3 ? Int(buffer[0]) | Int(buffer[1]) << 8 : 0
        aclLength = length > 0 ? length : 27
        credits = buffer.count >= 3 && buffer[2] > 0 ? Int(buffer[2]) : 8
        state.unlock()
        _ = try command(HCICommand.leSetRandomAddress, randomAddress)
    }

    /// Sends a command and waits for Command Complete (or a successful Command Status when `completesWithStatus`);
    /// returns the return parameters after the status.
    func command(
        _ opcode: UInt16,
        _ params: [UInt8],
        timeout: TimeInterval = 5,
        completesWithStatus: Bool = false
    ) throws(HCIError) -> [UInt8] {
        state.lock()
        statusCompletes = completesWithStatus
        commandWaiting = opcode
        commandResult = nil
        state.unlock()
        let packet = [HCIPacketType.command, UInt8(opcode & 0xFF), UInt8(opcode >> 8), UInt8(params.count)] + params
        log(packet, .sentCommand)
        try transport.write(packet)
        state.lock()
        defer {
            commandWaiting = nil
            state.unlock()
        }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while commandResult == nil, readerError == nil {
            if !state.wait(until: deadline) {
                throw .timeout("completion of HCI command 0x\(String(opcode, radix: 16))")
            }
        }
        if let readerError { throw readerError }
        let result = commandResult ?? []
        guard let status = result.first else { throw .malformedPacket("empty Command Complete") }
        if status != 0 { throw .commandFailed(opcode: opcode, status: status) }
        return Array(result.dropFirst())
    }

    /// Sends an ATT PDU on L2CAP CID 4, fragmented to the controller's ACL length, waiting for buffer credits.
    func sendATT(_ pdu: [UInt8]) throws(HCIError) {
        state.lock()
        guard let handle = connection else {
            state.unlock()
            throw .closed
        }
        state.unlock()
        let l2cap =
            [
                UInt8(pdu.count & 0xFF), UInt8(pdu.count >> 8), UInt8(L2CAP.attChannel & 0xFF),
                UInt8(L2CAP.attChannel >> 8),
            ] + pdu
        var offset = 0
        while offset < l2cap.count {
            let part = Array(l2cap[offset..<min(l2cap.count, offset + aclLength)])
            state.lock()
            let deadline = Date(timeIntervalSinceNow: 5)
            while credits == 0, readerError == nil, connection != nil {
                if !state.wait(until: deadline) {
                    state.unlock()
                    throw .timeout("ACL buffer credits (Number Of Completed Packets)")
                }
            }
            if let failure = readerError {
                state.unlock()
                throw failure
            }
            credits -= 1
            state.unlock()
            let flagged = handle | (offset == 0 ? 0x0000 : 0x1000)  // packet boundary flag: first / continuing fragment
            let packet =
                [
                    HCIPacketType.aclData, UInt8(flagged & 0xFF), UInt8(flagged >> 8), UInt8(part.count & 0xFF),
                    UInt8(part.count >> 8),
                ] + part
            log(packet, .sentData)
            try transport.write(packet)
            offset += part.count
        }
    }

    func log(_ packet: [UInt8], _ direction: BTSnoopWriter.Direction) {
        guard let capture else { return }
        let us = Int64(Date().timeIntervalSince1970 * 1_000_000)
        state.lock()
        if !stopped { capture.append(h4: packet, direction: direction, unixMicroseconds: us) }
        state.unlock()
    }

    func readLoop() {
        while true {
            let packet: [UInt8]
            do { packet = try transport.read() } catch {
                state.lock()
                if readerError == nil { readerError = error }
                state.broadcast()
                state.unlock()
                return
            }
            log(packet, packet[0] == HCIPacketType.event ? .receivedEvent : .receivedData)
            switch packet[0] {
            case HCIPacketType.event where packet.count >= 3: event(packet[1], Array(packet[3...]))
            case HCIPacketType.aclData where packet.count >= 5: acl(packet)
            default: break
            }
        }
    }

    func event(_ code: UInt8, _ p: [UInt8]) {
        state.lock()
        defer {
            state.broadcast()
            state.unlock()
        }
        switch code {
        case HCIEvent.commandComplete where p.count >= 3:
            if u16(p, 1) == commandWaiting { commandResult = Array(p[3...]) }
        case HCIEvent.commandStatus where p.count >= 4:
            if u16(p, 2) == commandWaiting, p[0] != 0 || statusCompletes { commandResult = [p[0]] }
        case HCIEvent.leMeta
        where p.count >= 4 && (p[0] == HCIEvent.leConnectionComplete || p[0] == HCIEvent.leEnhancedConnectionComplete):
            if p[1] == 0 { connection = u16(p, 2) & 0x0FFF }
        case HCIEvent.disconnectionComplete where p.count >= 4:
            connection = nil
        case HCIEvent.numberOfCompletedPackets where p.count >= 1:
            var members = 1
            for _ in 0..<Int(p[0]) where members + 3 < p.count {
                credits += Int(u16(p, members + 2))
                members += 4
            }
        default: break
        }
        onEvent?(code, p)
    }

    func acl(_ packet: [UInt8]) {
        let pb = (packet[2] >> 4) & 0x03
        let data = Array(packet[5...])
        if pb == 0x01 {  // a continuing fragment
            rx += data
        } else {
            rx = data
            rxExpected = data.count >= 2 ? Int(u16(data, 0)) : 0
        }
        guard rx.count >= 4, rx.count >= rxExpected + 4 else { return }
        let cid = u16(rx, 2)
        let pdu = Array(rx[4..<(4 + rxExpected)])
        rx = []
        if cid == L2CAP.attChannel, !pdu.isEmpty { onATT?(pdu) }
    }

    /// Closes the transport and, once the reader thread has logged what it read, flushes the capture.
    func stop() {
        transport.close()
        state.lock()
        let reading = readerStarted
        state.unlock()
        if reading { _ = readerEnded.wait(timeout: .now() + 2) }
        state.lock()
        stopped = true
        try? capture?.flush()
        state.unlock()
    }

    func u16(_ b: [UInt8], _ o: Int) -> UInt16 { UInt16(b[o]) | UInt16(b[o + 1]) << 8 }
}
