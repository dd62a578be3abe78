import FiledropHTTP

/// The one writer of upload bytes: form parts, PUT bodies and tus PATCHes all write through
/// it, so `StoragePolicy` holds the same way at the same points for every kind:
///
/// - before the file is opened, `UploadStore.checkRoom` (the declared size must fit);
/// - on every write, the size limit, in memory (no system call);
/// - every `spaceCheckInterval` bytes, free space, on a worker together with the file's
///   write-back (`pause()`), so the check costs one statvfs per interval and no loop waits;
/// - at publish, `StoragePolicy.publish` (collisions, durability).
///
/// It also feeds the upload's SHA-256 (`digest`, nil when hashing is off): the bytes are
/// handed over as they are written, and when the hasher falls behind, the pause waits for it
/// on a worker, so the hash never runs on the loop and never holds more than its bound.
///
/// Made by `UploadStore.writer(for:startingAt:limit:)`. Owned by one request at a time.
struct GuardedWriter {
    /// Why a write was refused: the caller tells its client in its own words (a form upload
    /// is discarded, a tus upload keeps what it had).
    enum Refusal: Error, Equatable {
        /// Past the limit: the limit's own refusal (413, or tus's 400 or 507).
        case overLimit(HTTPError)
        /// The storage failed, or free space fell below the minimum (`.noSpace`).
        case storage(StorageError)
    }

    /// Work to run on a worker before the writer takes more bytes, and the check of its
    /// outcome back on the loop.
    typealias Pause = (work: BlockingWork, then: () throws(StorageError) -> Void)

    let sink: any UploadSink
    let limit: SizeLimit
    /// The running SHA-256 of every byte written through this writer, after `startingAt`.
    let digest: (any UploadDigestStream)?
    private let policy: StoragePolicy
    private let storage: any Storage
    /// Bytes in the file: where it started (a tus upload's offset) and what came since.
    private(set) var size: UInt64
    private var nextSpaceCheck: UInt64

    init(
        sink: any UploadSink, policy: StoragePolicy, storage: any Storage, startingAt size: UInt64, limit: SizeLimit,
        digest: (any UploadDigestStream)? = nil
    ) {
        self.sink = sink
        self.digest = digest
        self.policy = policy
        self.storage = storage
        self.limit = limit
        self.size = size
        self.nextSpaceCheck = policy.nextSpaceCheck(after: size)
    }

    mutating func write(_ bytes: UnsafeRawBufferPointer) throws(Refusal) {
        let total = size + UInt64(bytes.count)
        do throws(HTTPError) {
            try limit.check(total)
        } catch {
            throw .overLimit(error)
        }
        do throws(StorageError) {
            try sink.write(bytes)
        } catch {
            throw .storage(error)
        }
        digest?.feed(bytes)
        size = total
    }

    /// The write-back, free-space check and wait for the hasher due after the last write,
    /// nil when none is (three comparisons: this runs after every write).
    mutating func pause() -> Pause? {
        let spaceCheckDue = size >= nextSpaceCheck
        let writebackDue = sink.writebackDue
        let hashingBehind = digest?.isBehind ?? false
        guard spaceCheckDue || writebackDue || hashingBehind else { return nil }
        if spaceCheckDue { nextSpaceCheck = policy.nextSpaceCheck(after: size) }
        let slot = ResultSlot<Result<Void, StorageError>>()
        let work = BlockingWork("write-back") { [sink, storage, policy, digest] in
            slot.value = Result { () throws(StorageError) in
                if hashingBehind { digest?.waitUntilCaughtUp() }
                if writebackDue { try sink.paceWriteback() }
                if spaceCheckDue, !policy.hasRoom(for: 0, available: storage.availableSpace()) { throw .noSpace }
            }
        }
        return (work, { () throws(StorageError) in try slot.take("write-back").get() })
    }
}
