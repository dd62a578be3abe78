import Foundation
import Testing
@testable import FiledropCore

/// A throughput micro-check, not a test of speed: it asserts only that the bytes came out,
/// and prints MB/s. Run it in release mode:
/// `FILEDROP_BENCH=1 swift test -c release --filter MultipartThroughputCheck`
@Suite(.enabled(if: ProcessInfo.processInfo.environment["FILEDROP_BENCH"] == "1"))
struct MultipartThroughputCheck {
    @Test(arguments: ["binary", "text with CRLF lines"])
    func parseOneGiBOfPayload(_ kind: String) {
        let chunkSize = 1 << 20
        var generator = SystemRandomNumberGenerator()
        var chunk = (0..<chunkSize).map { _ in UInt8.random(in: 0...255, using: &generator) }
        if kind != "binary" {
            // 80-byte lines ending in CRLF: a CR every 80 bytes makes the delimiter check run often.
            for index in chunk.indices {
                let column = index % 80
                chunk[index] = column == 78 ? 0x0D : column == 79 ? 0x0A : 0x61 + UInt8(column % 26)
            }
        }
        let boundary = "----WebKitFormBoundaryrBIqlYShzUxVU5YK"
        let head = Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"f\"; filename=\"big\"\r\n\r\n".utf8)
        var parser = MultipartParser(boundary: boundary)
        var payloadBytes = 0
        func feed(_ bytes: [UInt8]) {
            bytes.withUnsafeBytes { buffer in
                var offset = 0
                while true {
                    let step = parser.parse(UnsafeRawBufferPointer(rebasing: buffer[offset...]))
                    offset += step.consumed
                    switch step.event {
                    case .data(let range): payloadBytes += range.count
                    case .dataFromTail(let held): payloadBytes += held.count
                    case .needMore: return
                    default: break
                    }
                }
            }
        }
        feed(head)
        let rounds = 1024
        let elapsed = ContinuousClock().measure {
            for _ in 0..<rounds { feed(chunk) }
        }
        feed(Array("\r\n--\(boundary)--\r\n".utf8))
        #expect(parser.finish() == nil)
        #expect(payloadBytes == rounds * chunkSize)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print("multipart \(kind): \(rounds) MiB in \(seconds) s = \(Int(Double(rounds * chunkSize) / seconds / 1e6)) MB/s")
    }
}
