import CLinux
import Glibc

/// Blocks `signals` in the calling thread and in every thread it starts from now on (they
/// inherit the mask), so that they reach only a `SignalWatcher`. Call it before any thread
/// starts: a process-directed SIGTERM goes to any thread that does not block it, and with
/// the default action there it ends the process at once (a worker started before the mask
/// was set did exactly that).
public func blockSignalsInEveryThread(_ signals: [Int32]) {
    var mask = sigset_t()
    sigemptyset(&mask)
    for signal in signals { sigaddset(&mask, signal) }
    pthread_sigmask(SIG_BLOCK, &mask, nil)
}

/// Turns signals into events on a loop through signalfd(2): the handler runs on the loop's
/// thread between events, never in the middle of other code. The signals are blocked in
/// every thread started after this (see `blockSignalsInEveryThread`).
final class SignalWatcher: EventHandler {
    let descriptor: Int32
    private let handler: (Int32) -> Void

    init(signals: [Int32], handler: @escaping (Int32) -> Void) throws(SystemError) {
        blockSignalsInEveryThread(signals)
        var mask = sigset_t()
        sigemptyset(&mask)
        for signal in signals { sigaddset(&mask, signal) }
        descriptor = try syscall("signalfd") { signalfd(-1, &mask, Int32(SFD_NONBLOCK) | Int32(SFD_CLOEXEC)) }
        self.handler = handler
    }

    func handle(events: UInt32, loop: EventLoop) {
        var info = signalfd_siginfo()
        while read(descriptor, &info, MemoryLayout<signalfd_siginfo>.size) == MemoryLayout<signalfd_siginfo>.size {
            handler(Int32(info.ssi_signo))
        }
    }
}
