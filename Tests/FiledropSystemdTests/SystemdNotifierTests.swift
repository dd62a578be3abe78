import FiledropCore
import Glibc
import Testing

@testable import FiledropSystemd

extension ProcessStateTests {
    /// Real datagrams through libsystemd's sd_notify to a socket the test owns.
    @Suite struct SystemdNotifierTests {
        /// Runs `body` with NOTIFY_SOCKET pointing at a fresh receiver and a notifier built
        /// from that environment.
        func withNotifier(watchdog: [String: String?] = [:], _ body: (SystemdNotifier, NotifySocketReceiver) throws -> Void)
            throws
        {
            let receiver = try NotifySocketReceiver()
            var variables: [String: String?] = ["NOTIFY_SOCKET": receiver.path, "WATCHDOG_USEC": nil, "WATCHDOG_PID": nil]
            variables.merge(watchdog) { $1 }
            try withEnvironment(variables) {
                try body(SystemdNotifier(environment: ProcessEnvironment.current()), receiver)
            }
        }

        @Test func inactiveWithoutNotifySocket() {
            withEnvironment(["NOTIFY_SOCKET": nil, "WATCHDOG_USEC": "1000000", "WATCHDOG_PID": "\(getpid())"]) {
                let notifier = SystemdNotifier(environment: ProcessEnvironment.current())
                #expect(!notifier.isActive)
                #expect(notifier.watchdogInterval == nil)
                #expect(!notifier.notify("READY=1"))
                notifier.status("quiet", now: .seconds(1))
                #expect(notifier.pendingStatusDeadline == nil)
            }
        }

        @Test func readyCarriesStatusAndListenAddresses() throws {
            try withNotifier { notifier, receiver in
                #expect(notifier.isActive)
                notifier.ready(status: "Serving 2 addresses", extra: [("X_FILEDROP_LISTEN", "127.0.0.1:43117,[::1]:43117")])
                #expect(
                    receiver.receive() == "READY=1\nSTATUS=Serving 2 addresses\nX_FILEDROP_LISTEN=127.0.0.1:43117,[::1]:43117")
            }
        }

        @Test func lifecycleMessages() throws {
            try withNotifier { notifier, receiver in
                notifier.stopping()
                #expect(receiver.receive() == "STOPPING=1")
                notifier.watchdog()
                #expect(receiver.receive() == "WATCHDOG=1")
                notifier.reloading(monotonicMicroseconds: 123_456_789)
                #expect(receiver.receive() == "RELOADING=1\nMONOTONIC_USEC=123456789")
                #expect(notifier.notify("FDSTORE=0"))
                #expect(receiver.receive() == "FDSTORE=0")
            }
        }

        @Test func reloadingDefaultsToTheMonotonicClock() throws {
            try withNotifier { notifier, receiver in
                let before = MonotonicClock.microseconds()
                notifier.reloading()
                let after = MonotonicClock.microseconds()
                let message = try #require(receiver.receive())
                let value = try #require(UInt64(message.dropFirst("RELOADING=1\nMONOTONIC_USEC=".count)))
                #expect(message.hasPrefix("RELOADING=1\nMONOTONIC_USEC="))
                #expect((before...after).contains(value))
            }
        }

        /// A newline in a status would start a new assignment; it must arrive escaped.
        @Test func statusCannotInjectAssignments() throws {
            try withNotifier { notifier, receiver in
                notifier.status("evil.txt\nREADY=1", now: .seconds(100))
                #expect(receiver.receive() == #"STATUS=evil.txt\nREADY=1"#)
            }
        }

        @Test func statusIsThrottledToOnePerSecondAndTheLatestIsKept() throws {
            try withNotifier { notifier, receiver in
                notifier.status("a", now: .seconds(10))
                #expect(receiver.receive() == "STATUS=a")
                notifier.status("b", now: .milliseconds(10_500))
                notifier.status("c", now: .milliseconds(10_900))
                #expect(receiver.receive(milliseconds: 50) == nil)
                #expect(notifier.pendingStatusDeadline == .seconds(11))
                #expect(!notifier.flushIfDue(now: .milliseconds(10_999)))
                #expect(receiver.receive(milliseconds: 50) == nil)
                #expect(notifier.flushIfDue(now: .seconds(11)))
                #expect(receiver.receive() == "STATUS=c")
                #expect(!notifier.flushIfDue(now: .seconds(20)))
                #expect(notifier.pendingStatusDeadline == nil)

                notifier.status("d", now: .milliseconds(11_500))
                notifier.status("e", now: .seconds(12))
                #expect(receiver.receive() == "STATUS=e")
                #expect(notifier.pendingStatusDeadline == nil)
                #expect(receiver.receive(milliseconds: 50) == nil)
            }
        }

        @Test func readyReplacesAHeldStatus() throws {
            try withNotifier { notifier, receiver in
                notifier.status("starting", now: .seconds(5))
                notifier.status("binding", now: .milliseconds(5_100))
                notifier.ready(status: "Serving")
                #expect(receiver.receive() == "STATUS=starting")
                #expect(receiver.receive() == "READY=1\nSTATUS=Serving")
                #expect(!notifier.flushIfDue(now: .seconds(60)))
                #expect(receiver.receive(milliseconds: 50) == nil)
            }
        }

        @Test func watchdogIntervalIsHalfOfWatchdogUsec() throws {
            try withNotifier(watchdog: ["WATCHDOG_USEC": "3000000", "WATCHDOG_PID": "\(getpid())"]) { notifier, _ in
                #expect(notifier.watchdogInterval == .milliseconds(1500))
            }
            try withNotifier(watchdog: ["WATCHDOG_USEC": "3000000", "WATCHDOG_PID": "\(getpid() + 1)"]) { notifier, _ in
                #expect(notifier.watchdogInterval == nil)
            }
            try withNotifier { notifier, _ in
                #expect(notifier.watchdogInterval == nil)
            }
        }

        @Test func processEnvironmentSeesSetenv() {
            withEnvironment(["FILEDROP_TEST_VALUE": "a=b c"]) {
                #expect(ProcessEnvironment.current()["FILEDROP_TEST_VALUE"] == "a=b c")
            }
            #expect(ProcessEnvironment.current()["FILEDROP_TEST_VALUE"] == nil)
        }
    }
}
