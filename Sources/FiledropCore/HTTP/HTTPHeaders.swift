/// An ordered list of header fields. Names compare case-insensitively (RFC 9110 §5.1);
/// order and duplicates are kept because framing rules depend on them.
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    public typealias Field = (name: String, value: String)

    private var fields: [Field] = []

    public init() {}

    public init(_ fields: [Field]) {
        self.fields = fields
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.fields = elements.map { (name: $0.0, value: $0.1) }
    }

    public var count: Int { fields.count }
    public var isEmpty: Bool { fields.isEmpty }

    /// Room for `count` fields, so a response built field by field allocates once.
    public mutating func reserveCapacity(_ count: Int) {
        fields.reserveCapacity(count)
    }

    public mutating func add(name: String, value: String) {
        fields.append((name: name, value: value))
    }

    /// Replaces every field called `name` with one field.
    public mutating func replaceOrAdd(name: String, value: String) {
        remove(name: name)
        add(name: name, value: value)
    }

    public mutating func remove(name: String) {
        fields.removeAll { $0.name.equalsIgnoringASCIICase(name) }
    }

    /// The first value of `name`, or nil.
    public subscript(name: String) -> String? {
        fields.first { $0.name.equalsIgnoringASCIICase(name) }?.value
    }

    /// Every value of `name`, in order.
    public func values(for name: String) -> [String] {
        fields.filter { $0.name.equalsIgnoringASCIICase(name) }.map(\.value)
    }

    public func contains(_ name: String) -> Bool {
        fields.contains { $0.name.equalsIgnoringASCIICase(name) }
    }

    /// The comma-separated list elements of every `name` field, trimmed, lowercased
    /// (RFC 9110 §5.6.1), e.g. `Connection: keep-alive, Upgrade`.
    public func tokens(for name: String) -> [String] {
        values(for: name).flatMap { value in
            value.split(separator: ",").map { $0.trimmingOWS().lowercased() }.filter { !$0.isEmpty }
        }
    }

    public func makeIterator() -> IndexingIterator<[Field]> {
        fields.makeIterator()
    }

    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
    }
}

extension StringProtocol {
    /// ASCII case-insensitive comparison: header names and tokens are ASCII.
    /// Compares contiguous bytes where both sides have them (every native String does): this
    /// runs for each header lookup, several times per request.
    public func equalsIgnoringASCIICase<S: StringProtocol>(_ other: S) -> Bool {
        let a = utf8, b = other.utf8
        let fast = a.withContiguousStorageIfAvailable { left in
            b.withContiguousStorageIfAvailable { right in
                guard left.count == right.count else { return false }
                for i in 0..<left.count where lowerASCII(left[i]) != lowerASCII(right[i]) { return false }
                return true
            }
        }
        if let fast, let equal = fast { return equal }
        guard a.count == b.count else { return false }
        return zip(a, b).allSatisfy { lowerASCII($0) == lowerASCII($1) }
    }

    /// The same answer as `hasPrefix(prefix)` for an ASCII `prefix`, by comparing bytes. Only
    /// when a non-ASCII byte follows the prefix (a combining mark could then extend its last
    /// character, which `hasPrefix` counts as a mismatch) does it ask `hasPrefix` itself.
    /// Routing tests paths against fixed prefixes on every request.
    public func hasASCIIPrefix(_ prefix: String) -> Bool {
        let answer = utf8.withContiguousStorageIfAvailable { bytes in
            prefix.utf8.withContiguousStorageIfAvailable { pattern -> Bool? in
                guard bytes.count >= pattern.count else { return false }
                for i in 0..<pattern.count where bytes[i] != pattern[i] { return false }
                if bytes.count > pattern.count && bytes[pattern.count] >= 0x80 { return nil }
                return true
            }
        }
        if let answer, let inner = answer, let known = inner { return known }
        return hasPrefix(prefix)
    }

    /// Whether `needle` (lowercase ASCII) occurs in this string, ignoring ASCII case. A byte
    /// loop: the generic `contains` of _StringProcessing is far too slow for a hot path.
    public func containsASCIICaseInsensitive(_ needle: StaticString) -> Bool {
        let pattern = UnsafeBufferPointer(start: needle.utf8Start, count: needle.utf8CodeUnitCount)
        if let found = utf8.withContiguousStorageIfAvailable({ Self.search($0, for: pattern) }) { return found }
        return Array(utf8).withUnsafeBufferPointer { Self.search($0, for: pattern) }
    }

    private static func search(_ haystack: UnsafeBufferPointer<UInt8>, for pattern: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = pattern.first else { return true }
        guard haystack.count >= pattern.count else { return false }
        for i in 0...(haystack.count - pattern.count) where lowerASCII(haystack[i]) == first {
            var j = 1
            while j < pattern.count && lowerASCII(haystack[i + j]) == pattern[j] { j += 1 }
            if j == pattern.count { return true }
        }
        return false
    }

    /// Strips optional white space (SP / HTAB, RFC 9110 §5.6.3) from both ends.
    public func trimmingOWS() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\t" { scalars.removeFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars.removeLast() }
        return String(scalars)
    }
}

@inline(__always)
func lowerASCII(_ byte: UInt8) -> UInt8 {
    byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
}
