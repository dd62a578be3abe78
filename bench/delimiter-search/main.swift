import FiledropCore

/// Times `MultipartParser.parse` on the payload of one large file part, the hot loop of a
/// `curl -F` upload. Built and run by `scripts/bench-core.sh delimiter-search`, with the unit
/// tests' `SeededGenerator` (Tests/FiledropTesting/SeededGenerator.swift) compiled in.
///
/// The payload is fed in 256 KiB pieces, as the daemon's receive buffer holds them: each
/// piece is copied into one buffer first (so it sits in cache, as after `recv`) and only
/// the `parse` calls are timed. Every piece is new data for the branch predictor: the
/// payload is 256 MiB, and a piece comes round again only in the next pass. Each piece's
/// best time over the passes is summed, which drops other processes' interference.
@main
enum DelimiterSearchBenchmark {
    static let boundary = "------------------------d74496d66958873e"
    static let pieceSize = 256 << 10

    static func main() {
        let arguments = CommandLine.arguments.dropFirst().compactMap(Int.init)
        let mebibytes = arguments.first ?? 256
        let passes = arguments.dropFirst().first ?? 5
        var generator = SeededGenerator(state: 0x9E37_79B9_7F4A_7C15)
        let size = mebibytes << 20
        let random = (0..<size / 8).flatMap { _ in withUnsafeBytes(of: generator.next()) { Array($0) } }
        print("\(mebibytes) MiB per payload, \(pieceSize >> 10) KiB pieces, best of \(passes) passes per piece")
        report("random bytes", bytes: size, seconds: time(random, passes: passes))
        report("CSV text, CR LF lines", bytes: size, seconds: time(csv(size, using: &generator), passes: passes))
    }

    /// Lines like a log or a CSV export: dates, numbers, words, a CR LF every 30-150 bytes.
    static func csv(_ size: Int, using generator: inout SeededGenerator) -> [UInt8] {
        let fields = ["2026-11-30T12:34:56Z", "GET", "/index.html", "200", "Mozilla/5.0 (X11)", "-", "alpha beta",
                      "e3b0c442", "0.125", "error", "info", "\"quoted, field\""]
        var text: [UInt8] = []
        text.reserveCapacity(size + 200)
        while text.count < size {
            for field in 0..<Int.random(in: 3...10, using: &generator) {
                if field > 0 { text.append(UInt8(ascii: ",")) }
                text += fields.randomElement(using: &generator)!.utf8
                text += String(generator.next() % 100_000).utf8
            }
            text += [0x0D, 0x0A]
        }
        return Array(text.prefix(size))
    }

    /// Seconds spent parsing the payload, summed over pieces (each piece's best pass).
    static func time(_ payload: [UInt8], passes: Int) -> Double {
        let pieces = payload.count / pieceSize
        var best = [Duration](repeating: .seconds(1_000), count: pieces)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: pieceSize, alignment: 64)
        defer { buffer.deallocate() }
        let clock = ContinuousClock()
        let head = Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"x\"\r\n\r\n".utf8)
        for _ in 0..<passes {
            var parser = MultipartParser(boundary: boundary)
            var payloadBytes = 0
            head.withUnsafeBytes { payloadBytes += drain(&parser, $0) }
            payload.withUnsafeBytes { all in
                for piece in 0..<pieces {
                    buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: all[piece * pieceSize..<(piece + 1) * pieceSize]))
                    let start = clock.now
                    payloadBytes += drain(&parser, UnsafeRawBufferPointer(buffer))
                    best[piece] = min(best[piece], clock.now - start)
                }
            }
            // Bytes held back at the end of the last piece make up the difference.
            precondition(payloadBytes <= payload.count && payloadBytes > payload.count - boundary.utf8.count - 4,
                         "the payload was not passed through as one part")
        }
        let total = best.reduce(Duration.zero, +)
        return Double(total.components.seconds) + Double(total.components.attoseconds) * 1e-18
    }

    /// Parses all of `bytes`; returns the payload bytes handed out.
    static func drain(_ parser: inout MultipartParser, _ bytes: UnsafeRawBufferPointer) -> Int {
        var offset = 0
        var payload = 0
        while true {
            let step = parser.parse(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
            offset += step.consumed
            switch step.event {
            case .needMore: return payload
            case .data(let range): payload += range.count
            case .dataFromTail(let held): payload += held.count
            case .partBegan: break
            case .partEnded, .end, .failed: preconditionFailure("unexpected \(step.event)")
            }
        }
    }

    static func report(_ name: String, bytes: Int, seconds: Double) {
        let nanosecondsPerByte = seconds * 1e9 / Double(bytes)
        let secondsPerGiB = nanosecondsPerByte * Double(1 << 30) / 1e9
        print("\(name): \(rounded(nanosecondsPerByte, 4)) ns/byte, \(rounded(1 / nanosecondsPerByte, 1)) GB/s, \(rounded(secondsPerGiB, 3)) s per GiB")
    }

    /// `value` with `places` decimals, without Foundation's formatting or libm.
    static func rounded(_ value: Double, _ places: Int) -> String {
        var scale = 1
        for _ in 0..<places { scale *= 10 }
        let units = Int(value * Double(scale) + 0.5)
        let fraction = String(units % scale)
        return "\(units / scale).\(String(repeating: "0", count: places - fraction.count))\(fraction)"
    }
}
