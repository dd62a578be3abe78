import CLinux
import FiledropHTTP
import Synchronization

/// When to hand the allocator's free pages back to the kernel: after a burst of closed
/// connections, once it has calmed down. glibc keeps what the loops' threads free in their
/// arenas, and a flood of TLS handshakes leaves their pages scattered between live blocks,
/// where neither the arenas' own trimming (from the top only) nor the mmap threshold reaches;
/// `malloc_trim(0)` releases every free page. It walks all arenas, so it runs on a worker,
/// and only after a burst: steady traffic, however long, reuses what it frees.
struct HeapTrimSchedule: Equatable {
    /// Closes since the last trim that make one worth it.
    let burst: Int
    /// Closes in one tick that make a burst; fewer in the last tick mean it is over.
    let calm: Int
    private var closedAtLastTick = 0
    /// Whether a tick since the last trim saw `calm` closes or more.
    private var sawBurst = false

    init(burst: Int = 256, calm: Int = 32) {
        self.burst = burst
        self.calm = calm
    }

    /// `closed`: connections closed since the last trim. True when a trim is due; the caller
    /// then counts from zero again.
    mutating func tick(closed: Int) -> Bool {
        let recent = closed - closedAtLastTick
        closedAtLastTick = closed
        if recent >= calm {
            sawBurst = true
            return false
        }
        guard sawBurst, closed >= burst else { return false }
        closedAtLastTick = 0
        sawBurst = false
        return true
    }
}

/// Counts closes from every loop and, on the main loop's tick, has a worker trim the heap
/// when `HeapTrimSchedule` says so.
final class HeapTrimmer: Sendable {
    private let closes = Atomic<Int>(0)
    private let schedule = Mutex(HeapTrimSchedule())

    /// From any loop.
    func connectionClosed() {
        closes.wrappingAdd(1, ordering: .relaxed)
    }

    /// On `loop`, every tick.
    func tick(loop: EventLoop, workers: WorkerPool) {
        let closed = closes.load(ordering: .relaxed)
        guard schedule.withLock({ $0.tick(closed: closed) }) else { return }
        closes.wrappingSubtract(closed, ordering: .relaxed)
        let work = BlockingWork("heap trim", usesCPU: true) { _ = malloc_trim(0) }
        _ = workers.submit(work, ticket: WorkTicket(), loop: loop) { _ in }
    }
}
