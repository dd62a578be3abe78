/// What a reload (SIGHUP, `filedrop reload`) does with a key's new value: applies it, or
/// keeps the running value until the next start because the key shapes something made
/// once (the sockets, the event loops, the connections' limits and timeouts).
public struct ReloadEffect: Sendable {
    public let appliesOnReload: Bool
    /// For a restart-only key: whether two configurations differ in it.
    let differs: @Sendable (Configuration, Configuration) -> Bool

    public static let applies = ReloadEffect(appliesOnReload: true, differs: { _, _ in false })

    /// Restart-only, compared by the member the key sets.
    static func restartOnly<Value: Equatable & Sendable>(_ member: KeyPath<Configuration, Value> & Sendable) -> ReloadEffect {
        ReloadEffect(appliesOnReload: false, differs: { $0[keyPath: member] != $1[keyPath: member] })
    }

    /// Restart-only, for a key of which only some changes need the restart.
    static func restartOnly(differs: @escaping @Sendable (Configuration, Configuration) -> Bool) -> ReloadEffect {
        ReloadEffect(appliesOnReload: false, differs: differs)
    }
}
