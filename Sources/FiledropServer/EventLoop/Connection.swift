import CLinux
import FiledropHTTP
import Glibc

/// Drives one accepted socket: reads into a bounded buffer, hands bytes to the core
/// `ConnectionStateMachine` and carries out what it answers. All on the owning loop's thread;
/// blocking work the machine hands out goes to the `WorkerPool`, whose answer comes back to
/// this loop. Not `Sendable`: the closures that reach it from another thread say why they
/// may (`handOut`, `readAvailable`), and run only here. What the
/// connection is doing (reading, writing, waiting, lingering) is the machine's state; this
/// class keeps only its socket, buffers and epoll interest.
///
/// Reading (the socket into the machine) is in `Connection+Reading.swift`; the members it
/// shares with this file are internal for that reason alone, used by nothing else.
///
/// The four properties every request goes through many times are `@exclusivity(unchecked)`:
/// only this class touches them, on one thread, and never two overlapping accesses to the same
/// one (a closure given to `inbound` works on `machine`, not on `inbound`). The runtime's
/// checks of that cost about 25 calls and 1.5k instructions per small request.
final class Connection: EventHandler {
    let descriptor: Int32
    let peer: String
    @exclusivity(unchecked) var machine: ConnectionStateMachine
    @exclusivity(unchecked) var inbound = ByteBuffer()
    @exclusivity(unchecked) private var writer = OutboundWriter()
    /// False once the descriptor is closed. Work handed out before may still come back.
    @exclusivity(unchecked) var isOpen = true
    /// The TLS state on the HTTPS port, made once the first record is whole
    /// (`TLSSession.opening`); nil for plain HTTP (and for a plain request that arrived at the
    /// HTTPS port: answered in clear with a 400 naming the HTTPS URL, then closed).
    var tls: TLSSession?
    /// True on the HTTPS port until the handshake is done; no HTTP byte is read before.
    var handshaking: Bool
    /// The handshake counts against head-timeout: a client that never finishes it is closed.
    private let handshakeDeadline: UInt64
    private let configuration: ConnectionConfiguration
    private let secure: SecureListener?
    /// The app, asked for what answers plain HTTP on the HTTPS port (`answerPlainRequest`).
    private let responder: any HTTPResponder
    let limits: HTTPLimits
    let log: any LogSink
    /// Told of each finished request (the access log and the metrics); nil tells no one.
    private let observer: (any ServerObserver)?
    /// The loop the connection lives on, for the observer.
    private let loopIndex: Int
    private let workers: WorkerPool
    /// Tells the workers this connection is gone, so questions it asked are not worked out.
    private let ticket = WorkTicket()
    private let onClose: (Connection) -> Void
    /// The connection's slot in the server's table (`ConnectionSlots`).
    let slot: ConnectionSlots.ID
    /// How far the table has been told this connection got; told once per stage.
    var reportedStage: ConnectionSlots.Stage
    /// Tells the table the connection got further (`reportedStage` changed).
    let onAdvance: (Connection) -> Void
    /// When the request being served began (the wakeup that read its first byte), for the
    /// access log. Its end is read from the clock itself, and only when the line is logged.
    var requestStart: UInt64 = 0
    /// The status of the response being written; nil once it is logged (or before one starts).
    private var responseStatus: HTTPStatus?
    /// Answered 503 at the drain deadline: left to finish sending that, until the final cut.
    private var answeredAtDrainDeadline = false
    /// The epoll events asked for now; changed only when different (one syscall saved per
    /// request on the common path where a response is written in one go).
    private var interest: UInt32 = EPOLLIN.rawValue
    /// The socket's SO_RCVLOWAT. While a body streams in it is raised to the bytes certain to
    /// come (at most a read's worth), so epoll wakes us once a block has queued instead of for
    /// every 16 KiB segment curl sends: one read and one file write per 256 KiB, not per 16 KiB.
    var receiveLowWatermark: Int32 = 1

    /// Bytes read per system call while a body streams in.
    static let bodyReadSize = 256 * 1024
    /// The most we read from one connection per wakeup, so one fast upload cannot starve
    /// the loop's other connections: one read's worth. With four uploads on a loop, a
    /// budget of 1 MiB kept a small GET waiting behind 4 MiB of copying (the latency
    /// benchmark's p99 was 12 ms; 3.8 ms with this, against nginx's 3.0).
    static let readBudget = bodyReadSize

    /// `client`: the peer's address as text (`SocketAddress.host`), worked out once on accept.
    init(
        descriptor: Int32, client: String, slot: ConnectionSlots.ID, configuration: ConnectionConfiguration,
        responder: any HTTPResponder, secure: SecureListener? = nil, workers: WorkerPool, log: any LogSink,
        observer: (any ServerObserver)? = nil, loopIndex: Int = 0,
        onAdvance: @escaping (Connection) -> Void, onClose: @escaping (Connection) -> Void
    ) {
        self.descriptor = descriptor
        self.slot = slot
        self.onAdvance = onAdvance
        reportedStage = secure != nil ? .handshaking : .awaitingHead
        self.peer = client
        self.configuration = configuration
        self.secure = secure
        self.responder = responder
        handshaking = secure != nil
        let now = Clock.monotonicNanoseconds()
        handshakeDeadline = now &+ configuration.headTimeout
        self.limits = configuration.limits
        self.observer = observer
        self.loopIndex = loopIndex
        self.workers = workers
        self.log = log
        self.onClose = onClose
        let context = RequestContext(
            client: client, wallClockSeconds: Clock.wallClockSeconds(), isSecure: secure != nil,
            securePort: secure?.port)
        machine = ConnectionStateMachine(configuration: configuration, responder: responder, context: context, now: now)
    }

    /// Serves what arrived with the connection, then registers it with the loop if it is still
    /// open. Clients send their request right after the handshake, so it is usually waiting by
    /// the time the connection is accepted: read at once, as lighttpd does, instead of asking
    /// epoll first; a one-request connection (`Connection: close`) answered in this pass never
    /// touches epoll at all. Until registered, `want` only records the interest.
    func start(on loop: EventLoop) {
        handle(events: EPOLLIN.rawValue, loop: loop)
        guard isOpen else { return }
        do {
            try loop.register(self, events: interest)
        } catch {
            fail(loop: loop)
        }
    }

    /// True between requests: nothing of a request has arrived.
    var isIdle: Bool { isOpen && machine.isIdle }

    func handle(events: UInt32, loop: EventLoop) {
        if events & (EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0 && events & EPOLLIN.rawValue == 0 {
            fail(loop: loop)
            return
        }
        if handshaking {
            continueHandshake(events: events, loop: loop)
        } else if machine.isWriting {
            if events & EPOLLOUT.rawValue != 0 { continueWriting(loop: loop) }
        } else if machine.wantsInput {
            // A TLS read may wait for the socket to take bytes (a key update's answer).
            if events & EPOLLIN.rawValue != 0 || (tls?.readWantsWrite == true && events & EPOLLOUT.rawValue != 0) {
                readAvailable(loop: loop)
            }
        }
    }

    // MARK: - TLS handshake

    private func continueHandshake(events: UInt32, loop: EventLoop) {
        guard let secure else { return }
        if tls == nil {
            // The client closed before its first record was whole: no session was made, and
            // none is for a handshake that cannot finish.
            if events & EPOLLRDHUP.rawValue != 0 {
                fail(loop: loop)
                return
            }
            switch TLSSession.opening(of: descriptor, scratch: loop.scratch) {
            case .nothingYet:
                want(loop, EPOLLIN.rawValue)
                return
            case .partialRecord(let bytes) where receiveLowWatermark < bytes:
                // Woken only once the record is whole (or the client gives up). Should the
                // kernel not take the mark, or wake us before, OpenSSL reads what there is.
                setReceiveLowWatermark(Int32(bytes))
                if receiveLowWatermark >= bytes {
                    want(loop, EPOLLIN.rawValue | EPOLLRDHUP.rawValue)
                    return
                }
            case .plainHTTP:
                advance(to: .awaitingHead)
                answerPlainRequest(loop: loop, port: secure.port)
                return
            case .ended:
                fail(loop: loop)
                return
            case .partialRecord, .ready:
                break
            }
            setReceiveLowWatermark(1)
            guard let session = TLSSession(context: secure.context, descriptor: descriptor) else {
                // OpenSSL could not make the session (out of memory): nothing to serve with.
                fail(loop: loop)
                return
            }
            tls = session
        }
        guard let tls else { return }
        switch tls.handshake() {
        case .done:
            handshaking = false
            advance(to: .awaitingHead)
            want(loop, EPOLLIN.rawValue)
            // The first request may have come with the handshake's last flight, already read.
            readAvailable(loop: loop)
        case .wantRead:
            want(loop, EPOLLIN.rawValue)
        case .wantWrite:
            want(loop, EPOLLOUT.rawValue)
        case .failed(let reason):
            log.log(LogEvent(level: .debug, message: "TLS handshake with \(peer) failed: \(reason)", fields: [("client", peer)]))
            fail(loop: loop)
        }
    }

    /// Answers in clear text through the ordinary machinery, with a responder that only
    /// says where HTTPS is; the connection closes once that is sent.
    private func answerPlainRequest(loop: EventLoop, port: UInt16) {
        tls = nil
        handshaking = false
        let context = RequestContext(client: peer, wallClockSeconds: loop.wallClockSeconds)
        var oneRequest = configuration
        oneRequest.keepAlive = false
        machine = ConnectionStateMachine(
            configuration: oneRequest, responder: responder.plainRequestOnTLSPort(port: port),
            context: context, now: loop.now)
        readAvailable(loop: loop)
    }

    // MARK: - Writing

    private func continueWriting(loop: EventLoop) {
        let progress: OutboundWriter.Progress
        let sentBefore = writer.bodyBytesSent
        do {
            progress =
                try tls.map { tls throws(SystemError) in try writer.write(to: descriptor, tls: tls, scratch: loop.scratch) }
                ?? writer.write(to: descriptor)
        } catch {
            fail(loop: loop)
            return
        }
        machine.writeProgressed(Int(writer.bodyBytesSent - sentBefore), now: loop.now)
        switch progress {
        case .wouldBlock, .yielded:
            want(loop, EPOLLOUT.rawValue)
        case .needsChunk(let source):
            produceChunk(of: source, loop: loop)
        case .finished:
            if machine.isSendingContinue {
                carryOut(machine.interimSent(now: loop.now), loop: loop)
            } else {
                logRequest(failed: false)
                carryOut(machine.responseSent(now: loop.now), loop: loop)
            }
        }
    }

    // MARK: - Blocking work

    private func submit(_ work: BlockingWork, loop: EventLoop) {
        if isOpen { want(loop, 0) }
        let submitted = handOut(work, loop: loop) { [self] outcome in
            let now = loop.now
            let wallClock = loop.wallClockSeconds
            carryOut(
                outcome == .ran
                    ? machine.blockingWorkFinished(now: now, wallClock: wallClock)
                    : machine.blockingWorkRefused(now: now, wallClock: wallClock), loop: loop)
        }
        if !submitted {
            carryOut(machine.blockingWorkRefused(now: loop.now, wallClock: loop.wallClockSeconds), loop: loop)
        }
    }

    /// Gives `work` to the pool; the loop counts it until `completion` runs there (a
    /// draining loop waits for it). False when the pool refused it.
    private func handOut(
        _ work: BlockingWork, loop: EventLoop,
        completion: @escaping (WorkerPool.Outcome) -> Void
    ) -> Bool {
        loop.workSubmitted()
        // The pool runs `completion`, and the connection it holds, only on `loop` (this
        // connection's own thread, through `EventLoop.execute`), never on the worker.
        let completion = UnsafeTransfer(completion)
        let submitted = workers.submit(work, ticket: ticket, loop: loop) { outcome in
            loop.workCompleted()
            completion.wrappedValue(outcome)
        }
        if !submitted { loop.workCompleted() }
        return submitted
    }

    /// A streamed body's next chunk, made by a worker; writing goes on once it is back.
    /// Never skipped nor refused: the response has started, and a missing chunk would cut it.
    private func produceChunk(of source: any ResponseBodySource, loop: EventLoop) {
        want(loop, 0)
        let slot = ProducedChunk()
        let work = BlockingWork("response chunk") { slot.result = Result { try source.nextChunk() } }
        let submitted = handOut(work, loop: loop) { [self] outcome in
            guard isOpen, outcome == .ran, let result = slot.result else { return }
            do {
                try writer.accept(result)
            } catch {
                fail(loop: loop)
                return
            }
            continueWriting(loop: loop)
        }
        if !submitted { fail(loop: loop) }
    }

    // MARK: - Time and shutdown

    func checkTimeouts(loop: EventLoop, now: UInt64) {
        if handshaking {
            if now >= handshakeDeadline { fail(loop: loop) }
            return
        }
        // Every tick, wake for any queued byte: a client that slows down mid-body is then read
        // (and its progress seen by the body timeout) within a tick, not after a whole block.
        setReceiveLowWatermark(1)
        // A connection between requests gives its buffer back (one that had a body or a head
        // split across reads: a request read whole never takes one), but only here: freeing it
        // after every request made a busy client allocate and free it for each request.
        if isOpen && machine.isIdle { inbound.releaseIfEmpty() }
        guard isOpen, let action = machine.checkTimeouts(now: now, wallClock: loop.wallClockSeconds) else { return }
        carryOut(action, loop: loop)
    }

    func beginShutdown(loop: EventLoop) {
        guard isOpen, let action = machine.beginShutdown(now: loop.now) else { return }
        carryOut(action, loop: loop)
    }

    /// When the last request began, if the connection now sits idle between requests after
    /// serving one (a kept-alive connection nobody is using); nil otherwise. Such connections
    /// are the first closed when the server runs short of slots, oldest first.
    var idleKeepAliveSince: UInt64? {
        isIdle && inbound.readableCount == 0 && requestStart != 0 ? requestStart : nil
    }

    /// Closes the connection if it is idle between requests (see `idleKeepAliveSince`).
    func closeIfIdle(loop: EventLoop) {
        if idleKeepAliveSince != nil { close(loop: loop) }
    }

    /// The drain deadline passed: an upload still arriving is answered 503 (its file
    /// discarded) and closed once that is sent; anything else still running is aborted. Called
    /// every tick after the deadline; `final` once the answer has had its time.
    func drainDeadlinePassed(loop: EventLoop, final: Bool) {
        if answeredAtDrainDeadline && !final { return }
        if !final, isOpen, let action = machine.drainDeadlinePassed(now: loop.now, wallClock: loop.wallClockSeconds) {
            answeredAtDrainDeadline = true
            carryOut(action, loop: loop)
            return
        }
        abort(loop: loop)
    }

    /// The drain deadline passed: uploads still running are aborted (their files discarded).
    func abort(loop: EventLoop) {
        machine.abort()
        close(loop: loop)
    }

    func carryOut(_ action: ConnectionStateMachine.Action, loop: EventLoop) {
        noteProgress()
        switch action {
        case .runBlocking(let work):
            // Also once closed: an upload that arrived whole is still published.
            submit(work, loop: loop)
        case _ where !isOpen:
            break
        case .readMore:
            want(loop, EPOLLIN.rawValue)
            process(loop: loop)
            // Records OpenSSL read while the machine waited are not announced by epoll.
            if tls?.hasPendingInput == true && machine.wantsInput && inbound.readableCount == 0 {
                readAvailable(loop: loop)
            } else {
                updateReceiveLowWatermark()
            }
        case .sendInterim(let bytes):
            writer.startInterim(bytes)
            continueWriting(loop: loop)
        case .send(let response):
            responseStatus = response.status
            writer.start(response)
            continueWriting(loop: loop)
        case .close where machine.wantsLinger:
            // Half-close so the client reads our answer, then drain what it still sends.
            tls?.sendCloseNotify()
            shutdown(descriptor, Int32(SHUT_WR))
            inbound.consume(inbound.readableCount)
            want(loop, EPOLLIN.rawValue)
        case .close:
            tls?.sendCloseNotify()
            close(loop: loop)
        }
    }

    func want(_ loop: EventLoop, _ events: UInt32) {
        guard events != interest else { return }
        interest = events
        loop.modify(self, events: events)
    }

    func fail(loop: EventLoop) {
        machine.connectionFailed()
        close(loop: loop)
    }

    func close(loop: EventLoop) {
        guard isOpen else { return }
        isOpen = false
        // Every way a connection ends comes here (the peer's reset or hang-up, a failed write,
        // the write timeout or send-rate floor, the drain deadline): a response still being
        // written is logged as cut, with the bytes that went out. A finished one was logged.
        logRequest(failed: true)
        ticket.abandon()
        loop.unregister(self)
        Glibc.close(descriptor)
        onClose(self)
    }

    /// Tells the observer of the request whose response was written or cut.
    private func logRequest(failed: Bool) {
        guard let status = responseStatus else { return }
        responseStatus = nil
        // The request's fields are read one by one: a copy of the whole RequestInfo retained its Strings.
        guard let observer, let label = machine.currentRequest?.label else { return }
        let finished = FinishedRequest(
            method: machine.currentRequest?.method ?? .get, status: status, label: label,
            refusal: machine.currentRequest?.refusal, readBody: machine.currentRequest?.readBody ?? false,
            bytesReceived: machine.currentRequest?.bodyBytes ?? 0, bytesSent: writer.bodyBytesSent,
            durationNanoseconds: Clock.monotonicNanoseconds() &- requestStart, responseCut: failed, loop: loopIndex)
        observer.requestFinished(finished) {
            RequestText(target: machine.currentRequest?.target ?? "-", client: peer)
        }
    }
}

/// Where a worker leaves a stream's next chunk for the loop: written before the loop hears
/// back, read after (the pool's hand-over orders the two).
private final class ProducedChunk {
    var result: Result<ResponseChunk?, any Error>?
}
