import FiledropServer
import Glibc

/// The threads (`sha256-N`) that hash uploads, apart from the event loops and the worker
/// pool: an upload's hash is CPU work as long as the upload, and must neither slow the loop
/// that receives it nor keep an fsync waiting in the worker queue. Jobs run in the order
/// they came; each `PipelinedSHA256Stream` has at most one job queued or running.
final class HashingThreads: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    private var wake = pthread_cond_t()
    private var jobs: [() -> Void] = []
    private var next = 0

    /// One thread per two CPUs (at least one): hashing at ~1.35 GB/s per core keeps up with
    /// a few uploads, and the loops keep a core.
    static var defaultThreads: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) / 2) }

    init(threads: Int = HashingThreads.defaultThreads) {
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&wake, nil)
        for index in 0..<threads {
            // Threads live as long as the process: the daemon makes one set at start.
            _ = startNamedThread("sha256-\(index)") { [self] in run() }
        }
    }

    func submit(_ job: @escaping () -> Void) {
        pthread_mutex_lock(&mutex)
        jobs.append(job)
        pthread_mutex_unlock(&mutex)
        pthread_cond_signal(&wake)
    }

    private func run() {
        while true {
            pthread_mutex_lock(&mutex)
            while next == jobs.count { pthread_cond_wait(&wake, &mutex) }
            let job = jobs[next]
            next += 1
            if next == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                next = 0
            }
            pthread_mutex_unlock(&mutex)
            job()
        }
    }
}
