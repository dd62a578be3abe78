import Testing

@testable import FiledropCore

/// The order is total, so sorting in place must give one result whatever order the entries
/// came in: every permutation's cycles (fixed points, swaps, one long cycle) are walked.
@Suite struct ListingOrderTests {
    /// Folders and files, names that fold alike (`n0`, `N0`), equal sizes and dates.
    static let entries: [FileMetadata] = (0..<60).map(entry)

    static func entry(_ index: Int) -> FileMetadata {
        // Unique, as names in a folder are: `N0`, `n0`, `n0-`, `N1`...
        let name: String = (index % 3 == 0 ? "N" : "n") + String(index / 3) + (index % 3 == 2 ? "-" : "")
        let kind: FileMetadata.Kind = index % 7 == 0 ? .directory : .file
        let seconds = Int64(index % 4)
        return FileMetadata(
            name: name, kind: kind, size: UInt64(index % 5), modified: seconds * 1_000_000_000, inode: UInt64(index))
    }

    @Test(arguments: ["", "sort=name&order=desc", "sort=size", "sort=date&order=desc"])
    func oneResultWhateverTheInputOrder(query: String) {
        let order = ListingOrder(QueryParameters(Substring(query)))
        var reference = Self.entries
        order.sort(&reference)
        #expect(Set(reference.map(\.inode)) == Set(Self.entries.map(\.inode)), "a permutation: nothing lost or doubled")
        var generator = SystemRandomNumberGenerator()
        let inputs =
            [Self.entries, Self.entries.reversed(), reference, reference.reversed()]
            + (0..<20).map { _ in Self.entries.shuffled(using: &generator) }
        for input in inputs {
            var sorted = input
            order.sort(&sorted)
            #expect(sorted.map(\.inode) == reference.map(\.inode))
        }
        // Folders first, and the name order within each kind when sorted by name.
        #expect(reference.prefix { $0.kind == .directory }.count == Self.entries.filter { $0.kind == .directory }.count)
        if query.isEmpty {
            let positions = reference.map(ListingOrder.Position.init)
            #expect(zip(positions, positions.dropFirst()).allSatisfy { order.namePrecedes($0, $1) })
        }
    }
}

extension ListingOrderTests {
    @Test(
        "The merge sort is the standard library's stable sort, at every length and with ties",
        arguments: [0, 1, 2, 3, 7, 64, 65, 1000])
    func mergeSortIsAStableSort(count: Int) {
        var generator = SystemRandomNumberGenerator()
        let values = (0..<count).map { _ in Int.random(in: 0..<max(1, count / 3), using: &generator) }
        var order = Array(values.indices)
        ListingOrder.mergeSort(&order) { values[$0] < values[$1] }
        #expect(order == values.indices.sorted { values[$0] < values[$1] })
    }
}
