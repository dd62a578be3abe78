import Foundation
import Glibc
import Testing

@testable import FiledropCore
@testable import FiledropIO

/// How fast a 1 GiB upload lands, against `dd conv=fsync` on the same disk. Figures only,
/// no assertions on time: run with `FILEDROP_BENCH=1 swift test --filter StorageThroughput`.
@Suite(
    "Storage throughput",
    .enabled(if: ProcessInfo.processInfo.environment["FILEDROP_BENCH"] == "1", "set FILEDROP_BENCH=1 to measure")
)
struct StorageThroughputTests {
    static let total = 1 << 30
    static let writeSize = 256 << 10

    /// Label, write options, and whether the upload is durable (the policy's fsync switch).
    static let configurations: [(String, StorageOptions, Bool)] = [
        ("fsync off", StorageOptions(), false),
        ("fsync on, no early write-back", StorageOptions(writebackChunk: 0), true),
        ("fsync on, write-back every 2 MiB", StorageOptions(writebackChunk: 2 << 20), true),
        ("fsync on, write-back every 8 MiB", StorageOptions(writebackChunk: 8 << 20), true),
        ("fsync on, write-back every 32 MiB", StorageOptions(writebackChunk: 32 << 20), true),
    ]

    @Test("1 GiB in 256 KiB writes through PosixStorage, and dd for comparison")
    func oneGibibyte() throws {
        let block = (0..<Self.writeSize).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        for (label, options, durable) in Self.configurations {
            let fixture = try SaveDirectoryFixture(options: options)
            // Each run starts with no dirty pages left over from the one before.
            sync()
            let clock = ContinuousClock()
            let start = clock.now
            let upload = try fixture.storage.createUpload(in: .root, checksummed: true, durable: durable)
            try block.withUnsafeBytes { buffer in
                for _ in 0..<(Self.total / Self.writeSize) {
                    try upload.write(buffer)
                    if upload.writebackDue { try upload.paceWriteback() }
                }
            }
            let written = clock.now
            try upload.publish(as: "big.bin", replacing: false, durable: durable)
            let end = clock.now
            print("storage throughput: \(label): \(Self.rate(end - start)) (writes \(written - start), publish \(end - written))")
        }
        let fixture = try SaveDirectoryFixture()
        sync()
        let clock = ContinuousClock()
        let start = clock.now
        try SaveDirectoryFixture.run("/bin/dd", "if=/dev/zero", "of=\(fixture.path)/dd.bin", "bs=1M", "count=1024", "conv=fsync")
        print("storage throughput: dd bs=1M conv=fsync: \(Self.rate(clock.now - start))")
    }

    static func rate(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return "\(Int(Double(total >> 20) / seconds)) MiB/s in \(duration)"
    }
}
