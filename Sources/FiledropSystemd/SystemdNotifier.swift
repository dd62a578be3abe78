import CSystemd
import FiledropCore
import Glibc
import Synchronization

/// Tells the service manager how the daemon is doing, over the socket named by
/// NOTIFY_SOCKET (sd_notify(3)). Every method does nothing when not started by systemd
/// (or by a test that owns a NOTIFY_SOCKET), so callers need no checks of their own.
///
/// libsystemd reads NOTIFY_SOCKET and WATCHDOG_USEC from the process environment; the
/// `environment` given to `init` decides only whether the notifier is active, so pass the
/// process environment (the default).
public final class SystemdNotifier: Sendable {
    /// The least time between two STATUS= updates sent by `status(_:now:)`.
    public static let statusInterval: Duration = .seconds(1)

    /// Whether NOTIFY_SOCKET is set, that is whether anyone is listening.
    public let isActive: Bool
    /// How often to call `watchdog()`: half of WATCHDOG_USEC, as sd_watchdog_enabled(3)
    /// advises; nil when the service has no WatchdogSec= or the notifier is inactive.
    public let watchdogInterval: Duration?

    private struct StatusThrottle {
        var lastSent: Duration?
        var pending: String?
    }

    private let throttle = Mutex(StatusThrottle())

    public init(environment: [String: String] = ProcessEnvironment.current()) {
        isActive = !(environment["NOTIFY_SOCKET"] ?? "").isEmpty
        var microseconds: UInt64 = 0
        if isActive, sd_watchdog_enabled(0, &microseconds) > 0, microseconds > 0 {
            watchdogInterval = .microseconds(microseconds / 2)
        } else {
            watchdogInterval = nil
        }
    }

    /// Startup is complete: sockets are bound and requests are served. `extra` adds
    /// fields such as `X_FILEDROP_LISTEN=127.0.0.1:43117,[::1]:43117`, which integration
    /// tests read to learn the ports chosen for `listen = ...:0`.
    public func ready(status: String, extra: [(String, String)] = []) {
        throttle.withLock { $0.pending = nil }
        notify(Self.message([("READY", "1"), ("STATUS", status)] + extra))
    }

    /// A one-line state for `systemctl status`. Sent at once unless one went out less than
    /// `statusInterval` ago; then it is held, replacing any held earlier, until
    /// `flushIfDue(now:)` finds the interval over, so the latest state is never lost.
    public func status(_ text: String, now: Duration = MonotonicClock.now()) {
        guard isActive else { return }
        let sendNow = throttle.withLock { state -> Bool in
            if let last = state.lastSent, now - last < Self.statusInterval {
                state.pending = text
                return false
            }
            state.lastSent = now
            state.pending = nil
            return true
        }
        if sendNow {
            notify(Self.message([("STATUS", text)]))
        }
    }

    /// When a held status may go out; nil when none is held. The event loop uses it as a
    /// timer deadline.
    public var pendingStatusDeadline: Duration? {
        throttle.withLock { state in
            guard state.pending != nil, let last = state.lastSent else { return nil }
            return last + Self.statusInterval
        }
    }

    /// Sends the held status if `statusInterval` has passed since the last one.
    /// Returns whether it sent one.
    @discardableResult
    public func flushIfDue(now: Duration = MonotonicClock.now()) -> Bool {
        let due = throttle.withLock { state -> String? in
            guard let pending = state.pending, let last = state.lastSent, now - last >= Self.statusInterval else { return nil }
            state.lastSent = now
            state.pending = nil
            return pending
        }
        guard let due else { return false }
        notify(Self.message([("STATUS", due)]))
        return true
    }

    /// Shutdown has begun (SIGTERM): no new connections, requests in flight are draining.
    public func stopping() {
        notify("STOPPING=1")
    }

    /// Configuration is being reloaded (SIGHUP); follow with `ready(status:extra:)`.
    /// systemd.service(5) Type=notify-reload wants the CLOCK_MONOTONIC time of the request.
    public func reloading(monotonicMicroseconds: UInt64 = MonotonicClock.microseconds()) {
        notify(Self.message([("RELOADING", "1"), ("MONOTONIC_USEC", "\(monotonicMicroseconds)")]))
    }

    /// Proof of life for WatchdogSec=; call every `watchdogInterval` from the event loop.
    public func watchdog() {
        notify("WATCHDOG=1")
    }

    /// Sends `raw` (newline-separated `NAME=value` assignments) as it is.
    /// Returns whether it was delivered.
    @discardableResult
    public func notify(_ raw: String) -> Bool {
        guard isActive else { return false }
        return sd_notify(0, raw) > 0
    }

    /// Joins assignments; newlines and controls in values are escaped, because a newline
    /// would start a new assignment (a status text could otherwise say READY=1).
    static func message(_ fields: [(String, String)]) -> String {
        fields.map { "\($0.0)=\($0.1.logEscaped)" }.joined(separator: "\n")
    }
}
