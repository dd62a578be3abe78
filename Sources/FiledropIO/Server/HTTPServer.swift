import CLinux
import FiledropCore
import Glibc
import Synchronization

/// Settings of the server as a whole (per-connection ones live in `ConnectionConfiguration`).
public struct ServerConfiguration: Sendable {
    public var connection = ConnectionConfiguration()
    /// Connections served at once. At the limit the server stops accepting (further
    /// connections wait in the listen backlog) until one closes; kept-alive idle ones are
    /// closed to make room.
    public var maxConnections = 1024
    /// Connections one client address may hold; when the server is at least half full, an
    /// address may hold no more than its fair share (`ConnectionAdmission`). Connections over
    /// either are answered 503 and closed.
    public var maxConnectionsPerClient = 64
    /// Event-loop threads; 0 means one per CPU.
    public var threads = 0
    /// Worker threads for blocking work (fsync, publishing, password hashing); 0 means
    /// `WorkerPool.defaultThreads`.
    public var workerThreads = 0
    /// Skippable work (listings) waiting for a worker beyond this is refused with 503.
    public var workerQueueLimit = 256

    public init() {}
}

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
    private let admission: ConnectionAdmission
    /// One per loop, by loop index: the given responder's per-loop instances when it is a
    /// `PerLoopResponder`, else the given responder itself.
    private let responders: [any HTTPResponder]
    private let log: any LogSink
    private let loops: [EventLoop]
    /// Where the loops send whatever may block.
    public let workers: WorkerPool
    /// By loop index: that loop's acceptor of each listener (set once, in `init`).
    private var acceptors: [[Acceptor]] = []
    private let connectionCount = Atomic<Int>(0)
    private let drainDeadline = Atomic<UInt64>(0)
    private let draining = Atomic<Bool>(false)
    /// Set while every slot is taken: the loops then stop polling the listeners.
    private let acceptingPaused = Atomic<Bool>(false)
    /// Loops that have yet to stop polling the listeners at shutdown; the last one closes them.
    private let loopsPollingListeners: Atomic<Int>
    /// Open connections per client address; an address leaves the map when its last one closes.
    private let connectionsPerClient = Mutex<[String: Int]>([:])
    /// One notice per burst of refusals (per address) or of reaching the limit.
    private let notices = Mutex(NoticeThrottle(interval: 10_000_000_000))

    public init(listeners: [ListeningSocket], secureListeners: [ListeningSocket] = [], tls: TLSContext? = nil,
                configuration: ServerConfiguration, responder: any HTTPResponder, log: any LogSink) throws(SystemError) {
        precondition(secureListeners.isEmpty || tls != nil, "HTTPS listeners need a TLS context")
        self.listeners = listeners
        self.secureListeners = secureListeners
        tlsContext = Mutex(tls)
        self.configuration = configuration
        admission = ConnectionAdmission(maxConnections: configuration.maxConnections,
                                        maxConnectionsPerClient: configuration.maxConnectionsPerClient)
        self.log = log
        let count = configuration.threads > 0 ? configuration.threads : max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        var loops: [EventLoop] = []
        for index in 0..<count { loops.append(try EventLoop(index: index)) }
        self.loops = loops
        workers = WorkerPool(threads: configuration.workerThreads > 0 ? configuration.workerThreads : WorkerPool.defaultThreads,
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
        if now >= drainDeadline.load(ordering: .relaxed) {
            for connection in loop.registeredHandlers.compactMap({ $0 as? Connection }) { connection.abort(loop: loop) }
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
        // The slot is taken before the decision, so loops accepting at once never overshoot.
        let open = connectionCount.wrappingAdd(1, ordering: .relaxed).newValue
        let decision = connectionsPerClient.withLock { counts in
            let held = counts[client, default: 0]
            let decision = admission.decide(open: open - 1, heldByClient: held, addresses: counts.count)
            if decision == .admit { counts[client] = held + 1 }
            return decision
        }
        guard decision == .admit else {
            connectionCount.wrappingSubtract(1, ordering: .relaxed)
            refuse(fd, client: client, decision: decision, open: open - 1, secure: secure != nil, loop: loop)
            return
        }
        if open >= configuration.maxConnections { updateAcceptingPause() }
        let target = placement(acceptedOn: loop)
        target.connectionsPlaced.wrappingAdd(1, ordering: .relaxed)
        if target === loop {
            adopt(fd, client: client, secure: secure, on: loop)
        } else {
            let box = AcceptedSocket(descriptor: fd, client: client, secure: secure)
            target.execute { [unowned self] in self.adopt(box.descriptor, client: box.client, secure: box.secure, on: target) }
        }
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

    private func refuse(_ fd: Int32, client: String, decision: ConnectionAdmission.Decision, open: Int, secure: Bool, loop: EventLoop) {
        let refusal: Refusal
        let reason: String
        if decision != .admit { configuration.connection.metrics?.refused(.connectionLimit) }
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
        log.log(LogEvent(level: .notice, message: "refused a connection from \(client) with 503: \(reason)\(more)",
                         fields: [("client", client), ("open_connections", String(open))]))
    }

    /// Pauses accepting while every slot is taken and resumes once one frees. Called after a
    /// change of the count that may cross the limit, from any loop; it re-reads the count
    /// after flipping the flag, so a close racing an accept cannot leave it paused while free.
    private func updateAcceptingPause() {
        while true {
            let open = connectionCount.load(ordering: .relaxed)
            let full = open >= configuration.maxConnections
            let paused = acceptingPaused.load(ordering: .relaxed)
            if full == paused { return }
            guard acceptingPaused.compareExchange(expected: paused, desired: full, ordering: .relaxed).exchanged else { continue }
            if full { limitReached(open: open) }
            // Each loop reads the flag when its task runs, so tasks that overtake each other
            // still leave every loop as the last flip wants.
            for loop in loops {
                loop.execute { [unowned self] in
                    self.updateAcceptors(on: loop)
                    if full { self.closeIdleConnections(on: loop) }
                }
            }
        }
    }

    private func limitReached(open: Int) {
        guard let unlogged = notices.withLock({ $0.note("max-connections", now: Clock.monotonicNanoseconds()) }) else { return }
        let more = unlogged > 0 ? " (reached \(unlogged) more times since the last notice)" : ""
        log.log(LogEvent(level: .notice,
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

    private func adopt(_ fd: Int32, client: String, secure port: UInt16?, on loop: EventLoop) {
        // Handed over by another loop after this one began draining: it would never be told.
        if draining.load(ordering: .relaxed) {
            Refusal.shuttingDown.answer(fd, secure: port != nil)
            connectionClosed(client: client, loop: loop)
            return
        }
        let secure = port.flatMap { port in tlsContext.withLock { $0 }.map { SecureListener(context: $0, port: port) } }
        let connection = Connection(
            descriptor: fd, client: client, configuration: configuration.connection, responder: responders[loop.index],
            secure: secure, workers: workers, log: log, loopIndex: loop.index,
            onClose: { [unowned self] _ in self.connectionClosed(client: client, loop: loop) })
        connection.start(on: loop)
    }

    /// `loop`: the one the connection was placed on.
    private func connectionClosed(client: String, loop: EventLoop) {
        connectionCount.wrappingSubtract(1, ordering: .relaxed)
        loop.connectionsPlaced.wrappingSubtract(1, ordering: .relaxed)
        connectionsPerClient.withLock { counts in
            let open = counts[client, default: 1] - 1
            counts[client] = open > 0 ? open : nil
        }
        if acceptingPaused.load(ordering: .relaxed) { updateAcceptingPause() }
    }
}

/// An accepted descriptor in transit to another loop.
private struct AcceptedSocket: Sendable {
    let descriptor: Int32
    /// The peer's address as text (`SocketAddress.host`).
    let client: String
    let secure: UInt16?
}

/// What a connection accepted on an HTTPS port starts from.
struct SecureListener {
    let context: TLSContext
    /// The port it arrived on, for the URL a plain-HTTP request there is sent to.
    let port: UInt16
}
