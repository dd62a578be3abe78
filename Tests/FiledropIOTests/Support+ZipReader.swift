@testable import FiledropIO

/// A strict reader for the archives `ZipStream` writes: follows the end records (ZIP64 when
/// present) to the central directory, then checks every local header, data descriptor and
/// CRC-32 against it. Anything inconsistent is an error naming what.
struct ZipReader {
    struct Entry: Equatable {
        var name: String
        var method: UInt16
        var flags: UInt16
        var contents: [UInt8]
        var usedZip64: Bool
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let bytes: [UInt8]
    private(set) var entries: [Entry] = []
    private(set) var usedZip64EndRecord = false

    init(_ bytes: [UInt8]) throws {
        self.bytes = bytes
        try read()
    }

    func u16(_ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
    func u32(_ at: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(bytes[at + $1]) << (8 * $1) } }
    func u64(_ at: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(bytes[at + $1]) << (8 * $1) } }

    private func require(_ condition: Bool, _ what: @autoclosure () -> String) throws {
        if !condition { throw Failure(description: what()) }
    }

    private mutating func read() throws {
        let end = bytes.count - 22
        try require(end >= 0 && u32(end) == 0x0605_4b50, "no end of central directory record at the very end")
        var count = UInt64(u16(end + 10))
        var size = UInt64(u32(end + 12))
        var start = UInt64(u32(end + 16))
        if count == 0xFFFF || size == 0xFFFF_FFFF || start == 0xFFFF_FFFF {
            let locator = end - 20
            try require(u32(locator) == 0x0706_4b50, "ZIP64 end locator missing")
            let record = Int(u64(locator + 8))
            try require(u32(record) == 0x0606_4b50, "ZIP64 end record missing")
            try require(record + 56 == locator, "ZIP64 end record not right before the locator")
            count = u64(record + 32)
            size = u64(record + 40)
            start = u64(record + 48)
            usedZip64EndRecord = true
        }
        try require(
            Int(start + size) == (usedZip64EndRecord ? end - 20 - 56 : end), "central directory does not end at the end records")
        var at = Int(start)
        for _ in 0..<count {
            try require(u32(at) == 0x0201_4b50, "central header signature at \(at)")
            let flags = u16(at + 8)
            let method = u16(at + 10)
            let crc = u32(at + 16)
            var compressed = UInt64(u32(at + 20))
            var uncompressed = UInt64(u32(at + 24))
            let nameLength = Int(u16(at + 28))
            let extraLength = Int(u16(at + 30))
            let commentLength = Int(u16(at + 32))
            var offset = UInt64(u32(at + 42))
            let nameBytes = Array(bytes[(at + 46)..<(at + 46 + nameLength)])
            var extra = at + 46 + nameLength
            let extraEnd = extra + extraLength
            var zip64 = false
            while extra < extraEnd {
                let tag = u16(extra)
                let length = Int(u16(extra + 2))
                if tag == 0x0001 {
                    zip64 = true
                    var field = extra + 4
                    if uncompressed == 0xFFFF_FFFF {
                        uncompressed = u64(field)
                        field += 8
                    }
                    if compressed == 0xFFFF_FFFF {
                        compressed = u64(field)
                        field += 8
                    }
                    if offset == 0xFFFF_FFFF {
                        offset = u64(field)
                        field += 8
                    }
                    try require(field == extra + 4 + length, "ZIP64 extra length")
                }
                extra += 4 + length
            }
            at = extraEnd + commentLength
            try require(flags & (1 << 11) != 0, "UTF-8 flag missing")
            let local = Int(offset)
            try require(u32(local) == 0x0403_4b50, "local header signature")
            try require(Array(bytes[(local + 30)..<(local + 30 + nameLength)]) == nameBytes, "local name differs")
            try require(u16(local + 6) == flags && u16(local + 8) == method, "local flags or method differ")
            let localZip64 = u32(local + 18) == 0xFFFF_FFFF
            let data = local + 30 + nameLength + Int(u16(local + 28))
            let stored = Array(bytes[data..<(data + Int(compressed))])
            if flags & (1 << 3) != 0 {
                let descriptor = data + Int(compressed)
                try require(u32(descriptor) == 0x0807_4b50, "data descriptor signature")
                try require(u32(descriptor + 4) == crc, "descriptor CRC")
                let sizes =
                    localZip64
                    ? (u64(descriptor + 8), u64(descriptor + 16)) : (UInt64(u32(descriptor + 8)), UInt64(u32(descriptor + 12)))
                try require(sizes == (compressed, uncompressed), "descriptor sizes")
            }
            let contents: [UInt8]
            switch method {
            case 0: contents = stored
            case 8: contents = try inflated(stored, windowBits: -15) ?? { throw Failure(description: "inflate failed") }()
            default: throw Failure(description: "method \(method)")
            }
            try require(UInt64(contents.count) == uncompressed, "uncompressed size")
            try require(CRC32.checksum(contents) == crc, "CRC-32 of \(String(decoding: nameBytes, as: UTF8.self))")
            entries.append(
                Entry(
                    name: String(decoding: nameBytes, as: UTF8.self), method: method, flags: flags, contents: contents,
                    usedZip64: zip64 || localZip64))
        }
    }
}
