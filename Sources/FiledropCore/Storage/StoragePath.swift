/// A location below the save directory made only of normal components: no empty parts,
/// no `.` or `..`, no `/`, `\` or NUL, no control characters. Built by `FileNamePolicy`,
/// so holding one proves the checks were made.
public struct StoragePath: Hashable, Sendable, CustomStringConvertible {
    /// A name in the save directory itself, what most downloads ask for, is kept without an
    /// array: making one was an allocation on every such request. Each path has exactly one
    /// form (by its number of components), so the synthesized equality holds.
    private enum Parts: Hashable, Sendable {
        case root
        case topLevel(String)
        case nested([String])
    }

    private let parts: Parts

    /// The save directory itself.
    public static let root = StoragePath(checkedComponents: [])

    /// Only for components that already passed `FileNamePolicy`.
    init(checkedComponents: [String]) {
        switch checkedComponents.count {
        case 0: parts = .root
        case 1: parts = .topLevel(checkedComponents[0])
        default: parts = .nested(checkedComponents)
        }
    }

    /// Only for a name that already passed `FileNamePolicy`: that name in the save directory.
    init(checkedName name: String) {
        parts = .topLevel(name)
    }

    public var components: [String] {
        switch parts {
        case .root: []
        case .topLevel(let name): [name]
        case .nested(let components): components
        }
    }

    public var isRoot: Bool { parts == .root }

    /// A name in the save directory itself, not in a folder below it.
    public var isTopLevel: Bool {
        if case .topLevel = parts { return true }
        return false
    }

    public var name: String? {
        switch parts {
        case .root: nil
        case .topLevel(let name): name
        case .nested(let components): components.last
        }
    }

    public var parent: StoragePath {
        switch parts {
        case .root, .topLevel: .root
        case .nested(let components): StoragePath(checkedComponents: Array(components.dropLast()))
        }
    }

    public func appending(checkedName name: String) -> StoragePath {
        StoragePath(checkedComponents: components + [name])
    }

    /// `a/b/c`, for logs and URLs (escape before putting it into either).
    public var description: String {
        switch parts {
        case .root: ""
        case .topLevel(let name): name
        case .nested(let components): components.joined(separator: "/")
        }
    }
}
