import FiledropHTTP

/// `?format=json&limit=N&after=CURSOR`: one page of a folder's JSON listing, for scripts and
/// the page that read a folder of 100,000 entries in parts. A page is `limit` entries (at
/// most `maxLimit`; more is taken as `maxLimit`) in name order (folders first), starting
/// after the entry `after` names; the document's `next` is the cursor of the following page,
/// null on the last. The cursor is an entry's name, with `/` after a folder's (names never
/// hold `/`): it needs no server state, and one naming an entry deleted meanwhile still
/// says where the next page starts. Without `limit` and `after` the listing is whole.
struct ListingPaging: Equatable, Sendable {
    static let maxLimit = 10_000

    let limit: Int
    /// Where the page starts (after this entry), nil for the first page.
    let after: ListingOrder.Position?
    /// `after` as the client sent it, part of what the page's ETag covers.
    let cursor: String?

    /// nil when the query asks for no paging; a `limit` that is not a positive number, or
    /// paging with another order than by name, is a 400.
    init?(_ parameters: QueryParameters, order: ListingOrder) throws(HTTPError) {
        let limitText = parameters["limit"]
        let cursor = parameters["after"]
        guard limitText != nil || cursor != nil else { return nil }
        guard order.key == .name else {
            throw .badRequest("A listing is paged (limit, after) in name order only: leave out sort, or use sort=name.")
        }
        if let limitText {
            guard let limit = Self.cappedLimit(limitText), limit > 0 else {
                throw .badRequest("The limit parameter must be a whole number from 1 to \(Self.maxLimit).")
            }
            self.limit = limit
        } else {
            limit = Self.maxLimit
        }
        self.cursor = cursor
        after = cursor.map(ListingOrder.Position.init(cursor:))
    }

    /// `text` as a number of entries, anything above `maxLimit` taken as `maxLimit` however
    /// many digits it has (`Int(text)` would refuse one past `Int.max`, so `limit=100000` and
    /// `limit=999999999999999999999` would get different answers); nil unless all digits.
    static func cappedLimit(_ text: String) -> Int? {
        guard !text.isEmpty else { return nil }
        var value = 0
        for byte in text.utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = min(value * 10 + Int(byte - UInt8(ascii: "0")), maxLimit + 1)
        }
        return min(value, maxLimit)
    }

    /// The cursor that continues after `entry`.
    static func cursor(after entry: FileMetadata) -> String {
        entry.kind == .directory ? entry.name + "/" : entry.name
    }
}
