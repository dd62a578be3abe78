import FiledropHTTP

/// A listing's body written as the connection pulls it: about `chunkSize` bytes of rows at a
/// time, so memory holds the folder's metadata (`DirectoryListing`) and one chunk, never the
/// whole rendered listing (12 MiB of JSON for 100,000 files). A listing that fits in one
/// chunk goes as bytes, with a Content-Length, as small folders always did.
///
/// Pulled by a worker (`Connection.produceChunk`), one chunk at a time: for the JSON form
/// each chunk reads the recorded SHA-256s (xattrs) of its own files.
final class ListingBody: ResponseBodySource {
    /// Rendered bytes per chunk, about: large enough that a chunk costs few writes.
    static let chunkSize = 64 << 10
    /// Entries whose SHA-256s are asked for at once.
    static let rowsPerBatch = 256

    private let listing: DirectoryListing
    private let format: ResponseFormat
    private let text: PageText
    private var sizes: PageText.SizeTexts
    private let shown: Range<Int>
    /// The folder's URL, percent-encoded, with its trailing `/`: each entry's URL starts so.
    private let directoryURL: [UInt8]
    private var next: Int
    private var started = false
    private var finished = false
    /// The first chunk, rendered by `responseBody()` to tell a small listing from a big one.
    private var pending: [UInt8]?
    /// The last modification time written (`appendTime`), in seconds, and its text.
    private var lastTime: (seconds: Int64, text: [UInt8]) = (0, [])

    init(_ listing: DirectoryListing, format: ResponseFormat, text: PageText) {
        self.listing = listing
        self.format = format
        self.text = text
        sizes = PageText.SizeTexts(text)
        shown = listing.shown(format: format)
        next = shown.lowerBound
        var url = Array(Route.filesPrefix.utf8)
        for component in listing.path.components {
            appendPercentEncodedPathComponent(component, to: &url)
            url.append(UInt8(ascii: "/"))
        }
        directoryURL = url
    }

    /// The whole listing as bytes when it fits in one chunk, else this stream.
    func responseBody() -> ResponseBody {
        let first = render()
        if finished { return .bytes(first) }
        pending = first
        return .stream(UnsafeTransfer(self))
    }

    var knownLength: UInt64? { nil }

    func nextChunk() -> ResponseChunk? {
        if let pending {
            self.pending = nil
            return .bytes(pending)
        }
        return finished ? nil : .bytes(render())
    }

    /// The next chunk: the head first, rows until the chunk is full, the tail after the last row.
    private func render() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.chunkSize + 4096)
        if !started {
            started = true
            format == .json ? jsonHead(&bytes) : htmlHead(&bytes)
        }
        while next < shown.upperBound && bytes.count < Self.chunkSize {
            let batch = next..<min(shown.upperBound, next + Self.rowsPerBatch)
            if format == .json {
                jsonRows(batch, to: &bytes)
            } else {
                for index in batch { htmlRow(listing.entries[index], to: &bytes) }
            }
            next = batch.upperBound
        }
        if next == shown.upperBound {
            format == .json ? jsonTail(&bytes) : htmlTail(&bytes)
            finished = true
        }
        return bytes
    }

    /// An entry's modification time (ISO 8601 in JSON, with a space and " UTC" on the page),
    /// copied from the last one written when it is the same second: entries side by side often
    /// share it (a camera's burst, a folder copied at once), and making the text costs more.
    private func appendTime(of entry: FileMetadata, to bytes: inout [UInt8]) {
        let seconds = entry.modified / 1_000_000_000
        if seconds != lastTime.seconds || lastTime.text.isEmpty {
            lastTime.seconds = seconds
            lastTime.text.removeAll(keepingCapacity: true)
            if format == .json {
                HTTPDate.appendISO8601(seconds, to: &lastTime.text)
            } else {
                HTTPDate.appendISO8601(seconds, to: &lastTime.text, separator: UInt8(ascii: " "), zone: " UTC")
            }
        }
        bytes.append(contentsOf: lastTime.text)
    }

    private func appendURL(of entry: FileMetadata, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: directoryURL)
        appendPercentEncodedPathComponent(entry.name, to: &bytes)
        if entry.kind == .directory { bytes.append(UInt8(ascii: "/")) }
    }

    // MARK: - JSON

    private func jsonHead(_ bytes: inout [UInt8]) {
        var json = JSONWriter()
        json.string(listing.path.components.map { $0 + "/" }.joined())
        bytes.append(contentsOf: "{\"path\":".utf8)
        bytes.append(contentsOf: json.takeBytes())
        bytes.append(contentsOf: ",\"entries\":[".utf8)
    }

    private func jsonRows(_ batch: Range<Int>, to bytes: inout [UInt8]) {
        let entries = listing.entries
        let files = entries[batch].filter { $0.kind == .file }
        var sha256s = listing.recordedSHA256s(files).makeIterator()
        var json = JSONWriter(capacity: batch.count * 160)
        for index in batch {
            let entry = entries[index]
            let sha256 = entry.kind == .file ? sha256s.next() ?? nil : nil
            json.object { json in
                json.member("name", entry.name)
                json.member("type", entry.kind == .directory ? "directory" : "file")
                if entry.kind == .file { json.member("size", entry.size) }
                json.member("mtime") { appendTime(of: entry, to: &$0) }
                // Percent-encoded: nothing in it needs a JSON escape.
                json.member("url") { appendURL(of: entry, to: &$0) }
                if let sha256 { json.member("sha256", sha256) }
            }
        }
        if batch.lowerBound > shown.lowerBound { bytes.append(UInt8(ascii: ",")) }
        bytes.append(contentsOf: json.takeBytes())
    }

    private func jsonTail(_ bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "]"))
        if listing.paging != nil {
            var json = JSONWriter()
            json.member(
                "next",
                shown.upperBound < listing.entries.count
                    ? ListingPaging.cursor(after: listing.entries[shown.upperBound - 1]) : nil)
            bytes.append(UInt8(ascii: ","))
            bytes.append(contentsOf: json.takeBytes())
        }
        bytes.append(contentsOf: "}\n".utf8)
    }

    // MARK: - HTML

    private func htmlHead(_ bytes: inout [UInt8]) {
        let path = listing.path
        let heading = ("/" + path.components.map { $0 + "/" }.joined()).htmlEscaped
        let language = text.language
        bytes.append(
            contentsOf: """
                <!doctype html>
                <html lang="\(language.tag)" dir="\(language.direction)"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
                <title>\(listing.title.htmlEscaped): \(heading)</title><link rel="icon" href="/icon.svg" type="image/svg+xml"><link rel="stylesheet" href="/style.css"></head>
                <body><main class="listing"><h1>\(heading)</h1>
                <p><a href="/">\(text.html("listing.upload"))</a> · <a href="?zip">\(text.html("listing.zip"))</a></p>
                <table><thead><tr><th><a href="?sort=name">\(text.html("listing.name"))</a></th><th><a href="?sort=size&amp;order=desc">\(text.html("listing.size"))</a></th><th><a href="?sort=date&amp;order=desc">\(text.html("listing.modified"))</a></th></tr></thead>
                <tbody>

                """.utf8)
        if !path.isRoot {
            bytes.append(contentsOf: "<tr><td><a href=\"../\">../</a></td><td></td><td></td></tr>\n".utf8)
        }
    }

    private func htmlRow(_ entry: FileMetadata, to bytes: inout [UInt8]) {
        // The URL is percent-encoded, so it holds nothing HTML would need escaped either.
        bytes.append(contentsOf: "<tr><td><a href=\"".utf8)
        appendURL(of: entry, to: &bytes)
        bytes.append(contentsOf: "\">".utf8)
        entry.name.withUTF8Bytes { String.appendHTMLEscaped($0, to: &bytes) }
        if entry.kind == .directory { bytes.append(UInt8(ascii: "/")) }
        bytes.append(contentsOf: "</a></td><td>".utf8)
        if entry.kind == .file { sizes.text(entry.size).withUTF8Bytes { String.appendHTMLEscaped($0, to: &bytes) } }
        bytes.append(contentsOf: "</td><td>".utf8)
        appendTime(of: entry, to: &bytes)
        bytes.append(contentsOf: "</td></tr>\n".utf8)
    }

    private func htmlTail(_ bytes: inout [UInt8]) {
        bytes.append(contentsOf: "</tbody></table>\n\(text.languageSwitch)</main></body></html>\n".utf8)
    }
}
