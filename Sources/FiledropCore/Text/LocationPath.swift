/// The path of every `Location` this server writes, and of every URL it hands back to be
/// followed (an upload's address, tus's upload URL): built from components the server has
/// split and decoded itself, never copied from the request target.
///
/// A browser resolves `//evil.example/` and `/\evil.example/` (WHATWG URL: `\` is `/` in
/// `http` and `https` URLs) as another host, so a redirect that echoed the target would be an
/// open redirect. Here the result is `/` alone or `/` followed by neither `/` nor `\`: each
/// component is percent-encoded as a path segment (`percentEncodedPathComponent`, so a `/`,
/// `\` or `%` inside one is escaped), and empty, `.` and `..` components are left out, since
/// an empty one makes `//` and the dot ones would be resolved away by the browser (RFC 3986
/// §5.2.4) anyway.
public struct LocationPath: Sendable, Equatable, CustomStringConvertible {
    /// `/files/a%20b/`: origin-form, ready for `Location`.
    public let description: String

    /// The front page.
    public static let root = LocationPath(components: [String]())

    /// `components` are decoded names (`a b`, not `a%20b`); `isFolder` adds the final `/`
    /// (the root is `/` either way).
    public init(components: some Sequence<some StringProtocol>, isFolder: Bool = false) {
        var out: [UInt8] = []
        for component in components where !Self.isLeftOut(component) {
            out.append(UInt8(ascii: "/"))
            appendPercentEncodedPathComponent(component, to: &out)
        }
        if out.isEmpty || isFolder { out.append(UInt8(ascii: "/")) }
        description = String(decoding: out, as: UTF8.self)
    }

    /// A path as a request wrote it (`/`-separated, still percent-encoded): each component
    /// decoded once and encoded again, a final `/` kept. Nil when a component does not decode
    /// (a malformed escape, or bytes that are not UTF-8), or `path` does not start with `/`.
    public init?(requestPath path: some StringProtocol) {
        guard path.utf8.first == UInt8(ascii: "/") else { return nil }
        var components: [String] = []
        for raw in path.split(separator: "/", omittingEmptySubsequences: true) {
            guard let component = percentDecoded(raw) else { return nil }
            components.append(component)
        }
        self.init(components: components, isFolder: path.hasSuffix("/"))
    }

    private static func isLeftOut(_ component: some StringProtocol) -> Bool {
        component.isEmpty || component == "." || component == ".."
    }
}
