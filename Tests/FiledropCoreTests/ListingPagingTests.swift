import Foundation
import Testing

@testable import FiledropCore
@testable import FiledropHTTP

/// `?format=json&limit=N&after=CURSOR`: pages that join up to the whole listing, a cursor at
/// a page boundary, names that sort at the boundary, a cursor naming a deleted entry, limits.
@Suite struct ListingPagingTests {
    static func entries(_ names: [String], folders: [String] = []) -> [FileMetadata] {
        names.map { DirectoryListingTests.file($0) }
            + folders.map { FileMetadata(name: $0, kind: .directory, size: 0, modified: 0, inode: 9) }
    }

    static func page(_ entries: [FileMetadata], _ query: String) throws -> (names: [String], next: String?) {
        let parameters = QueryParameters(Substring(query))
        let paging = try ListingPaging(parameters, order: ListingOrder(parameters))
        let listing = DirectoryListing(path: .root, entries: entries, title: "t", query: Substring(query), paging: paging)
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(ListingBodyTests.body(listing.response(format: .json)))) as? [String: Any]
        )
        let names = try #require(object["entries"] as? [[String: Any]]).compactMap { $0["name"] as? String }
        if paging == nil { #expect(object["next"] == nil) }
        return (names, object["next"] as? String)
    }

    static func query(_ limit: Int, after cursor: String?) -> String {
        "limit=\(limit)" + (cursor.map { "&after=" + percentEncodedPathComponent($0) } ?? "")
    }

    /// Following `next` from the first page gives every entry once, in the listing's order,
    /// whatever the page size, and the last page says `next: null`.
    @Test(arguments: [1, 2, 3, 7, 10, 11])
    func pagesJoinUpToTheWholeListing(limit: Int) throws {
        let entries = Self.entries(
            ["a", "B", "c", "d.txt", "D.txt", "e e", "f%", "g/?"].filter { !$0.contains("/") },
            folders: ["zdir", "Adir"])
        let whole = try Self.page(entries, "").names
        var joined: [String] = []
        var cursor: String?
        var pages = 0
        repeat {
            let page = try Self.page(entries, Self.query(limit, after: cursor))
            #expect(page.names.count <= limit)
            joined += page.names
            cursor = page.next
            pages += 1
        } while cursor != nil && pages < 20
        #expect(joined == whole)
        #expect(pages == (whole.count + limit - 1) / limit)
    }

    /// Folders first: the cursor of the last folder (`name/`) continues with the first file,
    /// also when a file of the same name sorts there.
    @Test func aFolderCursorCarriesItsSlash() throws {
        let entries = Self.entries(["same", "x"], folders: ["same"])
        let first = try Self.page(entries, "limit=1")
        #expect(first.names == ["same"])
        #expect(first.next == "same/")
        let second = try Self.page(entries, Self.query(1, after: first.next))
        #expect(second.names == ["same"])
        #expect(second.next == "same")
        #expect(try Self.page(entries, Self.query(5, after: second.next)) == (["x"], nil))
    }

    /// Names equal but for case sort case-folded, then exactly: a cursor between them lands
    /// between them.
    @Test func namesThatDifferInCaseOnlyAreTwoPlaces() throws {
        let entries = Self.entries(["b", "A", "a", "B"])
        #expect(try Self.page(entries, "").names == ["A", "a", "B", "b"])
        #expect(try Self.page(entries, Self.query(2, after: "A")).names == ["a", "B"])
        #expect(try Self.page(entries, Self.query(2, after: "a")).names == ["B", "b"])
    }

    /// An entry deleted since the page that named it still says where the next page starts.
    @Test func aCursorNamingADeletedEntryStillPlacesThePage() throws {
        let before = Self.entries(["a", "b", "c", "d"])
        let first = try Self.page(before, "limit=2")
        #expect(first.names == ["a", "b"])
        let after = Self.entries(["a", "c", "d"])
        #expect(try Self.page(after, Self.query(2, after: first.next)) == (["c", "d"], nil))
        // A name that was never there, between two that are.
        #expect(try Self.page(after, Self.query(9, after: "bb")).names == ["c", "d"])
        #expect(try Self.page(after, Self.query(9, after: "zzz")) == ([], nil))
    }

    @Test func descendingNamePagesGoBackwards() throws {
        let entries = Self.entries(["a", "b", "c"])
        let first = try Self.page(entries, "order=desc&limit=2")
        #expect(first == (["c", "b"], "b"))
        #expect(try Self.page(entries, "order=desc&" + Self.query(2, after: first.next)) == (["a"], nil))
    }

    /// A limit over the maximum is the maximum; a limit that is no positive number, or paging
    /// in another order than by name, is refused.
    @Test func limits() throws {
        let entries = (0..<(ListingPaging.maxLimit + 5)).map { DirectoryListingTests.file(String(format: "f%06d", $0)) }
        let page = try Self.page(entries, "limit=\(ListingPaging.maxLimit + 1)")
        #expect(page.names.count == ListingPaging.maxLimit)
        #expect(page.next == String(format: "f%06d", ListingPaging.maxLimit - 1))
        #expect(try Self.page(entries, Self.query(ListingPaging.maxLimit, after: page.next)).names.count == 5)
        for query in ["limit=0", "limit=-1", "limit=ten", "limit=", "sort=size&limit=5", "sort=date&after=a"] {
            let parameters = QueryParameters(Substring(query))
            #expect(throws: HTTPError.self, "\(query)") { try ListingPaging(parameters, order: ListingOrder(parameters)) }
        }
    }

    /// A limit with more digits than an Int holds is capped like any other limit over the
    /// maximum, not refused.
    @Test(arguments: [
        "100000", "9223372036854775807", "9223372036854775808", "999999999999999999999",
        "0000000000000000000000000000000000000000000000010001",
    ])
    func anOverlongLimitIsCapped(limit: String) throws {
        let parameters = QueryParameters(Substring("limit=" + limit))
        let paging = try #require(try ListingPaging(parameters, order: ListingOrder(parameters)))
        #expect(paging.limit == ListingPaging.maxLimit)
        #expect(ListingPaging.cappedLimit("0000000000000000000000007") == 7)
    }

    /// A page's ETag changes with any entry of the folder, also one on another page.
    @Test func aPageTagCoversTheWholeFolder() throws {
        let entries = Self.entries(["a", "b", "c"])
        let parameters = QueryParameters("limit=1")
        let paging = try ListingPaging(parameters, order: ListingOrder(parameters))
        func etag(_ entries: [FileMetadata], paging: ListingPaging?) -> String {
            DirectoryListing(path: .root, entries: entries, title: "t", query: nil, paging: paging).validators(format: .json).etag
        }
        var changed = entries
        changed[2].size += 1
        #expect(etag(entries, paging: paging) != etag(changed, paging: paging))
        #expect(etag(entries, paging: paging) != etag(entries, paging: nil))
    }
}
