/// A name the application gives a request (what its route is) or a refusal (why it was
/// refused), for its own metrics and logs. The engine carries it from the route or the
/// response to the finished request and never reads it: the application decides what the
/// numbers mean (`RequestKind`, `RefusalReason`).
public struct RequestLabel: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// A request no route has labelled (yet).
    public static let unlabelled = RequestLabel(rawValue: 0)
}
