import CLinux
import FiledropHTTP
import Glibc
import Synchronization

/// A few threads (`worker-N`) for everything that may block: fsync, publishing, unlinking,
/// password hashing, directory walks (swift-nio's `NIOThreadPool`). An event loop submits
/// `BlockingWork` and hears back on its own thread through `EventLoop.execute`, in the order
/// the work finished; it never waits.
///
/// Bounded: work that may be skipped (a question such as a listing) is refused once
/// `queueLimit` items wait, and the caller answers 503. Work with an effect that must happen
/// (publishing a complete upload) is always taken: each connection has at most one item out,
/// so the connection limit bounds those.
///
/// Workers run at a lower CPU priority (`nice`) than the loops. Work that is mostly CPU
/// (`usesCPU`: hashing a flood of wrong passwords) runs at idle priority (SCHED_IDLE), and
/// at most `cpuLimit` such items at once (half the CPUs): it gets spare CPU only, and a core
/// stays free for the loops however many guesses arrive. Disk work never waits behind it.
public final class WorkerPool: Sendable {
    /// What happened to submitted work, told to its completion on the submitting loop.
    public enum Outcome: Sendable, Equatable {
        case ran
        /// Skipped: its ticket was abandoned before a worker took it.
        case skipped
    }

    public let threadCount: Int
    public let queueLimit: Int
    /// CPU-heavy items running at once, at most.
    public let cpuLimit: Int
    /// The queues and counts, whose condition wakes the workers.
    private let state: ConditionLock<State>

    private struct State: Sendable {
        var diskWork = WorkQueue<Item>()
        var cpuWork = WorkQueue<Item>()
        var stopping = false
        var busy = 0
        var cpuBusy = 0
        /// Workers that have not returned from their loop yet.
        var liveWorkers: Int
        var threads: [pthread_t] = []
    }

    /// Enough threads that a few uploads' fsyncs, which mostly wait for the disk, run side
    /// by side: four, or one per CPU on bigger machines.
    public static var defaultThreads: Int { max(4, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    /// The niceness workers run at, relative to the process.
    static let workerNiceness: Int32 = 10

    public init(threads: Int, queueLimit: Int, cpuLimit: Int = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) / 2)) {
        precondition(threads > 0 && queueLimit > 0 && cpuLimit > 0, "a pool needs a thread and room in its queue")
        threadCount = threads
        self.queueLimit = queueLimit
        self.cpuLimit = cpuLimit
        state = ConditionLock(State(liveWorkers: threads))
        for index in 0..<threads {
            let thread = startNamedThread("worker-\(index)") { [unowned self] in self.workerLoop() }
            state.withLock { $0.threads.append(thread) }
        }
    }

    /// Work waiting for a worker, and work running.
    public var pendingCount: Int {
        state.withLock { $0.diskWork.count + $0.cpuWork.count + $0.busy }
    }

    /// Queues `work`; `completion` runs on `loop` once it ran or was skipped. False when the
    /// queue is full and the work may be skipped: nothing was queued, nothing will run.
    @discardableResult
    public func submit(
        _ work: BlockingWork, ticket: WorkTicket, loop: EventLoop,
        completion: @escaping @Sendable (Outcome) -> Void
    ) -> Bool {
        // The submitting loop touches nothing the work captured until `completion` runs back on
        // it; the pool's mutex orders the hand-over to the worker that runs it.
        let item = Item(work: UnsafeTransfer(work), ticket: ticket, loop: loop, completion: completion)
        let queued = state.withLock { state -> Bool in
            guard !state.stopping else { return false }
            if work.skippableWhenAbandoned && state.diskWork.count + state.cpuWork.count >= queueLimit { return false }
            if work.usesCPU { state.cpuWork.append(item) } else { state.diskWork.append(item) }
            return true
        }
        if queued { state.signal() }
        return queued
    }

    /// Lets the workers finish what is queued and running, then returns. Called once, when
    /// the loops have stopped; completions still to be delivered are dropped with them.
    /// Past `deadline` (monotonic ns) it returns without them: a worker stuck in a system
    /// call that never returns (a hung NFS server) must not keep the process from exiting.
    public func shutdown(deadline: UInt64 = .max) {
        state.withLock { $0.stopping = true }
        state.broadcast()
        while state.withLock({ $0.liveWorkers }) > 0 {
            guard Clock.monotonicNanoseconds() < deadline else { return }
            usleep(5_000)
        }
        let threads = state.withLock { state in
            defer { state.threads.removeAll() }
            return state.threads
        }
        for thread in threads { pthread_join(thread, nil) }
    }

    private func workerLoop() {
        lowerThreadPriority(by: Self.workerNiceness)
        while let (outcome, loop, completion) = runNext() {
            loop.execute { completion(outcome) }
        }
        state.withLock { $0.liveWorkers -= 1 }
    }

    /// Takes the next item and runs (or skips) its work. The item, and all its work
    /// captured, is released on return: before the loop hears back, not after.
    private func runNext() -> (Outcome, EventLoop, @Sendable (Outcome) -> Void)? {
        guard let item = nextItem() else { return nil }
        let outcome: Outcome
        if item.work.wrappedValue.skippableWhenAbandoned && item.ticket.isAbandoned {
            outcome = .skipped
        } else if item.work.wrappedValue.usesCPU {
            _ = filedrop_set_idle_scheduling(1)
            item.work.wrappedValue.run()
            _ = filedrop_set_idle_scheduling(0)
            outcome = .ran
        } else {
            item.work.wrappedValue.run()
            outcome = .ran
        }
        let cpuItemEnded = item.work.wrappedValue.usesCPU
        state.withLock { state in
            state.busy -= 1
            if cpuItemEnded { state.cpuBusy -= 1 }
        }
        // A CPU item may wait for exactly the place this one left.
        if cpuItemEnded { state.signal() }
        return (outcome, item.loop, item.completion)
    }

    /// The next item, waiting for one: disk work first, CPU work while under `cpuLimit`;
    /// nil once stopping and nothing is left.
    private func nextItem() -> Item? {
        let cpuLimit = cpuLimit
        return state.withLock(when: { state in
            state.diskWork.count > 0 || (state.cpuBusy < cpuLimit && state.cpuWork.count > 0)
                || (state.stopping && state.cpuWork.count == 0)
        }) { state -> Item? in
            if let item = state.diskWork.takeFirst() {
                state.busy += 1
                return item
            }
            if state.cpuBusy < cpuLimit, let item = state.cpuWork.takeFirst() {
                state.busy += 1
                state.cpuBusy += 1
                return item
            }
            return nil
        }
    }

    private struct Item: Sendable {
        let work: UnsafeTransfer<BlockingWork>
        let ticket: WorkTicket
        let loop: EventLoop
        let completion: @Sendable (Outcome) -> Void
    }
}

/// A first-in first-out queue whose taken slots are emptied at once: a finished item must
/// not keep what its work captured (an upload's open file) alive.
private struct WorkQueue<Element: Sendable>: Sendable {
    private var slots: [Element?] = []
    private var head = 0

    var count: Int { slots.count - head }

    mutating func append(_ element: Element) {
        slots.append(element)
    }

    mutating func takeFirst() -> Element? {
        guard head < slots.count else { return nil }
        let element = slots[head].take()
        head += 1
        // Compact once the consumed front is the larger part, so the queue never grows.
        if head > 64 && head * 2 > slots.count {
            slots.removeFirst(head)
            head = 0
        }
        return element
    }
}

/// Shared by a connection and the work it submitted: the connection marks it abandoned
/// when it closes, and a worker that has not started skippable work then skips it.
public final class WorkTicket: Sendable {
    private let abandoned = Atomic<Bool>(false)

    public init() {}

    public var isAbandoned: Bool { abandoned.load(ordering: .acquiring) }

    public func abandon() {
        abandoned.store(true, ordering: .releasing)
    }
}
