import Testing

@testable import LiveHarness

/// The listeners' connection cap makes room by closing the connection that does the least harm to
/// lose: one that never completed a request (an idle or stalled peer) before one idle between
/// requests, and never one with a request in hand.
struct ConnectionBookTests {
    @Test func belowTheCapNothingIsClosed() {
        var book = ConnectionBook<String>(cap: 3)
        #expect(book.open("a").evict == nil)
        #expect(book.open("b").evict == nil)
        #expect(book.open("c").evict == nil)
        #expect(book.count == 3)
    }

    @Test func atTheCapTheOldestPeerThatNeverSentARequestMakesRoom() {
        var book = ConnectionBook<String>(cap: 3)
        let sut = book.open("sut").number
        _ = book.open("idle-1")
        _ = book.open("idle-2")
        book.requestEnded(sut)
        book.responseEnded(sut)
        // The SUT's connection is the oldest, but it has completed a request: the idle peer goes.
        #expect(book.open("idle-3").evict == "idle-1")
        #expect(book.open("idle-4").evict == "idle-2")
        #expect(book.open("idle-5").evict == "idle-3")
        #expect(book.count == 3)
    }

    @Test func aRequestInHandIsNeverCut() {
        var book = ConnectionBook<String>(cap: 2)
        let first = book.open("first").number
        let second = book.open("second").number
        book.requestEnded(first)
        book.requestEnded(second)
        // Both are being answered: no room is made, the cap is passed until one ends.
        #expect(book.open("third").evict == nil)
        book.responseEnded(second)
        // The second is now idle between requests, the first still busy; the third never sent.
        #expect(book.open("fourth").evict == "third")
        #expect(book.open("fifth").evict == "fourth")
        book.closed(first)
        book.closed(second)
        #expect(book.count == 1)
    }

    @Test func whenEveryPeerHasServedTheOldestIdleOneMakesRoom() {
        var book = ConnectionBook<String>(cap: 2)
        for name in ["a", "b"] {
            let number = book.open(name).number
            book.requestEnded(number)
            book.responseEnded(number)
        }
        #expect(book.open("c").evict == "a")
    }

    @Test func aConnectionClosedToMakeRoomIsAlreadyGone() {
        var book = ConnectionBook<String>(cap: 1)
        let first = book.open("first").number
        #expect(book.open("second").evict == "first")
        book.closed(first)
        book.requestEnded(first)
        #expect(book.count == 1)
    }
}
