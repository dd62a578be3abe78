/// What `filedrop send --watch` does with the local copy once the server's SHA-256 matched:
/// `--after-send keep|delete|move:DIR`.
public enum AfterSend: Sendable, Equatable {
    case keep
    case delete
    /// Renamed into this directory (on the same file system).
    case move(String)

    public init?(_ text: String) {
        switch text {
        case "keep": self = .keep
        case "delete": self = .delete
        default:
            guard text.hasPrefix("move:"), text.count > 5 else { return nil }
            self = .move(String(text.dropFirst(5)))
        }
    }
}
