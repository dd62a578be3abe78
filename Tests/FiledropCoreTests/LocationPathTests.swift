import Testing

@testable import FiledropCore

/// `LocationPath`, the one builder of every `Location`: whatever a request's path holds, the
/// result is `/` or `/` followed by neither `/` nor `\`, so no browser resolves it to
/// another host, and a name the server stored comes back as the URL that serves it.
@Suite struct LocationPathTests {
    /// What a browser takes for another host (WHATWG URL: `\` is `/` in http and https):
    /// a path that starts with two of them.
    static func leavesTheHost(_ location: String) -> Bool {
        let bytes = Array(location.utf8.prefix(2))
        guard bytes.count == 2 else { return false }
        return bytes.allSatisfy { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "\\") }
    }

    static let hostilePaths = [
        "//evil.example/", "/\\evil.example/", "///evil.example/", "/%2F%2Fevil.example/", "/%5Cevil.example/",
        "/%5C%5Cevil.example", "/\\/evil.example", "/./evil.example", "/../evil.example", "/%2e%2e/%2e%2e//evil.example",
        "/.//evil.example", "//", "/", "///", "/%2F", "/%5C", "/%09/evil.example", "/ /evil.example",
    ]

    @Test(arguments: hostilePaths)
    func aRequestPathNeverLeavesTheHost(path: String) throws {
        let location = try #require(LocationPath(requestPath: path)).description
        #expect(location.hasPrefix("/"))
        #expect(!Self.leavesTheHost(location), "\(path) -> \(location)")
        #expect(!location.contains("\\"))
    }

    @Test func componentsAreDecodedOnceAndEncodedAsTheServerDoes() throws {
        #expect(LocationPath(requestPath: "//evil.example/")?.description == "/evil.example/")
        #expect(LocationPath(requestPath: "/\\evil.example/")?.description == "/%5Cevil.example/")
        #expect(LocationPath(requestPath: "/%2F%2Fevil.example/")?.description == "/%2F%2Fevil.example/")
        #expect(LocationPath(requestPath: "/%5Cevil.example/")?.description == "/%5Cevil.example/")
        #expect(LocationPath(requestPath: "/files/a%20b/c.txt")?.description == "/files/a%20b/c.txt")
        #expect(LocationPath(requestPath: "/files/sub%20dir/")?.description == "/files/sub%20dir/")
        #expect(LocationPath(requestPath: "/files/%F0%9F%98%80.bin")?.description == "/files/%F0%9F%98%80.bin")
        #expect(LocationPath(requestPath: "/index.html")?.description == "/index.html")
        #expect(LocationPath(requestPath: "/")?.description == "/")
    }

    /// A malformed escape or bytes that are not UTF-8 have no normalised form: the caller
    /// falls back to a path of its own (the front page).
    @Test(arguments: ["/%ZZ", "/files/%", "/%FF", "*", "", "evil.example"])
    func whatDoesNotDecodeIsNil(path: String) {
        #expect(LocationPath(requestPath: path) == nil)
    }

    @Test func storedNamesBecomeTheirURLs() {
        #expect(LocationPath(components: ["files", "a b", "c.txt"]).description == "/files/a%20b/c.txt")
        #expect(LocationPath(components: ["files", "dir"], isFolder: true).description == "/files/dir/")
        #expect(LocationPath(components: ["files"], isFolder: true).description == "/files/")
        #expect(LocationPath(components: ["files", "a/b", "\\c", "50%"]).description == "/files/a%2Fb/%5Cc/50%25")
        #expect(LocationPath(components: ["", ".", "..", "x"]).description == "/x")
        #expect(LocationPath(components: [String]()).description == "/")
        #expect(LocationPath(components: [String](), isFolder: true).description == "/")
        #expect(LocationPath.root.description == "/")
    }
}
