import FiledropCore
import FiledropServer
import Glibc

/// Early write-back of a durable upload's bytes, shared by the invisible file of a form or
/// PUT upload (`PosixUploadFile`) and the partial file of a tus PATCH (`PosixPartialFile`):
/// every `StorageOptions.writebackChunk` bytes the chunk just written goes to write-back
/// (sync_file_range(2) `SYNC_FILE_RANGE_WRITE`), and with more than `chunksInFlight` chunks
/// under way the oldest is waited for. Dirty pages stay bounded per upload, the disk is busy
/// while the client is still sending, and the fsync that makes the bytes durable (at publish,
/// or at the end of a PATCH) has at most those few chunks left to do.
///
/// Without it a tus PATCH fsynced all its bytes only once the body was in, with the client
/// waiting: the disk idled while the network ran and the other way round (the last PATCH of
/// a 1 GiB upload waited 0.28 s for its fsync; 3 ms with pacing). A PATCH shorter than a
/// chunk gains nothing, since pacing starts afresh with each PATCH: 8 MiB PATCHes owe their
/// slowness to the stop between PATCHes, which the page's growing PATCHes (web/tus.js) avoid.
struct WritebackPacer {
    /// Chunks handed to write-back and not yet waited for. Four keep the disk's queue full
    /// while the client sends (with one, the loop waited for each chunk it had just started
    /// and the sender stalled meanwhile: a durable 1 GiB PUT ran at 0.85x `dd conv=fsync`).
    private static let chunksInFlight: UInt64 = 4

    /// 0: pacing off (not durable, or `writebackChunk` 0).
    private let chunk: UInt64
    /// Start of the bytes not yet handed to write-back (a file offset).
    private var writebackStart: UInt64
    /// Everything before this offset is known to be on disk (waited for).
    private var waitedThrough: UInt64
    /// Cleared when sync_file_range turns out not to be available here.
    private var available = true

    /// `startingAt`: the file's size when writing starts (a tus partial file is appended to).
    init(options: StorageOptions, durable: Bool, startingAt offset: UInt64 = 0) {
        chunk = durable ? UInt64(options.writebackChunk) : 0
        writebackStart = offset
        waitedThrough = offset
    }

    /// Whether a chunk is due, with the file now `written` bytes long.
    func isDue(written: UInt64) -> Bool {
        chunk > 0 && written - writebackStart >= chunk
    }

    /// Blocking (a worker's): hands what was written since the last call to write-back and
    /// waits for the oldest chunk once too many are under way.
    mutating func pace(_ descriptor: Int32, written: UInt64) throws(StorageError) {
        guard isDue(written: written) else { return }
        let start = Int64(writebackStart)
        let length = Int64(written - writebackStart)
        writebackStart = written
        guard available else { return }
        let inFlightLimit = Self.chunksInFlight * chunk
        do throws(SystemError) {
            try syscall("sync_file_range") {
                LinuxFileCalls.syncFileRange(
                    descriptor, offset: start, length: length, flags: LinuxFileCalls.SYNC_FILE_RANGE_WRITE)
            }
            if written - waitedThrough > inFlightLimit {
                let waitStart = Int64(waitedThrough)
                waitedThrough = written - inFlightLimit
                let waitFlags =
                    LinuxFileCalls.SYNC_FILE_RANGE_WAIT_BEFORE | LinuxFileCalls.SYNC_FILE_RANGE_WRITE
                    | LinuxFileCalls.SYNC_FILE_RANGE_WAIT_AFTER
                try syscall("sync_file_range") {
                    LinuxFileCalls.syncFileRange(
                        descriptor, offset: waitStart, length: Int64(waitedThrough) - waitStart, flags: waitFlags)
                }
            }
        } catch  where error.errno == ENOSYS || error.errno == EINVAL {
            // No sync_file_range in this C library or on this file system: fsync does it all.
            available = false
        } catch {
            throw StorageError(error)
        }
    }
}
