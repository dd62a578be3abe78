import Testing

@testable import FiledropCore

@Suite struct QRCodeTests {
    /// A 2x2 symbol: dark on the diagonal.
    let code = QRCode(size: 2, modules: [true, false, false, true])

    @Test func svgHasOnePathSquarePerDarkModuleInsideTheQuietZone() {
        let svg = code.svg
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 6 6\""))
        #expect(svg.contains("d=\"M2 2h1v1h-1zM3 3h1v1h-1z\""))
    }

    @Test func terminalTextDrawsTwoRowsPerLineWithTheQuietZone() {
        let lines = code.terminalText.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        // 2 modules + 2 * 2 quiet zone = 6 rows -> 3 lines of 6 columns.
        #expect(lines.count == 3)
        #expect(lines.allSatisfy { $0.count == 6 })
        #expect(lines[0] == "██████")
        // Row 2 has the dark module at column 2, row 3 at column 3: upper-half and lower-half gaps.
        #expect(lines[1] == "██▄▀██")
    }
}
