import Testing

@testable import FiledropCore
@testable import FiledropHTTP

/// `storagePath(fromURLPath:)` must decide exactly as splitting, percent-decoding and
/// `storagePath(fromComponents:)` do, whichever of its two paths (plain bytes or general)
/// a URL takes: the same components, or the same refusal with the same words.
@Suite struct FileNamePolicyURLPathTests {
    /// The definition: cut at `/` (empty parts dropped), decode each part, check the list.
    static func reference(_ policy: FileNamePolicy, _ subpath: Substring) throws(HTTPError) -> StoragePath {
        var decoded: [String] = []
        for component in FileNamePolicy.urlPathComponents(subpath) {
            guard let text = percentDecoded(component) else { throw .badRequest("The path is not valid percent-encoded UTF-8.") }
            decoded.append(text)
        }
        return try policy.storagePath(fromComponents: decoded)
    }

    static func outcome(_ body: () throws(HTTPError) -> StoragePath) -> Result<[String], HTTPError> {
        do {
            return .success(try body().components)
        } catch {
            return .failure(error)
        }
    }

    static let name255 = String(repeating: "n", count: 255)

    static let paths: [String] = [
        "", "/", "small.bin", "a/b/c.txt", "a//b", "a/", "//a//", "a b.txt", "a+b", "x~y!$&'()*,;=:@",
        ".", "..", "a/../b", "a/./b", "%2e%2e/x", ".hidden", "a/.hidden", ".filedrop-upload", ".FILEDROP",
        "a%2Fb", "a%2fb", "a\\b", "a%5Cb", "%ZZ", "a%2", "%00", "a%01b", "a\u{1}b", "a\u{7F}b",
        "caf%C3%A9", "cafe%CC%81", "cafe\u{301}", "caf\u{E9}/x", "/\u{301}a", "%E2%80%AEgpj.exe", "%FF",
        "a.txt.", " lead", "trail ", "percent%25.txt",
        name255, name255 + "n", name255 + "/x", "%6E" + String(repeating: "n", count: 254),
        Array(repeating: "d", count: 32).joined(separator: "/"),
        Array(repeating: "d", count: 33).joined(separator: "/"),
        // 3 × 255 + 254 + 4 separators + 1 = 1024 bytes, then one over.
        [name255, name255, name255, String(repeating: "n", count: 254), "x"].joined(separator: "/"),
        [name255, name255, name255, String(repeating: "n", count: 254), "xy"].joined(separator: "/"),
    ]

    @Test(arguments: paths, [false, true])
    func sameDecisionAsTheDefinition(_ path: String, allowHidden: Bool) {
        let policy = FileNamePolicy(allowHidden: allowHidden)
        let subpath = Substring(path)
        let fast = Self.outcome { () throws(HTTPError) in try policy.storagePath(fromURLPath: subpath) }
        let slow = Self.outcome { () throws(HTTPError) in try Self.reference(policy, subpath) }
        switch (fast, slow) {
        case (.success(let a), .success(let b)): #expect(a == b)
        case (.failure(let a), .failure(let b)): #expect(a.status == b.status && a.message == b.message)
        default: Issue.record("\(path.debugDescription): \(fast) vs \(slow)")
        }
    }

    @Test func plainNamesAreTakenAsTheyAre() throws {
        #expect(try FileNamePolicy().storagePath(fromURLPath: "photos/2024/a b.jpg").components == ["photos", "2024", "a b.jpg"])
        #expect(try FileNamePolicy().storagePath(fromURLPath: "/x//y/").components == ["x", "y"])
        #expect(try FileNamePolicy().storagePath(fromURLPath: "") == .root)
    }

    @Test func escapesAndTraversalAreDecidedByTheGeneralPath() throws {
        let policy = FileNamePolicy()
        #expect(try policy.storagePath(fromURLPath: "a%20b/caf%C3%A9").components == ["a b", "café"])
        #expect(throws: HTTPError.self) { try policy.storagePath(fromURLPath: "..%2F..%2Fetc") }
        #expect(throws: HTTPError.self) { try policy.storagePath(fromURLPath: "a/../b") }
        #expect(throws: HTTPError.self) { try policy.storagePath(fromURLPath: ".ssh/id") }
        #expect(try FileNamePolicy(allowHidden: true).storagePath(fromURLPath: ".ssh/id").components == [".ssh", "id"])
        #expect(throws: HTTPError.self) { try FileNamePolicy(allowHidden: true).storagePath(fromURLPath: ".filedrop-x") }
    }
}
