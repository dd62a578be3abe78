import CLinux
import FiledropCore
import FiledropServer
import Glibc

/// One run of the on-upload hook: `posix_spawn` with argv = [program] (no shell, so a file
/// name is never a command), a clean environment, the record's JSON on stdin, stdout and
/// stderr read line by line into the log with the hook's pid. It runs in a process group of
/// its own, started in the save directory; at the timeout the whole group gets SIGTERM, and
/// SIGKILL after `grace`. Blocking: called on a hook thread, never on an event loop.
struct HookProcess {
    enum Outcome: Equatable {
        case exited(Int32)
        case signaled(Int32)
        /// Killed at the timeout.
        case timedOut
        case couldNotStart(String)
    }

    let program: String
    let environment: [String]
    let input: [UInt8]
    let workingDirectory: String
    /// Nanoseconds.
    let timeout: UInt64
    let grace: UInt64
    /// Where each output line goes, with the stream's name.
    let output: (_ pid: pid_t, _ stream: String, _ line: String) -> Void

    /// A line longer than this is cut (and marked); a run's output beyond `maximumLines`
    /// is read and dropped, so a chatty hook cannot flood the journal.
    static let maximumLineBytes = 2048
    static let maximumLines = 200

    /// Returns once the child was reaped (its pid along).
    func run() -> (pid: pid_t, outcome: Outcome) {
        var stdinPipe: [Int32] = [-1, -1]
        var stdoutPipe: [Int32] = [-1, -1]
        var stderrPipe: [Int32] = [-1, -1]
        guard filedrop_pipe2(&stdinPipe, O_CLOEXEC) == 0, filedrop_pipe2(&stdoutPipe, O_CLOEXEC) == 0,
            filedrop_pipe2(&stderrPipe, O_CLOEXEC) == 0
        else {
            let reason = "pipe2: \(String(cString: strerror(errno)))"
            closeAll(stdinPipe + stdoutPipe + stderrPipe)
            return (0, .couldNotStart(reason))
        }
        let spawned = spawn(stdin: stdinPipe[0], stdout: stdoutPipe[1], stderr: stderrPipe[1])
        closeAll([stdinPipe[0], stdoutPipe[1], stderrPipe[1]])
        let pid: pid_t
        switch spawned {
        case .success(let child):
            pid = child
        case .failure(let error):
            closeAll([stdinPipe[1], stdoutPipe[0], stderrPipe[0]])
            return (0, .couldNotStart(error.reason))
        }
        writeInput(to: stdinPipe[1])
        let outcome = supervise(pid, stdout: stdoutPipe[0], stderr: stderrPipe[0])
        closeAll([stdoutPipe[0], stderrPipe[0]])
        return (pid, outcome)
    }

    private struct SpawnFailure: Error { let reason: String }

    private func spawn(stdin: Int32, stdout: Int32, stderr: Int32) -> Result<pid_t, SpawnFailure> {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        // Every descriptor of the daemon (sockets, files being written) stays out of the hook.
        filedrop_spawn_close_from(&actions, 3)
        filedrop_spawn_chdir(&actions, workingDirectory)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Its own process group, so the timeout reaches what it started too; every signal
        // unblocked and at its default (the daemon's threads block SIGTERM and ignore SIGPIPE).
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        posix_spawnattr_setpgroup(&attributes, 0)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attributes, &all)

        let argv: [UnsafeMutablePointer<CChar>?] = [strdup(program), nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, program, &actions, &attributes, argv, envp)
        guard result == 0 else {
            return .failure(SpawnFailure(reason: "cannot run \(program): \(String(cString: strerror(result)))"))
        }
        return .success(pid)
    }

    /// The record is a few hundred bytes, far below a pipe's 64 KiB: one write, never a wait.
    /// A hook that exits without reading gets EPIPE here, which is no error of ours.
    private func writeInput(to descriptor: Int32) {
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        input.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { break }
                offset += written
            }
        }
        close(descriptor)
    }

    /// Reads output until the child is reaped, killing it at the deadline.
    private func supervise(_ pid: pid_t, stdout: Int32, stderr: Int32) -> Outcome {
        var streams = [OutputStream(descriptor: stdout, name: "stdout"), OutputStream(descriptor: stderr, name: "stderr")]
        var linesLeft = Self.maximumLines
        func emit(_ stream: String, _ line: String) {
            if linesLeft > 0 { output(pid, stream, line) }
            if linesLeft == 1 { output(pid, stream, "(further output dropped)") }
            linesLeft -= 1
        }
        let start = Clock.monotonicNanoseconds()
        var termSentAt: UInt64?
        var killed = false
        while true {
            var polled = streams.filter { !$0.closed }.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
            // A short tick: the child's exit is checked with waitpid(WNOHANG) between reads,
            // also when a grandchild keeps the pipes open after the hook itself exited.
            _ = poll(&polled, nfds_t(polled.count), 100)
            for index in streams.indices where !streams[index].closed {
                let name = streams[index].name
                streams[index].read { emit(name, $0) }
            }
            var status: Int32 = 0
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid {
                // What it wrote just before exiting; a grandchild's later output is not waited for.
                for index in streams.indices where !streams[index].closed {
                    let name = streams[index].name
                    streams[index].read { emit(name, $0) }
                    streams[index].flush { emit(name, $0) }
                }
                if termSentAt != nil {
                    // Whatever of its group ignored SIGTERM goes too (the group id stays
                    // reserved while any member lives, so this reaches no one else).
                    kill(-pid, SIGKILL)
                    return .timedOut
                }
                // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift cannot import as macros.
                if status & 0x7F == 0 { return .exited((status >> 8) & 0xFF) }
                return .signaled(status & 0x7F)
            }
            let now = Clock.monotonicNanoseconds()
            if termSentAt == nil, now &- start >= timeout {
                kill(-pid, SIGTERM)
                termSentAt = now
            } else if let sent = termSentAt, !killed, now &- sent >= grace {
                kill(-pid, SIGKILL)
                killed = true
            }
        }
    }

    private func closeAll(_ descriptors: [Int32]) {
        for descriptor in descriptors where descriptor >= 0 { close(descriptor) }
    }
}

/// One of the hook's output pipes, read without blocking and split into lines.
private struct OutputStream {
    let descriptor: Int32
    let name: String
    var closed = false
    private var pending: [UInt8] = []
    /// Bytes of the current line dropped beyond `maximumLineBytes`.
    private var cut = false

    init(descriptor: Int32, name: String) {
        self.descriptor = descriptor
        self.name = name
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
    }

    mutating func read(_ line: (String) -> Void) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count == 0 {
                closed = true
                flush(line)
                return
            }
            guard count > 0 else { return }
            for byte in buffer[..<count] {
                if byte == UInt8(ascii: "\n") {
                    flush(line)
                } else if pending.count < HookProcess.maximumLineBytes {
                    pending.append(byte)
                } else {
                    cut = true
                }
            }
        }
    }

    /// What is left of the last line, as a line.
    mutating func flush(_ line: (String) -> Void) {
        guard !pending.isEmpty || cut else { return }
        line(String(decoding: pending, as: UTF8.self) + (cut ? " (line cut)" : ""))
        pending.removeAll(keepingCapacity: true)
        cut = false
    }
}
