import Foundation

/// Remembers the URL of each unfinished tus upload, so sending the same file to the same
/// server again (after a crash, a Ctrl-C, a lost network) goes on from the server's offset.
/// One small JSON file per upload, keyed by server, path, size and modification time (a
/// changed file starts over), like the page's localStorage entries.
public struct TusResumeStore: Sendable {
    public let directory: URL

    public init(directory: URL) {
        self.directory = directory
    }

    /// `~/.cache/filedrop` on Linux (`$XDG_CACHE_HOME/filedrop` when set), the app's caches
    /// directory on Apple platforms.
    public static func userCache() -> TusResumeStore? {
        guard let caches = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first else { return nil }
        return TusResumeStore(directory: caches.appendingPathComponent("filedrop", isDirectory: true))
    }

    /// What identifies one upload of one file version to one server.
    public struct Key: Sendable, Equatable {
        public var server: String
        public var path: String
        public var size: Int64
        public var modified: Double

        var text: String { "\(server)\n\(path)\n\(size)\n\(modified)" }

        /// FNV-1a (64 bit) of the key: a stable file name without a crypto library.
        var fileName: String {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in text.utf8 {
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01b3
            }
            let hex = String(hash, radix: 16)
            return "tus-" + String(repeating: "0", count: 16 - hex.count) + hex + ".json"
        }
    }

    private struct Entry: Codable {
        var key: String
        var url: String
    }

    /// The upload URL stored for `key`, if any (a hash collision reads as none).
    public func uploadURL(for key: Key) -> URL? {
        guard let data = try? Data(contentsOf: directory.appendingPathComponent(key.fileName)),
            let entry = try? JSONDecoder().decode(Entry.self, from: data), entry.key == key.text
        else { return nil }
        return URL(string: entry.url)
    }

    /// Stores `url` for `key`; failing to store costs only the ability to resume.
    public func remember(_ url: URL, for key: Key) {
        guard let data = try? JSONEncoder().encode(Entry(key: key.text, url: url.absoluteString)) else { return }
        try? FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        try? data.write(to: directory.appendingPathComponent(key.fileName), options: .atomic)
    }

    public func forget(_ key: Key) {
        try? FileManager.default.removeItem(at: directory.appendingPathComponent(key.fileName))
    }
}
