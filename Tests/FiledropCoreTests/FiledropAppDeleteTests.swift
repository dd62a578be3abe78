import Testing

@testable import FiledropCore
@testable import FiledropTesting

/// `DELETE /files/<path>`: refused unless `allow-delete`, and never on a read-only server.
@Suite struct FiledropAppDeleteTests {
    typealias Upload = FiledropAppUploadTests

    static func stored(_ configure: (inout Configuration) -> Void) -> (FiledropApp, InMemoryStorage) {
        let (app, storage) = Upload.makeApp(configure)
        storage.state.withLock { $0.files[StoragePath(checkedComponents: ["keep.txt"])] = Array("x".utf8) }
        return (app, storage)
    }

    @Test func offByDefault() {
        let (app, storage) = Self.stored { _ in }
        let response = Upload.send(app, Upload.head(.delete, "/files/keep.txt"))
        #expect(response.status == .methodNotAllowed)
        #expect(response.headers["allow"] == "GET, HEAD, PUT")
        #expect(storage.files.count == 1)
    }

    @Test func removesWhenAllowed() {
        let (app, storage) = Self.stored { $0.allowDelete = true }
        #expect(Upload.send(app, Upload.head(.delete, "/files/keep.txt")).status == .noContent)
        #expect(storage.files.isEmpty)
        #expect(Upload.send(app, Upload.head(.delete, "/files/keep.txt")).status == .notFound)
    }

    @Test func readOnlyWins() {
        let (app, storage) = Self.stored {
            $0.allowDelete = true
            $0.access = .readOnly
        }
        #expect(Upload.send(app, Upload.head(.delete, "/files/keep.txt")).status == .forbidden)
        #expect(storage.files.count == 1)
    }

    @Test(arguments: ["/files/../keep.txt", "/files/%2E%2E/keep.txt", "/files/a%2Fb"])
    func traversalIsRefused(target: String) {
        let (app, storage) = Self.stored { $0.allowDelete = true }
        let status = Upload.send(app, Upload.head(.delete, target)).status
        #expect(status == .badRequest || status == .notFound || status == .forbidden)
        #expect(storage.files.count == 1)
    }
}
