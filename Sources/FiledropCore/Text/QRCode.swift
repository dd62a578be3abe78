/// A QR code as a square of dark and light modules, drawn for a terminal or as SVG. The
/// encoding itself is libqrencode's (behind `QRCodeEncoder`), not ours.
public struct QRCode: Sendable, Equatable {
    public let size: Int
    /// Row-major, `size * size` modules; true is dark.
    public let modules: [Bool]

    public init(size: Int, modules: [Bool]) {
        precondition(modules.count == size * size, "a QR code is square")
        self.size = size
        self.modules = modules
    }

    /// The quiet zone the standard asks for around the symbol, in modules.
    static let quietZone = 2

    public func isDark(row: Int, column: Int) -> Bool {
        guard (0..<size).contains(row), (0..<size).contains(column) else { return false }
        return modules[row * size + column]
    }

    /// Two module rows per text line with half blocks, as `qrencode -t UTF8` draws them:
    /// light modules (and the quiet zone) are blocks, dark ones the terminal's background,
    /// which reads right on the usual dark terminal.
    public var terminalText: String {
        let range = -Self.quietZone..<(size + Self.quietZone)
        var text = ""
        for top in stride(from: range.lowerBound, to: range.upperBound, by: 2) {
            for column in range {
                let upper = !isDark(row: top, column: column)
                let lower = !isDark(row: top + 1, column: column) || top + 1 >= range.upperBound
                let block =
                    switch (upper, lower) {
                    case (true, true): "█"
                    case (true, false): "▀"
                    case (false, true): "▄"
                    case (false, false): " "
                    }
                text += block
            }
            text += "\n"
        }
        return text
    }

    /// A standalone SVG, one path for all dark modules; scales crisply to any size.
    public var svg: String {
        let extent = size + 2 * Self.quietZone
        var path = ""
        for row in 0..<size {
            for column in 0..<size where isDark(row: row, column: column) {
                path += "M\(column + Self.quietZone) \(row + Self.quietZone)h1v1h-1z"
            }
        }
        return "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(extent) \(extent)\" shape-rendering=\"crispEdges\">"
            + "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/><path fill=\"#000\" d=\"\(path)\"/></svg>\n"
    }
}

/// Turns text (a URL) into a QR code; nil when it cannot (too long).
public protocol QRCodeEncoder: Sendable {
    func encode(_ text: String) -> QRCode?
}
