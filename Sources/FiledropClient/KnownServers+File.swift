import Foundation

extension KnownServers {
    /// `$XDG_CONFIG_HOME/filedrop/known_servers`, else `~/.config/filedrop/known_servers`
    /// (an XDG_CONFIG_HOME that is not absolute is ignored, as the XDG spec says).
    public static func defaultFile(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        let base: URL
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            base = URL(fileURLWithPath: config, isDirectory: true)
        } else {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            base = URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".config", isDirectory: true)
        }
        return base.appendingPathComponent("filedrop", isDirectory: true).appendingPathComponent("known_servers")
    }

    /// The file's entries; an absent file is an empty list.
    public static func read(from file: URL) throws(FiledropClientError) -> KnownServers {
        guard FileManager.default.fileExists(atPath: file.path) else { return KnownServers(parsing: "") }
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw .localFile(path: file.path, reason: "cannot read")
        }
        return KnownServers(parsing: String(decoding: data, as: UTF8.self))
    }

    /// Appends one entry, creating the directory (0700) and the file (0600, with a comment
    /// that says what it is) when they are missing: which servers a person trusts is theirs.
    public static func append(
        address: String, fingerprint: CertificateFingerprint, note: String? = nil,
        to file: URL
    ) throws(FiledropClientError) {
        let manager = FileManager.default
        let directory = file.deletingLastPathComponent()
        do {
            if !manager.fileExists(atPath: directory.path) {
                try manager.createDirectory(
                    at: directory, withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o700])
            }
            if !manager.fileExists(atPath: file.path) {
                let header = "# filedrop known servers: HOST:PORT SHA256-FINGERPRINT [note]\n"
                guard
                    manager.createFile(
                        atPath: file.path, contents: Data(header.utf8),
                        attributes: [.posixPermissions: 0o600])
                else {
                    throw FiledropClientError.localFile(path: file.path, reason: "cannot create")
                }
            }
            let handle = try FileHandle(forUpdating: file)
            defer { try? handle.close() }
            let end = try handle.seekToEnd()
            var text = line(address: address, fingerprint: fingerprint, note: note)
            // A file edited by hand may lack its last newline.
            if end > 0 {
                try handle.seek(toOffset: end - 1)
                if handle.readData(ofLength: 1) != Data("\n".utf8) { text = "\n" + text }
                try handle.seek(toOffset: end)
            }
            try handle.write(contentsOf: Data(text.utf8))
        } catch let error as FiledropClientError {
            throw error
        } catch {
            throw .localFile(path: file.path, reason: "cannot write: \(error.localizedDescription)")
        }
    }
}
