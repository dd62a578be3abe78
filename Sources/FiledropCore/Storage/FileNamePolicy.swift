import FiledropHTTP

/// The one place that decides which names may exist below the save directory.
///
/// Two kinds of input: a client's *file name* (the `filename` of an upload) is repaired
/// where that is harmless (directories dropped, control characters replaced, trailing dots
/// and spaces removed, shortened to 255 bytes), because refusing a photo over its name helps
/// nobody; a *path* (folder upload `relativePath`, a URL below `/files/`) addresses something,
/// so it is taken exactly or refused with a 400.
///
/// `allowHidden` defaults to false: a name starting with `.` is invisible in file managers and
/// in our own listing, so an upload would seem lost, and dot-files (`.bashrc`, `.ssh`,
/// `.htaccess`) are configuration that other programs act on if the save directory is
/// somebody's home or served by another web server. Names starting with `.filedrop` are
/// kept for the storage layer's temporary files, and `.tus` is the folder of the tus upload
/// URLs (`/files/.tus/<id>`); both are refused even when hidden names are allowed, so no
/// stored file hides behind a route. `.tus` is refused at every depth, like `.filedrop`:
/// one rule that needs no path to apply, for a name only allow-hidden could have let in.
public struct FileNamePolicy: Sendable {
    public var allowHidden: Bool

    /// Linux NAME_MAX: bytes in one name.
    public static let maxNameBytes = 255
    /// Components in one relative path.
    public static let maxDepth = 32
    /// Bytes in one relative path, separators included.
    public static let maxPathBytes = 1024
    /// How many names `collisionCandidates` offers before giving up.
    public static let maxCollisionCandidates = 10_000
    /// Prefix of the storage layer's own entries (temporary uploads, state).
    public static let reservedPrefix = ".filedrop"
    /// The name tus upload URLs live under (`TusRoute`), whether or not tus is on.
    public static let tusFolderName = ".tus"

    public init(allowHidden: Bool = false) {
        self.allowHidden = allowHidden
    }

    /// A client-supplied file name -> one safe name to store the file under.
    ///
    /// Keeps only the last component (`/` and `\` both separate: old Internet Explorer sends
    /// `C:\Users\x\a.txt`, folder uploads send `dir/sub/a.txt`), normalizes to NFC, refuses
    /// NUL (never part of a real name, a classic truncation trick), replaces other control
    /// characters and the bidirectional overrides U+202A-U+202E, U+2066-U+2069 (which make
    /// `photo\u{202E}gpj.exe` display as `photoexe.jpg`) with `_`, strips leading spaces and
    /// trailing dots and spaces (Windows cannot open such names), refuses `.`, `..`, empty,
    /// hidden and reserved names, and shortens to 255 UTF-8 bytes keeping the extension and
    /// whole characters.
    public func storedName(from clientName: String) throws(HTTPError) -> String {
        guard !clientName.unicodeScalars.contains("\0") else {
            throw .badRequest("A file name must not contain a NUL character.")
        }
        let base = Substring(clientName).lastComponent(separatedBy: ["/", "\\"])
        guard !base.isEmpty else {
            throw .badRequest(
                clientName.isEmpty
                    ? "A file was sent without a name."
                    : "The file name \(Self.quotedForMessage(clientName)) ends with a separator and names no file.")
        }
        var scalars = String.UnicodeScalarView(
            String(base).nfcNormalized.unicodeScalars.map { Self.isDisallowedScalar($0) ? "_" : $0 }
        )
        guard String(scalars) != ".", String(scalars) != ".." else {
            throw .badRequest("\(Self.quotedForMessage(clientName)) is not a file name.")
        }
        while let first = scalars.first, first == " " { scalars.removeFirst() }
        while let last = scalars.last, last == " " || last == "." { scalars.removeLast() }
        let name = String(scalars)
        guard !name.isEmpty else {
            throw .badRequest(
                "The file name \(Self.quotedForMessage(clientName)) has nothing left once spaces and dots are removed.")
        }
        try checkVisibility(name)
        return Self.truncated(name, toBytes: Self.maxNameBytes)
    }

    /// A relative path with `/` separators -> a `StoragePath`. The empty path is the save
    /// directory itself; one trailing `/` is allowed (`photos/`).
    public func storagePath(fromRelative path: String) throws(HTTPError) -> StoragePath {
        guard !path.isEmpty else { return .root }
        guard !path.hasPrefix("/") else {
            throw .badRequest(
                "The path \(Self.quotedForMessage(path)) must be relative to the save directory, not start with \"/\".")
        }
        var components = path.split(separator: "/", omittingEmptySubsequences: false)
        if components.count > 1, components.last == "" { components.removeLast() }
        return try storagePath(fromComponents: components)
    }

    /// Already separated (and, for URLs, percent-decoded) components -> a `StoragePath`.
    /// Every component must be a normal name: not empty, `.` or `..`; no `/` (a decoded
    /// `%2F`), `\`, NUL, control characters or bidirectional overrides; not hidden (unless
    /// allowed) or reserved; at most 255 bytes. At most `maxDepth` components and
    /// `maxPathBytes` bytes.
    public func storagePath<Components: Sequence>(fromComponents components: Components) throws(HTTPError) -> StoragePath
    where Components.Element: StringProtocol {
        var checked: [String] = []
        var totalBytes = -1
        for component in components {
            let name = try checkedComponent(String(component))
            checked.append(name)
            totalBytes += name.utf8.count + 1
            guard checked.count <= Self.maxDepth else {
                throw .badRequest("The path is more than \(Self.maxDepth) folders deep.")
            }
            guard totalBytes <= Self.maxPathBytes else {
                throw .badRequest("The path is longer than \(Self.maxPathBytes) bytes.")
            }
        }
        return StoragePath(checkedComponents: checked)
    }

    /// Names to try in order when the wanted name exists and the collision policy is
    /// "rename": `a.txt`, `a (1).txt`, `a (2).txt`, ... up to `maxCollisionCandidates` names,
    /// keeping the extension (`archive.tar.gz` -> `archive (1).tar.gz`), each within 255 bytes.
    public func collisionCandidates(for name: String) -> some Sequence<String> {
        let (stem, suffix) = Self.splitExtension(name)
        return (0..<Self.maxCollisionCandidates).lazy.map { number in
            guard number > 0 else { return Self.truncated(name, toBytes: Self.maxNameBytes) }
            let tail = " (\(number))" + suffix
            return Self.prefix(of: stem, fittingBytes: Self.maxNameBytes - tail.utf8.count) + tail
        }
    }

    private func checkedComponent(_ component: String) throws(HTTPError) -> String {
        guard !component.isEmpty else {
            throw .badRequest("A path must not contain an empty part (\"//\").")
        }
        guard component != ".", component != ".." else {
            throw .badRequest("A path must not contain \".\" or \"..\".")
        }
        // The usual name, printable ASCII without a separator, is seen to pass byte by byte (a
        // listing checks every entry); any other is decoded and told what it holds.
        let plain = component.withUTF8Bytes { bytes in
            bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "\\") }
        }
        if !plain {
            for scalar in component.unicodeScalars {
                if scalar == "/" || scalar == "\\" {
                    throw .badRequest("The name \(Self.quotedForMessage(component)) must not contain \"/\" or \"\\\".")
                }
                if Self.isDisallowedScalar(scalar) {
                    throw .badRequest("The name \(Self.quotedForMessage(component)) contains a control character.")
                }
            }
        }
        let name = component.nfcNormalized
        try checkVisibility(name)
        guard name.utf8.count <= Self.maxNameBytes else {
            throw .badRequest("The name \(Self.quotedForMessage(component)) is longer than \(Self.maxNameBytes) bytes.")
        }
        return name
    }

    private func checkVisibility(_ name: String) throws(HTTPError) {
        if name.utf8.count >= Self.reservedPrefix.utf8.count,
            name.utf8.prefix(Self.reservedPrefix.utf8.count).elementsEqual(Self.reservedPrefix.utf8, by: { lowerASCII($0) == $1 })
        {
            throw .badRequest("Names starting with \"\(Self.reservedPrefix)\" are reserved for the server's own files.")
        }
        if name.utf8.elementsEqual(Self.tusFolderName.utf8, by: { lowerASCII($0) == $1 }) {
            throw .badRequest("The name \"\(Self.tusFolderName)\" is reserved for resumable uploads (/files/.tus/).")
        }
        if !allowHidden, name.hasPrefix(".") {
            throw .badRequest(
                "The name \(Self.quotedForMessage(name)) starts with a dot, which makes it hidden; this server does not accept hidden names."
            )
        }
    }

    /// NUL and the other C0 controls, DEL, C1 controls, and the bidirectional embeddings,
    /// overrides and isolates that reorder how a name is displayed.
    static func isDisallowedScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// Splits `name` into stem and extension (with its dot) for numbering and shortening:
    /// `a.txt` -> (`a`, `.txt`), `archive.tar.gz` -> (`archive`, `.tar.gz`), `.env` -> (`.env`, ``).
    /// An "extension" longer than 16 bytes or containing a space is part of the stem.
    static func splitExtension(_ name: String) -> (stem: Substring, extension: Substring) {
        let lowered = name.lowercased()
        for compound in [".tar.gz", ".tar.bz2", ".tar.xz", ".tar.zst"]
        where lowered.hasSuffix(compound) && lowered.utf8.count > compound.utf8.count {
            let split = name.utf8.index(name.utf8.endIndex, offsetBy: -compound.utf8.count)
            return (name[..<split], name[split...])
        }
        guard let dot = name.lastIndex(of: "."), dot > name.startIndex else { return (name[...], "") }
        let suffix = name[dot...]
        guard suffix.utf8.count <= 16, !suffix.contains(" ") else { return (name[...], "") }
        return (name[..<dot], suffix)
    }

    /// `name` shortened to `limit` UTF-8 bytes, keeping its extension when it has a short one.
    static func truncated(_ name: String, toBytes limit: Int) -> String {
        guard name.utf8.count > limit else { return name }
        let (stem, suffix) = splitExtension(name)
        let stemBudget = limit - suffix.utf8.count
        let shortStem = prefix(of: stem, fittingBytes: stemBudget)
        return shortStem.isEmpty ? prefix(of: name[...], fittingBytes: limit) : shortStem + suffix
    }

    /// The longest prefix of whole characters within `limit` bytes; whole scalars when even
    /// the first character is larger (a letter with hundreds of combining marks).
    static func prefix(of text: Substring, fittingBytes limit: Int) -> String {
        var result = ""
        var used = 0
        for character in text {
            let size = character.utf8.count
            guard used + size <= limit else { break }
            result.append(character)
            used += size
        }
        if result.isEmpty, let first = text.first, first.utf8.count > limit {
            var scalars = String.UnicodeScalarView()
            for scalar in first.unicodeScalars {
                guard used + scalar.utf8.count <= limit else { break }
                scalars.append(scalar)
                used += scalar.utf8.count
            }
            return String(scalars)
        }
        return result
    }

    /// `text` in quotes for an error sentence: control characters and bidirectional overrides
    /// escaped as `\u{…}` so they cannot reach a page or a log raw, cut after 60 characters.
    static func quotedForMessage(_ text: String) -> String {
        var out = "\""
        for (count, character) in text.enumerated() {
            if count == 60 {
                out += "…"
                break
            }
            for scalar in character.unicodeScalars {
                if isDisallowedScalar(scalar) {
                    out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}

extension Substring {
    /// The part after the last of `separators` (the whole text when there is none).
    fileprivate func lastComponent(separatedBy separators: Set<Unicode.Scalar>) -> Substring {
        guard let last = unicodeScalars.lastIndex(where: { separators.contains($0) }) else { return self }
        return self[unicodeScalars.index(after: last)...]
    }
}
