import CCrypto
import FiledropCore
import Glibc

/// Uploads' SHA-256 from libcrypto (`LibcryptoSHA256`), off the event loop: the loop copies
/// each write into 256 KiB chunks (memcpy is about ten times cheaper than SHA-256) and a
/// hashing thread digests full chunks in order. Up to `maxQueuedChunks` may wait per upload;
/// beyond that the upload's writer pauses on a worker until the hasher has caught up, so
/// memory stays bounded (2 MiB per upload) however fast bytes arrive.
public struct PipelinedSHA256: UploadHashing {
    private let threads: HashingThreads

    public init() {
        threads = HashingThreads()
    }

    public func makeStream() -> any UploadDigestStream {
        PipelinedSHA256Stream(threads: threads)
    }

    /// Blocking: the SHA-256 of everything `file` reads from its current position on (a tus
    /// upload's partial file after a restart), read in chunks and hashed on this thread.
    static func digest(reading file: FileDescriptor) throws(StorageError) -> [UInt8] {
        let context = LibcryptoSHA256()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: PipelinedSHA256Stream.chunkSize, alignment: 64)
        defer { buffer.deallocate() }
        while true {
            let count = try storageCall("read") { Glibc.read(file.descriptor, buffer.baseAddress, buffer.count) }
            if count == 0 { return context.finish() }
            context.update(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
        }
    }
}

/// One upload's pipeline. `feed`, `bytesFed` and `isBehind` are called by the one request
/// writing the upload; the chunks and the EVP context pass to the hashing thread under
/// `mutex`, and back for `finish` once the queue is empty.
final class PipelinedSHA256Stream: UploadDigestStream, @unchecked Sendable {
    static let chunkSize = 256 << 10
    /// Chunks full and waiting (or being hashed) before the writer pauses: 2 MiB. A bigger
    /// bound (8 MiB, resuming at 2) bought no throughput in `make bench` (the hash's CPU is
    /// the cost, not the pauses) and added 9 MiB of peak RSS per upload.
    static let maxQueuedChunks = 8
    /// The writer's pause ends once the queue is down to this: hysteresis, so a fast upload
    /// pauses once per few chunks rather than once per chunk.
    static let resumeBelow = 4

    private let threads: HashingThreads
    private let context = LibcryptoSHA256()
    /// The chunk being filled; nil until the first byte and after `settle`.
    private var filling: UnsafeMutableRawBufferPointer?
    private var filled = 0
    private(set) var bytesFed: UInt64 = 0

    private var mutex = pthread_mutex_t()
    private var changed = pthread_cond_t()
    /// Full chunks in order; the first is being hashed while `draining`.
    private var queue: [UnsafeMutableRawBufferPointer] = []
    private var head = 0
    /// Hashed chunks kept for the writer to fill again while the upload streams: reused, not
    /// freed, since a 256 KiB allocation is an mmap, 64 page faults and an munmap each time.
    /// Never more than the queue's bound, and all freed at `settle`.
    private var spares: [UnsafeMutableRawBufferPointer] = []
    private var draining = false

    init(threads: HashingThreads) {
        self.threads = threads
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&changed, nil)
    }

    deinit {
        filling?.deallocate()
        for chunk in spares { chunk.deallocate() }
        for chunk in queue[head...] { chunk.deallocate() }
        pthread_cond_destroy(&changed)
        pthread_mutex_destroy(&mutex)
    }

    private static func allocateChunk() -> UnsafeMutableRawBufferPointer {
        .allocate(byteCount: chunkSize, alignment: 64)
    }

    func feed(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let buffer = filling ?? Self.allocateChunk()
            filling = buffer
            let count = min(Self.chunkSize - filled, bytes.count - offset)
            buffer.baseAddress!.advanced(by: filled).copyMemory(from: source + offset, byteCount: count)
            filled += count
            offset += count
            if filled == Self.chunkSize { handOver() }
        }
        bytesFed += UInt64(bytes.count)
    }

    /// Queues the full chunk and starts the hashing thread on this stream if it is idle.
    private func handOver() {
        guard let full = filling else { return }
        pthread_mutex_lock(&mutex)
        queue.append(full)
        filling = spares.popLast()
        let start = !draining
        draining = true
        pthread_mutex_unlock(&mutex)
        filled = 0
        if start { threads.submit { [self] in drain() } }
    }

    /// On a hashing thread: digests queued chunks until none is left.
    private func drain() {
        pthread_mutex_lock(&mutex)
        while head < queue.count {
            let chunk = queue[head]
            pthread_mutex_unlock(&mutex)
            context.update(UnsafeRawBufferPointer(chunk))
            pthread_mutex_lock(&mutex)
            head += 1
            if head == queue.count {
                queue.removeAll(keepingCapacity: true)
                head = 0
            }
            if spares.count < Self.maxQueuedChunks { spares.append(chunk) } else { chunk.deallocate() }
            pthread_cond_broadcast(&changed)
        }
        draining = false
        pthread_cond_broadcast(&changed)
        pthread_mutex_unlock(&mutex)
    }

    var isBehind: Bool {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return queue.count - head >= Self.maxQueuedChunks
    }

    func waitUntilCaughtUp() {
        pthread_mutex_lock(&mutex)
        while queue.count - head > Self.resumeBelow { pthread_cond_wait(&changed, &mutex) }
        pthread_mutex_unlock(&mutex)
    }

    func settle() {
        pthread_mutex_lock(&mutex)
        while draining { pthread_cond_wait(&changed, &mutex) }
        for chunk in spares { chunk.deallocate() }
        spares.removeAll()
        pthread_mutex_unlock(&mutex)
        if let filling {
            context.update(UnsafeRawBufferPointer(rebasing: filling[..<filled]))
            filling.deallocate()
        }
        filling = nil
        filled = 0
    }

    func finish() -> [UInt8] {
        settle()
        return context.finish()
    }
}
