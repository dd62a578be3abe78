import CLinux
import Glibc
import Testing

@testable import FiledropIO
@testable import FiledropServer

/// The kernel's address announcements reach `onChange` through an event loop, once per
/// wakeup, in a network namespace of the test's own (the socket watches the namespace of the
/// thread that opened it).
@Suite(.timeLimit(.minutes(1))) struct AddressChangeWatcherTests {
    final class Counter {
        var changes = 0
        var stop: () -> Void = {}
    }

    /// Registers `watcher` on a fresh loop (a stopped loop does not run again) and runs it
    /// until `onChange` stops it or `seconds` pass.
    private func runLoop(with watcher: AddressChangeWatcher, counter: Counter, seconds: UInt64) throws {
        let loop = try EventLoop(index: 0)
        counter.stop = { [unowned loop] in loop.stop() }
        try loop.register(watcher, events: EPOLLIN.rawValue)
        defer { loop.unregister(watcher) }
        let deadline = Clock.monotonicNanoseconds() + seconds * 1_000_000_000
        loop.onTick = [{ loop in if Clock.monotonicNanoseconds() >= deadline { loop.stop() } }]
        loop.run()
    }

    @Test func addingAndRemovingAnAddressWakesTheLoop() throws {
        guard let namespace = TestNetworkNamespace.make(for: "addingAndRemovingAnAddressWakesTheLoop") else { return }
        let counter = Counter()
        let watcher = try namespace.onThreadInside {
            try AddressChangeWatcher(onChange: {
                counter.changes += 1
                counter.stop()
            })
        }
        let steps: [[String]] = [
            ["address", "add", "10.213.0.1/32", "dev", "lo"],
            ["address", "add", "fd00:213::1/128", "dev", "lo", "nodad"],
            ["address", "delete", "10.213.0.1/32", "dev", "lo"],
            ["address", "delete", "fd00:213::1/128", "dev", "lo"],
        ]
        for (index, step) in steps.enumerated() {
            try #require(namespace.ip(step).status == 0)
            let started = Clock.monotonicNanoseconds()
            try runLoop(with: watcher, counter: counter, seconds: 2)
            #expect(counter.changes == index + 1, "after ip \(step.joined(separator: " "))")
            #expect(Clock.monotonicNanoseconds() - started < 1_000_000_000)
        }
        #expect(!watcher.drain())
    }

    /// An address added in another namespace is not heard: nothing to drain.
    @Test func changesInAnotherNamespaceAreNotHeard() throws {
        guard let namespace = TestNetworkNamespace.make(for: "changesInAnotherNamespaceAreNotHeard") else { return }
        let watcher = try namespace.onThreadInside { try AddressChangeWatcher(onChange: {}) }
        let other = try #require(TestNetworkNamespace.make(for: "changesInAnotherNamespaceAreNotHeard"))
        try #require(other.ip(["address", "add", "10.213.0.2/32", "dev", "lo"]).status == 0)
        #expect(!watcher.drain())
    }

    /// A burst larger than the socket's buffer: the kernel drops messages and says ENOBUFS
    /// (a second socket, read by hand, witnesses it); that still counts as a change, and the
    /// socket is drained afterwards.
    @Test func lostMessagesStillCountAsAChange() throws {
        guard let namespace = TestNetworkNamespace.make(for: "lostMessagesStillCountAsAChange") else { return }
        let (watcher, witness) = try namespace.onThreadInside {
            (try AddressChangeWatcher(onChange: {}), try AddressChangeWatcher(onChange: {}))
        }
        for socket in [watcher, witness] {
            var smallest: Int32 = 1
            setsockopt(socket.descriptor, SOL_SOCKET, SO_RCVBUF, &smallest, socklen_t(MemoryLayout<Int32>.size))
        }
        let directory = try TemporaryDirectory()
        let batch = directory.path + "/batch"
        try directory.write(Array((1...200).map { "address add 10.213.1.\($0)/32 dev lo\n" }.joined().utf8), to: batch)
        try #require(namespace.ip(["-batch", batch]).status == 0)

        var buffer = [UInt8](repeating: 0, count: 16_384)
        var overflowed = false
        while true {
            let count = recv(witness.descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if count >= 0 { continue }
            if errno == ENOBUFS {
                overflowed = true
                continue
            }
            break
        }
        #expect(overflowed)
        #expect(watcher.drain())
        #expect(!watcher.drain())
    }
}
