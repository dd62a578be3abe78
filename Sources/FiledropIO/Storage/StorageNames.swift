/// The names `PosixStorage` gives and refuses inside the save directory.
enum StorageNames {
    /// Everything the storage keeps for itself starts with this; never listed or served.
    static let reservedPrefix = String(describing: reservedPrefixBytes)
    /// Upload temporaries that have a name (the O_TMPFILE fallback and atomic replacement).
    /// A crash can leave them behind; `removeStaleTemporaries()` deletes them at start.
    static let temporaryPrefix = ".filedrop-tmp-"

    /// A single normal path component: not empty, not `.` or `..`, no `/` or NUL. The core's
    /// `FileNamePolicy` already guarantees this for `StoragePath`; checked again here because
    /// this is the last line before the kernel.
    static func isPlainComponent(_ name: String) -> Bool {
        !name.isEmpty && name != "." && name != ".."
            && !name.utf8.contains(UInt8(ascii: "/")) && !name.utf8.contains(0)
    }

    static func isReserved(_ name: String) -> Bool {
        name.utf8.starts(with: reservedPrefix.utf8)
    }

    static func isTemporary(_ name: String) -> Bool {
        name.utf8.starts(with: temporaryPrefix.utf8)
    }

    /// A plain component that is not one of ours: the only names clients may reach. The same
    /// answer as `isPlainComponent(name) && !isReserved(name)` in one pass over the bytes: it
    /// runs for every component of every download.
    static func isClientName(_ name: String) -> Bool {
        var name = name
        return name.withUTF8 { bytes in
            guard let first = bytes.first else { return false }
            if first == UInt8(ascii: ".") {
                if bytes.count == 1 || (bytes.count == 2 && bytes[1] == UInt8(ascii: ".")) { return false }
                if bytes.starts(
                    with: UnsafeBufferPointer(start: reservedPrefixBytes.utf8Start, count: reservedPrefixBytes.utf8CodeUnitCount))
                {
                    return false
                }
            }
            return !bytes.contains { $0 == UInt8(ascii: "/") || $0 == 0 }
        }
    }

    private static let reservedPrefixBytes: StaticString = ".filedrop"

    /// `.filedrop-tmp-` and 16 random hex digits.
    static func randomTemporaryName() -> String {
        let digits = String(UInt64.random(in: .min ... .max), radix: 16)
        return temporaryPrefix + String(repeating: "0", count: 16 - digits.count) + digits
    }
}
