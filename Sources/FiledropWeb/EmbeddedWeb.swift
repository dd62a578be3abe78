/// The page's files as they were in `web/` when the binary was built (the EmbedWeb plugin
/// generates `files`). The daemon serves these unless `--web-root` names a folder.
public enum EmbeddedWeb {}

/// One file of the page: its name in `web/`, when it was last changed, and its bytes as
/// base64 (a string literal compiles quickly where an array literal of a few hundred
/// thousand bytes would not).
public struct EmbeddedWebFile: Sendable {
    public let name: String
    public let modifiedSeconds: Int64
    public let base64: StaticString

    public init(name: String, modifiedSeconds: Int64, base64: StaticString) {
        self.name = name
        self.modifiedSeconds = modifiedSeconds
        self.base64 = base64
    }
}
