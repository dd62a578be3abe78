import FiledropHTTP
import Glibc

/// State behind a pthread mutex, with a condition variable to wait on it: for the threads
/// that sleep until there is work or an answer (a worker queue, a reply awaited), which
/// `Mutex` cannot do. Checked `Sendable`: the state is only reached with the mutex held,
/// and is itself `Sendable`, so whatever goes in or out of it may cross threads.
public final class ConditionLock<State: Sendable>: Sendable {
    // The mutex, the condition and the state each live at an address of their own, made in
    // `init` and freed in `deinit`: pthread's objects must not move. The pointers are
    // `UnsafeTransfer` because every access to what they point at holds the mutex, which
    // orders one thread's changes before the next thread's reads.
    private let mutex: UnsafeTransfer<UnsafeMutablePointer<pthread_mutex_t>>
    private let condition: UnsafeTransfer<UnsafeMutablePointer<pthread_cond_t>>
    private let state: UnsafeTransfer<UnsafeMutablePointer<State>>

    /// `monotonic`: deadlines given to `withLock(when:deadline:_:)` are on
    /// `CLOCK_MONOTONIC` (else `CLOCK_REALTIME`, pthread's default).
    public init(_ initial: State, monotonic: Bool = false) {
        let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        if monotonic { pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC) }
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
        let state = UnsafeMutablePointer<State>.allocate(capacity: 1)
        state.initialize(to: initial)
        self.mutex = UnsafeTransfer(mutex)
        self.condition = UnsafeTransfer(condition)
        self.state = UnsafeTransfer(state)
    }

    deinit {
        pthread_cond_destroy(condition.wrappedValue)
        condition.wrappedValue.deinitialize(count: 1)
        condition.wrappedValue.deallocate()
        pthread_mutex_destroy(mutex.wrappedValue)
        mutex.wrappedValue.deinitialize(count: 1)
        mutex.wrappedValue.deallocate()
        state.wrappedValue.deinitialize(count: 1)
        state.wrappedValue.deallocate()
    }

    /// Runs `body` on the state with the mutex held.
    public func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex.wrappedValue)
        defer { pthread_mutex_unlock(mutex.wrappedValue) }
        return try body(&state.wrappedValue.pointee)
    }

    /// Waits until `ready` holds (the mutex released while asleep), then runs `body` with
    /// the mutex still held. Someone who makes `ready` true must `signal` or `broadcast`.
    public func withLock<Result>(when ready: (State) -> Bool, _ body: (inout State) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex.wrappedValue)
        defer { pthread_mutex_unlock(mutex.wrappedValue) }
        while !ready(state.wrappedValue.pointee) { pthread_cond_wait(condition.wrappedValue, mutex.wrappedValue) }
        return try body(&state.wrappedValue.pointee)
    }

    /// As `withLock(when:_:)`, waiting no later than `deadline` (on the clock `init` chose);
    /// `body` hears whether `ready` held.
    public func withLock<Result>(
        when ready: (State) -> Bool, deadline: timespec, _ body: (inout State, _ ready: Bool) throws -> Result
    ) rethrows -> Result {
        var deadline = deadline
        pthread_mutex_lock(mutex.wrappedValue)
        defer { pthread_mutex_unlock(mutex.wrappedValue) }
        while !ready(state.wrappedValue.pointee) {
            if pthread_cond_timedwait(condition.wrappedValue, mutex.wrappedValue, &deadline) == ETIMEDOUT { break }
        }
        return try body(&state.wrappedValue.pointee, ready(state.wrappedValue.pointee))
    }

    /// Wakes one thread waiting in `withLock(when:)`.
    public func signal() { pthread_cond_signal(condition.wrappedValue) }

    /// Wakes every thread waiting in `withLock(when:)`.
    public func broadcast() { pthread_cond_broadcast(condition.wrappedValue) }
}
