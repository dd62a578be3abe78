import CLinux
import Glibc

/// Starts `body` on a new thread called `name` (at most 15 bytes: what `top -H`, `ps -L`
/// and `/proc/PID/task/*/comm` show), joinable. The name is set here, before this returns,
/// not by the new thread: whoever looks once the daemon says it is ready (systemd, a test)
/// finds every thread named, however late the scheduler runs it.
public func startNamedThread(_ name: String, _ body: @escaping () -> Void) -> pthread_t {
    var thread = pthread_t()
    let context = Unmanaged.passRetained(NamedThreadBody(body: body)).toOpaque()
    let result = pthread_create(
        &thread, nil,
        { context in
            let start = Unmanaged<NamedThreadBody>.fromOpaque(context!).takeRetainedValue()
            blockAsynchronousSignals()
            start.body()
            return nil
        }, context)
    precondition(result == 0, "pthread_create failed: \(result)")
    _ = filedrop_name_thread(thread, String(name.utf8.prefix(15))!)
    return thread
}

/// Worker threads may start before the daemon blocks SIGTERM/SIGHUP for its signalfd
/// (`SignalWatcher`); a thread that left them unblocked would take them with the default
/// action, and SIGTERM would kill the daemon instead of draining it. Faults stay deliverable.
private func blockAsynchronousSignals() {
    var mask = sigset_t()
    sigfillset(&mask)
    for fault in [SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGABRT] {
        sigdelset(&mask, fault)
    }
    pthread_sigmask(SIG_BLOCK, &mask, nil)
}

/// Raises the calling thread's niceness: on Linux, setpriority(2) on a thread id changes
/// that thread only.
func lowerThreadPriority(by niceness: Int32) {
    let which = __priority_which_t(PRIO_PROCESS.rawValue)
    let thread = id_t(filedrop_gettid())
    errno = 0
    let current = getpriority(which, thread)
    guard errno == 0 else { return }
    _ = setpriority(which, thread, current + niceness)
}

private final class NamedThreadBody {
    let body: () -> Void

    init(body: @escaping () -> Void) {
        self.body = body
    }
}
