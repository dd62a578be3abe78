/// A connection's inbound bytes: one contiguous array with read and write indices, grown
/// only up to a cap and released when empty, so idle connections hold no buffer at all.
/// Space past `writerIndex` is never read, so it is left uninitialized rather than zeroed.
struct ByteBuffer {
    private var storage: [UInt8] = []
    private(set) var readerIndex = 0
    private(set) var writerIndex = 0

    var readableCount: Int { writerIndex - readerIndex }
    var capacity: Int { storage.count }

    /// Makes room for at least `minimum` more bytes, compacting first. Never grows past
    /// `limit` in total; returns the free space available.
    @discardableResult
    mutating func reserveWritable(minimum: Int, limit: Int) -> Int {
        if storage.count - writerIndex >= minimum { return storage.count - writerIndex }
        if readerIndex > 0 {
            let (start, count) = (readerIndex, readableCount)
            storage.withUnsafeMutableBytes { raw in
                raw.baseAddress!.copyMemory(from: raw.baseAddress! + start, byteCount: count)
            }
            writerIndex -= readerIndex
            readerIndex = 0
        }
        if storage.count - writerIndex < minimum && storage.count < limit {
            let wanted = min(limit, max(storage.count * 2, writerIndex + minimum))
            let kept = writerIndex
            storage = [UInt8](unsafeUninitializedCapacity: wanted) { buffer, count in
                storage.withUnsafeBufferPointer { old in
                    _ = buffer.initialize(fromContentsOf: UnsafeBufferPointer(rebasing: old[..<kept]))
                }
                // UInt8 needs no initialization; the bytes past `kept` are written before read.
                count = wanted
            }
        }
        return storage.count - writerIndex
    }

    /// Appends `bytes`, growing up to `limit` (or to what they need, if more).
    mutating func append(_ bytes: UnsafeRawBufferPointer, limit: Int) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        reserveWritable(minimum: bytes.count, limit: max(limit, readableCount + bytes.count))
        let start = writerIndex
        storage.withUnsafeMutableBytes { raw in (raw.baseAddress! + start).copyMemory(from: source, byteCount: bytes.count) }
        writerIndex += bytes.count
    }

    /// Lets `body` fill the free space; it returns how many bytes it wrote.
    mutating func writeWithUnsafeMutableBytes(_ body: (UnsafeMutableRawBufferPointer) throws(SystemError) -> IOResult<Int>)
        throws(SystemError) -> IOResult<Int>
    {
        let start = writerIndex
        var result: Result<IOResult<Int>, SystemError> = .success(.wouldBlock)
        storage.withUnsafeMutableBytes { raw in
            result = Result { () throws(SystemError) in try body(UnsafeMutableRawBufferPointer(rebasing: raw[start...])) }
        }
        let outcome = try result.get()
        if case .done(let count) = outcome { writerIndex += count }
        return outcome
    }

    func withReadableBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        storage.withUnsafeBytes { raw in body(UnsafeRawBufferPointer(rebasing: raw[readerIndex..<writerIndex])) }
    }

    mutating func consume(_ count: Int) {
        readerIndex += count
        if readerIndex == writerIndex {
            readerIndex = 0
            writerIndex = 0
        }
    }

    /// Frees the storage when nothing is buffered (idle keep-alive connections).
    mutating func releaseIfEmpty() {
        if readableCount == 0 {
            storage = []
            readerIndex = 0
            writerIndex = 0
        }
    }
}
