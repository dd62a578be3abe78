import FiledropIO
import FiledropServer
import FiledropSystemd
import Synchronization

/// Sends sd_notify messages from a thread of its own. sd_notify(3) blocks once the
/// receiver stops reading (a datagram socket queues only a few messages), and the event
/// loop must never block on it. Status lines are coalesced: a stalled reader costs one
/// pending status, not a growing queue. The thread is filedrop's own (`SerialWorkThread`),
/// so the daemon starts no libdispatch worker, whose priority call the sandbox refuses.
final class NotificationQueue: Sendable {
    let notifier: SystemdNotifier
    /// READY, STOPPING, RELOADING and a watchdog ping every half period: a reader stalled
    /// for this many is gone, and what comes after is dropped rather than queued for good.
    private let queue = SerialWorkThread(name: "sd-notify", capacity: 64)
    private let pendingStatus = Mutex<String?>(nil)

    init(notifier: SystemdNotifier) {
        self.notifier = notifier
    }

    /// READY, STOPPING, RELOADING, WATCHDOG: sent in order, each once.
    func send(_ message: @escaping @Sendable (SystemdNotifier) -> Void) {
        queue.submit { [notifier] in message(notifier) }
    }

    /// Waits (a bounded time) until everything queued was handed to systemd, so STOPPING=1
    /// is not lost when the process exits right after.
    func drain(timeout seconds: Int) {
        _ = queue.drain(timeout: seconds)
    }

    /// The newest status wins; SystemdNotifier itself keeps it to one per second.
    func status(_ text: String) {
        let alreadyScheduled = pendingStatus.withLock { pending in
            defer { pending = text }
            return pending != nil
        }
        guard !alreadyScheduled else { return }
        let scheduled = queue.submit { [self] in
            let text = pendingStatus.withLock { pending in
                defer { pending = nil }
                return pending
            }
            if let text { notifier.status(text) }
            _ = notifier.flushIfDue()
        }
        // A full queue: the next status schedules itself again.
        if !scheduled { pendingStatus.withLock { $0 = nil } }
    }
}
