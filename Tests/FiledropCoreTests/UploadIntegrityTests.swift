import Testing

@testable import FiledropCore
@testable import FiledropHTTP
@testable import FiledropTesting

/// Issue 21 in memory, with `ByteSumHashing` standing in for libcrypto: every kind of upload
/// records its hash with the file and reports it; a client's wrong digest publishes nothing;
/// tus keeps its running hash from PATCH to PATCH and reads the file once only when it lost it.
@Suite struct UploadIntegrityTests {
    static let content = Array("The quick brown fox jumps over the lazy dog, twice: the quick brown fox".utf8)
    static let path = StoragePath(checkedComponents: ["fox.txt"])

    static func server(
        _ configure: (inout Configuration) -> Void = { _ in }, storage: InMemoryStorage = InMemoryStorage(),
        tusUploads: TusUploads? = nil
    ) -> InMemoryServer {
        var configuration = Configuration()
        configuration.fsync = false
        configure(&configuration)
        return InMemoryServer(configuration: configuration, storage: storage, tusUploads: tusUploads, hashing: ByteSumHashing())
    }

    static func put(_ server: InMemoryServer, _ headers: HTTPHeaders = [:], body: [UInt8] = content, pieces: Int = 1) -> Response
    {
        var all: HTTPHeaders = ["Accept": "application/json", "Content-Length": String(body.count)]
        for (name, value) in headers { all.add(name: name, value: value) }
        return server.send(InMemoryServer.head(.put, "/files/fox.txt", all), body: body, pieces: pieces)
    }

    static func reprDigest(_ body: [UInt8]) -> String {
        SHA256Text.reprDigest(SHA256Text.bytes(hex: ByteSumHashing.hex(body))!)
    }

    @Test(arguments: [1, 7, 71])
    func putRecordsAndReportsTheHashWhateverTheSplit(pieces: Int) {
        let server = Self.server()
        let response = Self.put(server, pieces: pieces)
        #expect(response.status == .created)
        let hex = ByteSumHashing.hex(Self.content)
        #expect(InMemoryServer.text(response).contains("\"sha256\":\"\(hex)\""))
        #expect(response.headers[.reprDigest] == Self.reprDigest(Self.content))
        #expect(server.storage.recordedSHA256(Self.path) == hex)
    }

    @Test func aMatchingReprDigestOrDigestIsAccepted() {
        let server = Self.server()
        #expect(Self.put(server, ["Repr-Digest": "sha-512=:AAAA:, " + Self.reprDigest(Self.content)]).status == .created)
        let legacy = "SHA-256=" + Base64.encode(SHA256Text.bytes(hex: ByteSumHashing.hex(Self.content))!)
        #expect(Self.put(server, ["Digest": legacy]).status == .created)
        #expect(server.storage.files.count == 2, "the second one renamed")
    }

    @Test(arguments: ["Repr-Digest", "Digest"])
    func aWrongDigestIs400AndPublishesNothing(field: String) {
        let server = Self.server()
        let wrong = SHA256Text.bytes(hex: ByteSumHashing.hex(Array("other".utf8)))!
        let value = field == "Digest" ? "sha-256=" + Base64.encode(wrong) : SHA256Text.reprDigest(wrong)
        var headers = HTTPHeaders()
        headers.add(name: field, value: value)
        let response = Self.put(server, headers)
        #expect(response.status == .badRequest)
        #expect(InMemoryServer.text(response).contains("SHA-256"))
        #expect(server.storage.files.isEmpty)
        #expect(server.storage.pendingUploads == 0)
    }

    @Test(arguments: ["sha-256=:AAAA:", "sha-256=abc", "sha-256=:not base64!:"])
    func anUnreadableDigestIsRefusedBeforeTheBody(value: String) {
        let server = Self.server()
        let response = server.answer(InMemoryServer.head(.put, "/files/fox.txt", ["Content-Length": "3", "Repr-Digest": value]))
        #expect(response?.status == .badRequest)
    }

    @Test func clientDigestsOfOtherAlgorithmsAreIgnored() throws {
        #expect(try ClientDigest.expectedSHA256(["Repr-Digest": "sha-512=:AAAA:"]) == nil)
        #expect(try ClientDigest.expectedSHA256(["Digest": "MD5=AAAA"]) == nil)
        #expect(try ClientDigest.expectedSHA256([:]) == nil)
    }

    @Test func multipartReportsEachFilesHash() {
        let server = Self.server()
        let body = Array(
            "--b\r\nContent-Disposition: form-data; name=\"f\"; filename=\"a.txt\"\r\n\r\nfirst\r\n--b\r\nContent-Disposition: form-data; name=\"f\"; filename=\"b.txt\"\r\n\r\nsecond file\r\n--b--\r\n"
                .utf8)
        let head = InMemoryServer.head(
            .post, "/upload",
            [
                "Accept": "application/json", "Content-Type": "multipart/form-data; boundary=b",
                "Content-Length": String(body.count),
            ])
        let response = server.send(head, body: body, pieces: 5)
        #expect(response.status == .created)
        let text = InMemoryServer.text(response)
        #expect(text.contains("\"sha256\":\"\(ByteSumHashing.hex(Array("first".utf8)))\""))
        #expect(text.contains("\"sha256\":\"\(ByteSumHashing.hex(Array("second file".utf8)))\""))
        #expect(
            server.storage.recordedSHA256(StoragePath(checkedComponents: ["b.txt"]))
                == ByteSumHashing.hex(Array("second file".utf8)))
    }

    @Test func offRecordsNothingAndIgnoresClientDigests() {
        let server = Self.server { $0.sha256 = false }
        let response = Self.put(server, ["Repr-Digest": Self.reprDigest(Array("other".utf8))])
        #expect(response.status == .created)
        #expect(!InMemoryServer.text(response).contains("sha256"))
        #expect(response.headers[.reprDigest] == nil)
        #expect(server.storage.recordedSHA256(Self.path) == nil)
    }

    @Test func sha256QueryAnswersInSha256sumFormOr404() {
        let server = Self.server()
        _ = Self.put(server)
        let answer = server.answer(InMemoryServer.head(.get, "/files/fox.txt?sha256"))
        #expect(answer?.status == .ok)
        #expect(InMemoryServer.text(answer) == "\(ByteSumHashing.hex(Self.content))  fox.txt\n")
        #expect(server.answer(InMemoryServer.head(.get, "/files/other.txt?sha256"))?.status == .notFound)
    }

    @Test func sha256sumLinesEscapeAsGNUDoes() {
        #expect(SHA256Answer.line(sha256: "ab", name: "a b.txt") == "ab  a b.txt\n")
        #expect(SHA256Answer.line(sha256: "ab", name: "a\nb\\c") == "\\ab  a\\nb\\\\c\n")
    }

    @Test func theJSONListingCarriesRecordedHashes() {
        let server = Self.server()
        _ = Self.put(server)
        let listing = server.send(InMemoryServer.head(.get, "/files/?format=json"))
        #expect(InMemoryServer.text(listing).contains("\"sha256\":\"\(ByteSumHashing.hex(Self.content))\""))
        let page = server.send(InMemoryServer.head(.get, "/files/"))
        #expect(!InMemoryServer.text(page).contains(ByteSumHashing.hex(Self.content)))
    }

    @Test func theWriterPausesForAHasherThatFellBehind() throws {
        let storage = InMemoryStorage()
        let file = try storage.createUpload(in: .root, checksummed: false, durable: false)
        let stream = ByteSumHashing.Stream(behindEvery: 100)
        var configuration = Configuration()
        configuration.fsync = false
        var writer = GuardedWriter(
            sink: file, policy: StoragePolicy(configuration: configuration), storage: storage, startingAt: 0,
            limit: SizeLimit(bytes: .max, refusal: .contentTooLarge(limit: .max)), digest: stream)
        try Self.content.withUnsafeBytes { try writer.write($0) }
        let early = writer.pause()
        #expect(early == nil, "71 bytes: not behind yet")
        try Self.content.withUnsafeBytes { try writer.write($0) }
        let due = writer.pause()
        let pause = try #require(due)
        pause.work.run()
        try pause.then()
        #expect(stream.waits == 1)
        #expect(stream.bytesFed == UInt64(2 * Self.content.count))
    }

    // MARK: tus

    /// A tus server on `area`: made again for a restart, as the daemon rebuilds it.
    static func tusServer(_ area: InMemoryPartialUploadArea) -> InMemoryServer {
        server(storage: area.storage, tusUploads: TusUploads(area: area, digests: ByteSumDigests(), clock: { 0 }))
    }

    static func tus(_ server: InMemoryServer, _ method: HTTPMethod, _ target: String, _ headers: HTTPHeaders, body: [UInt8] = [])
        -> Response
    {
        var all: HTTPHeaders = ["Tus-Resumable": "1.0.0", "Content-Length": String(body.count)]
        for (name, value) in headers { all.add(name: name, value: value) }
        return server.send(InMemoryServer.head(method, target, all), body: body)
    }

    static func create(_ server: InMemoryServer) throws -> String {
        let created = tus(
            server, .post, "/files/",
            ["Upload-Length": String(content.count), "Upload-Metadata": "filename " + Base64.encode("fox.txt".utf8)])
        return try #require(created.headers[.location])
    }

    static func patch(_ server: InMemoryServer, _ location: String, from: Int, to: Int, _ extra: HTTPHeaders = [:]) -> Response {
        var headers: HTTPHeaders = ["Upload-Offset": String(from), "Content-Type": "application/offset+octet-stream"]
        for (name, value) in extra { headers.add(name: name, value: value) }
        return tus(server, .patch, location, headers, body: Array(content[from..<to]))
    }

    @Test func tusKeepsItsRunningHashFromPatchToPatch() throws {
        let area = InMemoryPartialUploadArea(storage: InMemoryStorage())
        let server = Self.tusServer(area)
        let location = try Self.create(server)
        #expect(Self.patch(server, location, from: 0, to: 30).status == .noContent)
        let last = Self.patch(server, location, from: 30, to: Self.content.count)
        #expect(last.status == .noContent)
        #expect(last.headers[.reprDigest] == Self.reprDigest(Self.content))
        #expect(area.storage.recordedSHA256(Self.path) == ByteSumHashing.hex(Self.content))
        #expect(area.rehashes.load(ordering: .relaxed) == 0, "hashed as it streamed, never read back")
    }

    @Test func afterARestartTusReadsThePartialFileOnce() throws {
        let area = InMemoryPartialUploadArea(storage: InMemoryStorage())
        let location = try Self.create(Self.tusServer(area))
        #expect(Self.patch(Self.tusServer(area), location, from: 0, to: 30).status == .noContent)
        let restarted = Self.tusServer(area)
        #expect(Self.patch(restarted, location, from: 30, to: 50).status == .noContent)
        #expect(Self.patch(restarted, location, from: 50, to: Self.content.count).status == .noContent)
        #expect(area.storage.recordedSHA256(Self.path) == ByteSumHashing.hex(Self.content))
        #expect(area.rehashes.load(ordering: .relaxed) == 1)
    }

    @Test func aChunkRefusedByItsChecksumIsNotInTheHash() throws {
        let area = InMemoryPartialUploadArea(storage: InMemoryStorage())
        let server = Self.tusServer(area)
        let location = try Self.create(server)
        #expect(Self.patch(server, location, from: 0, to: 30).status == .noContent)
        let refused = Self.patch(
            server, location, from: 30, to: Self.content.count, ["Upload-Checksum": "sum8 " + Base64.encode([0])])
        #expect(refused.status.code == 460)
        #expect(area.storage.files.isEmpty)
        #expect(Self.patch(server, location, from: 30, to: Self.content.count).status == .noContent)
        #expect(area.storage.recordedSHA256(Self.path) == ByteSumHashing.hex(Self.content))
        #expect(area.rehashes.load(ordering: .relaxed) == 1)
    }
}
