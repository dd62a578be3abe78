import Dispatch
import FiledropSystemd
import Synchronization

/// Sends sd_notify messages from a thread of its own. sd_notify(3) blocks once the
/// receiver stops reading (a datagram socket queues only a few messages), and the event
/// loop must never block on it. Status lines are coalesced: a stalled reader costs one
/// pending status, not a growing queue.
final class NotificationQueue: Sendable {
    let notifier: SystemdNotifier
    private let queue = DispatchQueue(label: "filedrop.sd-notify")
    private let pendingStatus = Mutex<String?>(nil)

    init(notifier: SystemdNotifier) {
        self.notifier = notifier
    }

    /// READY, STOPPING, RELOADING, WATCHDOG: sent in order, each once.
    func send(_ message: @escaping @Sendable (SystemdNotifier) -> Void) {
        queue.async { [notifier] in message(notifier) }
    }

    /// Waits (a bounded time) until everything queued was handed to systemd, so STOPPING=1
    /// is not lost when the process exits right after.
    func drain(timeout seconds: Int) {
        let done = DispatchSemaphore(value: 0)
        queue.async { done.signal() }
        _ = done.wait(timeout: .now() + .seconds(seconds))
    }

    /// The newest status wins; SystemdNotifier itself keeps it to one per second.
    func status(_ text: String) {
        let alreadyScheduled = pendingStatus.withLock { pending in
            defer { pending = text }
            return pending != nil
        }
        guard !alreadyScheduled else { return }
        queue.async { [self] in
            let text = pendingStatus.withLock { pending in
                defer { pending = nil }
                return pending
            }
            if let text { notifier.status(text) }
            _ = notifier.flushIfDue()
        }
    }
}
