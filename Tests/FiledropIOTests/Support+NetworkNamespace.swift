import Foundation
import Glibc
import Synchronization

@testable import FiledropIO
@testable import FiledropServer

/// A network namespace of the test's own (`ip netns add`), its loopback up, deleted when the
/// value goes away: addresses change there without touching the machine's real interfaces.
/// Needs root and iproute2; `make` prints why and returns nil otherwise.
final class TestNetworkNamespace {
    let name: String
    private static let counter = Atomic<Int>(0)
    private static let ip = "/usr/sbin/ip"

    private init(name: String) {
        self.name = name
    }

    deinit {
        _ = try? runProgram(Self.ip, ["netns", "delete", name], deadline: 10)
    }

    static func make(for test: String) -> TestNetworkNamespace? {
        guard getuid() == 0 else {
            print("\(test): skipped, making a network namespace needs root")
            return nil
        }
        guard FileManager.default.isExecutableFile(atPath: ip) else {
            print("\(test): skipped, \(ip) (iproute2) is missing")
            return nil
        }
        let name = "fdtest\(getpid())-\(counter.add(1, ordering: .relaxed).newValue)"
        guard let made = try? runProgram(ip, ["netns", "add", name], deadline: 10), made.status == 0 else {
            print("\(test): skipped, ip netns add was refused")
            return nil
        }
        let namespace = TestNetworkNamespace(name: name)
        guard (try? namespace.ip(["link", "set", "lo", "up"]))?.status == 0 else {
            print("\(test): skipped, could not bring up lo in \(name)")
            return nil
        }
        return namespace
    }

    /// `ip -n NAME ...`.
    @discardableResult
    func ip(_ arguments: [String]) throws -> OpenSSLCommand.Outcome {
        try runProgram(Self.ip, ["-n", name] + arguments, deadline: 10)
    }

    private typealias SetNamespace = @convention(c) (Int32, Int32) -> Int32
    private static let setns: SetNamespace? = dlsym(dlopen(nil, RTLD_NOW), "setns").map {
        unsafeBitCast($0, to: SetNamespace.self)
    }
    private static let CLONE_NEWNET: Int32 = 0x4000_0000

    /// Runs `body` on a thread of its own that entered the namespace (setns(2) moves only the
    /// calling thread); the thread ends with `body`, so no other code runs in there.
    func onThreadInside<Result>(_ body: @escaping () throws -> Result) throws -> Result {
        let outcome = ThreadOutcome<Result>()
        let path = "/run/netns/\(name)"
        let thread = startNamedThread("netns-test") {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0, let setns = Self.setns, setns(descriptor, Self.CLONE_NEWNET) == 0 else {
                outcome.value = .failure(SystemError(call: "setns(\(path))", errno: errno))
                if descriptor >= 0 { close(descriptor) }
                return
            }
            close(descriptor)
            outcome.value = Swift.Result { try body() }
        }
        pthread_join(thread, nil)
        return try outcome.value!.get()
    }
}

/// What a thread's body returned or threw, read after pthread_join.
private final class ThreadOutcome<Value> {
    var value: Result<Value, any Error>?
}
