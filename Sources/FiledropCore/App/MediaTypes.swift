import FiledropHTTP

/// Content types by file extension: the built-in table (no /etc/mime.types dependency, so
/// the answer is the same on every machine).
public enum MediaTypes {
    private static let table: [String: String] = [
        "html": "text/html; charset=utf-8", "htm": "text/html; charset=utf-8",
        "css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8", "mjs": "text/javascript; charset=utf-8",
        "json": "application/json", "txt": "text/plain; charset=utf-8", "md": "text/markdown; charset=utf-8",
        "webmanifest": "application/manifest+json",
        "csv": "text/csv; charset=utf-8", "xml": "application/xml", "svg": "image/svg+xml",
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp",
        "avif": "image/avif", "heic": "image/heic", "heif": "image/heif", "ico": "image/x-icon", "bmp": "image/bmp",
        "tif": "image/tiff", "tiff": "image/tiff",
        "mp4": "video/mp4", "m4v": "video/mp4", "mov": "video/quicktime", "webm": "video/webm", "mkv": "video/x-matroska",
        "avi": "video/x-msvideo", "mp3": "audio/mpeg", "m4a": "audio/mp4", "aac": "audio/aac", "wav": "audio/wav",
        "ogg": "audio/ogg", "oga": "audio/ogg", "opus": "audio/opus", "flac": "audio/flac",
        "pdf": "application/pdf", "zip": "application/zip", "gz": "application/gzip", "tgz": "application/gzip",
        "bz2": "application/x-bzip2", "xz": "application/x-xz", "zst": "application/zstd", "7z": "application/x-7z-compressed",
        "rar": "application/vnd.rar", "tar": "application/x-tar", "deb": "application/vnd.debian.binary-package",
        "apk": "application/vnd.android.package-archive", "ipa": "application/octet-stream",
        "doc": "application/msword", "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xls": "application/vnd.ms-excel", "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "ppt": "application/vnd.ms-powerpoint",
        "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "odt": "application/vnd.oasis.opendocument.text", "ods": "application/vnd.oasis.opendocument.spreadsheet",
        "epub": "application/epub+zip", "wasm": "application/wasm", "woff2": "font/woff2", "woff": "font/woff",
        "ttf": "font/ttf", "otf": "font/otf",
    ]

    /// The type for `name`, `application/octet-stream` when unknown.
    /// The dot is found in the bytes and an ASCII extension lowercased by bytes: this runs
    /// for every download. (A dot followed by a combining mark ends up unknown either way.)
    public static func type(forFileName name: String) -> String {
        guard let dot = name.utf8.lastIndex(of: UInt8(ascii: ".")), dot != name.startIndex else {
            return "application/octet-stream"
        }
        let fileExtension = name.utf8[name.utf8.index(after: dot)...]
        let key: String
        if fileExtension.allSatisfy({ $0 < 0x80 }) {
            key = String(unsafeUninitializedCapacity: fileExtension.count) { buffer in
                for (offset, byte) in fileExtension.enumerated() { buffer[offset] = lowerASCII(byte) }
                return fileExtension.count
            }
        } else {
            key = String(name[name.index(after: dot)...]).lowercased()
        }
        return table[key] ?? "application/octet-stream"
    }

    /// Types a browser could run script from if rendered on our origin: uploaded files of
    /// these kinds are sent as attachments, never inline.
    /// `text/html; charset=utf-8` -> `text/html`, lowercased only when it has to be (these
    /// checks run on every download).
    static func baseType(_ type: String) -> String {
        let bytes = type.utf8
        // ASCII (every type we produce): the same cuts made on bytes, without grapheme breaking.
        if bytes.allSatisfy({ $0 < 0x80 }) {
            var start = bytes.startIndex
            var end = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.endIndex
            while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start = bytes.index(after: start) }
            while end > start, bytes[bytes.index(before: end)] == 0x20 || bytes[bytes.index(before: end)] == 0x09 {
                end = bytes.index(before: end)
            }
            let base = type[start..<end]
            if base.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) { return base.lowercased() }
            // A type without parameters (`application/octet-stream`) is returned without a copy.
            return start == bytes.startIndex && end == bytes.endIndex ? type : String(base)
        }
        var base = Substring(type)
        if let semicolon = base.utf8.firstIndex(of: UInt8(ascii: ";")) { base = base[..<semicolon] }
        while base.last == " " || base.last == "\t" { base = base.dropLast() }
        while base.first == " " || base.first == "\t" { base = base.dropFirst() }
        return base.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) ? base.lowercased() : String(base)
    }

    public static func isActiveContent(_ type: String) -> Bool {
        let fast = withASCIIBaseType(type) { base in
            activeBaseTypes.contains { base.equalsIgnoringASCIICase($0) } || base.hasSuffixIgnoringASCIICase("+xml")
        }
        if let fast { return fast }
        let base = baseType(type)
        return activeBaseTypes.contains { base == $0.description } || base.hasSuffix("+xml")
    }

    /// Exact base types `isActiveContent` refuses to show inline (besides any `+xml`).
    private static let activeBaseTypes: [StaticString] = [
        "text/html", "image/svg+xml", "application/xml", "text/xml", "text/javascript", "application/javascript",
        "application/xhtml+xml", "application/wasm",
    ]

    /// `body` given the bytes `baseType` would return, not yet lowercased; nil for a type
    /// with a non-ASCII byte (or no contiguous bytes), which takes the String path. Runs for
    /// every download, where `baseType`'s String and comparisons cost thousands of instructions.
    private static func withASCIIBaseType(_ type: String, _ body: (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool? {
        let answer = type.utf8.withContiguousStorageIfAvailable { bytes -> Bool? in
            var end = 0
            while end < bytes.count && bytes[end] != UInt8(ascii: ";") {
                if bytes[end] >= 0x80 { return nil }
                end += 1
            }
            for index in end..<bytes.count where bytes[index] >= 0x80 { return nil }
            var start = 0
            while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
            while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
            return body(UnsafeBufferPointer(rebasing: bytes[start..<end]))
        }
        return answer ?? nil
    }

    /// Text worth gzipping (anything else is already compressed: gzip would waste CPU for nothing).
    public static func isCompressible(_ type: String) -> Bool {
        // Asked on every download by a client that takes gzip (every browser).
        let fast = withASCIIBaseType(type) { base in
            base.hasPrefixIgnoringASCIICase("text/") || compressibleBaseTypes.contains { base.equalsIgnoringASCIICase($0) }
        }
        if let fast { return fast }
        let base = baseType(type)
        return base.hasPrefix("text/") || compressibleBaseTypes.contains { base == $0.description }
    }

    /// Exact base types `isCompressible` takes besides `text/*`.
    private static let compressibleBaseTypes: [StaticString] = [
        "application/json", "application/manifest+json", "application/xml", "image/svg+xml", "application/wasm",
    ]

    /// Formats that carry their own compression (images, audio, video, archives, office
    /// files that are ZIPs inside): a ZIP download stores them instead of deflating again.
    public static func isAlreadyCompressed(_ type: String) -> Bool {
        let base = baseType(type)
        if base.hasPrefix("image/") { return base != "image/svg+xml" && base != "image/bmp" && base != "image/tiff" }
        if base.hasPrefix("video/") { return true }
        if base.hasPrefix("audio/") { return base != "audio/wav" }
        return base.hasPrefix("font/woff") || base.hasSuffix("+zip") || base.hasPrefix("application/vnd.openxmlformats")
            || base.hasPrefix("application/vnd.oasis")
            || [
                "application/zip", "application/gzip", "application/x-bzip2", "application/x-xz", "application/zstd",
                "application/x-7z-compressed", "application/vnd.rar", "application/pdf",
                "application/vnd.debian.binary-package", "application/vnd.android.package-archive",
            ].contains(base)
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// Equal to the lowercase ASCII `literal` once ASCII letters are lowercased.
    func equalsIgnoringASCIICase(_ literal: StaticString) -> Bool {
        guard count == literal.utf8CodeUnitCount else { return false }
        for i in 0..<count where lowerASCII(self[i]) != literal.utf8Start[i] { return false }
        return true
    }

    /// Starts with the lowercase ASCII `literal` once ASCII letters are lowercased.
    func hasPrefixIgnoringASCIICase(_ literal: StaticString) -> Bool {
        let length = literal.utf8CodeUnitCount
        guard count >= length else { return false }
        for i in 0..<length where lowerASCII(self[i]) != literal.utf8Start[i] { return false }
        return true
    }

    /// Ends with the lowercase ASCII `literal` once ASCII letters are lowercased.
    func hasSuffixIgnoringASCIICase(_ literal: StaticString) -> Bool {
        let length = literal.utf8CodeUnitCount
        guard count >= length else { return false }
        for i in 0..<length where lowerASCII(self[count - length + i]) != literal.utf8Start[i] { return false }
        return true
    }
}
