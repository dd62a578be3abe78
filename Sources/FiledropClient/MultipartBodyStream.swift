import Foundation

/// Reads a `StreamedBody`'s segments in order through one bounded buffer: at most
/// `bufferSize` bytes of a file are in memory at any time, however big the file.
final class SegmentReader {
    private let segments: [StreamedBody.Segment]
    private let bufferSize: Int
    private var index = 0
    private var positionInSegment: Int64 = 0
    private var handle: FileHandle?
    private var buffer = Data()
    private var bufferStart = 0
    private var consumed: Int64 = 0
    private let total: Int64
    private(set) var failure: FiledropClientError?

    init(segments: [StreamedBody.Segment], bufferSize: Int = 256 * 1024) {
        self.segments = segments
        self.bufferSize = bufferSize
        self.total = segments.reduce(0) { $0 + $1.length }
    }

    /// Every byte was read (and none failed).
    var isAtEnd: Bool { failure == nil && consumed >= total }

    /// Copies up to `maxLength` bytes into `destination`; 0 at the end, -1 after a read error
    /// (`failure` says which), so a body is never silently cut short.
    func read(into destination: UnsafeMutablePointer<UInt8>, maxLength: Int) -> Int {
        guard failure == nil else { return -1 }
        while index < segments.count {
            let segment = segments[index]
            let remaining = segment.length - positionInSegment
            if remaining <= 0 {
                advance()
                continue
            }
            let count: Int
            switch segment {
            case .bytes(let data):
                count = Int(min(Int64(maxLength), remaining))
                let start = data.startIndex + Int(positionInSegment)
                data.copyBytes(to: destination, from: start..<start + count)
            case .file(let url, let offset, _):
                guard fillBuffer(url: url, offset: offset, remaining: remaining) else { return -1 }
                count = min(maxLength, buffer.count - bufferStart)
                buffer.withUnsafeBytes { raw in
                    destination.update(
                        from: raw.baseAddress!.advanced(by: bufferStart).assumingMemoryBound(to: UInt8.self), count: count)
                }
                bufferStart += count
            }
            positionInSegment += Int64(count)
            consumed += Int64(count)
            return count
        }
        return 0
    }

    private func fillBuffer(url: URL, offset: Int64, remaining: Int64) -> Bool {
        guard bufferStart >= buffer.count else { return true }
        do {
            if handle == nil {
                let opened = try FileHandle(forReadingFrom: url)
                try opened.seek(toOffset: UInt64(offset))
                handle = opened
            }
            let chunk = try handle?.read(upToCount: Int(min(Int64(bufferSize), remaining))) ?? Data()
            guard !chunk.isEmpty else {
                failure = .localFile(path: url.path, reason: "the file got shorter while it was being sent")
                return false
            }
            buffer = chunk
            bufferStart = 0
            return true
        } catch {
            failure = .localFile(path: url.path, reason: "cannot read: \(error.localizedDescription)")
            return false
        }
    }

    private func advance() {
        try? handle?.close()
        handle = nil
        buffer = Data()
        bufferStart = 0
        index += 1
        positionInSegment = 0
    }

    func close() {
        try? handle?.close()
        handle = nil
    }
}

#if canImport(FoundationNetworking)
    /// The body as an `InputStream` for swift-corelibs-foundation's URLSession, which pulls it
    /// from libcurl's read callback: `hasBytesAvailable` stays true until the last byte was
    /// read (false there means "the body is done"), and a read error aborts the request.
    final class MultipartBodyStream: InputStream {
        private let reader: SegmentReader
        private let releaseBarrier = BufferReleaseBarrier()
        private var status: Stream.Status = .notOpen

        init(reader: SegmentReader) {
            self.reader = reader
            super.init(data: Data())
        }

        override func open() { status = .open }

        override func close() {
            reader.close()
            status = .closed
        }

        override var streamStatus: Stream.Status { status }

        override var streamError: Error? { reader.failure }

        override var hasBytesAvailable: Bool { status == .open && !reader.isAtEnd }

        override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
            let count = reader.read(into: buffer, maxLength: len)
            if count < 0 { status = .error } else if reader.isAtEnd { status = .atEnd }
            releaseBarrier.pass()
            return count
        }

        override func getBuffer(
            _ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, length len: UnsafeMutablePointer<Int>
        ) -> Bool {
            false
        }
    }
#else
    /// Feeds a bound stream pair from a thread; the writes block while URLSession has not read,
    /// so only the pair's buffer and the reader's are ever in memory.
    enum BoundStreamPump {
        static func start(reader: SegmentReader) -> InputStream {
            var input: InputStream?
            var output: OutputStream?
            Stream.getBoundStreams(withBufferSize: 256 * 1024, inputStream: &input, outputStream: &output)
            guard let input, let output else { return InputStream(data: Data()) }
            nonisolated(unsafe) let unsafeReader = reader
            nonisolated(unsafe) let unsafeOutput = output
            Thread.detachNewThread {
                unsafeOutput.open()
                defer {
                    unsafeOutput.close()
                    unsafeReader.close()
                }
                let chunk = UnsafeMutablePointer<UInt8>.allocate(capacity: 64 * 1024)
                defer { chunk.deallocate() }
                while true {
                    let count = unsafeReader.read(into: chunk, maxLength: 64 * 1024)
                    guard count > 0 else { return }
                    var written = 0
                    while written < count {
                        let result = unsafeOutput.write(chunk.advanced(by: written), maxLength: count - written)
                        guard result > 0 else { return }
                        written += result
                    }
                }
            }
            return input
        }
    }
#endif
