import Testing

@testable import FiledropCore
@testable import FiledropHTTP

@Suite struct FileNamePolicyTests {
    let policy = FileNamePolicy()

    private func rejection(_ body: () throws(HTTPError) -> Any) -> String? {
        do {
            _ = try body()
            return nil
        } catch {
            #expect(error.status == .badRequest)
            return error.message
        }
    }

    // MARK: storedName

    @Test(arguments: [
        ("a.txt", "a.txt"),
        (#"C:\Users\x\a.txt"#, "a.txt"),
        ("dir/sub/a.txt", "a.txt"),
        ("../../etc/passwd", "passwd"),
        ("/etc/passwd", "passwd"),
        ("x..%2f..%2fpasswd", "x..%2f..%2fpasswd"),
        ("C:\\x", "x"),
        ("  spaced.txt. . ", "spaced.txt"),
        ("e\u{301}te\u{301}.txt", "été.txt"),
        ("line\nbreak\u{7F}\u{85}.txt", "line_break__.txt"),
        ("photo\u{202E}gpj.exe", "photo_gpj.exe"),
        ("say \"hi\".txt", "say \"hi\".txt"),
        ("😀.bin", "😀.bin"),
        ("50%20off.txt", "50%20off.txt"),
    ])
    func clientNamesBecomeOneSafeName(_ client: String, _ stored: String) throws {
        #expect(try policy.storedName(from: client) == stored)
    }

    @Test(arguments: [
        "", ".", "..", "...", "dir/", #"a\"#, "   ", "a\0b.txt", ".hidden", "dir/.env", ".filedrop-tmp-1", ".FileDrop", ". .txt",
        "..%2f..%2fpasswd",
    ])
    func unusableClientNamesAreRefused(_ client: String) {
        #expect(rejection { () throws(HTTPError) in try policy.storedName(from: client) } != nil)
    }

    @Test func hiddenNamesOnlyWhenAllowedAndReservedNeverAre() throws {
        let permissive = FileNamePolicy(allowHidden: true)
        #expect(try permissive.storedName(from: ".hidden") == ".hidden")
        #expect(try permissive.storagePath(fromRelative: ".config/app") == StoragePath(checkedComponents: [".config", "app"]))
        #expect(
            rejection { () throws(HTTPError) in try permissive.storedName(from: ".filedrop-tmp") }
                == "Names starting with \".filedrop\" are reserved for the server's own files.")
        #expect(rejection { () throws(HTTPError) in try permissive.storagePath(fromRelative: "a/.filedrop/b") } != nil)
        #expect(
            rejection { () throws(HTTPError) in try policy.storedName(from: ".hidden") }
                == "The name \".hidden\" starts with a dot, which makes it hidden; this server does not accept hidden names.")
    }

    @Test func nulIsNamedAndControlCharactersAreEscapedInMessages() {
        #expect(
            rejection { () throws(HTTPError) in try policy.storedName(from: "a\0.txt") }
                == "A file name must not contain a NUL character.")
        #expect(
            rejection { () throws(HTTPError) in try policy.storagePath(fromRelative: "x\ny") }
                == "The name \"x\\u{A}y\" contains a control character.")
    }

    @Test func longNamesAreShortenedKeepingExtensionAndWholeCharacters() throws {
        let atLimit = String(repeating: "a", count: 251) + ".txt"
        #expect(try policy.storedName(from: atLimit) == atLimit)
        let over = String(repeating: "a", count: 252) + ".txt"
        #expect(try policy.storedName(from: over) == String(repeating: "a", count: 251) + ".txt")

        // 100 × "é" (2 bytes) + "€" (3 bytes) ... 300 bytes of multibyte text: never cut inside a character.
        let multibyte = String(repeating: "é€", count: 60) + ".pdf"
        let stored = try policy.storedName(from: multibyte)
        #expect(stored.utf8.count <= 255 && stored.utf8.count >= 250)
        #expect(stored.hasSuffix(".pdf") && stored.hasPrefix("é€é€"))
        #expect(String(validating: Array(stored.utf8), as: UTF8.self) == stored)

        let flags = String(repeating: "🇫🇷", count: 40)
        let storedFlags = try policy.storedName(from: flags)
        #expect(storedFlags == String(repeating: "🇫🇷", count: 31))

        let zalgo = "Z" + String(repeating: "\u{301}", count: 200)
        let storedZalgo = try policy.storedName(from: zalgo)
        #expect(storedZalgo.utf8.count <= 255 && storedZalgo.unicodeScalars.first == "\u{179}", "NFC composes Z + acute")
    }

    // MARK: storagePath

    @Test func relativePathsOfNormalComponents() throws {
        #expect(try policy.storagePath(fromRelative: "") == .root)
        #expect(try policy.storagePath(fromRelative: "photos/2024/a b.jpg").components == ["photos", "2024", "a b.jpg"])
        #expect(try policy.storagePath(fromRelative: "photos/").components == ["photos"])
        #expect(try policy.storagePath(fromRelative: "cafe\u{301}/x").components == ["café", "x"])
        #expect(try policy.storagePath(fromComponents: ["a", "b c"]).description == "a/b c")
    }

    @Test(arguments: [
        "../../etc/passwd", "a/../b", "./a", "a//b", "/etc/passwd", "a\\b", #"C:\x"#, "a\0b", "a/b\u{1}",
        "x\u{202E}gpj.exe", ".hidden/a", "a/.filedrop-state", "..", "a/./b", "//",
    ])
    func abnormalPathsAreRefused(_ path: String) {
        #expect(rejection { () throws(HTTPError) in try policy.storagePath(fromRelative: path) } != nil)
    }

    @Test func decodedSlashInsideOneComponentIsRefused() throws {
        let decoded = try #require(percentDecoded("..%2f..%2fetc" as Substring))
        #expect(
            rejection { () throws(HTTPError) in try policy.storagePath(fromComponents: [decoded]) }
                == "The name \"../../etc\" must not contain \"/\" or \"\\\".")
    }

    @Test func depthLengthAndComponentLimits() throws {
        let deep = Array(repeating: "d", count: FileNamePolicy.maxDepth)
        #expect(try policy.storagePath(fromComponents: deep).components.count == 32)
        #expect(
            rejection { () throws(HTTPError) in try policy.storagePath(fromComponents: deep + ["d"]) }
                == "The path is more than 32 folders deep.")

        let name255 = String(repeating: "n", count: 255)
        #expect(try policy.storagePath(fromComponents: [name255]).name == name255)
        #expect(rejection { () throws(HTTPError) in try policy.storagePath(fromComponents: [name255 + "n"]) } != nil)

        // 3 × 255 + 254 + 4 separators + "x" = 1024 bytes; one more byte is over the limit.
        let long = Array(repeating: name255, count: 3) + [String(repeating: "n", count: 254)]
        #expect(try policy.storagePath(fromComponents: long + ["x"]).components.count == 5)
        #expect(
            rejection { () throws(HTTPError) in try policy.storagePath(fromComponents: long + ["xy"]) }
                == "The path is longer than 1024 bytes.")
    }

    // MARK: collisionCandidates

    @Test func collisionCandidatesKeepTheExtension() {
        #expect(Array(policy.collisionCandidates(for: "a.txt").prefix(3)) == ["a.txt", "a (1).txt", "a (2).txt"])
        #expect(Array(policy.collisionCandidates(for: "archive.tar.gz").prefix(2)) == ["archive.tar.gz", "archive (1).tar.gz"])
        #expect(Array(policy.collisionCandidates(for: "README").prefix(2)) == ["README", "README (1)"])
        #expect(Array(policy.collisionCandidates(for: ".env").prefix(2)) == [".env", ".env (1)"])
        #expect(
            Array(policy.collisionCandidates(for: "notes. final draft").prefix(2)) == [
                "notes. final draft", "notes. final draft (1)",
            ])
    }

    @Test func collisionCandidatesAreBoundedAndFit255Bytes() {
        let candidates = Array(policy.collisionCandidates(for: String(repeating: "€", count: 83) + ".txt"))
        #expect(candidates.count == FileNamePolicy.maxCollisionCandidates)
        #expect(candidates.allSatisfy { $0.utf8.count <= 255 && $0.hasSuffix(").txt") || $0 == candidates[0] })
        #expect(candidates.last?.hasSuffix(" (9999).txt") == true)
        #expect(Set(candidates).count == candidates.count)
    }
}
