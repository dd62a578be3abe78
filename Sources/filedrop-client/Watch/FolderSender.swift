import FiledropClient
import FiledropCore
import Foundation
import Glibc

/// `filedrop send --watch DIR`: sends every file that appears in DIR (and those already
/// there) once it has stopped changing, checks the server's SHA-256 against the local one,
/// then keeps, deletes or moves the local copy. Network loss and server restarts are waited
/// out with backoff (tus uploads resume where they stopped); what was sent is remembered in
/// a `SentLedger`, so a restarted watcher sends nothing twice. Runs until killed.
struct FolderSender {
    struct Options {
        var folder: String
        var afterSend: AfterSend = .keep
        var settle: Duration = .seconds(2)
        var ledgerFile: URL?
    }

    /// How a send ended, for the folder loop.
    private enum Outcome {
        case done
        /// Not to be tried again until the file changes (refused, mismatch, unreadable).
        case skipped
        /// The file changed while it was being sent: it settles and goes again.
        case changed(SettleTracker.Observation)
        /// No point going on (password, certificate): the command's exit code.
        case fatal(ClientCommandLine.ExitCode)
    }

    static let backoffSeconds: [Double] = [1, 2, 4, 8, 15, 30]

    let options: Options
    let client: FiledropClient
    let method: FiledropClient.UploadMethod

    func run(environment: [String: String]) async -> ClientCommandLine.ExitCode {
        let folder = URL(fileURLWithPath: options.folder).standardizedFileURL.path
        let events: FolderEvents
        do throws(FolderEventsError) {
            events = try FolderEvents(folder: folder)
        } catch {
            ClientOutput.error("filedrop send --watch: \(folder): \(error)")
            return .transferFailed
        }
        var ledger = SentLedger(file: options.ledgerFile ?? SentLedger.defaultFile(folder: folder, environment: environment))
        var tracker = SettleTracker(
            settle: UInt64(options.settle.components.seconds) * 1_000_000_000
                + UInt64(options.settle.components.attoseconds / 1_000_000_000))
        var skipped: [String: SettleTracker.Observation] = [:]
        ClientOutput.line(
            "watching \(ClientOutput.escaped(folder)) (settle \(DurationText.format(options.settle)), "
                + "after send: \(Self.describe(options.afterSend)), sent files listed in \(ledger.file.path))")
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            observe(name, in: folder, tracker: &tracker)
        }
        while !Task.isCancelled {
            let now = Self.monotonicNow()
            // Pending files are looked at again at least every 250 ms; otherwise inotify wakes us.
            let wait = tracker.nextDeadline(now: now).map { Int32(min($0 / 1_000_000, 250)) } ?? -1
            for change in events.wait(milliseconds: wait) {
                switch change {
                case .touched(let name): observe(name, in: folder, tracker: &tracker)
                case .gone(let name): tracker.forget(name)
                }
            }
            for name in tracker.pending { observe(name, in: folder, tracker: &tracker) }
            for (name, observation) in tracker.takeReady(now: Self.monotonicNow()) {
                guard skipped[name] != observation,
                    !ledger.contains(name: name, size: observation.size, modified: observation.modified)
                else { continue }
                skipped[name] = nil
                switch await send(name, observation, folder: folder, ledger: &ledger) {
                case .done: break
                case .skipped: skipped[name] = observation
                case .changed(let now): tracker.observe(name, now, now: Self.monotonicNow())
                case .fatal(let code): return code
                }
            }
        }
        return .ok
    }

    private func observe(_ name: String, in folder: String, tracker: inout SettleTracker) {
        guard WatchedName.isSent(name), let observation = Self.stat(folder + "/" + name) else {
            tracker.forget(name)
            return
        }
        tracker.observe(name, observation, now: Self.monotonicNow())
    }

    private func send(
        _ name: String, _ observation: SettleTracker.Observation, folder: String,
        ledger: inout SentLedger
    ) async -> Outcome {
        let path = folder + "/" + name
        let shown = ClientOutput.escaped(name)
        var failures = 0
        let result: FiledropClient.UploadResult
        while true {
            do throws(FiledropClientError) {
                result = try await client.upload(URL(fileURLWithPath: path), as: name, method: method)
                break
            } catch {
                switch error {
                case .network, .refused(status: 500..., _), .invalidResponse:
                    // The server is away (restarting, network lost): wait it out; tus resumes.
                    let delay = Self.backoffSeconds[min(failures, Self.backoffSeconds.count - 1)]
                    failures += 1
                    ClientOutput.error("filedrop send --watch: \(shown): \(error); trying again in \(Int(delay)) s")
                    do { try await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000)) } catch {
                        return .fatal(.transferFailed)
                    }
                    guard let now = Self.stat(path) else { return .done }
                    if now != observation { return .changed(now) }
                case .unauthorized, .untrustedServer:
                    ClientOutput.error("filedrop send --watch: \(shown): \(error)")
                    return .fatal(ClientCommandLine.ExitCode(error))
                case .cancelled:
                    return .fatal(.transferFailed)
                case .refused, .localFile:
                    ClientOutput.error("filedrop send --watch: \(shown): \(error); not sent, kept")
                    return .skipped
                }
            }
        }
        guard let after = Self.stat(path), after == observation else {
            ClientOutput.error("filedrop send --watch: \(shown) changed while it was sent; it goes again once it settles")
            return Self.stat(path).map { .changed($0) } ?? .done
        }
        let local = try? LocalSHA256.of(URL(fileURLWithPath: path))
        let stored = ClientOutput.escaped(result.name)
        guard let server = result.sha256 else {
            guard record(name, observation, sha256: nil, in: &ledger) else { return .skipped }
            ClientOutput.line(
                "sent \(shown) as \(stored), \(result.size) bytes, not verified (the server reported no SHA-256); kept")
            if options.afterSend != .keep {
                ClientOutput.error(
                    "filedrop send --watch: \(shown): the server reported no SHA-256, so the send is not verified; kept")
            }
            return .done
        }
        guard let local, local == server else {
            ClientOutput.error(
                "filedrop send --watch: \(shown): SHA-256 mismatch (server \(server), local \(local ?? "unreadable")); kept")
            return .skipped
        }
        guard record(name, observation, sha256: local, in: &ledger) else { return .skipped }
        var line = "sent \(shown) as \(stored), \(result.size) bytes, SHA-256 \(local) verified"
        switch options.afterSend {
        case .keep:
            break
        case .delete:
            if unlink(path) == 0 { line += "; deleted" } else { line += "; cannot delete: \(String(cString: strerror(errno)))" }
        case .move(let directory):
            let target = Self.freeName(name, in: directory)
            if rename(path, target) == 0 {
                line += "; moved to \(ClientOutput.escaped(target))"
            } else {
                line += "; cannot move to \(ClientOutput.escaped(directory)): \(String(cString: strerror(errno)))"
            }
        }
        ClientOutput.line(line)
        return .done
    }

    private func record(_ name: String, _ observation: SettleTracker.Observation, sha256: String?, in ledger: inout SentLedger)
        -> Bool
    {
        do {
            try ledger.record(
                SentLedger.Entry(name: name, size: observation.size, modified: observation.modified, sha256: sha256))
            return true
        } catch {
            ClientOutput.error(
                "filedrop send --watch: cannot write \(ledger.file.path) (\(error)); \(ClientOutput.escaped(name)) kept")
            return false
        }
    }

    /// `DIR/name`, or `DIR/name (1)` ... when taken: a move never replaces a file.
    private static func freeName(_ name: String, in directory: String) -> String {
        var candidate = directory + "/" + name
        var number = 1
        while access(candidate, F_OK) == 0 {
            candidate = directory + "/" + name + " (\(number))"
            number += 1
        }
        return candidate
    }

    /// Size and modification time of a regular file; nil for anything else or a vanished name.
    private static func stat(_ path: String) -> SettleTracker.Observation? {
        var info = Glibc.stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return SettleTracker.Observation(
            size: Int64(info.st_size),
            modified: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
    }

    private static func monotonicNow() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    private static func describe(_ action: AfterSend) -> String {
        switch action {
        case .keep: "keep"
        case .delete: "delete"
        case .move(let directory): "move to \(ClientOutput.escaped(directory))"
        }
    }
}
