/// A value carried across a thread boundary that the compiler cannot see is safe (as
/// swift-nio's and hummingbird's `UnsafeTransfer`): the only way the daemon's modules opt
/// out of `Sendable` checking.
///
/// The rule a use must meet: at every moment, one thread at most touches the wrapped value
/// (or what it refers to), and something the compiler cannot see orders the hand-over from
/// one thread to the next - a lock, a queue, an event loop's `execute`, a thread start or
/// join. Each use says, next to it, which thread owns the value and what orders the
/// hand-over. A value that many threads use at once needs a `Mutex` or an `Atomic`
/// instead, never this.
public struct UnsafeTransfer<Wrapped> {
    public var wrappedValue: Wrapped

    @inlinable
    public init(_ wrappedValue: Wrapped) {
        self.wrappedValue = wrappedValue
    }
}

extension UnsafeTransfer: @unchecked Sendable {}
