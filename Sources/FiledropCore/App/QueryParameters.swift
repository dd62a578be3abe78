/// The `a=1&b&c=x%20y` query of a request target, decoded (`+` is a space, as forms send it).
struct QueryParameters {
    private var pairs: [(String, String)] = []

    init(_ query: Substring?) {
        guard let query else { return }
        for item in query.split(separator: "&") {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = percentDecoded(parts[0].replacingPlus()) ?? ""
            let value = parts.count > 1 ? (percentDecoded(parts[1].replacingPlus()) ?? "") : ""
            pairs.append((key, value))
        }
    }

    subscript(key: String) -> String? {
        pairs.first { $0.0 == key }?.1
    }

    /// Every value of a repeated key, in order (`select=a&select=b`).
    func values(for key: String) -> [String] {
        pairs.filter { $0.0 == key }.map(\.1)
    }

    func contains(_ key: String) -> Bool {
        pairs.contains { $0.0 == key }
    }
}

extension Substring {
    fileprivate func replacingPlus() -> String {
        String(map { $0 == "+" ? " " : $0 })
    }
}
