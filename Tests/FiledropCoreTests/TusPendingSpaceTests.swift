import Testing

@testable import FiledropCore
@testable import FiledropHTTP
@testable import FiledropTesting

/// `tus-max-pending` with requests in flight: the room a request is granted is reserved
/// under one lock (the registry's) before the next request is checked, so two deferred-length
/// PATCHes can no longer both pass the check and together exceed the limit.
@Suite struct TusPendingSpaceTests {
    typealias Server = TusHandlerTests.Server

    static func patchHeaders(offset: UInt64, _ extra: HTTPHeaders) -> HTTPHeaders {
        var headers: HTTPHeaders = [
            "Tus-Resumable": "1.0.0", "Upload-Offset": String(offset), "Content-Type": "application/offset+octet-stream",
        ]
        for (name, value) in extra { headers.add(name: name, value: value) }
        return headers
    }

    /// Starts a PATCH and leaves it receiving: its body has not arrived yet.
    static func startPatch(_ server: Server, _ location: String, _ extra: HTTPHeaders) throws -> any RequestBodyConsumer {
        guard case .readBody(let consumer) = server.route(.patch, location, patchHeaders(offset: 0, extra)).resolvedInline()
        else {
            throw Refused()
        }
        return consumer
    }

    struct Refused: Error {}

    @Test(arguments: [["Content-Length": "600"], ["Transfer-Encoding": "chunked"]] as [HTTPHeaders])
    func twoConcurrentDeferredPatchesCannotBothPass(framing: HTTPHeaders) throws {
        let server = Server { $0.tusMaxPending = 1000 }
        let first = try #require(server.create(length: nil, name: "a.bin").headers["location"])
        let second = try #require(server.create(length: nil, name: "b.bin").headers["location"])
        let writing = try Self.startPatch(server, first, framing)
        // The first PATCH has reserved its room but written nothing yet: the second is
        // refused from its head (Content-Length) or at its first byte (chunked).
        let refused = RequestDriver.send(server.route(.patch, second, Self.patchHeaders(offset: 0, framing)), body: [1])
        #expect(refused.status == .insufficientStorage)
        let bytes = [UInt8](repeating: 7, count: 600)
        #expect(RequestDriver.offer(bytes, to: writing) == nil)
        #expect(writing.finish(trailers: HTTPHeaders()).resolvedInline().status == .noContent)
        #expect(server.offset(first) == "600")
        // Done writing, the first holds what it wrote: 400 bytes of room are left.
        #expect(server.patch(second, offset: 0, [UInt8](repeating: 1, count: 401)).status == .insufficientStorage)
        #expect(server.patch(second, offset: 0, [UInt8](repeating: 1, count: 400)).status == .noContent)
    }

    @Test func twoDeferredLengthsArrivingAtOnceCannotBothFit() throws {
        let server = Server { $0.tusMaxPending = 1000 }
        let first = try #require(server.create(length: nil, name: "a.bin").headers["location"])
        let second = try #require(server.create(length: nil, name: "b.bin").headers["location"])
        let writing = try Self.startPatch(server, first, ["Upload-Length": "600", "Content-Length": "1"])
        let refused = RequestDriver.send(
            server.route(.patch, second, Self.patchHeaders(offset: 0, ["Upload-Length": "600", "Content-Length": "1"])),
            body: [1])
        #expect(refused.status == .insufficientStorage)
        writing.abort()
        #expect(server.patch(second, offset: 0, [1], extra: ["Upload-Length": "400"]).status == .noContent)
    }

    @Test func anAbortedDeferredPatchGivesItsRoomBack() throws {
        let server = Server { $0.tusMaxPending = 1000 }
        let first = try #require(server.create(length: nil, name: "a.bin").headers["location"])
        let second = try #require(server.create(length: nil, name: "b.bin").headers["location"])
        let writing = try Self.startPatch(server, first, ["Transfer-Encoding": "chunked"])
        #expect(RequestDriver.offer([1, 2, 3], to: writing) == nil)
        writing.abort()
        #expect(server.patch(second, offset: 0, [UInt8](repeating: 1, count: 997)).status == .noContent)
        #expect(server.patch(second, offset: 997, [1]).status == .insufficientStorage, "the first keeps its 3 bytes")
    }
}
