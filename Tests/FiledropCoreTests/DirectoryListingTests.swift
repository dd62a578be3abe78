import Foundation
import Testing

@testable import FiledropCore
@testable import FiledropHTTP

/// Listings: every name escaped in HTML, JSON that parses back to the same names, the
/// sort orders, and the shape `web/app.js` reads.
@Suite struct DirectoryListingTests {
    static let awkwardNames = [
        "<script>alert(1)</script>.txt", "quote\"d.txt", "a&b.txt", "line\nbreak.txt", "it's.txt", "😀 100%.bin",
    ]

    static func file(_ name: String, size: UInt64 = 1, seconds: Int64 = 1_700_000_000) -> FileMetadata {
        FileMetadata(name: name, kind: .file, size: size, modified: seconds * 1_000_000_000, inode: 1)
    }

    static func body(_ response: Response) -> String {
        guard case .bytes(let bytes) = response.body else { return "" }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func htmlEscapesEveryName() {
        let listing = DirectoryListing(path: .root, entries: Self.awkwardNames.map { Self.file($0) }, title: "<T>", query: nil)
        let html = Self.body(listing.response(format: .html))
        #expect(!html.contains("<script>"))
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;.txt"))
        #expect(html.contains("quote&quot;d.txt"))
        #expect(html.contains("a&amp;b.txt"))
        #expect(html.contains("<title>&lt;T&gt;: /</title>"))
        // Links are percent-encoded: no quote, angle bracket or raw newline inside href.
        #expect(html.contains("href=\"/files/%3Cscript%3Ealert%281%29%3C%2Fscript%3E.txt\""))
        #expect(html.contains("href=\"/files/line%0Abreak.txt\""))
        #expect(!html.contains("href=\"/files/quote\""))
    }

    @Test func jsonRoundTripsEveryName() throws {
        let entries =
            Self.awkwardNames.map { Self.file($0, size: 42) }
            + [FileMetadata(name: "sub dir", kind: .directory, size: 4096, modified: 0, inode: 2)]
        let listing = DirectoryListing(path: StoragePath(checkedComponents: ["photos"]), entries: entries, title: "t", query: nil)
        let response = listing.response(format: .json)
        #expect(response.headers["content-type"] == "application/json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(Self.body(response).utf8)) as? [String: Any])
        #expect(object["path"] as? String == "photos/")
        let items = try #require(object["entries"] as? [[String: Any]])
        #expect(Set(items.compactMap { $0["name"] as? String }) == Set(Self.awkwardNames + ["sub dir"]))
        let directory = try #require(items.first)
        #expect(directory["name"] as? String == "sub dir")
        #expect(directory["type"] as? String == "directory")
        #expect(directory["url"] as? String == "/files/photos/sub%20dir/")
        for item in items.dropFirst() {
            #expect(item["type"] as? String == "file")
            #expect(item["size"] as? Int == 42)
            #expect(item["mtime"] as? String == "2023-11-14T22:13:20Z")
            #expect((item["url"] as? String)?.hasPrefix("/files/photos/") == true)
        }
    }

    @Test(arguments: [
        ("sort=name", ["a", "B", "c"]), ("sort=name&order=desc", ["c", "B", "a"]),
        ("sort=size", ["c", "a", "B"]), ("sort=size&order=desc", ["B", "a", "c"]),
        ("sort=date", ["B", "c", "a"]), ("sort=date&order=desc", ["a", "c", "B"]),
        ("sort=bogus", ["a", "B", "c"]),
    ])
    func sorts(query: String, expected: [String]) {
        let entries = [
            Self.file("c", size: 1, seconds: 20), Self.file("a", size: 50, seconds: 30), Self.file("B", size: 900, seconds: 10),
            FileMetadata(name: "zdir", kind: .directory, size: 0, modified: 0, inode: 9),
        ]
        let listing = DirectoryListing(path: .root, entries: entries, title: "t", query: Substring(query))
        // Folders first whatever the order.
        #expect(listing.entries.map(\.name) == ["zdir"] + expected)
    }

    @Test func htmlShowsSizesForPeopleAndUTCDates() {
        let listing = DirectoryListing(path: .root, entries: [Self.file("big.iso", size: 3 << 30)], title: "t", query: nil)
        let html = Self.body(listing.response(format: .html))
        #expect(html.contains(ByteCount.format(3 << 30)))
        #expect(html.contains("2023-11-14 22:13:20 UTC"))
    }

    /// The page in the chosen language (the web root's catalogues), saying what chose it, with
    /// an ETag of its own per language so no cache answers one language with another.
    @Test func htmlIsInTheChosenLanguage() {
        let languages = PageLanguages(reading: CatalogueFilesTests.read)
        let listing = DirectoryListing(path: .root, entries: [Self.file("big.iso", size: 1536)], title: "t", query: nil)
        let german = listing.response(format: .html, text: languages.text(.german))
        let html = Self.body(german)
        #expect(html.contains("<html lang=\"de\" dir=\"ltr\">"))
        #expect(html.contains(">Größe</a>") && html.contains(">Geändert</a>") && html.contains(">Dateien hochladen</a>"))
        #expect(html.contains("<td>1,5 KiB</td>"))
        #expect(html.contains("<a href=\"?lang=de\" lang=\"de\" hreflang=\"de\" aria-current=\"true\">Deutsch</a>"))
        #expect(german.headers[.vary] == "Accept, Accept-Language, Cookie")
        let chinese = listing.validators(format: .html, text: languages.text(.chinese)).etag
        #expect(chinese != listing.validators(format: .html, text: languages.text(.german)).etag)
        #expect(
            listing.validators(format: .json, text: languages.text(.chinese)).etag
                == listing.validators(format: .json, text: languages.text(.german)).etag)
    }

    static func listingHead(_ extra: HTTPHeaders) -> RequestHead {
        var headers: HTTPHeaders = ["Host": "127.0.0.1:8080", "Accept": "application/json"]
        for (name, value) in extra { headers.add(name: name, value: value) }
        return RequestHead(method: .get, target: "/files/", version: .http1_1, headers: headers)
    }

    static func answer(_ listing: DirectoryListing, _ extra: HTTPHeaders) -> Response {
        let head = listingHead(extra)
        return listing.response(
            format: .json, head: head,
            compression: ResponseCompression(compressor: FileDownloadTests.FakeCompressor(), head: head))
    }

    /// A listing carries a weak ETag and Last-Modified; the same listing asked again with
    /// either is a 304 with the same Vary, Cache-Control and ETag as the 200 (RFC 9110 §15.4.5).
    @Test func anUnchangedListingIsNotModified() throws {
        let entries = (0..<20).map { Self.file("file \($0).txt", size: UInt64($0), seconds: 1_700_000_000 + Int64($0)) }
        let listing = DirectoryListing(path: .root, entries: entries, title: "t", query: nil, modified: 1_600_000_000_000_000_000)
        let full = Self.answer(listing, [:])
        let etag = try #require(full.headers["ETag"])
        #expect(etag.hasPrefix("W/\""))
        #expect(full.headers["Last-Modified"] == HTTPDate.format(1_700_000_019))
        let gzip = Self.answer(listing, ["Accept-Encoding": "gzip"])
        #expect(gzip.headers["Content-Encoding"] == "gzip")
        let byTag = Self.answer(listing, ["If-None-Match": etag])
        let byDate = Self.answer(listing, ["If-Modified-Since": HTTPDate.format(1_700_000_019)])
        for notModified in [byTag, byDate] {
            #expect(notModified.status == .notModified)
            #expect(notModified.headers["ETag"] == etag)
            #expect(notModified.headers["Cache-Control"] == "no-cache")
        }
        // RFC 9110 §12.5.5: one Vary for every variant.
        for response in [full, gzip, byTag, byDate] {
            #expect(response.headers["Vary"] == "Accept, Accept-Language, Cookie, Accept-Encoding")
        }
        #expect(Self.answer(listing, ["If-None-Match": "W/\"stale\""]).status == .ok)
    }

    @Test(arguments: 0..<4) func anyChangeToTheListingChangesItsETag(change: Int) {
        let entries = [Self.file("a.txt", size: 1), Self.file("b.txt", size: 2)]
        let before = DirectoryListing(path: .root, entries: entries, title: "t", query: nil).validators(format: .json).etag
        var changed = entries
        var title = "t"
        switch change {
        case 0: changed[0].size += 1
        case 1: changed[1].modified += 1
        case 2: changed.append(Self.file("c.txt"))
        default: title = "u"
        }
        let listing = DirectoryListing(path: .root, entries: changed, title: title, query: nil)
        #expect(listing.validators(format: .json).etag != before)
        #expect(DirectoryListing(path: .root, entries: entries, title: "t", query: nil).validators(format: .html).etag != before)
    }
}
