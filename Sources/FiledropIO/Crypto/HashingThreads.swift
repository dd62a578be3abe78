import FiledropServer
import Glibc

/// The threads (`sha256-N`) that hash uploads, apart from the event loops and the worker
/// pool: an upload's hash is CPU work as long as the upload, and must neither slow the loop
/// that receives it nor keep an fsync waiting in the worker queue. Jobs run in the order
/// they came; each `PipelinedSHA256Stream` has at most one job queued or running.
final class HashingThreads: Sendable {
    typealias Job = @Sendable () -> Void

    private struct Jobs: Sendable {
        var queued: [Job] = []
        var next = 0
    }

    private let jobs = ConditionLock(Jobs())

    /// One thread per two CPUs (at least one): hashing at ~1.35 GB/s per core keeps up with
    /// a few uploads, and the loops keep a core.
    static var defaultThreads: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) / 2) }

    init(threads: Int = HashingThreads.defaultThreads) {
        for index in 0..<threads {
            // Threads live as long as the process: the daemon makes one set at start.
            _ = startNamedThread("sha256-\(index)") { [self] in run() }
        }
    }

    func submit(_ job: @escaping Job) {
        jobs.withLock { $0.queued.append(job) }
        jobs.signal()
    }

    private func run() {
        while true {
            let job = jobs.withLock(when: { $0.next < $0.queued.count }) { jobs in
                let job = jobs.queued[jobs.next]
                jobs.next += 1
                if jobs.next == jobs.queued.count {
                    jobs.queued.removeAll(keepingCapacity: true)
                    jobs.next = 0
                }
                return job
            }
            job()
        }
    }
}
