import FiledropCore
import FiledropIO
import FiledropSystemd
import Glibc

/// The daemon's lifecycle (daemon(7)): adopt or bind sockets, READY=1, serve; SIGHUP
/// reloads the configuration, SIGTERM drains and exits. Nothing systemd-specific happens
/// when NOTIFY_SOCKET is unset.
final class Daemon {
    private var configuration: Configuration
    private let notifications = NotificationQueue(notifier: SystemdNotifier())
    private var notifier: SystemdNotifier { notifications.notifier }
    private let log: any LogSink
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
        log = makeLogSink(environment: ProcessEnvironment.current(), isTerminal: isatty(STDERR_FILENO) == 1,
                          minimumLevel: configuration.logLevel)
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
        let monitor = UploadMonitor(log: log, now: { Clock.monotonicNanoseconds() }, wallClock: { Clock.wallClockSeconds() },
                                    events: events, metrics: metrics)
        self.monitor = monitor
        tusUploads = makeTusUploads(storage)
        let certificates = TLSCertificates.needed(configuration) ? TLSCertificates(configuration: configuration) : nil
        self.certificates = certificates
        let tls = try certificates?.makeContext()
        let (listeners, secureListeners) = try DaemonStartup.openListeners(configuration)
        let localSendListener = try DaemonStartup.openLocalSendListener(configuration)
        if let localSendListener, let tls {
            localSend = LocalSendReceiver(
                device: .filedrop(alias: LocalSendDevice.alias(configured: configuration.mdnsName, hostName: ServedNames.hostNames().first ?? ""),
                                  fingerprint: LocalSendDevice.fingerprint(colonHex: tls.fingerprintSHA256),
                                  port: Int(localSendListener.address.port)),
                idleTimeout: nanoseconds(configuration.localsendTimeout), log: log, now: { Clock.monotonicNanoseconds() })
        }
        if configuration.tls != .off && secureListeners.isEmpty {
            // Else the plain port would take uploads and passwords as if TLS were off.
            throw StartupError(message: "tls is \(configuration.tls.rawValue) but systemd passed no socket named https: "
                + "enable filedrop-https.socket too (FileDescriptorName=https), or set tls = off", exitCode: 2)
        }
        // The app names the HTTPS port actually bound (port 0 in tests) in redirects and the QR code.
        httpsPort = secureListeners.first?.address.port
        listenAddresses = (listeners.map(\.address), secureListeners.map(\.address))
        updateEventConsumers(configuration)
        let app = try makeApp(configuration, storage: storage, monitor: monitor)
        publishCompleteTusUploads(app)
        let responder = ReloadableResponder(app)
        self.responder = responder

        let server = try HTTPServer(listeners: listeners, secureListeners: secureListeners + (localSendListener.map { [$0] } ?? []), tls: tls,
                                    configuration: DaemonStartup.serverConfiguration(configuration, metrics: metrics), responder: responder, log: log)
        self.server = server
        metrics.observeConnections { [unowned server] in server.activeConnections }
        try server.handleSignals(Self.handledSignals) { [unowned self] signal in
            if signal == SIGHUP { self.reload() } else { self.stop() }
        }
        server.onMainLoopTick { [unowned self] in self.tick() }
        let announcement = LANAnnouncement(configuration: configuration, plain: listenAddresses.plain,
                                           secure: listenAddresses.secure, log: log)
        self.announcement = announcement
        let reissues = certificates?.issuesOwn == true ? certificates : nil
        if let localSend {
            localSendMulticast = DaemonStartup.startLocalSendDiscovery(configuration, device: localSend.device, server: server, log: log)
        }
        if reissues != nil || configuration.mdns || localSendMulticast != nil {
            do {
                try server.watchAddressChanges { [unowned self] in
                    reissues?.addressesChanged(now: Clock.monotonicNanoseconds())
                    announcement.update(self.configuration)
                    self.localSendMulticast?.interfacesChanged()
                }
            } catch {
                log.log(LogEvent(level: .warning, message: "cannot watch address changes (\(error)); "
                    + "the HTTPS certificate, the mDNS announcement and LocalSend discovery follow new addresses only after a reload"))
            }
        }
        signal(SIGPIPE, SIG_IGN)

        let addresses = listeners.map(\.address)
        let secureAddresses = secureListeners.map(\.address)
        let status = statusLine()
        let listen = addresses.map(\.description).joined(separator: ",")
        let httpsListen = secureAddresses.map(\.description).joined(separator: ",")
        let localSendListen = localSendListener.map { $0.address.description } ?? ""
        notifications.send { $0.ready(status: status, extra: [("X_FILEDROP_LISTEN", listen), ("X_FILEDROP_HTTPS_LISTEN", httpsListen),
                                                              ("X_FILEDROP_LOCALSEND_LISTEN", localSendListen)]) }
        let served = (addresses.map { "http://\($0)" } + secureAddresses.map { "https://\($0)" }).joined(separator: ", ")
        log.log(LogEvent(level: .notice, kind: .started,
                         message: "filedrop serving \(configuration.saveDirectory) on \(served)",
                         fields: [("save_dir", configuration.saveDirectory), ("web_root", configuration.webRoot)]))
        if let tls { logTLS(tls) }
        if let localSend, let localSendListener {
            let device = localSend.device
            log.log(LogEvent(level: .notice, message: "LocalSend receiver on https://\(localSendListener.address) as \"\(device.alias)\", "
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

    /// SIGHUP: re-read everything; an invalid configuration keeps the running one.
    private func reload() {
        notifications.send { $0.reloading() }
        do {
            let command = try ConfigurationLoader.parse(
                arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessEnvironment.current(),
                readFile: readTextFile, fileExists: { access($0, F_OK) == 0 })
            guard case .run(let next) = command, let monitor else { return }
            if next.listen != configuration.listen || next.httpsListen != configuration.httpsListen || next.tls != configuration.tls
                || next.localsend != configuration.localsend || next.localsendPort != configuration.localsendPort
                || next.localsendMulticast != configuration.localsendMulticast {
                log.log(LogEvent(level: .warning, message: "listen addresses, the LocalSend port and group and turning TLS or LocalSend on or off "
                    + "change only on restart; keeping the current sockets"))
            }
            let sameStorage = next.saveDirectory == configuration.saveDirectory && next.saveMode == configuration.saveMode && self.storage != nil
            let storage = sameStorage ? self.storage! : try DaemonStartup.openSaveDirectory(next)
            if !sameStorage { tusUploads = makeTusUploads(storage) }
            // A renewed certificate: new connections get it, open ones keep theirs.
            if let certificates, TLSCertificates.needed(next) {
                replaceTLSContext(try certificates.reload(next))
            }
            let app = try makeApp(next, storage: storage, monitor: monitor)
            // The loops are running now: the saving (fsync, rename) goes to a worker.
            if !sameStorage { runOffLoop("tus recovery") { [unowned self] in self.publishCompleteTusUploads(app) } }
            responder?.app = app
            self.storage = storage
            updateEventConsumers(next)
            configuration = next
            announcement?.update(next)
            localSendMulticast?.interfacesChanged()
            statusNote = nil
            log.log(LogEvent(level: .notice, kind: .reloaded, message: "configuration reloaded"))
        } catch {
            statusNote = "reload failed, old configuration kept: \(error)"
            log.log(LogEvent(level: .error, kind: .configInvalid, message: "reload failed, keeping the running configuration: \(error)"))
        }
        let status = statusLine()
        notifications.send { $0.ready(status: status) }
    }

    // MARK: - Periodic duties (on the main loop, so a hung loop stops the watchdog)

    private func tick() {
        let now = Clock.monotonicNanoseconds()
        switch certificates?.renewIfDue(now: now, wallClock: Clock.wallClockSeconds()) {
        case .success(let tls)?:
            replaceTLSContext(tls)
        case .failure(let error)?:
            log.log(LogEvent(level: .error, message: "cannot renew the HTTPS certificate, keeping the current one: \(error.message)"))
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
                    log.log(LogEvent(level: .notice, message: "removed \(removed) resumable upload(s) idle for \(DurationText.format(expiration))"))
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
        let listening = server.map { server in
            server.listeners.map { "http://\($0.address)" } + server.secureListeners.map { "https://\($0.address)" }
        } ?? []
        return StatusLine(listening: listening, monitor: monitor, localSend: localSend, freeBytes: freeSpace.value,
                          caFingerprint: certificates?.authority?.fingerprintSHA256, note: statusNote).text
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
        guard let events else { return }
        let baseURL = lanURLs().first
        let hookSettings = configuration.onUpload.map { program in
            HookRunner.Settings(program: program, concurrency: configuration.onUploadConcurrency,
                                timeout: nanoseconds(configuration.onUploadTimeout),
                                saveDirectory: DaemonStartup.absolutePath(configuration.saveDirectory), baseURL: baseURL)
        }
        if hookRunner?.settings != hookSettings {
            hookRunner = hookSettings.map {
                HookRunner(settings: $0, metrics: metrics, log: log, daemonEnvironment: ProcessEnvironment.current())
            }
        }
        let webhookSettings = configuration.notifyURL.map {
            WebhookSender.Settings(target: $0, format: configuration.notifyFormat, baseURL: baseURL, title: configuration.title)
        }
        if webhook?.settings != webhookSettings {
            webhook = webhookSettings.map { WebhookSender(settings: $0, log: log) }
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
        var isDirectory = stat()
        guard stat(configuration.webRoot, &isDirectory) == 0, isDirectory.st_mode & S_IFMT == S_IFDIR else {
            throw StartupError(message: "the web root \(configuration.webRoot) is not a directory (web-root, --web-root)", exitCode: 2)
        }
        let webRoot = try sameDirectory(webRoot, configuration.webRoot, isDirectory) ?? PosixStorage(root: configuration.webRoot)
        self.webRoot = webRoot
        let access = AccessControl(configuration: configuration, machineNames: ServedNames.hostNames(),
                                   verifier: try DaemonStartup.passwordVerifier(configuration, log: log), records: clientRecords,
                                   now: { Clock.monotonicNanoseconds() })
        return FiledropApp(configuration: configuration, storage: storage, webRoot: webRoot, monitor: monitor,
                           compressor: ZlibCompressor(), qrEncoder: LibQREncoder(), tusUploads: tusUploads, access: access,
                           https: httpsPresentation(configuration), phoneAddress: PhoneAddress(lanURLs: phoneURLs(configuration)),
                           processProbe: ProcSelfProbe(), hashing: hashing, languages: DaemonStartup.loadLanguages(configuration, log: log),
                           healthClock: { Clock.monotonicNanoseconds() }, localSend: localSend)
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
            TrustAnchor(certificateDER: $0.certificateDER, fingerprintSHA256: $0.fingerprintSHA256, commonName: TLSCertificates.authorityName)
        }
        return HTTPSPresentation(port: httpsPort, plainHTTPMode: configuration.httpMode, authority: anchor,
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
            log.log(LogEvent(level: .notice, message: "saved \(saved) resumable upload(s) that had arrived complete before the restart"))
        }
        for (name, reason) in kept {
            log.log(LogEvent(level: .warning, message: "resumable upload \(name.logEscaped) is complete but kept unsaved: \(reason)",
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
        let path = tls.kernelTLSRequested
            ? "the kernel encrypts where the connection's cipher allows it, so files are sent without an extra copy"
            : "filedrop encrypts everything itself: this kernel has no TLS support loaded (`sudo modprobe tls` lets the kernel do it, and makes HTTPS downloads faster)"
        var fields = [("tls_fingerprint", tls.fingerprintSHA256)]
        if let authority = certificates?.authority { fields.append(("tls_ca_fingerprint", authority.fingerprintSHA256)) }
        log.log(LogEvent(level: .notice, message: "HTTPS (TLS 1.2 and 1.3): \(certificates?.summary ?? "certificate"), "
            + "SHA-256 \(tls.fingerprintSHA256); \(path)", fields: fields))
    }
}
