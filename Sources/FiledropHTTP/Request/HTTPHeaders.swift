/// An ordered list of header fields. Names compare case-insensitively (RFC 9110 §5.1);
/// order and duplicates are kept because framing rules depend on them.
///
/// Lookups run a dozen times per request, so each field keeps its name's length, and a
/// field the parser read also keeps its name's lookup key (`HTTPFieldName.Key`, made from
/// the bytes at hand). A lookup by `HTTPFieldName` compares lengths, then keys; a lookup by
/// String compares lengths, then the names. Fields added by code get no key: making one
/// from a String would cost more than the few lookups a response sees.
///
/// A parsed field's name and value stay bytes (`FieldBytes`, one copy of the head's field
/// lines, held once by the headers) until asked for as Strings: a browser sends fifteen
/// fields or so, and a request reads a few of them, so making a String of each (with its
/// UTF-8 check and, past 15 bytes, its allocation) was a third of a browser GET's
/// instructions. The parser adds its fields here as it checks them and hands over their
/// bytes at the end (`attachParsedBytes`): one list, no copy of it, and no reference to the
/// bytes in each field to retain and release.
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    public typealias Field = (name: String, value: String)

    /// A field's name or value: a String, or where it is in the headers' `FieldBytes`.
    enum Text: Sendable {
        case string(String)
        case parsed(start: Int32, count: Int32)

        func string(in storage: FieldBytes?) -> String {
            switch self {
            case .string(let text): text
            case .parsed(let start, let count): Self.bytes(storage).string(start: Int(start), count: Int(count))
            }
        }

        @inline(__always)
        func withBytes<R>(in storage: FieldBytes?, _ body: (UnsafeRawBufferPointer) -> R) -> R {
            switch self {
            case .string(let text): text.withUTF8Bytes(body)
            case .parsed(let start, let count): Self.bytes(storage).withBytes(start: Int(start), count: Int(count), body)
            }
        }

        @inline(__always)
        private static func bytes(_ storage: FieldBytes?) -> FieldBytes {
            guard let storage else { preconditionFailure("a parsed field read before its head's bytes were attached") }
            return storage
        }
    }

    /// A field with its name's length and, when parsed, its name's lookup key. Its parsed
    /// parts are read with the headers' `storage`.
    struct Entry: Sendable {
        var nameText: Text
        var valueText: Text
        var nameLength: Int
        var key: HTTPFieldName.Key?

        init(name: String, value: String) {
            self.nameText = .string(name)
            self.valueText = .string(value)
            self.nameLength = name.utf8.count
            self.key = nil
        }

        init(name: String, value: String, key: HTTPFieldName.Key) {
            self.nameText = .string(name)
            self.valueText = .string(value)
            self.nameLength = key.length
            self.key = key
        }

        init(name: Text, value: Text, key: HTTPFieldName.Key) {
            self.nameText = name
            self.valueText = value
            self.nameLength = key.length
            self.key = key
        }

        func name(in storage: FieldBytes?) -> String { nameText.string(in: storage) }
        func value(in storage: FieldBytes?) -> String { valueText.string(in: storage) }

        /// Lengths first; then keys, where both have one; names only when that cannot decide.
        @inline(__always)
        func hasName(_ wanted: HTTPFieldName, in storage: FieldBytes?) -> Bool {
            guard nameLength == wanted.key.length else { return false }
            if let key {
                return key == wanted.key && (key.isExact || nameEquals(wanted.text, in: storage))
            }
            if case .string(let name) = nameText, name == wanted.text { return true }
            return nameEquals(wanted.text, in: storage)
        }

        /// `length` is `wanted.utf8.count`, worked out once per lookup.
        @inline(__always)
        func hasName(_ wanted: String, length: Int, in storage: FieldBytes?) -> Bool {
            nameLength == length && nameEquals(wanted, in: storage)
        }

        private func nameEquals(_ wanted: String, in storage: FieldBytes?) -> Bool {
            nameText.withBytes(in: storage) { name in wanted.withUTF8Bytes { equalIgnoringASCIICase(name, $0) } }
        }
    }

    /// The fields in order; the response serializer reads them in place, with `storage`.
    private(set) var fields: [Entry] = []
    /// The bytes the parsed fields point into; nil when none was parsed. Unchecked: Swift
    /// never calls a ManagedBuffer Sendable, but these bytes are written once, before any
    /// field points at them, and only read after.
    nonisolated(unsafe) private(set) var storage: FieldBytes?

    public init() {}

    public init(_ fields: [Field]) {
        self.fields = fields.map { Entry(name: $0.name, value: $0.value) }
    }

    /// `[.contentType: "text/plain", .cacheControl: "no-store"]`, in order.
    public init(dictionaryLiteral elements: (HTTPFieldName, String)...) {
        self.fields = elements.map { Entry(name: $0.0.text, value: $0.1, key: $0.0.key) }
    }

    public var count: Int { fields.count }
    public var isEmpty: Bool { fields.isEmpty }

    /// Room for `count` fields, so a response built field by field allocates once.
    public mutating func reserveCapacity(_ count: Int) {
        fields.reserveCapacity(count)
    }

    /// Adds a field whose name is only known at run time (a multipart part's, a test's).
    public mutating func add(name: String, value: String) {
        fields.append(Entry(name: name, value: value))
    }

    /// Adds a field named by a prepared name (`.contentType`, ...): its text and key come
    /// along, so later lookups by `HTTPFieldName` compare keys. No String is built: the
    /// well-known names' text is a literal.
    public mutating func add(_ name: HTTPFieldName, _ value: String) {
        fields.append(Entry(name: name.text, value: value, key: name.key))
    }

    /// For the trailer parser, which makes the key from the bytes it already holds.
    mutating func add(name: String, value: String, key: HTTPFieldName.Key) {
        fields.append(Entry(name: name, value: value, key: key))
    }

    /// For the head parser, as it checks each field line: the name is `key.length` bytes at
    /// `nameStart`, the value `valueCount` bytes at `valueStart`, offsets into the bytes of the
    /// head's field lines, which `attachParsedBytes` hands over once the head is complete.
    mutating func addParsed(nameStart: Int32, valueStart: Int32, valueCount: Int32, key: HTTPFieldName.Key) {
        fields.append(
            Entry(
                name: .parsed(start: nameStart, count: Int32(key.length)),
                value: .parsed(start: valueStart, count: valueCount), key: key))
    }

    /// The bytes the fields added by `addParsed` point into.
    mutating func attachParsedBytes(_ bytes: FieldBytes) {
        storage = bytes
    }

    /// Replaces every field called `name` with one field.
    public mutating func replaceOrAdd(name: String, value: String) {
        remove(name: name)
        add(name: name, value: value)
    }

    /// Replaces every field called `name` with one field.
    public mutating func replaceOrAdd(_ name: HTTPFieldName, _ value: String) {
        remove(name)
        add(name, value)
    }

    public mutating func remove(name: String) {
        let length = name.utf8.count
        let storage = storage
        fields.removeAll { $0.hasName(name, length: length, in: storage) }
    }

    public mutating func remove(_ name: HTTPFieldName) {
        let storage = storage
        fields.removeAll { $0.hasName(name, in: storage) }
    }

    /// The first value of `name`, or nil.
    public subscript(name: String) -> String? {
        let length = name.utf8.count
        for index in fields.indices where fields[index].hasName(name, length: length, in: storage) {
            return fields[index].value(in: storage)
        }
        return nil
    }

    /// The first value of `name`, or nil.
    public subscript(name: HTTPFieldName) -> String? {
        for index in fields.indices where fields[index].hasName(name, in: storage) { return fields[index].value(in: storage) }
        return nil
    }

    /// Every value of `name`, in order.
    public func values(for name: String) -> [String] {
        let length = name.utf8.count
        return fields.filter { $0.hasName(name, length: length, in: storage) }.map { $0.value(in: storage) }
    }

    /// Every value of `name`, in order.
    public func values(for name: HTTPFieldName) -> [String] {
        fields.filter { $0.hasName(name, in: storage) }.map { $0.value(in: storage) }
    }

    public func contains(_ name: String) -> Bool {
        let length = name.utf8.count
        return fields.contains { $0.hasName(name, length: length, in: storage) }
    }

    public func contains(_ name: HTTPFieldName) -> Bool {
        fields.contains { $0.hasName(name, in: storage) }
    }

    /// The comma-separated list elements of every `name` field, trimmed, lowercased
    /// (RFC 9110 §5.6.1), e.g. `Connection: keep-alive, Upgrade`.
    public func tokens(for name: HTTPFieldName) -> [String] {
        values(for: name).flatMap { value in
            value.split(separator: ",").map { $0.trimmingOWS().lowercased() }.filter { !$0.isEmpty }
        }
    }

    /// Whether `token` (lowercase ASCII) is among `tokens(for: name)`, without building the
    /// list: `Connection` and `Expect` are asked about on every request.
    public func containsToken(_ token: StaticString, in name: HTTPFieldName) -> Bool {
        let pattern = UnsafeRawBufferPointer(start: token.utf8Start, count: token.utf8CodeUnitCount)
        for index in fields.indices where fields[index].hasName(name, in: storage) {
            if fields[index].valueText.withBytes(in: storage, { Self.list($0, contains: pattern) }) { return true }
        }
        return false
    }

    public struct Iterator: IteratorProtocol {
        var base: IndexingIterator<[Entry]>
        let storage: FieldBytes?

        public mutating func next() -> Field? {
            base.next().map { (name: $0.name(in: storage), value: $0.value(in: storage)) }
        }
    }

    public func makeIterator() -> Iterator {
        Iterator(base: fields.makeIterator(), storage: storage)
    }

    /// Whether some field's name, given by its length and first byte (lowercased), satisfies
    /// `predicate`: a parsed field answers from its lookup key, without its bytes.
    public func containsName(where predicate: (_ length: Int, _ first: UInt8) -> Bool) -> Bool {
        for index in fields.indices {
            let key = fields[index].key ?? fields[index].nameText.withBytes(in: storage) { HTTPFieldName.Key($0) }
            if key.length > 0, predicate(key.length, UInt8(truncatingIfNeeded: key.head)) { return true }
        }
        return false
    }

    /// Runs `body` on the bytes of the first `name` field's value, without making a String;
    /// nil when there is none. For parsers of list-valued fields (Accept, Accept-Encoding).
    public func withValueBytes<R>(of name: HTTPFieldName, _ body: (UnsafeRawBufferPointer) -> R) -> R? {
        guard let index = firstIndex(of: name) else { return nil }
        return fields[index].valueText.withBytes(in: storage, body)
    }

    /// `withValueBytes` for a yes-or-no question about the value. Not generic: a caller in
    /// another module would otherwise reach the generic entry point, which looks up the
    /// metadata of `Optional<R>` on every call (the Host check asks on every request).
    public func withValueBytes(of name: HTTPFieldName, _ body: (UnsafeRawBufferPointer) -> Bool) -> Bool? {
        guard let index = firstIndex(of: name) else { return nil }
        return fields[index].valueText.withBytes(in: storage, body)
    }

    @inline(__always)
    private func firstIndex(of name: HTTPFieldName) -> Int? {
        for index in fields.indices where fields[index].hasName(name, in: storage) { return index }
        return nil
    }

    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.elementsEqual(rhs) { $0.name == $1.name && $0.value == $1.value }
    }

    /// Whether the comma-separated `list` has an element equal to `token` (lowercase)
    /// ignoring ASCII case, once optional white space around it is dropped (RFC 9110 §5.6.1).
    private static func list(_ list: UnsafeRawBufferPointer, contains token: UnsafeRawBufferPointer) -> Bool {
        var start = 0
        while start <= list.count {
            let end = ByteScan.firstIndex(of: UInt8(ascii: ","), in: list, from: start, to: list.count)
            let element = ByteScan.trimmingOWS(in: list, from: start, to: end)
            if equalIgnoringASCIICase(UnsafeRawBufferPointer(rebasing: list[element]), token) { return true }
            start = end + 1
        }
        return false
    }
}

extension StringProtocol {
    /// Runs `body` on the UTF-8 bytes in one buffer: in place where they are contiguous (every
    /// native String), otherwise copied once. For byte loops on paths every request takes.
    @inlinable @inline(__always)
    public func withUTF8Bytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        if let result = utf8.withContiguousStorageIfAvailable({ body(UnsafeRawBufferPointer($0)) }) { return result }
        return Array(utf8).withUnsafeBytes(body)
    }

    /// ASCII case-insensitive comparison: header names and tokens are ASCII.
    /// Compares contiguous bytes where both sides have them (every native String does): this
    /// runs for each header lookup, several times per request.
    public func equalsIgnoringASCIICase<S: StringProtocol>(_ other: S) -> Bool {
        let a = utf8
        let b = other.utf8
        let fast = a.withContiguousStorageIfAvailable { left in
            b.withContiguousStorageIfAvailable { right in
                equalIgnoringASCIICase(UnsafeRawBufferPointer(left), UnsafeRawBufferPointer(right))
            }
        }
        if let fast, let equal = fast { return equal }
        guard a.count == b.count else { return false }
        return zip(a, b).allSatisfy { lowerASCII($0) == lowerASCII($1) }
    }

    /// The same answer as `hasPrefix(prefix)` for an ASCII `prefix`, by comparing bytes. Only
    /// when a non-ASCII byte follows the prefix (a combining mark could then extend its last
    /// character, which `hasPrefix` counts as a mismatch) does it ask `hasPrefix` itself.
    /// Routing tests paths against fixed prefixes on every request; inlinable, so the
    /// application's routes get it specialized for their Substrings.
    @inlinable
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

    /// Strips optional white space (SP / HTAB, RFC 9110 §5.6.3) from both ends.
    public func trimmingOWS() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\t" { scalars.removeFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars.removeLast() }
        return String(scalars)
    }
}

/// Whether `a` and `b` are the same bytes once ASCII letters are lowercased: header names
/// and tokens are ASCII.
@inline(__always)
func equalIgnoringASCIICase(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
    guard a.count == b.count else { return false }
    for i in 0..<a.count where lowerASCII(a[i]) != lowerASCII(b[i]) { return false }
    return true
}

@inlinable @inline(__always)
public func lowerASCII(_ byte: UInt8) -> UInt8 {
    byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
}

extension String {
    /// `utf8.elementsEqual(other.utf8)`, on contiguous bytes once the lengths agree (iterating
    /// two UTF8Views cost more than the rest of a cache hit together). File names compare so,
    /// not by `==`: names that are canonically equal Strings (`é` composed and decomposed) are
    /// different names on disk.
    @inlinable
    public func hasSameBytes(as other: String) -> Bool {
        let left = utf8
        let right = other.utf8
        guard left.count == right.count else { return false }
        let equal = left.withContiguousStorageIfAvailable { a in
            right.withContiguousStorageIfAvailable { b in
                for i in 0..<a.count where a[i] != b[i] { return false }
                return true
            }
        }
        if let equal, let known = equal { return known }
        return left.elementsEqual(right)
    }
}
