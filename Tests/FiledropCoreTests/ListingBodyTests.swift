import Foundation
import Testing

@testable import FiledropCore
@testable import FiledropHTTP

/// A big folder's listing is streamed in chunks and is, joined up, the same document a
/// small one would be: complete, sorted, names escaped; a small one keeps its Content-Length.
@Suite struct ListingBodyTests {
    /// The whole body, pulled chunk by chunk when it is streamed.
    static func body(_ response: Response) -> [UInt8] {
        switch response.body {
        case .bytes(let bytes): return bytes
        case .stream(let source):
            var bytes: [UInt8] = []
            while let chunk = try? source.wrappedValue.nextChunk() {
                guard case .bytes(let piece) = chunk else { return [] }
                bytes += piece
            }
            return bytes
        case .empty, .file: return []
        }
    }

    static let count = 20_000

    /// Names in a shuffled order, some needing escapes, some folders.
    static let entries: [FileMetadata] = {
        var generator = SystemRandomNumberGenerator()
        let all = (0..<count).map(entry)
        return all.shuffled(using: &generator)
    }()

    static func entry(_ index: Int) -> FileMetadata {
        if index % 1000 == 0 {
            return FileMetadata(name: "dir <\(index)>", kind: .directory, size: 0, modified: 0, inode: UInt64(index))
        }
        let name = "file \"\(index)\" & ü.txt"
        return DirectoryListingTests.file(name, size: UInt64(index), seconds: 1_700_000_000 + Int64(index))
    }

    @Test func aBigJSONListingIsStreamedWholeAndSorted() throws {
        let listing = DirectoryListing(
            path: StoragePath(checkedComponents: ["big"]), entries: Self.entries, title: "t", query: nil)
        let response = listing.response(format: .json)
        guard case .stream = response.body else {
            Issue.record("a listing of \(Self.count) entries is not streamed")
            return
        }
        let object = try #require(try JSONSerialization.jsonObject(with: Data(Self.body(response))) as? [String: Any])
        let items = try #require(object["entries"] as? [[String: Any]])
        #expect(items.count == Self.count)
        var expected = Self.entries
        ListingOrder(QueryParameters(nil)).sort(&expected)
        #expect(items.compactMap { $0["name"] as? String } == expected.map(\.name))
        #expect(items.compactMap { $0["size"] as? Int } == expected.filter { $0.kind == .file }.map { Int($0.size) })
        #expect(items.first?["type"] as? String == "directory")
        #expect(items.first?["url"] as? String == "/files/big/dir%20%3C0%3E/")
    }

    @Test func aBigHTMLListingIsStreamedWholeAndEscaped() throws {
        let listing = DirectoryListing(path: .root, entries: Self.entries, title: "t", query: Substring("sort=size&order=desc"))
        let response = listing.response(format: .html)
        guard case .stream = response.body else {
            Issue.record("a listing of \(Self.count) entries is not streamed")
            return
        }
        let html = String(decoding: Self.body(response), as: UTF8.self)
        #expect(html.hasSuffix("</main></body></html>\n"))
        let rows = html.components(separatedBy: "<tr><td><a href=\"/files/").dropFirst()
        #expect(rows.count == Self.count)
        #expect(!html.contains("<\(0)>") && html.contains("dir &lt;0&gt;/"))
        #expect(html.contains(">file &quot;19999&quot; &amp; ü.txt</a>"))
        // Folders first, then the biggest file.
        #expect(rows[rows.index(rows.startIndex, offsetBy: 20)].hasPrefix("file%20%2219999%22%20%26%20%C3%BC.txt\""))
    }

    /// gzip over the stream: the client that takes gzip gets the chunks compressed.
    @Test func aStreamedListingIsCompressedAsAStream() {
        let head = DirectoryListingTests.listingHead(["Accept-Encoding": "gzip"])
        let listing = DirectoryListing(path: .root, entries: Self.entries, title: "t", query: nil)
        let response = listing.response(
            format: .json, head: head,
            compression: ResponseCompression(compressor: FileDownloadTests.FakeCompressor(), head: head))
        #expect(response.headers[.contentEncoding] == "gzip")
        #expect(response.headers[.vary]?.hasSuffix("Accept-Encoding") == true)
        guard case .stream = response.body else {
            Issue.record("not streamed")
            return
        }
    }

    @Test func aSmallListingGoesWithItsLength() {
        let listing = DirectoryListing(path: .root, entries: Array(Self.entries.prefix(10)), title: "t", query: nil)
        guard case .bytes = listing.response(format: .json).body else {
            Issue.record("a small listing is streamed")
            return
        }
    }
}
