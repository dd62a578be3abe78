import CLinux
import FiledropCore
import Glibc
import Synchronization

/// Settings of the server as a whole (per-connection ones live in `ConnectionConfiguration`).
public struct ServerConfiguration: Sendable {
    public var connection = ConnectionConfiguration()
    /// Connections beyond this are closed at once after accept.
    public var maxConnections = 1024
    /// Connections one client address may hold; further ones are closed at once after accept,
    /// so one machine cannot take every slot of `maxConnections`.
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
    public let listeners: [ListeningSocket]
    private let configuration: ServerConfiguration
    /// One per loop, by loop index: the given responder's per-loop instances when it is a
    /// `PerLoopResponder`, else the given responder itself.
    private let responders: [any HTTPResponder]
    private let log: any LogSink
    private let loops: [EventLoop]
    /// Where the loops send whatever may block.
    public let workers: WorkerPool
    private let connectionCount = Atomic<Int>(0)
    private let drainDeadline = Atomic<UInt64>(0)
    private let draining = Atomic<Bool>(false)
    private let nextLoop = Atomic<Int>(0)
    /// Open connections per client address; an address leaves the map when its last one closes.
    private let connectionsPerClient = Mutex<[String: Int]>([:])

    public init(listeners: [ListeningSocket], configuration: ServerConfiguration, responder: any HTTPResponder, log: any LogSink) throws(SystemError) {
        self.listeners = listeners
        self.configuration = configuration
        self.log = log
        let count = configuration.threads > 0 ? configuration.threads : max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        var loops: [EventLoop] = []
        for index in 0..<count { loops.append(try EventLoop(index: index)) }
        self.loops = loops
        workers = WorkerPool(threads: configuration.workerThreads > 0 ? configuration.workerThreads : WorkerPool.defaultThreads,
                             queueLimit: configuration.workerQueueLimit)
        responders = loops.map { loop in
            (responder as? any PerLoopResponder)?.responder(forLoop: loop.index) ?? responder
        }
        for loop in loops {
            for listener in listeners {
                try loop.register(Acceptor(listener: listener, server: self),
                                  events: EPOLLIN.rawValue | EPOLLEXCLUSIVE.rawValue)
            }
            loop.onTick.append { [unowned self] loop in self.tick(loop) }
        }
    }

    /// Open connections on all loops.
    public var activeConnections: Int { connectionCount.load(ordering: .relaxed) }

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

    /// Runs every loop on its own thread and returns when all have stopped.
    public func run() {
        var threads: [pthread_t] = []
        for loop in loops.dropFirst() {
            threads.append(startThread { loop.run() })
        }
        loops[0].run()
        for thread in threads { pthread_join(thread, nil) }
        workers.shutdown()
        for listener in listeners { listener.close() }
    }

    /// Stops accepting, closes idle connections, lets requests in progress finish until
    /// `deadline` (monotonic ns), then aborts what is left. Callable from any thread.
    public func beginShutdown(deadline: UInt64) {
        drainDeadline.store(deadline, ordering: .relaxed)
        draining.store(true, ordering: .relaxed)
        for loop in loops {
            loop.execute { [unowned self] in
                for handler in Array(loop.registeredHandlers) {
                    if let acceptor = handler as? Acceptor {
                        loop.unregister(acceptor)
                    } else if let connection = handler as? Connection {
                        connection.beginShutdown(loop: loop)
                    }
                }
                self.stopIfDrained(loop)
            }
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

    private func stopIfDrained(_ loop: EventLoop) {
        if loop.workInFlight == 0 && !loop.registeredHandlers.contains(where: { $0 is Connection }) { loop.stop() }
    }

    fileprivate func accepted(_ fd: Int32, peer: SocketAddress, loop: EventLoop) {
        let open = connectionCount.wrappingAdd(1, ordering: .relaxed).newValue
        guard open <= configuration.maxConnections, !draining.load(ordering: .relaxed) else {
            connectionCount.wrappingSubtract(1, ordering: .relaxed)
            Glibc.close(fd)
            return
        }
        guard claimClientSlot(peer.host) else {
            connectionCount.wrappingSubtract(1, ordering: .relaxed)
            Glibc.close(fd)
            return
        }
        var noDelay: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        // Round-robin over the loops: one accept wakeup may take a whole burst of
        // connections, which would otherwise all stay on the loop that woke.
        let target = loops[nextLoop.wrappingAdd(1, ordering: .relaxed).oldValue % loops.count]
        if target === loop {
            adopt(fd, peer: peer, on: loop)
        } else {
            let box = AcceptedSocket(descriptor: fd, peer: peer)
            target.execute { [unowned self] in self.adopt(box.descriptor, peer: box.peer, on: target) }
        }
    }

    private func adopt(_ fd: Int32, peer: SocketAddress, on loop: EventLoop) {
        let connection = Connection(
            descriptor: fd, peer: peer, configuration: configuration.connection, responder: responders[loop.index],
            workers: workers, log: log,
            onClose: { [unowned self] _ in
                self.connectionCount.wrappingSubtract(1, ordering: .relaxed)
                self.releaseClientSlot(peer.host)
            })
        do {
            try loop.register(connection, events: EPOLLIN.rawValue)
        } catch {
            connectionCount.wrappingSubtract(1, ordering: .relaxed)
            releaseClientSlot(peer.host)
            Glibc.close(fd)
        }
    }

    /// Counts a connection against its client's limit; false when the client is at it.
    private func claimClientSlot(_ client: String) -> Bool {
        connectionsPerClient.withLock { counts in
            let open = counts[client, default: 0]
            guard open < configuration.maxConnectionsPerClient else { return false }
            counts[client] = open + 1
            return true
        }
    }

    private func releaseClientSlot(_ client: String) {
        connectionsPerClient.withLock { counts in
            let open = counts[client, default: 1] - 1
            counts[client] = open > 0 ? open : nil
        }
    }
}

/// Accepts pending connections of one listening socket on one loop.
private final class Acceptor: EventHandler {
    let listener: ListeningSocket
    unowned let server: HTTPServer
    var descriptor: Int32 { listener.descriptor }

    init(listener: ListeningSocket, server: HTTPServer) {
        self.listener = listener
        self.server = server
    }

    func handle(events: UInt32, loop: EventLoop) {
        // A bounded batch per wakeup keeps the loop responsive under a connection storm.
        for _ in 0..<64 {
            switch try? listener.accept() {
            case .done(let (fd, peer)): server.accepted(fd, peer: peer, loop: loop)
            case .wouldBlock, nil: return
            }
        }
    }
}

/// An accepted descriptor in transit to another loop.
private struct AcceptedSocket: Sendable {
    let descriptor: Int32
    let peer: SocketAddress
}

private final class ThreadBody {
    let body: () -> Void
    init(_ body: @escaping () -> Void) { self.body = body }
}

private func startThread(_ body: @escaping () -> Void) -> pthread_t {
    var thread = pthread_t()
    let context = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
    let result = pthread_create(&thread, nil, { context in
        Unmanaged<ThreadBody>.fromOpaque(context!).takeRetainedValue().body()
        return nil
    }, context)
    precondition(result == 0, "pthread_create failed: \(result)")
    return thread
}
