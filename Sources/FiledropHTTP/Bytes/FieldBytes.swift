/// The bytes of a request head's field lines, copied once when the head is complete: its
/// parsed fields (`HTTPHeaders.Text.parsed`) point into them, and are made into Strings only
/// when read. One allocation (the bytes follow the object), never changed after it is made.
final class FieldBytes: ManagedBuffer<Int, UInt8> {
    static func copying(_ bytes: UnsafeRawBufferPointer) -> FieldBytes {
        let buffer = create(minimumCapacity: bytes.count) { _ in bytes.count }
        buffer.withUnsafeMutablePointerToElements { elements in
            if let source = bytes.baseAddress {
                elements.initialize(from: source.assumingMemoryBound(to: UInt8.self), count: bytes.count)
            }
        }
        return unsafeDowncast(buffer, to: FieldBytes.self)
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
