import FiledropCore

/// Micro-benchmark for the hot path of every request: parse a Chromium-shaped head and decide
/// its framing, as the connection does. Built and run by `scripts/bench-core.sh head-parser`.
@main
enum HeadParserBenchmark {
    static let head = Array((
        "GET /files/holiday%20photos/ HTTP/1.1\r\n" +
        "Host: 192.168.1.20:8080\r\n" +
        "Connection: keep-alive\r\n" +
        "Upgrade-Insecure-Requests: 1\r\n" +
        "User-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36\r\n" +
        "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8\r\n" +
        "Accept-Encoding: gzip, deflate\r\n" +
        "Accept-Language: en-US,en;q=0.9\r\n\r\n"
    ).utf8)

    static func main() throws {
        let iterations = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 1_000_000
        var parser = HTTPHeadParser(limits: HTTPLimits())
        var bodyless = 0
        let clock = ContinuousClock()
        let elapsed = try clock.measure {
            for _ in 0..<iterations {
                parser.reset()
                guard case .complete(let request, _) = head.withUnsafeBytes({ parser.parse($0) }) else {
                    fatalError("benchmark head did not parse")
                }
                if try BodyFraming.of(request).framing == .none { bodyless += 1 }
            }
        }
        let nanoseconds = elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
        let perHead = nanoseconds / Int64(iterations)
        print("\(iterations) heads of \(head.count) bytes: \(perHead) ns per head, \(1_000_000_000 / max(perHead, 1)) heads/s (\(bodyless) without body)")
    }
}
