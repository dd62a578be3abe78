import FiledropCore
import Glibc
import Synchronization

/// What the file system answered about the recorded SHA-256 (`SHA256Attribute`) of the files
/// of recent JSON listings, per version of each file, so a folder listed again makes no
/// system call for a file that has not changed. Without it a listing of 100,000 files makes
/// 100,000 getxattrat(2) calls per request (0.12 s of CPU, as much as their 100,000 fstatat
/// calls), almost all of them to learn again that a file has no recorded hash.
///
/// A version is the file's device, inode, size, modification and change times: setting or
/// removing an extended attribute moves the change time, as every write, link, unlink and
/// rename of the inode does (inode(7)), and an upload publishes a new inode. As in
/// `SmallFileCache`, nothing is kept about a file changed in the last two seconds, so a later
/// change gets a later time than the one remembered even where file times tick only every few
/// milliseconds. Failures (EIO, ENOENT, EACCES) are not kept either: only what the attribute
/// holds, or that there is none.
///
/// Compact and bounded whatever the folders' sizes: a version is kept as a 64-bit keyed hash
/// (SipHash, the process's random seed); a file without a hash, the common case, costs 8 bytes
/// in a set of at most `absentCapacity` (2 MiB), a file with one 40 bytes in a table of at most
/// `presentCapacity` (1.3 MiB), and a full one starts over. Two versions share a key with odds
/// of one in 2^64 per pair, so a lookup against a full set goes wrong about once in 10^14.
final class ListedSHA256Cache: Sendable {
    /// Three quarters of 2^18: the most a Set keeps in 2^18 slots.
    static let absentCapacity = (1 << 18) / 4 * 3
    static let presentCapacity = 1 << 14

    /// A recorded hash, 32 bytes instead of a 64-character String.
    private struct Digest {
        var bytes: (UInt64, UInt64, UInt64, UInt64)

        init?(hex: String) {
            guard let decoded = SHA256Text.bytes(hex: hex) else { return nil }
            func word(_ start: Int) -> UInt64 { decoded[start..<start + 8].reduce(0) { $0 << 8 | UInt64($1) } }
            bytes = (word(0), word(8), word(16), word(24))
        }

        var hex: String {
            var decoded: [UInt8] = []
            decoded.reserveCapacity(32)
            for word in [bytes.0, bytes.1, bytes.2, bytes.3] {
                for shift in stride(from: 56, through: 0, by: -8) {
                    decoded.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
                }
            }
            return SHA256Text.hex(decoded)
        }
    }

    private struct State {
        var absent: Set<UInt64>
        var present: [UInt64: Digest]
    }

    private let state: Mutex<State>
    private let absentCapacity: Int
    private let presentCapacity: Int

    /// Both tables are allocated whole here, when the daemon starts: malloc then maps them
    /// apart from its heaps (they are above its mmap threshold, which has not yet risen), and
    /// they never move. Made later, or grown by doubling, they landed amid a listing's freed
    /// arrays, which the heap could then neither reuse whole nor give back: peak RSS over six
    /// JSON and six HTML listings of 100,000 files went from 33 to 47-64 MiB. Untouched pages
    /// cost no memory.
    init(absentCapacity: Int = ListedSHA256Cache.absentCapacity, presentCapacity: Int = ListedSHA256Cache.presentCapacity) {
        self.absentCapacity = absentCapacity
        self.presentCapacity = presentCapacity
        state = Mutex(State(absent: Set(minimumCapacity: absentCapacity), present: Dictionary(minimumCapacity: presentCapacity)))
    }

    /// The recorded hash of each of `files` (regular files of one directory on `device`, as
    /// listed), in their order: remembered answers, and `lookUp(name)` for the rest. `now`:
    /// the wall clock (ns since 1970), the time file times are stamped with.
    func hashes(
        of files: [FileMetadata], device: UInt64, now: Int64 = ListedSHA256Cache.now(),
        lookUp: (String) -> SHA256Attribute.Lookup
    ) -> [String?] {
        let keys = files.map { Self.key($0, device: device) }
        var found = [String?](repeating: nil, count: files.count)
        var digests: [(Int, Digest)] = []
        var unknown: [Int] = []
        state.withLock { state in
            for index in keys.indices where !state.absent.contains(keys[index]) {
                if let digest = state.present[keys[index]] { digests.append((index, digest)) } else { unknown.append(index) }
            }
        }
        for (index, digest) in digests { found[index] = digest.hex }
        guard !unknown.isEmpty else { return found }

        let settled = now - 2_000_000_000
        var learned: [(key: UInt64, digest: Digest?)] = []
        for index in unknown {
            let answer = lookUp(files[index].name)
            let stable = files[index].changed > 0 && files[index].changed <= settled
            switch answer {
            case .recorded(let hex):
                found[index] = hex
                if stable, let digest = Digest(hex: hex) { learned.append((keys[index], digest)) }
            case .none:
                if stable { learned.append((keys[index], nil)) }
            case .failed:
                break
            }
        }
        guard !learned.isEmpty else { return found }
        state.withLock { state in
            for (key, digest) in learned {
                if let digest {
                    if state.present.count >= presentCapacity { state.present.removeAll(keepingCapacity: true) }
                    state.present[key] = digest
                } else {
                    if state.absent.count >= absentCapacity { state.absent.removeAll(keepingCapacity: true) }
                    state.absent.insert(key)
                }
            }
        }
        return found
    }

    /// CLOCK_REALTIME in nanoseconds since 1970.
    static func now() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    private static func key(_ file: FileMetadata, device: UInt64) -> UInt64 {
        var hasher = Hasher()
        hasher.combine(device)
        hasher.combine(file.inode)
        hasher.combine(file.changed)
        hasher.combine(file.modified)
        hasher.combine(file.size)
        return UInt64(bitPattern: Int64(hasher.finalize()))
    }
}
