/// The order of a listing (`?sort=name|size|date&order=desc`): folders first whatever the
/// order, then by the chosen key, ties broken by name, so the order is total and a paging
/// cursor (`ListingPaging`) always names one place in it. Names compare case-folded first
/// (`a`, `B`, `c`), then exactly (`A` before `a`).
struct ListingOrder: Equatable, Sendable {
    enum SortKey: String { case name, size, date }

    let key: SortKey
    let descending: Bool

    init(_ parameters: QueryParameters) {
        key = SortKey(rawValue: parameters["sort"] ?? "") ?? .name
        descending = parameters["order"] == "desc"
    }

    /// A place in the name order: an entry's, or a cursor's (which may name no entry).
    struct Position: Equatable, Sendable {
        var isDirectory: Bool
        var folded: String
        var name: String

        init(_ entry: FileMetadata) {
            isDirectory = entry.kind == .directory
            name = entry.name
            folded = name.lowercased()
        }

        /// `ListingPaging.cursor(after:)` read back: a trailing `/` marks a folder.
        init(cursor: String) {
            isDirectory = cursor.hasSuffix("/")
            name = isDirectory ? String(cursor.dropLast()) : cursor
            folded = name.lowercased()
        }

        /// Name order, ascending, within one kind.
        func nameOrderPrecedes(_ other: Position) -> Bool {
            folded != other.folded ? folded < other.folded : name < other.name
        }
    }

    /// `entries` in this order. Each name is case-folded once, not once per comparison (a
    /// folder of 100,000 entries takes about 1.7 million), and what moves while sorting is
    /// an index, not an entry and its key.
    func sorted(_ entries: [FileMetadata]) -> [FileMetadata] {
        let positions = entries.map(Position.init)
        var order = Array(entries.indices)
        positions.withUnsafeBufferPointer { positions in
            entries.withUnsafeBufferPointer { entries in
                order.sort { precedes(positions[$0], entries[$0], positions[$1], entries[$1]) }
            }
        }
        return order.map { entries[$0] }
    }

    /// The name order, with folders first: the whole order for `.name`, the one paging uses.
    func namePrecedes(_ a: Position, _ b: Position) -> Bool {
        if a.isDirectory != b.isDirectory { return a.isDirectory }
        return descending ? b.nameOrderPrecedes(a) : a.nameOrderPrecedes(b)
    }

    private func precedes(_ a: Position, _ aEntry: FileMetadata, _ b: Position, _ bEntry: FileMetadata) -> Bool {
        if a.isDirectory != b.isDirectory { return a.isDirectory }
        switch key {
        case .name:
            return namePrecedes(a, b)
        case .size where aEntry.size != bEntry.size:
            return descending ? aEntry.size > bEntry.size : aEntry.size < bEntry.size
        case .date where aEntry.modified != bEntry.modified:
            return descending ? aEntry.modified > bEntry.modified : aEntry.modified < bEntry.modified
        case .size, .date:
            return a.nameOrderPrecedes(b)
        }
    }

    /// The index of the first of `sorted` (in this order, by name) that comes after `position`:
    /// where a page that continues after `position` starts.
    func index(after position: Position, in sorted: [FileMetadata]) -> Int {
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if namePrecedes(position, Position(sorted[middle])) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
