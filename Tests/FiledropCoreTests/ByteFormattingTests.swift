import Testing

@testable import FiledropCore
@testable import FiledropHTTP

/// The per-request formatting done on bytes must give exactly what the String versions gave.
@Suite struct ByteFormattingTests {
    @Test(arguments: [0, 7, 9, 10, 99, 100, 4096, 1_000_000, UInt64(UInt32.max), UInt64.max - 1, UInt64.max])
    func decimal(value: UInt64) {
        var bytes: [UInt8] = [0x41]
        bytes.appendDecimal(value)
        #expect(bytes == Array("A\(value)".utf8))
    }

    @Test(arguments: ["", "Date", "€ rates", "x😀y", String(repeating: "long header value ", count: 10)])
    func utf8(text: String) {
        var bytes: [UInt8] = []
        bytes.appendUTF8(text)
        #expect(bytes == Array(text.utf8))
    }

    @Test(arguments: [
        (Int64(784_111_777), "Sun, 06 Nov 1994 08:49:37 GMT"),
        (0, "Thu, 01 Jan 1970 00:00:00 GMT"),
        (-1, "Wed, 31 Dec 1969 23:59:59 GMT"),
        (951_782_400, "Tue, 29 Feb 2000 00:00:00 GMT"),
        (253_402_300_799, "Fri, 31 Dec 9999 23:59:59 GMT"),
        (253_402_300_800, "Sat, 01 Jan 10000 00:00:00 GMT"),
        (-30_610_224_000, "Wed, 01 Jan 1000 00:00:00 GMT"),
        (-30_610_224_001, "Tue, 31 Dec 999 23:59:59 GMT"),
    ])
    func httpDate(seconds: Int64, text: String) {
        #expect(HTTPDate.format(seconds) == text)
        if (1000...9999).contains(Int(text.split(separator: " ")[3])!) {
            #expect(HTTPDate.parse(text) == seconds)
        }
    }

    @Test(arguments: [
        (UInt64(0), UInt64(0), Int64(0)),
        (0x1a2b, 4096, 1_700_000_000_123_456_789),
        (UInt64.max, UInt64.max, Int64.max),
        (15, 16, -1),
    ])
    func etag(inode: UInt64, size: UInt64, modified: Int64) {
        // Was: `"inode-size-mtime"` in hex, which told every client the inode (issue 18).
        // Now 16 hex digits of a keyed hash, which change with each of the three.
        let metadata = FileMetadata(name: "a", kind: .file, size: size, modified: modified, inode: inode)
        let etag = FileResponse.etag(for: metadata)
        #expect(etag.utf8.count == 18 && etag.hasPrefix("\"") && etag.hasSuffix("\""))
        #expect(etag.dropFirst().dropLast().allSatisfy { $0.isHexDigit && !$0.isUppercase })
        #expect(etag == FileResponse.etag(for: metadata))
        for changed in [
            FileMetadata(name: "a", kind: .file, size: size, modified: modified, inode: inode &+ 1),
            FileMetadata(name: "a", kind: .file, size: size &+ 1, modified: modified, inode: inode),
            FileMetadata(name: "a", kind: .file, size: size, modified: modified &+ 1, inode: inode),
        ] {
            #expect(FileResponse.etag(for: changed) != etag)
        }
        if inode > 0xff { #expect(!etag.contains(String(inode, radix: 16))) }
    }

    @Test(arguments: [
        ("/files/a.txt", "/files/"), ("/files/", "/files/"), ("/files", "/files/"), ("/file/s", "/files/"),
        ("/Files/a", "/files/"), ("/files/\u{301}x", "/files/"), ("/files/é", "/files/"), ("", "/"),
        ("/files/.tus/abc", "/files/.tus/"), ("/files/.tu", "/files/.tus/"),
    ])
    func asciiPrefixAgreesWithHasPrefix(text: String, prefix: String) {
        #expect(text.hasASCIIPrefix(prefix) == text.hasPrefix(prefix))
        let padded = "x" + text
        #expect(padded.dropFirst().hasASCIIPrefix(prefix) == padded.dropFirst().hasPrefix(prefix))
    }

    @Test(arguments: [
        ("Host", "host", true), ("HOST", "host", true), ("hosts", "host", false), ("", "", true), ("Hosz", "host", false),
        ("Content-Length", "content-length", true), ("ß", "SS", false), ("É", "é", false), ("a[", "A{", false),
    ])
    func caseInsensitiveEquality(left: String, right: String, equal: Bool) {
        #expect(left.equalsIgnoringASCIICase(right) == equal)
        #expect(("-" + left).dropFirst().equalsIgnoringASCIICase(right) == equal)
    }

    @Test(arguments: [
        ("photo.JPG", "image/jpeg"), ("a.tar.gz", "application/gzip"), ("noextension", "application/octet-stream"),
        (".png", "application/octet-stream"), ("a.", "application/octet-stream"), ("a.é", "application/octet-stream"),
        ("film.m\u{212A}v", "video/x-matroska"), ("x.png\u{301}", "application/octet-stream"),
        ("page.HTML", "text/html; charset=utf-8"),
        ("manifest.webmanifest", "application/manifest+json"),
    ])
    func mediaType(name: String, type: String) {
        #expect(MediaTypes.type(forFileName: name) == type)
    }

    @Test(arguments: [
        ("text/html", true), ("text/html; charset=utf-8", true), ("  Text/HTML ;q=1", true), ("image/svg+xml", true),
        ("application/atom+XML", true), ("text/xml", true), ("TEXT/JAVASCRIPT", true), ("application/wasm", true),
        ("application/xhtml+xml", true), ("\ttext/xml\t", true), ("text/plain", false), ("text/htm", false),
        ("text/html2", false), ("application/octet-stream", false), ("+xml", true), ("xml", false), ("", false),
        ("text/html; name=é", true), ("tëxt/html", false), ("image/svg+xmlé", false), ("image/png", false),
    ])
    func activeContent(type: String, active: Bool) {
        #expect(MediaTypes.isActiveContent(type) == active)
    }

    /// Framing headers a handler set are dropped whatever their case; a security header it set
    /// (in any case) replaces the default one, which keeps its place otherwise.
    @Test func headFieldsAHandlerSet() {
        let response = Response(
            status: .ok,
            headers: [
                "CONNECTION": "upgrade", "x-frame-options": "SAMEORIGIN", "Content-length": "9", "transfer-Encoding": "gzip",
                "X-Long-Name-Of-Length-10": "v", "Connectionx": "kept",
            ])
        let head = String(
            decoding: ResponseHeadSerializer.serialize(response, version: .http1_1, keepAlive: true, date: "D").head,
            as: UTF8.self)
        #expect(
            head == "HTTP/1.1 200 OK\r\nDate: D\r\nServer: filedrop\r\nx-frame-options: SAMEORIGIN\r\n"
                + "X-Long-Name-Of-Length-10: v\r\nConnectionx: kept\r\nX-Content-Type-Options: nosniff\r\n"
                + "Referrer-Policy: no-referrer\r\nContent-Security-Policy: default-src 'none'; frame-ancestors 'none'\r\n"
                + "Content-Length: 0\r\n\r\n")
    }
}
