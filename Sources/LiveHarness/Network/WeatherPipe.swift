import Foundation

/// One direction of a connection through a ``WeatherProxy``: the chunks read from one side and not
/// yet written to the other, each with the instant it is due. The reader puts, the writer takes, so
/// a chunk's latency runs from its own arrival (chunks in flight overlap, as on a real link) while
/// their order holds. At most ``limit`` bytes wait: past it the reader stops reading, and TCP's flow
/// control holds the sender back.
///
/// Sendable: every field is guarded by `condition`.
final class WeatherPipe: @unchecked Sendable {
    struct Chunk {
        let bytes: [UInt8]
        let due: ContinuousClock.Instant
    }

    /// The bytes a direction holds in flight at most (4 MiB).
    static let limit = 4 << 20

    private let condition = NSCondition()
    private var chunks: [Chunk] = []
    private var head = 0
    private var held = 0
    private var closed = false
    private var aborted = false

    /// Adds a chunk, waiting while the pipe is full; false once the pipe was aborted.
    func put(_ chunk: Chunk) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while held >= Self.limit, !aborted { condition.wait() }
        guard !aborted else { return false }
        chunks.append(chunk)
        held += chunk.bytes.count
        condition.broadcast()
        return true
    }

    /// The next chunk, waiting for one; nil once the pipe is closed and empty, or aborted.
    func take() -> Chunk? {
        condition.lock()
        defer { condition.unlock() }
        while head == chunks.count, !closed, !aborted { condition.wait() }
        guard !aborted, head < chunks.count else { return nil }
        let chunk = chunks[head]
        head += 1
        held -= chunk.bytes.count
        if head > 1024, head * 2 > chunks.count {
            chunks.removeFirst(head)
            head = 0
        }
        condition.broadcast()
        return chunk
    }

    /// The reading side ended: what is in flight is still written, then ``take()`` answers nil.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    /// The connection is gone (reset, or the writing side failed): what is in flight is dropped.
    func abort() {
        condition.lock()
        aborted = true
        condition.broadcast()
        condition.unlock()
    }
}
