import CLinux
import Glibc

/// Turns signals into events on a loop through signalfd(2): the handler runs on the loop's
/// thread between events, never in the middle of other code. The signals are blocked in
/// every thread (mask inherited by the loops started after this).
final class SignalWatcher: EventHandler {
    let descriptor: Int32
    private let handler: (Int32) -> Void

    init(signals: [Int32], handler: @escaping (Int32) -> Void) throws(SystemError) {
        var mask = sigset_t()
        sigemptyset(&mask)
        for signal in signals { sigaddset(&mask, signal) }
        pthread_sigmask(SIG_BLOCK, &mask, nil)
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
