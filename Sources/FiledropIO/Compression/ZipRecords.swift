/// The fixed records of a ZIP archive (PKWARE APPNOTE.TXT 6.3.10), as bytes. Every entry is
/// written with a data descriptor (general purpose bit 3) because sizes and CRC are known
/// only after the data went out; ZIP64 fields appear only where a value does not fit.
enum ZipRecords {
    /// APPNOTE 4.4.4 general purpose flags: bit 3 (sizes in a data descriptor),
    /// bit 11 (names are UTF-8).
    static let dataDescriptorFlag: UInt16 = 1 << 3
    static let utf8NamesFlag: UInt16 = 1 << 11
    /// Version needed (APPNOTE 4.4.3): 2.0 for deflate and folders, 4.5 for ZIP64.
    static let version20: UInt16 = 20
    static let version45: UInt16 = 45
    /// Version made by: upper byte 3 = UNIX, so external attributes carry permissions.
    static let madeByUnix: UInt16 = (3 << 8) | 45
    /// Markers meaning "the real value is in the ZIP64 record".
    static let maxUInt32: UInt64 = 0xFFFF_FFFF
    static let maxUInt16 = 0xFFFF

    enum Method: UInt16 {
        case stored = 0
        case deflated = 8
    }

    /// What the central directory remembers of one entry.
    struct Entry {
        var name: [UInt8]
        var method: Method
        var flags: UInt16
        var modified: ZipTimestamp
        var crc: UInt32 = 0
        var compressedSize: UInt64 = 0
        var uncompressedSize: UInt64 = 0
        var localHeaderOffset: UInt64
        var isDirectory: Bool
        /// The local header carried a ZIP64 extra, so the data descriptor has 8-byte sizes.
        var zip64Local: Bool
    }

    /// APPNOTE 4.3.7. With `zip64Local` the sizes are 0xFFFFFFFF and a ZIP64 extra holds
    /// zeros (APPNOTE 4.5.3: both sizes must then be present in the local extra).
    static func localFileHeader(_ entry: Entry) -> [UInt8] {
        var bytes = ZipBytes()
        bytes.u32(0x0403_4b50)
        bytes.u16(entry.zip64Local ? version45 : version20)
        bytes.u16(entry.flags)
        bytes.u16(entry.method.rawValue)
        bytes.u16(entry.modified.dosTime)
        bytes.u16(entry.modified.dosDate)
        bytes.u32(0)
        bytes.u32(entry.zip64Local ? UInt32(maxUInt32) : 0)
        bytes.u32(entry.zip64Local ? UInt32(maxUInt32) : 0)
        bytes.u16(UInt16(entry.name.count))
        var extra = timestampExtra(entry.modified)
        if entry.zip64Local {
            extra.u16(0x0001)
            extra.u16(16)
            extra.u64(0)
            extra.u64(0)
        }
        bytes.u16(UInt16(extra.bytes.count))
        bytes.append(entry.name)
        bytes.append(extra.bytes)
        return bytes.bytes
    }

    /// APPNOTE 4.3.9: signature, CRC-32, then sizes of 4 bytes, or 8 for ZIP64 entries.
    static func dataDescriptor(_ entry: Entry) -> [UInt8] {
        var bytes = ZipBytes()
        bytes.u32(0x0807_4b50)
        bytes.u32(entry.crc)
        if entry.zip64Local {
            bytes.u64(entry.compressedSize)
            bytes.u64(entry.uncompressedSize)
        } else {
            bytes.u32(UInt32(entry.compressedSize))
            bytes.u32(UInt32(entry.uncompressedSize))
        }
        return bytes.bytes
    }

    /// APPNOTE 4.3.12, with a ZIP64 extra (4.5.3) holding, in this order, exactly the
    /// fields whose 32-bit slot says 0xFFFFFFFF.
    static func centralDirectoryHeader(_ entry: Entry) -> [UInt8] {
        let bigUncompressed = entry.uncompressedSize >= maxUInt32
        let bigCompressed = entry.compressedSize >= maxUInt32
        let bigOffset = entry.localHeaderOffset >= maxUInt32
        let zip64 = bigUncompressed || bigCompressed || bigOffset
        var extra = timestampExtra(entry.modified)
        if zip64 {
            extra.u16(0x0001)
            extra.u16(UInt16(8 * ((bigUncompressed ? 1 : 0) + (bigCompressed ? 1 : 0) + (bigOffset ? 1 : 0))))
            if bigUncompressed { extra.u64(entry.uncompressedSize) }
            if bigCompressed { extra.u64(entry.compressedSize) }
            if bigOffset { extra.u64(entry.localHeaderOffset) }
        }
        var bytes = ZipBytes()
        bytes.u32(0x0201_4b50)
        bytes.u16(madeByUnix)
        bytes.u16(zip64 || entry.zip64Local ? version45 : version20)
        bytes.u16(entry.flags)
        bytes.u16(entry.method.rawValue)
        bytes.u16(entry.modified.dosTime)
        bytes.u16(entry.modified.dosDate)
        bytes.u32(entry.crc)
        bytes.u32(UInt32(min(entry.compressedSize, maxUInt32)))
        bytes.u32(UInt32(min(entry.uncompressedSize, maxUInt32)))
        bytes.u16(UInt16(entry.name.count))
        bytes.u16(UInt16(extra.bytes.count))
        bytes.u16(0)
        bytes.u16(0)
        bytes.u16(0)
        // UNIX mode in the high half; 0x10 is the MS-DOS directory bit.
        bytes.u32(entry.isDirectory ? (0o040755 << 16) | 0x10 : 0o100644 << 16)
        bytes.u32(UInt32(min(entry.localHeaderOffset, maxUInt32)))
        bytes.append(entry.name)
        bytes.append(extra.bytes)
        return bytes.bytes
    }

    /// The ZIP64 end of central directory record and locator (APPNOTE 4.3.14, 4.3.15) when
    /// any count, size or offset overflows its classic field, then the classic end record
    /// (4.3.16) with 0xFFFF/0xFFFFFFFF in the overflowing fields.
    static func endOfCentralDirectory(entryCount: Int, directorySize: UInt64, directoryOffset: UInt64) -> [UInt8] {
        var bytes = ZipBytes()
        let manyEntries = entryCount >= maxUInt16
        let needsZip64 = manyEntries || directorySize >= maxUInt32 || directoryOffset >= maxUInt32
        if needsZip64 {
            let zip64EndOffset = directoryOffset + directorySize
            bytes.u32(0x0606_4b50)
            bytes.u64(44)
            bytes.u16(madeByUnix)
            bytes.u16(version45)
            bytes.u32(0)
            bytes.u32(0)
            bytes.u64(UInt64(entryCount))
            bytes.u64(UInt64(entryCount))
            bytes.u64(directorySize)
            bytes.u64(directoryOffset)
            bytes.u32(0x0706_4b50)
            bytes.u32(0)
            bytes.u64(zip64EndOffset)
            bytes.u32(1)
        }
        let count = UInt16(min(entryCount, maxUInt16))
        bytes.u32(0x0605_4b50)
        bytes.u16(0)
        bytes.u16(0)
        bytes.u16(count)
        bytes.u16(count)
        bytes.u32(UInt32(min(directorySize, maxUInt32)))
        bytes.u32(UInt32(min(directoryOffset, maxUInt32)))
        bytes.u16(0)
        return bytes.bytes
    }

    /// The "extended timestamp" extra (0x5455, Info-ZIP): the exact UTC modification time,
    /// which unzip and Python prefer to the local-time-less DOS fields.
    private static func timestampExtra(_ time: ZipTimestamp) -> ZipBytes {
        var extra = ZipBytes()
        extra.u16(0x5455)
        extra.u16(5)
        extra.bytes.append(1)
        extra.u32(time.unixSeconds)
        return extra
    }
}

/// Little-endian field writer (APPNOTE 4.4: "All values are stored in little-endian byte order").
struct ZipBytes {
    var bytes: [UInt8] = []

    mutating func u16(_ value: UInt16) {
        bytes.append(UInt8(truncatingIfNeeded: value))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
    }

    mutating func u32(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    mutating func u64(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    mutating func append(_ other: [UInt8]) {
        bytes.append(contentsOf: other)
    }
}
