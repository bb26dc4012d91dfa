#if canImport(Glibc)
import Glibc
#endif

/// A value that only one thread at a time may touch, guarded by a pthread mutex.
///
/// The same contract as the standard library's `Synchronization.Mutex` (the value goes in and
/// comes out `sending`, so the compiler checks that nothing unprotected escapes), on a lock that
/// ThreadSanitizer sees: on Linux `Mutex` locks with futex calls from code the sanitizer does not
/// instrument, so every access through it reads as a data race (`ci/tsan.sh`). The one
/// `@unchecked Sendable` here is what the mutex guards.
package final class Locked<Value>: @unchecked Sendable {
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    @usableFromInline var value: Value

    /// A lock guarding `value`.
    package init(_ value: sending Value) {
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        self.value = value
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, holding the lock (inlinable, so that callers in other modules
    /// pay no generic dispatch on hot paths, as with `Mutex`).
    @inlinable
    package func withLock<Result, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
