import FiledropCore
import FiledropHTTP
import FiledropServer
import Glibc

/// The on-upload hook: every finished file becomes one run of `program` (README "Events").
/// At most `concurrency` runs at once on threads of their own (`hook-N`); the rest wait on
/// disk (`PendingRunQueue`, `.filedrop-hooks` in the save directory), however many, and a
/// restart resumes them. A hook that fails or hangs costs one of these threads until its
/// timeout, never an event loop or an upload.
public final class HookRunner: UploadEventConsumer, @unchecked Sendable {
    public struct Settings: Sendable, Equatable {
        public var program: String
        public var concurrency: Int
        /// Nanoseconds.
        public var timeout: UInt64
        /// The save directory, absolute: the runs start there and FILEDROP_PATH is inside it.
        public var saveDirectory: String
        /// How people reach the server, for FILEDROP_URL; nil gives the path alone.
        public var baseURL: String?
        /// Pending runs are fsync'ed to disk (the `fsync` key).
        public var durable: Bool
        /// The save directory's reserve (`min-free-space`).
        public var minFreeSpace: UInt64

        public init(
            program: String, concurrency: Int, timeout: UInt64, saveDirectory: String, baseURL: String?,
            durable: Bool = true, minFreeSpace: UInt64 = 0
        ) {
            self.program = program
            self.concurrency = concurrency
            self.timeout = timeout
            self.saveDirectory = saveDirectory
            self.baseURL = baseURL
            self.durable = durable
            self.minFreeSpace = minFreeSpace
        }
    }

    /// The pending runs' folder in the save directory.
    public static let folderName = ".filedrop-hooks"
    /// Between SIGTERM and SIGKILL at the timeout.
    static let killGrace: UInt64 = 5_000_000_000

    public let settings: Settings
    /// Each run's outcome, for `/metrics`.
    private let metrics: ServerMetrics
    private let log: any LogSink
    private let daemonEnvironment: [String: String]
    private let queue: PendingRunQueue

    public init(
        settings: Settings, storage: PosixStorage, metrics: ServerMetrics, log: any LogSink, daemonEnvironment: [String: String]
    ) {
        self.settings = settings
        self.metrics = metrics
        self.log = log
        self.daemonEnvironment = daemonEnvironment
        queue = PendingRunQueue(
            settings: .init(
                folderName: Self.folderName, label: "on-upload", durable: settings.durable,
                minFreeSpace: settings.minFreeSpace),
            storage: storage, metrics: metrics.hookQueue, log: log)
        for index in 0..<settings.concurrency {
            pthread_detach(
                startNamedThread("hook-\(index)") { [self] in
                    while let claim = queue.next() {
                        run(claim.run.event)
                        queue.done(claim)
                    }
                })
        }
    }

    public func deliver(_ events: [UploadEvent]) {
        queue.add(events.filter { $0.kind == .finished })
    }

    public func finish() {
        queue.close()
    }

    /// At shutdown: no new runs; those under way get until `deadline` (monotonic nanoseconds).
    /// Whatever did not run stays on disk for the next start.
    public func stop(deadline: UInt64) {
        queue.close()
        let (underWay, inMemory) = queue.waitForRunsUnderWay(deadline: deadline)
        PendingRunQueue.logStop(label: "on-upload", underWay: underWay, inMemory: inMemory, waiting: queue.depth, log: log)
    }

    private func run(_ event: UploadEvent) {
        let localPath = settings.saveDirectory + "/" + event.path
        let process = HookProcess(
            program: settings.program,
            environment: HookEnvironment.entries(
                for: event, baseURL: settings.baseURL, localPath: localPath,
                daemonEnvironment: daemonEnvironment),
            input: event.json(baseURL: settings.baseURL, localPath: localPath),
            workingDirectory: settings.saveDirectory, timeout: settings.timeout, grace: Self.killGrace
        ) { [log] pid, stream, line in
            log.log(
                LogEvent(
                    level: .info, message: "on-upload[\(pid)] \(stream): \(line)",
                    fields: [("file", event.path), ("hook_pid", String(pid)), ("stream", stream)]))
        }
        let started = Clock.monotonicNanoseconds()
        let (pid, outcome) = process.run()
        let seconds = Double((Clock.monotonicNanoseconds() - started) / 1_000_000) / 1000
        var fields: [(key: String, value: String)] = [
            ("file", event.path), ("hook_pid", String(pid)), ("duration", "\(seconds)s"),
        ]
        switch outcome {
        case .exited(0):
            metrics.hookFinished(outcome: .succeeded)
            log.log(
                LogEvent(
                    level: .info, message: "on-upload[\(pid)] done for \(event.path): exit status 0",
                    fields: fields + [("exit_status", "0")]))
        case .exited(let status):
            metrics.hookFinished(outcome: .failed)
            fields.append(("exit_status", String(status)))
            log.log(
                LogEvent(
                    level: .warning, message: "on-upload[\(pid)] failed for \(event.path): exit status \(status)", fields: fields)
            )
        case .signaled(let signal):
            metrics.hookFinished(outcome: .failed)
            fields.append(("signal", String(signal)))
            log.log(
                LogEvent(
                    level: .warning, message: "on-upload[\(pid)] failed for \(event.path): killed by signal \(signal)",
                    fields: fields))
        case .timedOut:
            metrics.hookFinished(outcome: .timedOut)
            log.log(
                LogEvent(
                    level: .warning,
                    message: "on-upload[\(pid)] timed out for \(event.path) after "
                        + "\(DurationText.format(.nanoseconds(Int64(settings.timeout)))): killed", fields: fields))
        case .couldNotStart(let reason):
            metrics.hookFinished(outcome: .failed)
            log.log(
                LogEvent(
                    level: .warning, message: "on-upload failed for \(event.path): \(reason)", fields: [("file", event.path)]))
        }
    }
}
