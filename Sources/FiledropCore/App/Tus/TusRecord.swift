/// What the server remembers about one unfinished upload, saved beside its partial file so
/// it survives a restart. The offset is not in it: it is the partial file's size.
///
/// Saved as `key=value` lines; text values are base64 so names with any character (even a
/// newline) round-trip without escaping rules.
struct TusRecord: Equatable, Sendable {
    /// `Upload-Length`; nil while deferred (creation-defer-length).
    var length: UInt64?
    /// The name the file will be stored under, already through `FileNamePolicy.storedName`.
    var name: String
    /// Components of the folder it goes to, already through `FileNamePolicy`.
    var directory: [String]
    /// `Upload-Metadata` as the client sent it, echoed on HEAD.
    var metadata: String
    /// The client address, for the per-client limit and logs.
    var client: String
    /// Creation time, seconds since 1970.
    var created: Int64

    private static let formatVersion = "1"

    func encoded() -> [UInt8] {
        let lines = [
            "format=\(Self.formatVersion)",
            "length=\(length.map(String.init) ?? "deferred")",
            "name=\(Base64.encode(name.utf8))",
            "directory=\(Base64.encode(directory.joined(separator: "/").utf8))",
            "metadata=\(Base64.encode(metadata.utf8))",
            "client=\(Base64.encode(client.utf8))",
            "created=\(created)",
        ]
        return Array((lines.joined(separator: "\n") + "\n").utf8)
    }

    /// nil for anything this version did not write (a damaged or foreign file).
    init?(decoding bytes: [UInt8]) {
        guard let text = String(validating: bytes, as: UTF8.self) else { return nil }
        var fields: [Substring: Substring] = [:]
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { return nil }
            fields[line[..<equals]] = line[line.index(after: equals)...]
        }
        func decodedText(_ key: Substring) -> String? {
            fields[key].flatMap { Base64.decode($0) }.flatMap { String(validating: $0, as: UTF8.self) }
        }
        guard fields["format"] == Substring(Self.formatVersion),
            let lengthText = fields["length"], let name = decodedText("name"), !name.isEmpty,
            let directory = decodedText("directory"), let metadata = decodedText("metadata"),
            let client = decodedText("client"), let created = fields["created"].flatMap({ Int64($0) })
        else {
            return nil
        }
        if lengthText == "deferred" {
            self.length = nil
        } else if let length = UInt64(lengthText) {
            self.length = length
        } else {
            return nil
        }
        self.name = name
        self.directory = directory.split(separator: "/").map(String.init)
        self.metadata = metadata
        self.client = client
        self.created = created
    }

    init(length: UInt64?, name: String, directory: [String], metadata: String, client: String, created: Int64) {
        self.length = length
        self.name = name
        self.directory = directory
        self.metadata = metadata
        self.client = client
        self.created = created
    }

    /// The target as a path for logs: `dir/name`.
    var displayName: String { (directory + [name]).joined(separator: "/") }
}
