import Glibc
import Synchronization
import Testing

@testable import FiledropIO

/// One on-upload run: argv is the program alone (no shell reads the file name), the
/// environment is exactly what was given, stdin carries the record, output comes back line
/// by line, and the timeout ends the whole process group: SIGTERM, then SIGKILL.
@Suite struct HookProcessTests {
    final class Lines: Sendable {
        let lines = Mutex<[String]>([])
        func add(_ stream: String, _ line: String) { lines.withLock { $0.append("\(stream): \(line)") } }
        var all: [String] { lines.withLock { $0 } }
    }

    /// An executable /bin/sh script in a fresh directory.
    static func script(_ body: String) throws -> (path: String, directory: String) {
        var template = Array("/tmp/filedrop-hook-XXXXXX".utf8CString)
        let directory = String(cString: try #require(mkdtemp(&template)))
        let path = directory + "/hook"
        let file = try #require(fopen(path, "w"))
        fputs("#!/bin/sh\n" + body + "\n", file)
        fclose(file)
        chmod(path, 0o755)
        return (path, directory)
    }

    static func run(
        _ body: String, environment: [String] = ["PATH=/usr/bin:/bin"], input: String = "",
        timeout: UInt64 = 10_000_000_000, grace: UInt64 = 200_000_000
    ) throws -> (HookProcess.Outcome, [String], String) {
        let (path, directory) = try script(body)
        let lines = Lines()
        let process = HookProcess(
            program: path, environment: environment, input: Array(input.utf8), workingDirectory: directory,
            timeout: timeout, grace: grace
        ) { _, stream, line in lines.add(stream, line) }
        let outcome = process.run().outcome
        return (outcome, lines.all, directory)
    }

    @Test func environmentStdinOutputAndStatus() throws {
        let (outcome, lines, directory) = try Self.run(
            """
            echo "args=$# cwd=$(pwd)"
            env | sort
            read -r line; echo "stdin=$line"
            echo oops >&2
            exit 3
            """, environment: ["PATH=/usr/bin:/bin", "FILEDROP_NAME=a b;rm -rf x"], input: "{\"x\":1}\n")
        #expect(outcome == .exited(3))
        #expect(lines.contains("stdout: args=0 cwd=\(directory)"))
        #expect(lines.contains("stdout: FILEDROP_NAME=a b;rm -rf x"))
        #expect(lines.contains("stdout: stdin={\"x\":1}"))
        #expect(lines.contains("stderr: oops"))
        // Nothing of the test runner's environment: sh adds PWD (and may add SHLVL, _).
        let variables = lines.filter {
            $0.hasPrefix("stdout: ") && $0.contains("=") && !$0.contains("args=") && !$0.contains("stdin=")
        }
        .map { String($0.dropFirst(8).prefix { $0 != "=" }) }
        #expect(Set(variables).subtracting(["PWD", "SHLVL", "_", "OLDPWD"]) == ["PATH", "FILEDROP_NAME"])
    }

    @Test func daemonDescriptorsStayOut() throws {
        let extra = open("/dev/null", O_RDONLY)
        defer { close(extra) }
        let (outcome, lines, _) = try Self.run("ls /proc/self/fd | sort -n | tr '\\n' ' '")
        #expect(outcome == .exited(0))
        // 0, 1, 2 and the descriptor ls opens to read the directory.
        #expect(lines == ["stdout: 0 1 2 3 "])
    }

    @Test func timeoutSendsSIGTERMToTheGroup() throws {
        let (outcome, _, directory) = try Self.run("sleep 100 & echo $! > child; wait", timeout: 300_000_000)
        #expect(outcome == .timedOut)
        let file = try #require(fopen(directory + "/child", "r"))
        var pid: Int32 = 0
        _ = withUnsafeMutablePointer(to: &pid) { vfscanf_pid(file, $0) }
        fclose(file)
        #expect(pid > 0)
        // Signals are delivered asynchronously: a bounded wait for the child's end.
        var waited = 0
        while !Self.isGone(pid) && waited < 200 {
            usleep(10_000)
            waited += 1
        }
        #expect(Self.isGone(pid))
    }

    /// No such process, or a zombie waiting for whoever inherited it (the hook's shell died
    /// first, so its parent is init or the nearest subreaper, which may take a moment).
    static func isGone(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0, let file = fopen("/proc/\(pid)/stat", "r") else { return true }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 512)
        guard fgets(&buffer, 512, file) != nil else { return true }
        let stat = String(cString: buffer)
        guard let close = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(close, offsetBy: 2)] == "Z"
    }

    @Test func aHookIgnoringSIGTERMIsKilled() throws {
        let (outcome, lines, _) = try Self.run("trap '' TERM; echo started; while :; do sleep 1; done", timeout: 300_000_000)
        #expect(outcome == .timedOut)
        #expect(lines == ["stdout: started"])
    }

    @Test func longLinesAreCutAndVolumeIsBounded() throws {
        let (outcome, lines, _) = try Self.run(
            """
            head -c 5000 /dev/zero | tr '\\0' 'a'; echo
            i=0; while [ $i -lt 500 ]; do echo line $i; i=$((i+1)); done
            """)
        #expect(outcome == .exited(0))
        #expect(lines.first == "stdout: " + String(repeating: "a", count: HookProcess.maximumLineBytes) + " (line cut)")
        #expect(lines.count == HookProcess.maximumLines + 1)
        #expect(lines.last == "stdout: (further output dropped)")
    }

    @Test func aMissingProgramIsReported() {
        let process = HookProcess(
            program: "/nonexistent/hook", environment: [], input: [], workingDirectory: "/",
            timeout: 1_000_000_000, grace: 1
        ) { _, _, _ in }
        guard case .couldNotStart(let reason) = process.run().outcome else {
            Issue.record("started a program that does not exist")
            return
        }
        #expect(reason.contains("/nonexistent/hook"))
    }
}

/// Reads one decimal pid (fscanf is variadic, which Swift cannot call).
private func vfscanf_pid(_ file: UnsafeMutablePointer<FILE>, _ pid: UnsafeMutablePointer<Int32>) -> Int32 {
    var buffer = [CChar](repeating: 0, count: 32)
    guard fgets(&buffer, 32, file) != nil else { return 0 }
    pid.pointee = Int32(atoi(buffer))
    return 1
}
