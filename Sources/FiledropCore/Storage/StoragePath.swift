/// A location below the save directory made only of normal components: no empty parts,
/// no `.` or `..`, no `/`, `\` or NUL, no control characters. Built by `FileNamePolicy`,
/// so holding one proves the checks were made.
public struct StoragePath: Hashable, Sendable, CustomStringConvertible {
    public let components: [String]

    /// The save directory itself.
    public static let root = StoragePath(checkedComponents: [])

    /// Only for components that already passed `FileNamePolicy`.
    init(checkedComponents: [String]) {
        self.components = checkedComponents
    }

    public var isRoot: Bool { components.isEmpty }
    public var name: String? { components.last }
    public var parent: StoragePath { StoragePath(checkedComponents: Array(components.dropLast())) }

    public func appending(checkedName name: String) -> StoragePath {
        StoragePath(checkedComponents: components + [name])
    }

    /// `a/b/c`, for logs and URLs (escape before putting it into either).
    public var description: String { components.joined(separator: "/") }
}
