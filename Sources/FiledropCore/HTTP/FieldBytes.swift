/// The bytes of a request head's field lines, copied once when the head is complete: its
/// parsed fields (`HTTPHeaders.Text.parsed`) point into them, and are made into Strings only
/// when read. One allocation (the bytes follow the object). Written when made, and again
/// only by `reusing`, when nothing else refers to it: a reader never sees it change.
final class FieldBytes: ManagedBuffer<Int, UInt8> {
    /// At least this much room, so that one buffer serves the next heads on a connection.
    static let minimumCapacity = 512

    static func copying(_ bytes: UnsafeRawBufferPointer) -> FieldBytes {
        let buffer = unsafeDowncast(create(minimumCapacity: max(bytes.count, minimumCapacity)) { _ in 0 }, to: FieldBytes.self)
        buffer.replace(with: bytes)
        return buffer
    }

    /// `storage` holding `bytes` now: the same buffer when it has room and nothing else
    /// refers to it (the previous head on the connection is gone), else a new one. Saves an
    /// allocation and a free per request on a keep-alive connection.
    static func reusing(_ storage: inout FieldBytes?, for bytes: UnsafeRawBufferPointer) -> FieldBytes {
        if storage != nil, isKnownUniquelyReferenced(&storage!), storage!.capacity >= bytes.count {
            storage!.replace(with: bytes)
            return storage!
        }
        let fresh = copying(bytes)
        storage = fresh
        return fresh
    }

    private func replace(with bytes: UnsafeRawBufferPointer) {
        withUnsafeMutablePointers { length, elements in
            length.pointee = bytes.count
            if let source = bytes.baseAddress { elements.update(from: source.assumingMemoryBound(to: UInt8.self), count: bytes.count) }
        }
    }

    /// The bytes at `start..<start + count` as a String; bytes that are not UTF-8 (obs-text)
    /// become U+FFFD, as the field values always did.
    func string(start: Int, count: Int) -> String {
        withBytes(start: start, count: count) { String(decoding: $0, as: UTF8.self) }
    }

    @inline(__always)
    func withBytes<R>(start: Int, count: Int, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        // Through the pointers: reading `header` as a property would be checked for
        // exclusive access at run time, on every field read.
        withUnsafeMutablePointers { length, elements in
            precondition(start >= 0 && count >= 0 && start + count <= length.pointee, "a field outside its head's bytes")
            return body(UnsafeRawBufferPointer(start: elements + start, count: count))
        }
    }
}

/// A field line the head parser checked: where its name and value are among the head's field
/// lines (offsets from the first), and its name's lookup key (its length is the name's).
struct ParsedField {
    var nameStart: Int32
    var valueStart: Int32
    var valueCount: Int32
    var key: HTTPFieldName.Key
}
