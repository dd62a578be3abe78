import CLinux
import Glibc
import Synchronization

/// Something registered with an event loop: a listener, a connection, a signal fd.
public protocol EventHandler: AnyObject {
    var descriptor: Int32 { get }
    /// `events` are the EPOLL* bits epoll reported.
    func handle(events: UInt32, loop: EventLoop)
}

/// One thread, one epoll instance, level-triggered. Connections stay on the loop that
/// accepted them, so their state is never shared between threads; other threads talk to a
/// loop only through `execute`, which wakes it with an eventfd.
public final class EventLoop: @unchecked Sendable {
    public let index: Int
    private let epoll: Int32
    private let wakeDescriptor: Int32
    /// The registered handlers, indexed by descriptor number (small and dense, so an array
    /// serves as the table: no hashing per event).
    private var registrations: [Registration?] = []
    /// The id the next registration gets; never 0, which marks the eventfd's events.
    private var nextRegistrationID: UInt32 = 1
    private let pending = Mutex<[@Sendable () -> Void]>([])
    /// Connections placed on this loop and not closed yet (those on their way here included):
    /// read by the other loops when they place a connection they accepted.
    let connectionsPlaced = Atomic<Int>(0)
    /// Blocking work submitted from this loop whose completion has not run yet: a draining
    /// loop stops only once this is 0, so every publish it started is heard back.
    private(set) var workInFlight = 0
    private var running = true
    /// Runs every `tickInterval` on this loop's thread: timeouts, watchdog, status.
    var onTick: [(EventLoop) -> Void] = []
    private let tickInterval: UInt64 = 250_000_000
    private var nextTick: UInt64 = 0
    /// CLOCK_MONOTONIC in nanoseconds when epoll_wait last returned: the "now" of every
    /// deadline and duration worked out in this wakeup. Read once per wakeup rather than per
    /// request (nginx's `ngx_time_update` does the same); a wakeup lasts microseconds to a
    /// few milliseconds, against timeouts of seconds.
    private(set) var now: UInt64
    /// Wall-clock seconds since 1970 when epoll_wait last returned (Date headers).
    private(set) var wallClockSeconds: Int64
    /// Where this loop's connections stage bytes they do not keep: a new request's first read
    /// (what the request leaves moves to the connection's own buffer, so an idle keep-alive
    /// connection holds none), a file's bytes on their way into OpenSSL, a head joined with
    /// its body. Shared, since one connection at a time runs and no use of it outlasts the
    /// call that made it. Made on first use.
    private var scratchBuffer: UnsafeMutableRawBufferPointer?
    var scratch: UnsafeMutableRawBufferPointer {
        if let scratchBuffer { return scratchBuffer }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)
        scratchBuffer = buffer
        return buffer
    }

    init(index: Int) throws(SystemError) {
        self.index = index
        now = Clock.monotonicNanoseconds()
        wallClockSeconds = Clock.wallClockSeconds()
        epoll = try syscall("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }
        wakeDescriptor = try syscall("eventfd") { eventfd(0, Int32(EFD_NONBLOCK) | Int32(EFD_CLOEXEC)) }
        // Data 0 marks the eventfd; every other event carries its registration (`Registration`).
        var event = epoll_event(events: EPOLLIN.rawValue, data: epoll_data_t(u64: 0))
        try syscall("epoll_ctl(ADD eventfd)") { epoll_ctl(epoll, EPOLL_CTL_ADD, wakeDescriptor, &event) }
    }

    deinit {
        close(wakeDescriptor)
        close(epoll)
        scratchBuffer?.deallocate()
    }

    /// Connections and other handlers currently registered (for shutdown and timeouts).
    var registeredHandlers: [EventHandler] { registrations.compactMap { $0?.handler } }

    public func register(_ handler: EventHandler, events: UInt32) throws(SystemError) {
        let descriptor = handler.descriptor
        let registration = Registration(handler, descriptor: descriptor, id: nextRegistrationID)
        nextRegistrationID = nextRegistrationID == .max ? 1 : nextRegistrationID + 1
        var event = epoll_event(events: events, data: registration.epollData)
        try syscall("epoll_ctl(ADD)") { epoll_ctl(epoll, EPOLL_CTL_ADD, descriptor, &event) }
        let slot = Int(descriptor)
        if slot >= registrations.count {
            registrations.append(contentsOf: repeatElement(nil, count: max(slot + 1 - registrations.count, registrations.count)))
        }
        // A registration left behind by a descriptor closed without `unregister` is replaced:
        // its events, if any are still in the batch, no longer match an id.
        registrations[slot] = registration
    }

    public func modify(_ handler: EventHandler, events: UInt32) {
        guard let registration = registration(of: handler) else { return }
        var event = epoll_event(events: events, data: registration.epollData)
        _ = try? syscall("epoll_ctl(MOD)") { epoll_ctl(epoll, EPOLL_CTL_MOD, handler.descriptor, &event) }
    }

    private func registration(of handler: EventHandler) -> Registration? {
        let slot = Int(handler.descriptor)
        guard slot >= 0, slot < registrations.count, let registration = registrations[slot],
            registration.handler === handler
        else { return nil }
        return registration
    }

    /// Removes the handler; the caller closes the descriptor afterwards. Events of the
    /// current batch not yet dispatched to it are dropped. A handler never registered (a
    /// connection closed in its first pass, `Connection.start`) costs no system call.
    public func unregister(_ handler: EventHandler) {
        guard let registration = registration(of: handler) else { return }
        registrations[Int(registration.descriptor)] = nil
        _ = try? syscall("epoll_ctl(DEL)") { epoll_ctl(epoll, EPOLL_CTL_DEL, registration.descriptor, nil) }
    }

    func workSubmitted() {
        workInFlight += 1
    }

    func workCompleted() {
        workInFlight -= 1
    }

    /// Runs `task` on this loop's thread, soon. Callable from any thread.
    public func execute(_ task: @escaping @Sendable () -> Void) {
        pending.withLock { $0.append(task) }
        var one: UInt64 = 1
        _ = write(wakeDescriptor, &one, 8)
    }

    /// Makes `run` return after the current iteration.
    func stop() {
        running = false
    }

    /// The index of the loop running on the calling thread, or nil on any other thread: lets
    /// a cache shared by the loops keep a part per loop without being told which loop calls.
    public static var currentIndex: Int? {
        let value = Int(bitPattern: pthread_getspecific(loopIndexKey))
        return value == 0 ? nil : value - 1
    }

    /// The loop itself. Returns after `stop()`.
    func run() {
        pthread_setspecific(loopIndexKey, UnsafeRawPointer(bitPattern: index + 1))
        var events = [epoll_event](repeating: epoll_event(), count: 256)
        updateTime()
        nextTick = now + tickInterval
        while running {
            let timeout = nextTick > now ? Int32((nextTick - now) / 1_000_000) + 1 : 0
            let count = events.withUnsafeMutableBufferPointer { buffer in
                epoll_wait(epoll, buffer.baseAddress, Int32(buffer.count), timeout)
            }
            if count < 0 && errno != EINTR {
                preconditionFailure("epoll_wait failed: \(errno)")
            }
            updateTime()
            for i in 0..<max(0, Int(count)) {
                let data = events[i].data.u64
                guard data != 0 else {
                    drainWakeups()
                    continue
                }
                // An event of a registration ended earlier in this batch (its descriptor closed,
                // perhaps reused by a newcomer) finds no registration with its id: dropped.
                let slot = Int(Registration.descriptor(of: data))
                guard slot < registrations.count, let registration = registrations[slot],
                    registration.id == Registration.id(of: data)
                else { continue }
                registration.handler.handle(events: events[i].events, loop: self)
            }
            if now >= nextTick {
                nextTick = now + tickInterval
                for tick in onTick { tick(self) }
            }
        }
    }

    private func updateTime() {
        now = Clock.monotonicNanoseconds()
        wallClockSeconds = Clock.wallClockSeconds()
    }

    private func drainWakeups() {
        var value: UInt64 = 0
        _ = read(wakeDescriptor, &value, 8)
        let tasks = pending.withLock { tasks in
            defer { tasks.removeAll() }
            return tasks
        }
        for task in tasks { task() }
    }
}

/// A handler registered with a loop. epoll_event.data carries the descriptor and an id unique
/// to this registration (swift-nio's `SelectorEpoll` does the same): an event reaches its
/// handler by an array lookup, and is checked against the id. A handler unregistered while a
/// batch is dispatched (a connection closed by an earlier event) may still have events further
/// on in that batch; they are dropped, never handed to a new handler that took the same
/// descriptor number.
private final class Registration {
    let handler: EventHandler
    let descriptor: Int32
    let id: UInt32

    init(_ handler: EventHandler, descriptor: Int32, id: UInt32) {
        self.handler = handler
        self.descriptor = descriptor
        self.id = id
    }

    var epollData: epoll_data_t {
        epoll_data_t(u64: UInt64(id) << 32 | UInt64(UInt32(bitPattern: descriptor)))
    }

    static func descriptor(of data: UInt64) -> Int32 { Int32(bitPattern: UInt32(truncatingIfNeeded: data)) }
    static func id(of data: UInt64) -> UInt32 { UInt32(truncatingIfNeeded: data >> 32) }
}

/// The thread-specific slot `EventLoop.currentIndex` reads: the loop's index plus one (zero,
/// the unset value, means no loop).
private let loopIndexKey: pthread_key_t = {
    var key = pthread_key_t()
    precondition(pthread_key_create(&key, nil) == 0, "pthread_key_create failed")
    return key
}()
