import FiledropCore
import FiledropHTTP
import FiledropServer
import Glibc

/// The runs still owed to the on-upload hook or the webhook (README "Events"): every finished
/// file goes to disk first (`PendingRunFolder`), so none is skipped however many wait, and a
/// restart resumes them. Bounded by space, not by a count. The threads that do the runs take
/// them in order with `next()` and say `done` (or `retry` with a later time).
///
/// What this daemon knows of the folder is kept in memory (names in order, entries not due
/// yet) and read again from disk when it runs out, at most every `rescanInterval`: so the
/// entries of another daemon on the same save directory, or of one that crashed, are found.
/// When an entry cannot be written (disk full, read-only), the run waits in memory instead:
/// it is still done unless the daemon stops first, and that is logged and counted.
final class PendingRunQueue: @unchecked Sendable {
    struct Settings: Sendable, Equatable {
        /// The folder's name in the save directory (`.filedrop-hooks`).
        var folderName: String
        /// How log lines name the queue (`on-upload`, `notify-url`).
        var label: String
        var durable: Bool
        /// The save directory's reserve (`min-free-space`): below it entries are still
        /// written, a few hundred bytes each, with a warning.
        var minFreeSpace: UInt64
    }

    /// One run handed to a thread: from disk (`entry`, whose lock this process holds) or from memory.
    struct Claim: Sendable {
        let run: PendingRun
        let entry: PendingRunFolder.Entry?
    }

    /// A waiting queue this deep is logged, once a minute.
    static let largeQueue = 1000

    let settings: Settings
    private let storage: PosixStorage
    private let folder: PendingRunFolder?
    private let metrics: RunQueueMetrics
    private let log: any LogSink
    /// Nanoseconds since 1970, injected for tests.
    private let wallClock: @Sendable () -> Int64
    private let rescanInterval: UInt64

    private var mutex = pthread_mutex_t()
    private var changed = pthread_cond_t()
    private var names: PendingRunNames
    /// Entries on disk not yet tried, in order, from `head` on.
    private var known: [String] = []
    private var head = 0
    private var knownSet: Set<String> = []
    /// Entries found not due yet, with the time (ms since 1970) they are.
    private var notBefore: [String: Int64] = [:]
    /// Entries this queue holds (running) and those it found held by someone else since its last scan.
    private var running: Set<String> = []
    private var elsewhere: Set<String> = []
    private var inMemory: [PendingRun] = []
    private var runningFromMemory = 0
    private var lastScan: UInt64?
    private var closed = false
    /// The folder was just made: the save directory is synced (on the event thread) before
    /// the first entry written into it counts as saved.
    private var saveDirectoryNeedsSync = false
    private var loggedNoLocks = false
    private var notices = NoticeThrottle(interval: 60_000_000_000, capacity: 4)

    init(
        settings: Settings, storage: PosixStorage, metrics: RunQueueMetrics, log: any LogSink,
        wallClock: @escaping @Sendable () -> Int64 = { Clock.wallClockNanoseconds() }, rescanInterval: UInt64 = 2_000_000_000
    ) {
        self.settings = settings
        self.storage = storage
        self.metrics = metrics
        self.log = log
        self.wallClock = wallClock
        self.rescanInterval = rescanInterval
        names = PendingRunNames(instance: String(UInt32.random(in: .min ... .max), radix: 16))
        do throws(StorageError) {
            let opened = try PendingRunFolder.open(in: storage.root, named: settings.folderName, durable: settings.durable)
            folder = opened.folder
            saveDirectoryNeedsSync = opened.created && settings.durable
        } catch {
            folder = nil
            log.log(
                LogEvent(
                    level: .error,
                    message: "\(settings.label): cannot use \(settings.folderName) in the save directory (\(error)): "
                        + "pending runs are kept in memory only and are lost if the daemon stops before they are done"))
        }
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(&changed, &attributes)
        pthread_condattr_destroy(&attributes)
        pthread_mutex_init(&mutex, nil)
    }

    deinit {
        pthread_cond_destroy(&changed)
        pthread_mutex_destroy(&mutex)
    }

    // MARK: - Adding

    /// Queues one run per event, on disk before this returns (unless the disk refuses).
    /// Called on the event thread.
    func add(_ events: [UploadEvent]) {
        guard !events.isEmpty else { return }
        let runs = events.map { PendingRun(event: $0) }
        let entryNames = locked { runs.map { _ in names.next(time: wallClock()) } }
        if let free = storage.availableSpace(), free < settings.minFreeSpace {
            metrics.queuedOnLowSpace(runs.count)
            if noticeDue("low space") {
                log.log(
                    LogEvent(
                        level: .warning,
                        message: "\(settings.label): the save directory has \(ByteCount.format(free)) free, "
                            + "below min-free-space; pending runs are still written to \(settings.folderName) (a few hundred bytes each; "
                            + "\(metrics.lowSpaceRuns) so far)", fields: [("free_bytes", String(free))]))
            }
        }
        var written = 0
        var failure: StorageError?
        if locked({ () -> Bool in
            defer { saveDirectoryNeedsSync = false }
            return saveDirectoryNeedsSync
        }) {
            _ = try? syscall("fsync") { fsync(storage.root.descriptor) }
        }
        if let folder {
            (written, failure) = folder.write(Array(zip(entryNames, runs.map(\.encoded))))
        }
        let unsaved = runs.count - written
        let depth = locked { () -> Int in
            for name in entryNames.prefix(written) where knownSet.insert(name).inserted { known.append(name) }
            inMemory += runs.suffix(unsaved)
            pthread_cond_broadcast(&changed)
            return currentDepth
        }
        metrics.setDepth(depth)
        if unsaved > 0 {
            metrics.keptInMemory(unsaved)
            if noticeDue("unsaved") {
                log.log(
                    LogEvent(
                        level: .error,
                        message: "\(settings.label): cannot save \(unsaved) pending run(s) to \(settings.folderName)"
                            + (failure.map { " (\($0))" } ?? "")
                            + ": they wait in memory and are lost if the daemon stops before they are done "
                            + "(\(metrics.unsavedRuns) so far)",
                        fields: [("file", runs[written].event.path), ("count", String(unsaved))]))
            }
        }
        noteLargeQueue(depth)
    }

    // MARK: - Taking

    /// The next run that is due, in order, claimed for this thread; waits for one. nil once closed.
    func next() -> Claim? {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        while !closed {
            let nowMilliseconds = wallClock() / 1_000_000
            if let index = inMemory.firstIndex(where: { $0.notBefore <= nowMilliseconds }) {
                runningFromMemory += 1
                return Claim(run: inMemory.remove(at: index), entry: nil)
            }
            let monotonic = Clock.monotonicNanoseconds()
            if head == known.count, let folder, lastScan.map({ monotonic &- $0 >= rescanInterval }) ?? true {
                scan(folder, now: monotonic)
            }
            guard let folder, let index = (head..<known.count).first(where: { (notBefore[known[$0]] ?? 0) <= nowMilliseconds })
            else {
                wait(until: nextWake(monotonic: monotonic, nowMilliseconds: nowMilliseconds))
                continue
            }
            let name = take(at: index)
            running.insert(name)
            pthread_mutex_unlock(&mutex)
            let claim = folder.claim(name)
            pthread_mutex_lock(&mutex)
            switch claim {
            case .claimed(let entry) where entry.run.notBefore > nowMilliseconds:
                // Another daemon put it back for later since our last look.
                entry.file.close()
                running.remove(name)
                notBefore[name] = entry.run.notBefore
                insert(name)
            case .claimed(let entry):
                notBefore[name] = nil
                if !entry.locked, !loggedNoLocks {
                    loggedNoLocks = true
                    log.log(
                        LogEvent(
                            level: .warning,
                            message: "\(settings.label): the save directory's file system has no OFD locks: "
                                + "daemons sharing it may do a pending run twice; configure it on one daemon only"))
                }
                return Claim(run: entry.run, entry: entry)
            case .heldElsewhere:
                running.remove(name)
                elsewhere.insert(name)
            case .gone:
                running.remove(name)
            case .movedAside(let reason):
                running.remove(name)
                log.log(
                    LogEvent(
                        level: .error,
                        message: "\(settings.label): skipping the unreadable entry \(settings.folderName)/\(name) "
                            + "(\(reason)); moved aside as \(name)\(PendingRunFolder.asideSuffix)", fields: [("entry", name)]))
            }
        }
        return nil
    }

    /// The run ended (whatever its outcome): its entry goes.
    func done(_ claim: Claim) {
        if let entry = claim.entry { folder?.remove(entry) }
        finished(claim) { _ in }
    }

    /// The run is to be tried again as `run` says (attempts, not before): back on disk, or in memory.
    func retry(_ claim: Claim, as run: PendingRun) {
        if let entry = claim.entry, let error = folder?.replace(entry, with: run) {
            log.log(
                LogEvent(
                    level: .warning,
                    message: "\(settings.label): cannot save the next attempt for \(run.event.path) (\(error)); "
                        + "the entry keeps its earlier attempt count", fields: [("file", run.event.path)]))
        }
        finished(claim) { queue in
            if let entry = claim.entry {
                queue.notBefore[entry.name] = run.notBefore
                queue.insert(entry.name)
            } else {
                queue.inMemory.append(run)
            }
        }
    }

    private func finished(_ claim: Claim, _ update: (PendingRunQueue) -> Void) {
        let depth = locked { () -> Int in
            if let entry = claim.entry { running.remove(entry.name) } else { runningFromMemory -= 1 }
            update(self)
            pthread_cond_broadcast(&changed)
            return currentDepth
        }
        metrics.setDepth(depth)
    }

    /// No more runs are handed out; `next()` returns nil to every thread.
    func close() {
        locked {
            closed = true
            pthread_cond_broadcast(&changed)
        }
    }

    /// After `close`: waits until the runs under way ended or `deadline` (monotonic
    /// nanoseconds) passed; returns the runs still under way, and those that were only in memory.
    func waitForRunsUnderWay(deadline: UInt64) -> (underWay: Int, inMemory: Int) {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        while !(running.isEmpty && runningFromMemory == 0), Clock.monotonicNanoseconds() < deadline {
            wait(until: deadline)
        }
        return (running.count + runningFromMemory, inMemory.count)
    }

    /// The shutdown's lines: what waits for the next start, what runs again, what is lost.
    static func logStop(label: String, underWay: Int, inMemory: Int, waiting: Int, log: any LogSink) {
        let onDisk = max(0, waiting - underWay - inMemory)
        if onDisk > 0 {
            log.log(
                LogEvent(
                    level: .notice, message: "\(label): \(onDisk) pending run(s) kept on disk for the next start",
                    fields: [("count", String(onDisk))]))
        }
        if underWay > 0 {
            log.log(
                LogEvent(
                    level: .warning,
                    message: "\(label): \(underWay) run(s) still under way at shutdown; "
                        + "they run again at the next start", fields: [("count", String(underWay))]))
        }
        if inMemory > 0 {
            log.log(
                LogEvent(
                    level: .error, message: "\(label): \(inMemory) pending run(s) could not be saved to disk and are lost",
                    fields: [("count", String(inMemory))]))
        }
    }

    /// Runs waiting or under way as this daemon knows them.
    var depth: Int { locked { currentDepth } }

    // MARK: - Inside the lock

    private var currentDepth: Int {
        known.count - head + running.count + elsewhere.count + inMemory.count + runningFromMemory
    }

    private func scan(_ folder: PendingRunFolder, now: UInt64) {
        lastScan = now
        guard let found = try? folder.names() else { return }
        known = found.filter { !running.contains($0) }
        head = 0
        knownSet = Set(known)
        elsewhere = []
        notBefore = notBefore.filter { knownSet.contains($0.key) }
        metrics.setDepth(currentDepth)
    }

    private func take(at index: Int) -> String {
        let name = known[index]
        if index == head {
            head += 1
            if head > 1024, head * 2 > known.count {
                known.removeFirst(head)
                head = 0
            }
        } else {
            known.remove(at: index)
        }
        knownSet.remove(name)
        return name
    }

    private func insert(_ name: String) {
        guard knownSet.insert(name).inserted else { return }
        let index = known[head...].firstIndex { $0 > name } ?? known.count
        known.insert(name, at: index)
    }

    /// When something could be due without a signal: an entry's time, or the next scan.
    private func nextWake(monotonic: UInt64, nowMilliseconds: Int64) -> UInt64 {
        var wake = (lastScan ?? monotonic) &+ rescanInterval
        if let earliest = known[head...].compactMap({ notBefore[$0] }).min() {
            wake = min(wake, monotonic &+ UInt64(max(0, earliest - nowMilliseconds)) * 1_000_000)
        }
        if let earliest = inMemory.map(\.notBefore).min() {
            wake = min(wake, monotonic &+ UInt64(max(0, earliest - nowMilliseconds)) * 1_000_000)
        }
        return wake
    }

    private func wait(until deadline: UInt64) {
        var time = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        _ = pthread_cond_timedwait(&changed, &mutex, &time)
    }

    private func noteLargeQueue(_ depth: Int) {
        guard depth >= Self.largeQueue, noticeDue("large") else { return }
        log.log(
            LogEvent(
                level: .notice,
                message: "\(settings.label): \(depth) runs wait in \(settings.folderName), "
                    + "files arrive faster than they are done; none is skipped", fields: [("depth", String(depth))]))
    }

    /// One line per kind of trouble per minute, not one per file.
    private func noticeDue(_ key: String) -> Bool {
        locked { notices.note(key, now: Clock.monotonicNanoseconds()) != nil }
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return body()
    }
}
