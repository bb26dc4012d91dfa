import Locking
import Testing

/// `Locked`: every update made under the lock is kept when many tasks update at once, and a
/// typed error thrown inside the lock leaves the lock free and the value as the body left it.
struct LockedTests {
    @Test func concurrentUpdatesAreNeverLost() async {
        let counter = Locked(0)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<1_000 { counter.withLock { $0 += 1 } }
                }
            }
        }
        #expect(counter.withLock { $0 } == 8_000)
    }

    struct Refused: Error, Equatable { let reason: String }

    @Test func aThrownErrorReleasesTheLock() {
        let names = Locked(["first"])
        #expect(throws: Refused(reason: "full")) {
            try names.withLock { (list: inout [String]) throws(Refused) in
                list.append("second")
                throw Refused(reason: "full")
            }
        }
        // The lock is free again (a second withLock would deadlock otherwise), and the change
        // made before the throw is kept: the lock guards, it does not roll back.
        #expect(names.withLock { $0 } == ["first", "second"])
    }
}
