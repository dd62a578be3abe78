import Foundation

/// The files `filedrop send --watch` has sent from one folder, so a restarted watcher does
/// not send them again: one JSON line per verified send (name, size, modification time,
/// SHA-256), appended. A file with the same name but another size or time is new.
public struct SentLedger: Sendable {
    public struct Entry: Codable, Sendable, Equatable, Hashable {
        public var name: String
        public var size: Int64
        public var modified: Int64
        public var sha256: String?

        public init(name: String, size: Int64, modified: Int64, sha256: String?) {
            self.name = name
            self.size = size
            self.modified = modified
            self.sha256 = sha256
        }

        var identity: String { "\(size) \(modified) \(name)" }
    }

    public let file: URL
    private var sent: Set<String> = []

    /// Reads `file` if it exists; unreadable lines are skipped (a torn last line after a crash).
    public init(file: URL) {
        self.file = file
        guard let data = try? Data(contentsOf: file) else { return }
        let decoder = JSONDecoder()
        for line in data.split(separator: UInt8(ascii: "\n")) {
            if let entry = try? decoder.decode(Entry.self, from: Data(line)) { sent.insert(entry.identity) }
        }
    }

    /// `$XDG_STATE_HOME/filedrop/watch/` (else `~/.local/state/...`), one file per folder,
    /// named after the folder's absolute path.
    public static func defaultFile(folder: String, environment: [String: String]) -> URL {
        let state =
            environment["XDG_STATE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.local/state")
        let escaped = folder.unicodeScalars.map { scalar -> String in
            let allowed =
                (scalar.value >= 0x30 && scalar.value <= 0x39) || (scalar.value | 0x20 >= 0x61 && scalar.value | 0x20 <= 0x7A)
                || scalar == "-" || scalar == "."
            return allowed ? String(scalar) : scalar == "/" ? "_" : String(format: "%%%02X", scalar.value)
        }.joined()
        return URL(fileURLWithPath: state + "/filedrop/watch/" + escaped + ".sent")
    }

    public func contains(name: String, size: Int64, modified: Int64) -> Bool {
        sent.contains(Entry(name: name, size: size, modified: modified, sha256: nil).identity)
    }

    /// Appends `entry`; throws when the ledger cannot be written (the caller then keeps the
    /// local file rather than risk a send it cannot remember).
    public mutating func record(_ entry: Entry) throws {
        var line = try JSONEncoder().encode(entry)
        line.append(UInt8(ascii: "\n"))
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        if !FileManager.default.fileExists(atPath: file.path) {
            _ = FileManager.default.createFile(atPath: file.path, contents: nil, attributes: [.posixPermissions: 0o600])
        }
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: line)
        sent.insert(entry.identity)
    }
}
