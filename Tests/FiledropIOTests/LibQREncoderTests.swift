import FiledropCore
import Testing

@testable import FiledropIO

@Suite struct LibQREncoderTests {
    @Test func shortURLIsAVersionOneOrTwoSymbolWithFinderPatterns() throws {
        let code = try #require(LibQREncoder().encode("http://192.168.1.20:8080/"))
        #expect([21, 25].contains(code.size))
        // The three 7x7 finder patterns: dark outer ring corners, light ring inside.
        for (row, column) in [(0, 0), (0, code.size - 7), (code.size - 7, 0)] {
            #expect(code.isDark(row: row, column: column))
            #expect(code.isDark(row: row + 6, column: column + 6))
            #expect(!code.isDark(row: row + 1, column: column + 1))
            #expect(code.isDark(row: row + 3, column: column + 3))
        }
    }
}
