/// Work that may block the thread running it: fsync, a rename or unlink that frees a big
/// file's blocks, password hashing, a directory walk. The core never runs it on an event
/// loop: it hands it out (`ConnectionStateMachine.Action.runBlocking`), the I/O layer runs it
/// on a worker thread, and the connection hears back on its own loop
/// (`blockingWorkFinished`), as swift-nio's `NIOThreadPool` and `NonBlockingFileIO` do.
///
/// While it runs, whatever it captured belongs to the worker: the connection touches nothing
/// of its request until it hears back. Not `Sendable`: the pool that takes it across says
/// so where it does (`UnsafeTransfer`).
public final class BlockingWork {
    /// What it does, for logs and tests: "publish", "password", "listing".
    public let label: String
    /// Whether it may be skipped when its connection is gone before it started: a question
    /// nobody waits for any more (a password, a listing). Work with an effect that must
    /// happen (publishing an upload that arrived complete) is never skipped.
    public let skippableWhenAbandoned: Bool
    /// Mostly CPU, not waiting for a disk (password hashing): a worker runs it at idle
    /// priority, so on a busy machine the event loops always come first.
    public let usesCPU: Bool
    /// Dropped once run: whoever still holds the work must not keep what it captured
    /// alive - an upload's open file, say.
    private var body: (() -> Void)?

    public init(_ label: String, skippableWhenAbandoned: Bool = false, usesCPU: Bool = false, _ body: @escaping () -> Void) {
        self.label = label
        self.skippableWhenAbandoned = skippableWhenAbandoned
        self.usesCPU = usesCPU
        self.body = body
    }

    /// On a worker thread.
    public func run() {
        body?()
        body = nil
    }
}

/// A value that is either ready now or needs blocking work first: `then` runs back on the
/// event loop once the work is done, and may itself need more work.
public enum Deferred<Value> {
    case ready(Value)
    case after(BlockingWork, then: () -> Deferred<Value>)

    /// Runs `work` on a worker and hands its result to `then` on the loop.
    public static func blocking<Result>(
        _ label: String, skippableWhenAbandoned: Bool = false, _ work: @escaping () -> Result,
        then: @escaping (Result) -> Deferred<Value>
    ) -> Deferred<Value> {
        let slot = ResultSlot<Result>()
        let blocking = BlockingWork(label, skippableWhenAbandoned: skippableWhenAbandoned) { slot.value = work() }
        return .after(blocking) { then(slot.take(label)) }
    }

    /// The same chain with `transform` applied to the final value.
    public func map<Other>(_ transform: @escaping (Value) -> Other) -> Deferred<Other> {
        switch self {
        case .ready(let value): .ready(transform(value))
        case .after(let work, let then): .after(work) { then().map(transform) }
        }
    }

    /// Runs every step on the calling thread: for tests and tools that have no worker pool,
    /// never for an event loop.
    public func resolvedInline() -> Value {
        var step = self
        while true {
            switch step {
            case .ready(let value):
                return value
            case .after(let work, let then):
                work.run()
                step = then()
            }
        }
    }
}

/// Where blocking work leaves its result for the loop: written by the worker before the
/// loop hears back, read by the loop after, so never by both at once. Not `Sendable`: it
/// crosses only inside the `BlockingWork` that fills it.
public final class ResultSlot<Value> {
    public var value: Value?

    public init() {}

    public func take(_ label: String) -> Value {
        guard let value else { preconditionFailure("\(label): continued before its work ran") }
        self.value = nil
        return value
    }
}

/// What a body consumer did with the bytes it was offered (`RequestBodyConsumer.consume`).
public enum BodyIntake {
    /// Every byte was taken; send more.
    case accepted
    /// The first `accepted` bytes were taken, then the consumer needs `work` done before it
    /// can take more (a file part ended and must be published; write-back must catch up).
    /// The machine keeps the rest, stops reading, and after the work calls `then` on the
    /// loop before offering the rest again. `then` throwing ends the request with its error.
    case paused(accepted: Int, work: BlockingWork, then: () throws(HTTPError) -> Void)
}
