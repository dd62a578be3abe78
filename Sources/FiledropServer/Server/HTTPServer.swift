import CLinux
import FiledropHTTP
import Glibc
import Synchronization

/// The HTTP/1.1 server: a few event loops, each accepting from every listening socket
/// (EPOLLEXCLUSIVE spreads the accepts) and owning the connections it accepted.
public final class HTTPServer: @unchecked Sendable {
    /// Plain-HTTP listeners.
    public let listeners: [ListeningSocket]
    /// HTTPS listeners: their connections start with a TLS handshake.
    public let secureListeners: [ListeningSocket]
    /// The context new HTTPS connections start from; replaced when the certificate changes.
    private let tlsContext: Mutex<TLSContext?>
    private let configuration: ServerConfiguration
    /// One per loop, by loop index: the given responder's per-loop instances when it is a
    /// `PerLoopResponder`, else the given responder itself.
    private let responders: [any HTTPResponder]
    private let log: any LogSink
    private let loops: [EventLoop]
    /// Where the loops send whatever may block.
    public let workers: WorkerPool
    /// By loop index: that loop's acceptor of each listener (set once, in `init`).
    private var acceptors: [[Acceptor]] = []
    /// Mirrors `slots`' open count, for readers that take no lock.
    private let connectionCount = Atomic<Int>(0)
    /// Who holds the slots; decides admissions and evictions.
    private let slots: Mutex<ConnectionSlots>
    /// By loop index: that loop's connections by slot, touched only on that loop (so an
    /// eviction asked for by another loop finds its victim there).
    private let loopConnections: [LoopConnections]
    private let drainDeadline = Atomic<UInt64>(0)
    private let draining = Atomic<Bool>(false)
    /// Set while no new connection can get a slot (every slot is taken by a connection that
    /// sent a whole request): the loops then stop polling the listeners. Changed under `slots`' lock.
    private let acceptingPaused = Atomic<Bool>(false)
    /// Loops that have yet to stop polling the listeners at shutdown; the last one closes them.
    private let loopsPollingListeners: Atomic<Int>
    /// Gives the heap's free pages back after a burst of closes (a flood's aftermath).
    private let heapTrimmer = HeapTrimmer()
    /// One notice per burst of refusals (per address) or of reaching the limit.
    private let notices = Mutex(NoticeThrottle(interval: 10_000_000_000))

    public init(
        listeners: [ListeningSocket], secureListeners: [ListeningSocket] = [], tls: TLSContext? = nil,
        configuration: ServerConfiguration, responder: any HTTPResponder, log: any LogSink
    ) throws(SystemError) {
        precondition(secureListeners.isEmpty || tls != nil, "HTTPS listeners need a TLS context")
        self.listeners = listeners
        self.secureListeners = secureListeners
        tlsContext = Mutex(tls)
        self.configuration = configuration
        slots = Mutex(
            ConnectionSlots(
                policy: ConnectionAdmission(
                    maxConnections: configuration.maxConnections,
                    maxConnectionsPerClient: configuration.maxConnectionsPerClient)))
        self.log = log
        let count = configuration.threads > 0 ? configuration.threads : max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        var loops: [EventLoop] = []
        for index in 0..<count { loops.append(try EventLoop(index: index)) }
        self.loops = loops
        loopConnections = loops.map { _ in LoopConnections() }
        workers = WorkerPool(
            threads: configuration.workerThreads > 0 ? configuration.workerThreads : WorkerPool.defaultThreads,
            queueLimit: configuration.workerQueueLimit)
        loopsPollingListeners = Atomic(count)
        responders = loops.map { loop in
            (responder as? any PerLoopResponder)?.responder(forLoop: loop.index) ?? responder
        }
        acceptors = loops.map { _ in
            listeners.map { Acceptor(listener: $0, isSecure: false, server: self) }
                + secureListeners.map { Acceptor(listener: $0, isSecure: true, server: self) }
        }
        for loop in loops {
            for acceptor in acceptors[loop.index] {
                try loop.register(acceptor, events: Acceptor.events)
                acceptor.isPolled = true
            }
            loop.onTick.append { [unowned self] loop in self.tick(loop) }
        }
        loops[0].onTick.append { [unowned self] loop in self.heapTrimmer.tick(loop: loop, workers: self.workers) }
    }

    /// New HTTPS connections use `context` (a renewed or re-issued certificate); those open
    /// keep theirs until they close, so nothing in flight is dropped. Callable from any thread.
    public func replaceTLSContext(_ context: TLSContext) {
        tlsContext.withLock { $0 = context }
    }

    /// Open connections on all loops.
    public var activeConnections: Int { connectionCount.load(ordering: .relaxed) }

    /// Whether new connections are taken: not while every slot is taken, nor once shutting down.
    var isAccepting: Bool { !acceptingPaused.load(ordering: .relaxed) && !draining.load(ordering: .relaxed) }

    /// The loop that hosts signal handling and periodic duties (status, watchdog).
    public var mainLoop: EventLoop { loops[0] }

    /// Runs `body` on the main loop every tick (about 4 times a second).
    public func onMainLoopTick(_ body: @escaping () -> Void) {
        loops[0].onTick.append { _ in body() }
    }

    /// Delivers SIGTERM, SIGINT and SIGHUP to `handler` on the main loop instead of
    /// interrupting a thread at a random point.
    public func handleSignals(_ signals: [Int32], handler: @escaping (Int32) -> Void) throws(SystemError) {
        let watcher = try SignalWatcher(signals: signals, handler: handler)
        try loops[0].register(watcher, events: EPOLLIN.rawValue)
    }

    /// Runs every loop on a thread of its own (named `loop-N`; the process keeps its name)
    /// and returns when all have stopped.
    public func run() {
        let threads = loops.map { loop in startNamedThread("loop-\(loop.index)") { loop.run() } }
        for thread in threads { pthread_join(thread, nil) }
        workers.shutdown(deadline: drainDeadline.load(ordering: .relaxed) &+ Self.workGrace)
        for listener in listeners + secureListeners { listener.close() }
    }

    /// Stops accepting, closes idle connections, lets requests in progress finish until
    /// `deadline` (monotonic ns), then aborts what is left. Callable from any thread.
    ///
    /// Listening sockets we bound are closed as soon as no loop polls them, so a new
    /// connection is refused at once rather than left unanswered in the backlog; those
    /// inherited from systemd stay open, for systemd to hold connections until the next start.
    public func beginShutdown(deadline: UInt64) {
        drainDeadline.store(deadline, ordering: .relaxed)
        draining.store(true, ordering: .relaxed)
        for loop in loops {
            loop.execute { [unowned self] in
                self.updateAcceptors(on: loop)
                if self.loopsPollingListeners.wrappingSubtract(1, ordering: .acquiringAndReleasing).newValue == 0 {
                    self.closeBoundListeners()
                }
                for connection in loop.registeredHandlers.compactMap({ $0 as? Connection }) {
                    connection.beginShutdown(loop: loop)
                }
                self.stopIfDrained(loop)
            }
        }
    }

    /// Answers what waits in the backlogs of the sockets we bound with 503, then closes them.
    private func closeBoundListeners() {
        let plain = Set(listeners.map(\.descriptor))
        for listener in listeners + secureListeners where !listener.isInherited {
            for _ in 0..<configuration.maxConnections {
                guard case .done(let (fd, _))? = try? listener.accept() else { break }
                Refusal.shuttingDown.answer(fd, secure: !plain.contains(listener.descriptor))
            }
            listener.close()
        }
    }

    private func tick(_ loop: EventLoop) {
        let now = loop.now
        let connections = loop.registeredHandlers.compactMap { $0 as? Connection }
        for connection in connections { connection.checkTimeouts(loop: loop, now: now) }
        guard draining.load(ordering: .relaxed) else { return }
        let deadline = drainDeadline.load(ordering: .relaxed)
        if now >= deadline {
            let final = now >= deadline &+ Self.deadlineAnswerGrace
            for connection in loop.registeredHandlers.compactMap({ $0 as? Connection }) {
                connection.drainDeadlinePassed(loop: loop, final: final)
            }
        }
        stopIfDrained(loop)
    }

    /// A loop stops once its connections are gone and the work they handed out is back (so
    /// every publish it started is heard of), or, past the drain deadline plus
    /// `workGrace`, without waiting for work that hangs (a dead network file system).
    private func stopIfDrained(_ loop: EventLoop) {
        guard !loop.registeredHandlers.contains(where: { $0 is Connection }) else { return }
        if loop.workInFlight == 0 || loop.now >= drainDeadline.load(ordering: .relaxed) &+ Self.workGrace { loop.stop() }
    }

    /// How long after the drain deadline an upload's 503 may take to reach its client.
    static let deadlineAnswerGrace: UInt64 = 2_000_000_000

    /// How long after the drain deadline the loops and `run` still wait for blocking work.
    static let workGrace: UInt64 = 5_000_000_000

    // MARK: - Admission

    /// `secure` is the HTTPS port the connection came to, nil for plain HTTP.
    func accepted(_ fd: Int32, peer: SocketAddress, secure: UInt16?, loop: EventLoop) {
        if draining.load(ordering: .relaxed) {
            Refusal.shuttingDown.answer(fd, secure: secure != nil)
            return
        }
        let client = peer.host
        let target = placement(acceptedOn: loop)
        let (admission, open, paused) = slots.withLock { slots in
            let admission = slots.admit(
                client: client, stage: secure != nil ? .handshaking : .awaitingHead,
                owner: target.index, now: loop.now)
            switch admission {
            case .admitEvicting(let id, let eviction):
                // Both posted under the lock, so a victim's loop runs its adoption before any
                // eviction of it: a slot is chosen as a victim only after it was admitted here.
                requestEviction(eviction)
                place(fd, client: client, slot: id, secure: secure, on: target, acceptedOn: loop)
            case .admit(let id):
                place(fd, client: client, slot: id, secure: secure, on: target, acceptedOn: loop)
            case .refuse:
                break
            }
            connectionCount.store(slots.open, ordering: .relaxed)
            return (admission, slots.open, pauseChange(slots))
        }
        if let paused { acceptingChanged(paused: paused, open: open) }
        switch admission {
        case .refuse(let decision):
            refuse(fd, client: client, decision: decision, open: open, secure: secure != nil, loop: loop)
            return
        case .admitEvicting(_, let eviction):
            evictionNoticed(eviction, newcomer: client, loop: loop)
        case .admit:
            break
        }
        guard target === loop else { return }
        switch admission {
        case .admit(let id), .admitEvicting(let id, _): adopt(fd, client: client, slot: id, secure: secure, on: loop)
        case .refuse: break
        }
    }

    /// Counts a new connection on the loop it was placed on, and posts it there if that is
    /// not the loop that accepted it (which adopts it itself once the lock is released).
    /// Under `slots`' lock.
    private func place(
        _ fd: Int32, client: String, slot: ConnectionSlots.ID, secure: UInt16?, on target: EventLoop,
        acceptedOn loop: EventLoop
    ) {
        target.connectionsPlaced.wrappingAdd(1, ordering: .relaxed)
        guard target !== loop else { return }
        let box = AcceptedSocket(descriptor: fd, client: client, slot: slot, secure: secure)
        target.execute { [unowned self] in
            self.adopt(box.descriptor, client: box.client, slot: box.slot, secure: box.secure, on: target)
        }
    }

    /// Has the victim's loop close it (if it still has not sent a whole head by then). Under
    /// `slots`' lock. Loops own their connections, so another loop's are never touched here.
    private func requestEviction(_ eviction: ConnectionSlots.Eviction) {
        let owner = loops[eviction.owner]
        owner.execute { [unowned self] in
            self.loopConnections[owner.index].byID[eviction.victim]?.evict(loop: owner)
        }
    }

    /// Under `slots`' lock: flips `acceptingPaused` when whether newcomers can get a slot
    /// changed, and returns the new value then.
    private func pauseChange(_ slots: ConnectionSlots) -> Bool? {
        let paused = !slots.acceptsNewcomers
        guard acceptingPaused.load(ordering: .relaxed) != paused else { return nil }
        acceptingPaused.store(paused, ordering: .relaxed)
        return paused
    }

    /// One notice per burst of evictions: the operator learns the server was full of
    /// connections that sent nothing whole (a flood, or many very slow clients).
    private func evictionNoticed(_ eviction: ConnectionSlots.Eviction, newcomer: String, loop: EventLoop) {
        guard let unlogged = notices.withLock({ $0.note("eviction", now: loop.now) }) else { return }
        let what = eviction.stage == .handshaking ? "an unfinished TLS handshake" : "an unfinished request head"
        let more = unlogged > 0 ? " (\(unlogged) more closed since the last notice)" : ""
        let held = "\(eviction.age / 1_000_000_000).\(eviction.age / 100_000_000 % 10)"
        log.log(
            LogEvent(
                level: .notice,
                message: "every connection slot is taken (max-connections): closed \(what) from \(eviction.client), "
                    + "open for \(held) s, to make room for a new connection from \(newcomer)\(more)",
                fields: [("client", eviction.client), ("newcomer", newcomer)]))
    }

    /// The loop a new connection goes to: the one that accepted it, unless that one already
    /// serves two or more connections above the least busy loop, which then gets it. Handing
    /// a connection over costs an eventfd write, a wakeup and a read on each side (a tenth of
    /// a one-request connection's time), so it happens only to even out a burst: EPOLLEXCLUSIVE
    /// wakes a loop that was waiting, but a loop that woke may accept many at once.
    private func placement(acceptedOn loop: EventLoop) -> EventLoop {
        var target = loop
        var least = loop.connectionsPlaced.load(ordering: .relaxed) - 1
        for other in loops where other !== loop {
            let placed = other.connectionsPlaced.load(ordering: .relaxed)
            if placed < least {
                least = placed
                target = other
            }
        }
        return target
    }

    private func refuse(
        _ fd: Int32, client: String, decision: ConnectionAdmission.Decision, open: Int, secure: Bool, loop: EventLoop
    ) {
        let refusal: Refusal
        let reason: String
        if decision != .admit { configuration.observer?.connectionRefused() }
        switch decision {
        case .admit:
            return
        case .serverFull:
            // Another loop filled the last slot while this one accepted; the limit's own
            // notice covers it.
            Refusal.serverFull.answer(fd, secure: secure)
            return
        case .clientAtCap:
            refusal = .clientAtCap
            reason = "it holds \(configuration.maxConnectionsPerClient), the most one address may (max-connections-per-client)"
        case .clientOverShare(let share):
            refusal = .clientOverShare
            reason = "it holds its fair share of \(share) while \(open) of \(configuration.maxConnections) connections are open"
        }
        refusal.answer(fd, secure: secure)
        guard let unlogged = notices.withLock({ $0.note("client " + client, now: loop.now) }) else { return }
        let more = unlogged > 0 ? " (\(unlogged) more refused since the last notice)" : ""
        log.log(
            LogEvent(
                level: .notice, message: "refused a connection from \(client) with 503: \(reason)\(more)",
                fields: [("client", client), ("open_connections", String(open))]))
    }

    /// Pauses accepting while no newcomer can get a slot and resumes once one can: carries
    /// out a flip `pauseChange` made under the lock (so flips are ordered as the table changed).
    private func acceptingChanged(paused: Bool, open: Int) {
        if paused { limitReached(open: open) }
        // Each loop reads the flag when its task runs, so tasks that overtake each other
        // still leave every loop as the last flip wants.
        for loop in loops {
            loop.execute { [unowned self] in
                self.updateAcceptors(on: loop)
                if paused { self.closeIdleConnections(on: loop) }
            }
        }
    }

    private func limitReached(open: Int) {
        guard let unlogged = notices.withLock({ $0.note("max-connections", now: Clock.monotonicNanoseconds()) }) else { return }
        let more = unlogged > 0 ? " (reached \(unlogged) more times since the last notice)" : ""
        log.log(
            LogEvent(
                level: .notice,
                message: "connection limit reached: \(open) connections open (max-connections); "
                    + "new ones wait in the listen backlog and idle keep-alive ones are closed\(more)",
                fields: [("open_connections", String(open))]))
    }

    /// Registers or unregisters this loop's acceptors as the server's state wants. On the loop.
    private func updateAcceptors(on loop: EventLoop) {
        let wanted = isAccepting
        for acceptor in acceptors[loop.index] where acceptor.isPolled != wanted {
            if wanted {
                acceptor.isPolled = (try? loop.register(acceptor, events: Acceptor.events)) != nil
            } else {
                loop.unregister(acceptor)
                acceptor.isPolled = false
            }
        }
    }

    /// Makes room at the limit: closes this loop's share of kept-alive connections that sit
    /// idle, those whose last request began longest ago first. A sixteenth of the slots in all
    /// (at least one per loop), so a limit reached again soon closes more.
    private func closeIdleConnections(on loop: EventLoop) {
        let quota = max(1, configuration.maxConnections / 16 / loops.count)
        let idle = loop.registeredHandlers.compactMap { handler -> (Connection, UInt64)? in
            guard let connection = handler as? Connection, let since = connection.idleKeepAliveSince else { return nil }
            return (connection, since)
        }
        for (connection, _) in idle.sorted(by: { $0.1 < $1.1 }).prefix(quota) {
            connection.closeIfIdle(loop: loop)
        }
    }

    private func adopt(_ fd: Int32, client: String, slot: ConnectionSlots.ID, secure port: UInt16?, on loop: EventLoop) {
        // Handed over by another loop after this one began draining: it would never be told.
        if draining.load(ordering: .relaxed) {
            Refusal.shuttingDown.answer(fd, secure: port != nil)
            connectionClosed(slot: slot, loop: loop)
            return
        }
        let secure = port.flatMap { port in tlsContext.withLock { $0 }.map { SecureListener(context: $0, port: port) } }
        let connection = Connection(
            descriptor: fd, client: client, slot: slot, configuration: configuration.connection,
            responder: responders[loop.index], secure: secure, workers: workers, log: log, observer: configuration.observer,
            loopIndex: loop.index,
            onAdvance: { [unowned self] connection in self.connectionAdvanced(connection) },
            onClose: { [unowned self] connection in self.connectionClosed(slot: connection.slot, loop: loop) })
        loopConnections[loop.index].byID[slot] = connection
        connection.start(on: loop)
    }

    private func connectionAdvanced(_ connection: Connection) {
        let (open, paused) = slots.withLock { slots in
            slots.advanced(connection.slot, to: connection.stage)
            return (slots.open, pauseChange(slots))
        }
        if let paused { acceptingChanged(paused: paused, open: open) }
    }

    /// `loop`: the one the connection was placed on.
    private func connectionClosed(slot: ConnectionSlots.ID, loop: EventLoop) {
        loop.connectionsPlaced.wrappingSubtract(1, ordering: .relaxed)
        loopConnections[loop.index].byID[slot] = nil
        heapTrimmer.connectionClosed()
        let (open, paused) = slots.withLock { slots in
            slots.closed(slot)
            connectionCount.store(slots.open, ordering: .relaxed)
            return (slots.open, pauseChange(slots))
        }
        if let paused { acceptingChanged(paused: paused, open: open) }
    }
}

/// A loop's connections by slot; touched only on that loop.
private final class LoopConnections {
    var byID: [ConnectionSlots.ID: Connection] = [:]
}

/// An accepted descriptor in transit to another loop.
private struct AcceptedSocket: Sendable {
    let descriptor: Int32
    /// The peer's address as text (`SocketAddress.host`).
    let client: String
    let slot: ConnectionSlots.ID
    let secure: UInt16?
}

/// What a connection accepted on an HTTPS port starts from.
struct SecureListener {
    let context: TLSContext
    /// The port it arrived on, for the URL a plain-HTTP request there is sent to.
    let port: UInt16
}
