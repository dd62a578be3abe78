import FiledropCore
import FiledropHTTP
import Glibc
import Synchronization
import Testing

@testable import FiledropIO
@testable import FiledropServer

/// The pool the loops hand blocking work to: completions come back on the submitting loop
/// in the order the work finished, work nobody waits for is skipped, and the queue of such
/// work is bounded while work that must happen is always taken.
@Suite struct WorkerPoolTests {
    /// Holds workers until opened, so a test decides what is running and what waits.
    final class Gate: Sendable {
        private let opened = Atomic<Bool>(false)
        func open() { opened.store(true, ordering: .releasing) }
        func wait() { while !opened.load(ordering: .acquiring) { usleep(1000) } }
    }

    /// What the completions saw, in the order they ran (on the loop thread only).
    final class Record: @unchecked Sendable {
        var completions: [(label: String, outcome: WorkerPool.Outcome, onLoop: Bool)] = []
    }

    /// Runs `loop` until `expected` completions are recorded (or 5 s pass, failing).
    func run(_ loop: EventLoop, until record: Record, count expected: Int) {
        let deadline = Clock.monotonicNanoseconds() + 5_000_000_000
        loop.onTick.append { loop in
            if Clock.monotonicNanoseconds() > deadline { loop.stop() }
        }
        loop.run()
        #expect(record.completions.count == expected)
    }

    func submit(
        _ pool: WorkerPool, _ label: String, skippable: Bool = false, ticket: WorkTicket = WorkTicket(),
        loop: EventLoop, record: Record, stopAfter: Int, body: @escaping @Sendable () -> Void = {}
    ) -> Bool {
        let work = BlockingWork(label, skippableWhenAbandoned: skippable, body)
        return pool.submit(work, ticket: ticket, loop: loop) { outcome in
            record.completions.append((label, outcome, EventLoop.currentIndex == loop.index))
            if record.completions.count == stopAfter { loop.stop() }
        }
    }

    @Test func completionsRunOnTheLoopInTheOrderTheWorkFinished() throws {
        let loop = try EventLoop(index: 0)
        let pool = WorkerPool(threads: 2, queueLimit: 8)
        let record = Record()
        let slowStarted = Gate()
        let fastDone = Gate()
        _ = submit(pool, "slow", loop: loop, record: record, stopAfter: 2) {
            slowStarted.open()
            fastDone.wait()
        }
        slowStarted.wait()
        _ = submit(pool, "fast", loop: loop, record: record, stopAfter: 2) { fastDone.open() }
        run(loop, until: record, count: 2)
        #expect(record.completions.map(\.label) == ["fast", "slow"])
        #expect(record.completions.allSatisfy { $0.onLoop && $0.outcome == .ran })
        pool.shutdown()
    }

    @Test func abandonedQuestionsAreSkippedButEffectsStillHappen() throws {
        let loop = try EventLoop(index: 0)
        let pool = WorkerPool(threads: 1, queueLimit: 8)
        let record = Record()
        let busy = Gate()
        let ran = Mutex<[String]>([])
        _ = submit(pool, "busy", loop: loop, record: record, stopAfter: 3) { busy.wait() }
        let ticket = WorkTicket()
        _ = submit(pool, "listing", skippable: true, ticket: ticket, loop: loop, record: record, stopAfter: 3) {
            ran.withLock { $0.append("listing") }
        }
        _ = submit(pool, "publish", ticket: ticket, loop: loop, record: record, stopAfter: 3) {
            ran.withLock { $0.append("publish") }
        }
        // The connection closes while both wait behind the busy worker.
        ticket.abandon()
        busy.open()
        run(loop, until: record, count: 3)
        #expect(ran.withLock { $0 } == ["publish"])
        #expect(record.completions.map(\.outcome) == [.ran, .skipped, .ran])
        pool.shutdown()
    }

    @Test func theQueueOfSkippableWorkIsBounded() throws {
        let loop = try EventLoop(index: 0)
        let pool = WorkerPool(threads: 1, queueLimit: 2)
        let record = Record()
        let busy = Gate()
        let running = Gate()
        #expect(
            submit(pool, "busy", loop: loop, record: record, stopAfter: 4) {
                running.open()
                busy.wait()
            })
        running.wait()
        #expect(submit(pool, "q1", skippable: true, loop: loop, record: record, stopAfter: 4))
        #expect(submit(pool, "q2", skippable: true, loop: loop, record: record, stopAfter: 4))
        #expect(!submit(pool, "q3", skippable: true, loop: loop, record: record, stopAfter: 4))
        // Work that must happen is taken even now: at most one per connection is ever out.
        #expect(submit(pool, "publish", loop: loop, record: record, stopAfter: 4))
        #expect(pool.pendingCount == 4)
        busy.open()
        run(loop, until: record, count: 4)
        #expect(record.completions.map(\.label) == ["busy", "q1", "q2", "publish"])
        pool.shutdown()
    }

    /// Work captures open files (an upload's descriptor): once done, the pool must let go.
    @Test func finishedWorkKeepsNothingAlive() throws {
        final class Resource: @unchecked Sendable {}
        let loop = try EventLoop(index: 0)
        let pool = WorkerPool(threads: 1, queueLimit: 8)
        let record = Record()
        weak var watched: Resource?
        do {
            let resource = Resource()
            watched = resource
            _ = submit(pool, "hold", loop: loop, record: record, stopAfter: 1) { _ = resource }
        }
        run(loop, until: record, count: 1)
        #expect(watched == nil)
        pool.shutdown()
    }

    @Test func shutdownGivesUpOnAWorkerThatHangsAtItsDeadline() throws {
        let loop = try EventLoop(index: 0)
        let pool = WorkerPool(threads: 1, queueLimit: 8)
        let record = Record()
        let stuck = Gate()
        let started = Gate()
        _ = submit(pool, "hung NFS", loop: loop, record: record, stopAfter: 99) {
            started.open()
            stuck.wait()
        }
        started.wait()
        let begun = Clock.monotonicNanoseconds()
        pool.shutdown(deadline: begun + 50_000_000)
        #expect(Clock.monotonicNanoseconds() - begun < 2_000_000_000)
        stuck.open()
    }

    @Test func shutdownFinishesWhatWasQueued() throws {
        let loop = try EventLoop(index: 0)
        let pool = WorkerPool(threads: 1, queueLimit: 8)
        let record = Record()
        let done = Atomic<Int>(0)
        for index in 0..<5 {
            _ = submit(pool, "w\(index)", loop: loop, record: record, stopAfter: 99) {
                usleep(2000)
                done.add(1, ordering: .relaxed)
            }
        }
        pool.shutdown()
        #expect(done.load(ordering: .relaxed) == 5)
        #expect(!submit(pool, "late", loop: loop, record: record, stopAfter: 99))
    }

    @Test func cpuHeavyWorkRunsAtIdlePriorityAndOnlyIt() throws {
        let pool = WorkerPool(threads: 1, queueLimit: 8)
        let loop = try EventLoop(index: 0)
        let record = Record()
        let policies = Mutex<[Bool: Int32]>([:])
        for usesCPU in [true, false] {
            let work = BlockingWork("policy", usesCPU: usesCPU) { policies.withLock { $0[usesCPU] = sched_getscheduler(0) } }
            pool.submit(work, ticket: WorkTicket(), loop: loop) { outcome in
                record.completions.append(("policy", outcome, true))
                if record.completions.count == 2 { loop.stop() }
            }
        }
        run(loop, until: record, count: 2)
        // sched(7): SCHED_IDLE is 5, SCHED_OTHER 0.
        #expect(policies.withLock { $0 } == [true: 5, false: 0])
        pool.shutdown()
    }

    /// With one CPU item allowed at a time, a second waits while disk work passes it.
    @Test func cpuHeavyWorkIsCappedAndDiskWorkPassesIt() throws {
        let pool = WorkerPool(threads: 3, queueLimit: 8, cpuLimit: 1)
        let loop = try EventLoop(index: 0)
        let record = Record()
        let hashing = Gate()
        let started = Gate()
        let order = Mutex<[String]>([])
        let first = BlockingWork("hash-1", usesCPU: true) {
            started.open()
            hashing.wait()
            order.withLock { $0.append("hash-1") }
        }
        let second = BlockingWork("hash-2", usesCPU: true) { order.withLock { $0.append("hash-2") } }
        let disk = BlockingWork("fsync") { order.withLock { $0.append("fsync") } }
        for work in [first, second] {
            let label = work.label
            pool.submit(work, ticket: WorkTicket(), loop: loop) { outcome in
                record.completions.append((label, outcome, true))
            }
        }
        started.wait()
        pool.submit(disk, ticket: WorkTicket(), loop: loop) { outcome in
            record.completions.append(("fsync", outcome, true))
            hashing.open()
        }
        let deadline = Clock.monotonicNanoseconds() + 5_000_000_000
        loop.onTick.append { loop in if record.completions.count == 3 || Clock.monotonicNanoseconds() > deadline { loop.stop() } }
        loop.run()
        // Three threads were free, yet hash-2 waited for hash-1; the fsync did not.
        #expect(order.withLock { $0 } == ["fsync", "hash-1", "hash-2"])
        pool.shutdown()
    }

    static func threadName() -> String {
        let file = fopen("/proc/thread-self/comm", "r")
        defer { if let file { fclose(file) } }
        var name = [CChar](repeating: 0, count: 32)
        guard let file, fgets(&name, Int32(name.count), file) != nil else { return "" }
        return String(String(cString: name).prefix { $0 != "\n" })
    }

    @Test func workersAreNamedAndNicerThanTheLoops() throws {
        let pool = WorkerPool(threads: 2, queueLimit: 8)
        let loop = try EventLoop(index: 0)
        let record = Record()
        let seen = Mutex<(name: String, nice: Int32)?>(nil)
        _ = submit(pool, "look", loop: loop, record: record, stopAfter: 1) {
            // who 0 is the calling thread on Linux, for getpriority as for /proc/thread-self.
            let nice = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
            seen.withLock { $0 = (Self.threadName(), nice) }
        }
        run(loop, until: record, count: 1)
        let observed = seen.withLock { $0 }
        #expect(observed?.name.hasPrefix("worker-") == true)
        #expect(observed?.nice == getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) + WorkerPool.workerNiceness)
        pool.shutdown()
    }
}
