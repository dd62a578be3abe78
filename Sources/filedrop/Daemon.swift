import FiledropCore
import FiledropHTTP
import FiledropIO
import FiledropServer
import FiledropSystemd
import FiledropWeb
import Glibc

/// The daemon's lifecycle (daemon(7)): adopt or bind sockets, READY=1, serve; SIGHUP
/// reloads the configuration, SIGTERM drains and exits. Nothing systemd-specific happens
/// when NOTIFY_SOCKET is unset.
final class Daemon {
    private var configuration: Configuration
    /// The configuration the daemon started with: what restart-only keys still hold.
    private let startConfiguration: Configuration
    /// `filedrop reload` and later commands; nil without control-socket.
    private var control: ControlSocketServer?
    private let notifications = NotificationQueue(notifier: SystemdNotifier())
    private var notifier: SystemdNotifier { notifications.notifier }
    /// Every event goes through it; its level follows `log-level` across reloads.
    private let log: AdjustableLogSink
    /// Writes the access log off the event loops; nil until start.
    private var accessLog: AccessLogWriter?
    private var server: HTTPServer?
    /// Where the HTTPS certificate comes from; nil while tls is off.
    private var certificates: TLSCertificates?
    /// The first HTTPS port, which redirects and the QR code point at.
    private var httpsPort: UInt16?
    /// What a person on the LAN opens (printed at start, in the QR code and the page's link):
    /// the HTTPS listeners' URLs when HTTPS is on. Read once the sockets are bound; a reload
    /// reads the interfaces again.
    private var listenAddresses: (plain: [SocketAddress], secure: [SocketAddress]) = ([], [])
    private var responder: ReloadableResponder?
    /// DNS-SD over mDNS through Avahi; nil until start.
    private var announcement: LANAnnouncement?
    /// LocalSend's multicast discovery; nil while `localsend` is off or the group is unusable.
    private var localSendMulticast: LocalSendMulticast?
    private var monitor: UploadMonitor?
    private var storage: PosixStorage?
    /// Kept across reloads while the web root path leads to the same directory: a loop that
    /// has not served since a reload still holds the old app, and so its web root, and each
    /// web root holds a descriptor, a change watch and its thread.
    private var webRoot: PosixStorage?
    /// The page built into the binary, served unless web-root names a folder.
    private let builtInWebRoot = BuiltInWebRoot(files: EmbeddedWeb.files.map { ($0.name, $0.modifiedSeconds, $0.base64) })
    private var tusUploads: TusUploads?
    private var lastTusSweep: UInt64 = 0
    private var lastFreeSpaceReading: UInt64 = 0
    /// Free bytes in save-dir for the status line, read by a worker (statvfs can hang on a
    /// network file system; the main loop must not).
    private let freeSpace = LatestReading()
    private var lastWatchdog: UInt64 = 0
    private var statusNote: String?
    /// Login failures and upload slots per client, kept across reloads.
    private let clientRecords = AccessControl.ClientRecords()
    /// The counters of `/metrics`, from the start on and across reloads.
    private let metrics = ServerMetrics(startTime: Clock.wallClockSeconds())
    /// The event stream's queue and thread; its consumers follow the configuration.
    private var events: EventDispatcher?
    private var hookRunner: HookRunner?
    private var webhook: WebhookSender?
    /// Uploads' SHA-256 and its hashing threads, made once and kept across reloads.
    private let hashing = PipelinedSHA256()
    /// The LocalSend receiver (sessions, our device) while `localsend` is on; kept across reloads.
    private(set) var localSend: LocalSendReceiver?

    /// SIGHUP reloads, SIGTERM and SIGINT stop.
    private static let handledSignals = [SIGTERM, SIGINT, SIGHUP]

    init(configuration: Configuration) {
        self.configuration = configuration
        startConfiguration = configuration
        log = AdjustableLogSink(
            makeLogSink(
                environment: ProcessEnvironment.current(), isTerminal: isatty(STDERR_FILENO) == 1,
                minimumLevel: .debug), minimumLevel: configuration.logLevel)
    }

    /// Serves until stopped; returns the exit code.
    func run() -> Int32 {
        do {
            try start()
        } catch let error as StartupError {
            log.log(LogEvent(level: .error, message: error.message))
            return error.exitCode
        } catch {
            log.log(LogEvent(level: .error, message: "cannot start: \(error)"))
            return 1
        }
        server?.run()
        control?.stop()
        finishEventDeliveries()
        // Before "stopped": the requests served last, and what the budget left out of them.
        accessLog?.stop()
        announcement?.stop()
        notifications.drain(timeout: 2)
        log.log(LogEvent(level: .notice, kind: .stopping, message: "stopped"))
        return 0
    }

    private func start() throws {
        DaemonStartup.returnFreedBuffersToTheKernel()
        DaemonStartup.raiseOpenFileLimit(log: log)
        // Before HTTPServer starts its worker threads, so that none of them can take SIGTERM.
        blockSignalsInEveryThread(Self.handledSignals)
        let storage = try DaemonStartup.openSaveDirectory(configuration)
        self.storage = storage
        // Before the loops run, so READY=1's status already says it.
        freeSpace.store(storage.availableSpace())
        let removed = storage.removeStaleTemporaries()
        if removed > 0 {
            log.log(LogEvent(level: .notice, message: "removed \(removed) unfinished upload(s) left by an earlier run"))
        }
        let events = EventDispatcher(log: log)
        self.events = events
        let monitor = UploadMonitor(
            log: log, now: { Clock.monotonicNanoseconds() }, wallClock: { Clock.wallClockSeconds() },
            events: events, metrics: metrics)
        self.monitor = monitor
        tusUploads = makeTusUploads(storage)
        let certificates = TLSCertificates.needed(configuration) ? TLSCertificates(configuration: configuration) : nil
        self.certificates = certificates
        let tls = try certificates?.makeContext()
        let (listeners, secureListeners) = try DaemonStartup.openListeners(configuration)
        let localSendListeners = try DaemonStartup.openLocalSendListeners(configuration)
        if let localSendListener = localSendListeners.first, let tls {
            localSend = LocalSendReceiver(
                device: .filedrop(
                    alias: LocalSendDevice.alias(
                        configured: configuration.mdnsName, hostName: ServedNames.hostNames().first ?? ""),
                    fingerprint: LocalSendDevice.fingerprint(colonHex: tls.fingerprintSHA256),
                    port: Int(localSendListener.address.port)),
                idleTimeout: nanoseconds(configuration.localsendTimeout), log: log, now: { Clock.monotonicNanoseconds() })
        }
        if configuration.tls != .off && secureListeners.isEmpty {
            // Else the plain port would take uploads and passwords as if TLS were off.
            throw StartupError(
                message: "tls is \(configuration.tls.rawValue) but systemd passed no socket named https: "
                    + "enable filedrop-https.socket too (FileDescriptorName=https), or set tls = off",
                exitCode: StartupError.invalidConfiguration)
        }
        // The app names the HTTPS port actually bound (port 0 in tests) in redirects and the QR code.
        httpsPort = secureListeners.first?.address.port
        listenAddresses = (listeners.map(\.address), secureListeners.map(\.address))
        updateEventConsumers(configuration)
        let app = try makeApp(configuration, storage: storage, monitor: monitor)
        publishCompleteTusUploads(app)
        let responder = ReloadableResponder(app)
        self.responder = responder

        let accessLog = try AccessLogWriter(
            sink: log, loops: DaemonStartup.eventLoopCount(configuration), rate: configuration.accessLogRate,
            enabled: DaemonStartup.logsRequests(configuration))
        self.accessLog = accessLog
        accessLog.start()
        let server = try HTTPServer(
            listeners: listeners, secureListeners: secureListeners + localSendListeners, tls: tls,
            configuration: DaemonStartup.serverConfiguration(configuration, metrics: metrics, accessLog: accessLog.queue),
            responder: responder, log: log)
        self.server = server
        metrics.observeConnections { [unowned server] in server.activeConnections }
        try server.handleSignals(Self.handledSignals) { [unowned self] signal in
            if signal == SIGHUP { self.reload() } else { self.stop() }
        }
        server.onMainLoopTick { [unowned self] in self.tick() }
        try openControlSocket(server: server)
        let announcement = LANAnnouncement(
            configuration: configuration, plain: listenAddresses.plain,
            secure: listenAddresses.secure, log: log)
        self.announcement = announcement
        let reissues = certificates?.issuesOwn == true ? certificates : nil
        if let localSend {
            localSendMulticast = DaemonStartup.startLocalSendDiscovery(
                configuration, device: localSend.device, server: server, log: log)
        }
        if reissues != nil || configuration.mdns || localSendMulticast != nil {
            do {
                try server.watchAddressChanges { [unowned self] in
                    reissues?.addressesChanged(now: Clock.monotonicNanoseconds())
                    announcement.update(self.configuration)
                    self.localSendMulticast?.interfacesChanged()
                }
            } catch {
                log.log(
                    LogEvent(
                        level: .warning,
                        message: "cannot watch address changes (\(error)); "
                            + "the HTTPS certificate, the mDNS announcement and LocalSend discovery follow new addresses only after a reload"
                    ))
            }
        }
        signal(SIGPIPE, SIG_IGN)

        let addresses = listeners.map(\.address)
        let secureAddresses = secureListeners.map(\.address)
        let status = statusLine()
        let listen = addresses.map(\.description).joined(separator: ",")
        let httpsListen = secureAddresses.map(\.description).joined(separator: ",")
        let localSendListen = localSendListeners.map(\.address.description).joined(separator: ",")
        notifications.send {
            $0.ready(
                status: status,
                extra: [
                    ("X_FILEDROP_LISTEN", listen), ("X_FILEDROP_HTTPS_LISTEN", httpsListen),
                    ("X_FILEDROP_LOCALSEND_LISTEN", localSendListen),
                ])
        }
        let served = (addresses.map { "http://\($0)" } + secureAddresses.map { "https://\($0)" }).joined(separator: ", ")
        log.log(
            LogEvent(
                level: .notice, kind: .started,
                message: "filedrop serving \(configuration.saveDirectory) on \(served)",
                fields: [("save_dir", configuration.saveDirectory), ("web_root", configuration.webRoot ?? "built in")]))
        if let tls { logTLS(tls) }
        if let localSend, !localSendListeners.isEmpty {
            let device = localSend.device
            let served = localSendListeners.map { "https://\($0.address)" }.joined(separator: ", ")
            log.log(
                LogEvent(
                    level: .notice,
                    message: "LocalSend receiver on \(served) as \"\(device.alias)\", "
                        + "fingerprint \(device.fingerprint)", fields: [("localsend_fingerprint", device.fingerprint)]))
        }
        let urls = lanURLs()
        for url in urls {
            log.log(LogEvent(level: .notice, message: "open \(url)"))
        }
        // A person at a terminal gets a QR code of the first LAN address for their phone;
        // the journal does not need the drawing.
        if isatty(STDERR_FILENO) == 1, let first = phoneURLs(configuration).first, let code = LibQREncoder().encode(first) {
            writeStandardError("Scan to open \(first) on a phone:\n" + code.terminalText)
        }
    }

    // MARK: - Signals

    private func stop() {
        notifications.send { $0.stopping() }
        announcement?.withdraw()
        log.log(LogEvent(level: .notice, kind: .stopping, message: "stopping: finishing requests in progress"))
        server?.beginShutdown(deadline: Clock.monotonicNanoseconds() + nanoseconds(configuration.drainTimeout))
    }

    /// After the drain: every finished upload's hook run and notice is on disk, the runs
    /// under way get a few seconds to end; what waits is done after the next start.
    private func finishEventDeliveries() {
        let deadline = Clock.monotonicNanoseconds() + Self.eventDeliveryGrace
        events?.drain(deadline: deadline)
        hookRunner?.stop(deadline: deadline)
        webhook?.stop(deadline: deadline)
    }

    /// How long the shutdown waits for hook runs and webhook posts under way.
    private static let eventDeliveryGrace: UInt64 = 5_000_000_000

    /// SIGHUP and `filedrop reload`: re-read everything; an invalid configuration keeps the
    /// running one. Returns the outcome as a sentence for whoever asked.
    @discardableResult
    private func reload() -> ControlReply {
        notifications.send { $0.reloading() }
        let previousTusUploads = tusUploads
        let reply: ControlReply
        do {
            let command = try ConfigurationLoader.parse(
                arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessEnvironment.current(),
                readFile: readTextFile, fileExists: { access($0, F_OK) == 0 })
            guard case .run(let next) = command, let monitor else {
                throw StartupError(message: "the command line asks for no daemon", exitCode: 1)
            }
            let sameStorage =
                next.saveDirectory == configuration.saveDirectory && next.saveMode == configuration.saveMode
                && self.storage != nil
            let storage = sameStorage ? self.storage! : try DaemonStartup.openSaveDirectory(next)
            if !sameStorage { tusUploads = makeTusUploads(storage) }
            var app = try makeApp(next, storage: storage, monitor: monitor)
            // A certificate only when something it depends on changed (or, for tls = files, to
            // read renewed files): new connections get it, open ones keep theirs.
            let authority = certificates?.authority
            var tls: TLSContext?
            if let certificates, TLSCertificates.needed(next) {
                tls = try certificates.reload(next)
                if certificates.authority !== authority { app = try makeApp(next, storage: storage, monitor: monitor) }
            }
            if let tls { replaceTLSContext(tls) }
            // The loops are running now: the saving (fsync, rename) goes to a worker.
            if !sameStorage { runOffLoop("tus recovery") { [unowned self] in self.publishCompleteTusUploads(app) } }
            responder?.app = app
            self.storage = storage
            log.minimumLevel = next.logLevel
            accessLog?.queue.update(enabled: DaemonStartup.logsRequests(next), rate: next.accessLogRate)
            updateEventConsumers(next)
            configuration = next
            announcement?.update(next)
            localSendMulticast?.interfacesChanged()
            statusNote = nil
            let waiting = ConfigKey.restartOnlyChanges(from: startConfiguration, to: next)
            let restartNote =
                "\(waiting.joined(separator: ", ")) changed: \(waiting.count == 1 ? "it takes" : "they take") effect at the next restart"
            if !waiting.isEmpty {
                log.log(LogEvent(level: .warning, message: restartNote))
            }
            log.log(LogEvent(level: .notice, kind: .reloaded, message: "configuration reloaded"))
            reply = ControlReply(ok: true, message: "configuration reloaded" + (waiting.isEmpty ? "" : "; " + restartNote))
        } catch {
            tusUploads = previousTusUploads
            statusNote = "reload failed, old configuration kept: \(error)"
            log.log(
                LogEvent(
                    level: .error, kind: .configInvalid, message: "reload failed, keeping the running configuration: \(error)"))
            reply = ControlReply(ok: false, message: "reload failed, keeping the running configuration: \(error)")
        }
        let status = statusLine()
        notifications.send { $0.ready(status: status) }
        return reply
    }

    /// The control socket (`control-socket`): its thread takes the requests, the reload runs
    /// here on the main loop as SIGHUP's does, and the requester waits for the outcome.
    private func openControlSocket(server: HTTPServer) throws {
        guard let path = configuration.controlSocket else { return }
        // Only the main loop uses the daemon: the control thread hands the closure to
        // `EventLoop.execute`, which runs it there.
        let daemon = UnsafeTransfer(self)
        let mainLoop = server.mainLoop
        do {
            let control = try ControlSocketServer(
                path: path,
                commands: [
                    "reload": { _, promise in mainLoop.execute { promise.fulfil(daemon.wrappedValue.reload()) } }
                ], log: log)
            control.start()
            self.control = control
        } catch {
            throw StartupError(message: "cannot open the control socket (control-socket): \(error)", exitCode: 1)
        }
    }

    // MARK: - Periodic duties (on the main loop, so a hung loop stops the watchdog)

    private func tick() {
        let now = Clock.monotonicNanoseconds()
        switch certificates?.renewIfDue(now: now, wallClock: Clock.wallClockSeconds()) {
        case .success(let tls)?:
            replaceTLSContext(tls)
        case .failure(let error)?:
            log.log(
                LogEvent(level: .error, message: "cannot renew the HTTPS certificate, keeping the current one: \(error.message)"))
        case nil:
            break
        }
        localSend?.expireIdle()
        if let interval = notifier.watchdogInterval, now - lastWatchdog >= nanoseconds(interval) {
            lastWatchdog = now
            notifications.send { $0.watchdog() }
        }
        if let tusUploads, now - lastTusSweep >= 60_000_000_000 {
            lastTusSweep = now
            // Deleting expired partial files frees their blocks: work for a worker.
            let expiration = configuration.tusExpiration
            let log = log
            runOffLoop("tus sweep") {
                let removed = tusUploads.sweep(expiration: expiration)
                if removed > 0 {
                    log.log(
                        LogEvent(
                            level: .notice,
                            message: "removed \(removed) resumable upload(s) idle for \(DurationText.format(expiration))"))
                }
            }
        }
        if let storage, notifier.isActive, now - lastFreeSpaceReading >= 1_000_000_000 {
            lastFreeSpaceReading = now
            let reading = freeSpace
            runOffLoop("free space") { reading.store(storage.availableSpace()) }
        }
        if notifier.isActive {
            notifications.status(statusLine())
        }
    }

    private func statusLine() -> String {
        let listening =
            server.map { server in
                server.listeners.map { "http://\($0.address)" } + server.secureListeners.map { "https://\($0.address)" }
            } ?? []
        return StatusLine(
            listening: listening, monitor: monitor, localSend: localSend, freeBytes: freeSpace.value,
            caFingerprint: certificates?.authority?.fingerprintSHA256, note: statusNote
        ).text
    }

    /// Runs `body` on a worker; nothing waits for it.
    private func runOffLoop(_ label: String, _ body: @escaping () -> Void) {
        guard let server else { return }
        server.workers.submit(BlockingWork(label, body), ticket: WorkTicket(), loop: server.mainLoop) { _ in }
    }

    // MARK: - Building blocks

    /// The on-upload hook and the webhook as `configuration` wants them; one whose settings
    /// did not change keeps running (and its queue), a changed one finishes its queue and stops.
    private func updateEventConsumers(_ configuration: Configuration) {
        guard let events, let storage else { return }
        let baseURL = lanURLs().first
        let saveDirectory = DaemonStartup.absolutePath(configuration.saveDirectory)
        let hookSettings = configuration.onUpload.map { program in
            HookRunner.Settings(
                program: program, concurrency: configuration.onUploadConcurrency,
                timeout: nanoseconds(configuration.onUploadTimeout),
                saveDirectory: saveDirectory, baseURL: baseURL,
                durable: configuration.fsync, minFreeSpace: configuration.minFreeSpace)
        }
        if hookRunner?.settings != hookSettings {
            hookRunner = hookSettings.map {
                HookRunner(
                    settings: $0, storage: storage, metrics: metrics, log: log, daemonEnvironment: ProcessEnvironment.current())
            }
        }
        let webhookSettings = configuration.notifyURL.map {
            WebhookSender.Settings(
                target: $0, format: configuration.notifyFormat, baseURL: baseURL, title: configuration.title,
                saveDirectory: saveDirectory, durable: configuration.fsync, minFreeSpace: configuration.minFreeSpace)
        }
        if webhook?.settings != webhookSettings {
            webhook = webhookSettings.map { WebhookSender(settings: $0, storage: storage, metrics: metrics, log: log) }
        }
        let consumers: [(any UploadEventConsumer)?] = [hookRunner, webhook]
        events.replaceConsumers(consumers.compactMap { $0 })
    }

    /// `storage`, if it is open on `path`'s directory (`found`: a stat of `path`), not one
    /// that took its place since.
    private func sameDirectory(_ storage: PosixStorage?, _ path: String, _ found: stat) -> PosixStorage? {
        guard let storage, storage.rootPath == path, storage.holdsDirectory(found) else { return nil }
        return storage
    }

    private func makeApp(_ configuration: Configuration, storage: PosixStorage, monitor: UploadMonitor) throws -> FiledropApp {
        let webRoot = try openWebRoot(configuration)
        let access = AccessControl(
            configuration: configuration, machineNames: ServedNames.hostNames(),
            verifier: try DaemonStartup.passwordVerifier(configuration, log: log), records: clientRecords,
            now: { Clock.monotonicNanoseconds() })
        return FiledropApp(
            configuration: configuration, storage: storage, webRoot: webRoot, monitor: monitor,
            compressor: ZlibCompressor(), qrEncoder: LibQREncoder(), tusUploads: tusUploads, access: access,
            https: httpsPresentation(configuration), phoneAddress: PhoneAddress(lanURLs: phoneURLs(configuration)),
            processProbe: ProcSelfProbe(), hashing: hashing,
            languages: DaemonStartup.loadLanguages(configuration, builtIn: builtInWebRoot, log: log),
            healthClock: { Clock.monotonicNanoseconds() }, localSend: localSend)
    }

    /// The folder web-root names, or the page built into the binary when it names none.
    private func openWebRoot(_ configuration: Configuration) throws -> any Storage {
        guard let path = configuration.webRoot else {
            webRoot = nil
            return builtInWebRoot
        }
        var isDirectory = stat()
        guard stat(path, &isDirectory) == 0, isDirectory.st_mode & S_IFMT == S_IFDIR else {
            throw StartupError(
                message: "the web root \(path) is not a directory (web-root, --web-root)",
                exitCode: StartupError.invalidConfiguration)
        }
        let opened = try sameDirectory(webRoot, path, isDirectory) ?? PosixStorage(root: path)
        webRoot = opened
        return opened
    }

    /// The printed URLs and the QR code send people to HTTPS when it is on.
    private func lanURLs() -> [String] {
        let (plain, secure) = listenAddresses
        return secure.isEmpty ? LANURLs.urls(for: plain) : LANURLs.urls(for: secure, scheme: "https")
    }

    /// Where a phone starts: with filedrop's own CA and a plain port that redirects, `/trust`
    /// over plain HTTP (the first visit, which goes on to HTTPS once the phone trusts the CA);
    /// else the printed URLs.
    private func phoneURLs(_ configuration: Configuration) -> [String] {
        let plain = listenAddresses.plain
        guard configuration.tls == .auto, configuration.httpMode == .redirect, !plain.isEmpty else { return lanURLs() }
        return LANURLs.urls(for: plain).map { $0 + "trust" }
    }

    /// What the app says about HTTPS: the port, what the plain port does, the local CA to install.
    private func httpsPresentation(_ configuration: Configuration) -> HTTPSPresentation? {
        guard configuration.tls != .off, let httpsPort else { return nil }
        let anchor = certificates?.authority.map {
            TrustAnchor(
                certificateDER: $0.certificateDER, fingerprintSHA256: $0.fingerprintSHA256,
                commonName: TLSCertificates.authorityName)
        }
        return HTTPSPresentation(
            port: httpsPort, plainHTTPMode: configuration.httpMode, authority: anchor,
            plainPort: listenAddresses.plain.first?.port)
    }

    /// Resumable uploads of `storage`, with those a previous run left recovered.
    private func makeTusUploads(_ storage: PosixStorage) -> TusUploads {
        let uploads = TusUploads(area: storage.partialUploads, digests: LibcryptoDigests(), clock: { Clock.wallClockSeconds() })
        if uploads.count > 0 {
            log.log(LogEvent(level: .notice, message: "\(uploads.count) unfinished resumable upload(s) can be resumed"))
        }
        return uploads
    }

    /// Resumable uploads that arrived complete but were never saved under their name (the
    /// daemon died between the last byte and the rename): saved at start before anyone is
    /// served, so no upload the client saw finish is left to expire. Blocks, on purpose:
    /// call it from a worker once the loops run.
    private func publishCompleteTusUploads(_ app: FiledropApp) {
        let (saved, kept) = app.publishCompleteTusUploads()
        if saved > 0 {
            log.log(
                LogEvent(
                    level: .notice, message: "saved \(saved) resumable upload(s) that had arrived complete before the restart"))
        }
        for (name, reason) in kept {
            log.log(
                LogEvent(
                    level: .warning, message: "resumable upload \(name.logEscaped) is complete but kept unsaved: \(reason)",
                    fields: [("file", name)]))
        }
    }

    /// A renewed or re-issued certificate: new HTTPS and LocalSend connections get it, open
    /// ones keep theirs, and LocalSend senders see its fingerprint.
    private func replaceTLSContext(_ tls: TLSContext) {
        server?.replaceTLSContext(tls)
        localSend?.updateFingerprint(LocalSendDevice.fingerprint(colonHex: tls.fingerprintSHA256))
        if let localSend { localSendMulticast?.deviceChanged(localSend.device) }
        logTLS(tls)
    }

    private func logTLS(_ tls: TLSContext) {
        let path =
            tls.kernelTLSRequested
            ? "the kernel encrypts where the connection's cipher allows it, so files are sent without an extra copy"
            : "filedrop encrypts everything itself: this kernel has no TLS support loaded (`sudo modprobe tls` lets the kernel do it, and makes HTTPS downloads faster)"
        var fields = [("tls_fingerprint", tls.fingerprintSHA256)]
        if let authority = certificates?.authority { fields.append(("tls_ca_fingerprint", authority.fingerprintSHA256)) }
        log.log(
            LogEvent(
                level: .notice,
                message: "HTTPS (TLS 1.2 and 1.3): \(certificates?.summary ?? "certificate"), "
                    + "SHA-256 \(tls.fingerprintSHA256); \(path)", fields: fields))
    }
}
