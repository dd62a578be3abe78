import FiledropHTTP

/// The part of a `/files/...` URL after the prefix -> a checked `StoragePath`.
///
/// Every download and upload URL comes through here, so the usual one (printable ASCII
/// names, no escapes, nothing to refuse) is checked on its bytes in one pass and each
/// component becomes a String once. Anything else (an escape, a non-ASCII byte, a name the
/// checks could refuse) takes the general path: split, percent-decode, `storagePath(fromComponents:)`,
/// which decides and words every refusal. The byte pass only ever accepts names that path
/// accepts too, with the same components.
extension FileNamePolicy {
    /// `a%20b/c` -> a checked StoragePath; each component percent-decoded separately so `%2F`
    /// can never smuggle a separator in. Empty parts (`a//b`, a trailing `/`) are skipped.
    public func storagePath(fromURLPath subpath: Substring) throws(HTTPError) -> StoragePath {
        if let plain = plainStoragePath(fromURLPath: subpath) { return plain }
        var decoded: [String] = []
        for component in Self.urlPathComponents(subpath) {
            guard let text = percentDecoded(component) else {
                throw .badRequest("The path is not valid percent-encoded UTF-8.")
            }
            decoded.append(text)
        }
        return try storagePath(fromComponents: decoded)
    }

    /// The non-empty parts between `/`s. An ASCII path (the usual, percent-encoded one) is cut
    /// on its bytes; any other by characters, as `split` does (a combining mark after `/`
    /// makes that `/` part of a character, not a separator).
    static func urlPathComponents(_ subpath: Substring) -> [Substring] {
        let bytes = subpath.utf8
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return subpath.split(separator: "/", omittingEmptySubsequences: true) }
        var components: [Substring] = []
        var start = bytes.startIndex
        var index = start
        while index < bytes.endIndex {
            if bytes[index] == UInt8(ascii: "/") {
                if start < index { components.append(subpath[start..<index]) }
                start = bytes.index(after: index)
            }
            index = bytes.index(after: index)
        }
        if start < bytes.endIndex { components.append(subpath[start...]) }
        return components
    }

    /// The StoragePath for a path of plain names only, nil for anything `storagePath(fromURLPath:)`
    /// must look at more closely. A plain name is printable ASCII without `%` or `\`, not `.`
    /// or `..`, not hidden (unless allowed) or reserved, at most `maxNameBytes`: exactly the
    /// names `checkedComponent` returns unchanged (ASCII is already NFC).
    private func plainStoragePath(fromURLPath subpath: Substring) -> StoragePath? {
        let answer = subpath.utf8.withContiguousStorageIfAvailable { bytes -> StoragePath? in
            // The first name is held on its own: a path of one name (the usual download)
            // needs no array.
            var first: String?
            var components: [String] = []
            var depth = 0
            var totalBytes = -1
            var start = 0
            while start < bytes.count {
                var end = start
                while end < bytes.count && bytes[end] != UInt8(ascii: "/") { end += 1 }
                if end > start {
                    let name = UnsafeBufferPointer(rebasing: bytes[start..<end])
                    guard isPlainName(name) else { return nil }
                    let text = String(decoding: name, as: UTF8.self)
                    if let held = first {
                        if components.isEmpty { components.append(held) }
                        components.append(text)
                    } else {
                        first = text
                    }
                    depth += 1
                    totalBytes += name.count + 1
                    guard depth <= Self.maxDepth, totalBytes <= Self.maxPathBytes else { return nil }
                }
                start = end + 1
            }
            guard let first else { return .root }
            return components.isEmpty ? StoragePath(checkedName: first) : StoragePath(checkedComponents: components)
        }
        return answer ?? nil
    }

    private func isPlainName(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        guard name.count <= Self.maxNameBytes else { return false }
        for byte in name where byte < 0x20 || byte > 0x7E || byte == UInt8(ascii: "%") || byte == UInt8(ascii: "\\") {
            return false
        }
        if name[0] == UInt8(ascii: ".") {
            // `.`, `..`, hidden names and the reserved `.filedrop` prefix: the general path decides.
            return false
        }
        return true
    }
}
