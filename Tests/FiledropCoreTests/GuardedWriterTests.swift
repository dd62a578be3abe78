import Testing

@testable import FiledropCore
@testable import FiledropHTTP
@testable import FiledropTesting

/// Form parts, PUT bodies and tus PATCHes write through the one `GuardedWriter`: the same
/// refusal at the same point for every kind, whether free space is short before the file
/// opens, runs out mid-body, or the size limit is passed.
@Suite struct GuardedWriterTests {
    typealias Server = TusHandlerTests.Server

    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case form, put, tus
        var testDescription: String { rawValue }
    }

    static let minFree: UInt64 = 1 << 20
    static let body = [UInt8](repeating: 0x5A, count: 9 << 20)

    static func server(maxUploadSize: UInt64? = nil) -> Server {
        Server {
            $0.minFreeSpace = Self.minFree
            $0.maxUploadSize = maxUploadSize
        }
    }

    /// Sends `body` as one upload of `kind` in 1 MiB pieces; a tus upload is created first.
    static func upload(_ kind: Kind, _ body: [UInt8], to server: Server, before: () -> Void = {}) -> Response {
        let pieces = max(1, body.count >> 20)
        switch kind {
        case .form:
            before()
            var multipart = Array("--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.bin\"\r\n\r\n".utf8)
            multipart += body + Array("\r\n--XyZ--\r\n".utf8)
            return server.send(
                .post, "/upload", ["Content-Type": "multipart/form-data; boundary=XyZ"], body: multipart, pieces: pieces)
        case .put:
            before()
            return server.send(.put, "/files/big.bin", body: body, pieces: pieces)
        case .tus:
            let created = server.create(length: UInt64(body.count), name: "big.bin")
            // Refused from the head (413): the same answer a PUT's Content-Length gets.
            guard let location = created.headers["location"] else { return created }
            before()
            return server.patch(location, offset: 0, body, pieces: pieces)
        }
    }

    @Test(arguments: Kind.allCases)
    func freeSpaceRunningOutMidBodyIs507AtTheFirstCheckAndNothingIsPublished(kind: Kind) {
        let server = Self.server()
        // Someone else fills the disk once the first MiB is in.
        server.storage.state.withLock { $0.spaceDrop = (after: 1 << 20, to: Self.minFree - 1) }
        let response = Self.upload(kind, Self.body, to: server)
        #expect(response.status == .insufficientStorage)
        #expect(server.storage.files.isEmpty, "nothing published")
        #expect(server.storage.pendingUploads == 0)
        let queries = server.storage.state.withLock { $0.spaceQueries }
        #expect(queries.dropLast().allSatisfy { $0 == 0 }, "before open: \(queries)")
        let interval = StoragePolicy.defaultSpaceCheckInterval
        #expect(queries.last.map { $0 >= interval && $0 < interval + (1 << 20) } == true, "mid-body, every interval: \(queries)")
        if kind == .tus {
            #expect(FiledropAppUploadTests.bodyText(response).contains("kept at byte \(interval)"))
            #expect(server.area.ids().count == 1, "kept for a resume, unpublished")
        }
    }

    @Test(arguments: Kind.allCases)
    func tooLittleFreeSpaceIsRefusedBeforeTheFileOpensWithTheSameAnswer(kind: Kind) {
        let server = Self.server()
        let response = Self.upload(kind, Array("small".utf8), to: server) {
            server.storage.state.withLock { $0.freeSpace = Self.minFree - 1 }
        }
        #expect(response.status == .insufficientStorage)
        #expect(FiledropAppUploadTests.bodyText(response).contains("The server's disk is too full for this upload."))
        #expect(server.storage.files.isEmpty)
        #expect(server.storage.state.withLock { $0.written } == 0, "refused before any byte was written")
    }

    @Test(arguments: Kind.allCases)
    func theSizeLimitStopsEveryKindOneByteOver(kind: Kind) {
        let atLimit = Self.server(maxUploadSize: 4)
        #expect(Self.upload(kind, Array("1234".utf8), to: atLimit).status.code / 100 == 2)
        let over = Self.server(maxUploadSize: 4)
        let refused = Self.upload(kind, Array("12345".utf8), to: over)
        #expect(refused.status == .contentTooLarge || (kind == .form && FiledropAppUploadTests.bodyText(refused).contains("413")))
        #expect(over.storage.files.isEmpty)
    }

    @Test func noMidBodyCheckWithoutAMinimumToKeep() {
        let server = Server { $0.minFreeSpace = 0 }
        server.storage.state.withLock { $0.spaceDrop = (after: 1 << 20, to: 0) }
        #expect(Self.upload(.put, Self.body, to: server).status == .created)
        #expect(server.storage.state.withLock { $0.spaceQueries } == [0], "only the check before open")
    }
}
