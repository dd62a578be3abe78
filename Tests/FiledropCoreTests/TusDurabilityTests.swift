import Synchronization
import Testing

@testable import FiledropCore
@testable import FiledropHTTP
@testable import FiledropTesting

/// What a tus upload is once every byte is in: published before the 204 that says so, kept
/// (and published by a retry, a HEAD or the next start) when saving fails for a reason that
/// may pass, deleted only when no retry can help; and refusals that leave no trace.
@Suite struct TusDurabilityTests {
    typealias Server = TusHandlerTests.Server
    static let content = Array("0123456789".utf8)
    static let path = StoragePath(checkedComponents: ["a.bin"])

    /// Every event the monitor logged.
    final class RecordingLog: LogSink, Sendable {
        private let events = Mutex<[LogEvent]>([])
        func log(_ event: LogEvent) { events.withLock { $0.append(event) } }
        var kinds: [LogEventKind] { events.withLock { $0.map(\.kind) } }
        var messages: [String] { events.withLock { $0.map(\.message) } }
    }

    static let patchHeaders: HTTPHeaders = ["Tus-Resumable": "1.0.0", "Content-Type": "application/offset+octet-stream"]

    @Test func theLastPatchPublishesOnAWorkerBeforeIts204AndHeadDoesNotWait() throws {
        let server = Server()
        let location = try #require(server.create(length: 10).headers["location"])
        var headers = Self.patchHeaders
        headers.add(name: "Upload-Offset", value: "0")
        headers.add(name: "Content-Length", value: "10")
        // The partial file opens on a worker first: run that inline.
        guard case .readBody(let patch) = server.route(.patch, location, headers).resolvedInline() else {
            Issue.record("PATCH refused")
            return
        }
        #expect(RequestDriver.offer(Self.content, to: patch) == nil)
        guard case .after(let work, let then) = patch.finish(trailers: HTTPHeaders()) else {
            Issue.record("the publish did not go to a worker")
            return
        }
        // Handed out, not run yet: still invisible, and the upload answers without waiting.
        #expect(server.storage.files.isEmpty)
        let status = server.send(.head, location, ["Tus-Resumable": "1.0.0"])
        #expect(status.status == .ok)
        #expect(status.headers["upload-offset"] == "10")
        #expect(server.patch(location, offset: 10, []).status.code == 423, "nobody else may finish it meanwhile")
        #expect(server.send(.delete, location, ["Tus-Resumable": "1.0.0"]).status.code == 423)
        work.run()
        #expect(server.storage.files[Self.path] == Self.content, "published by the work, before the answer")
        guard case .ready(let response) = then() else {
            Issue.record("more work after publishing")
            return
        }
        #expect(response.status == .noContent)
        #expect(server.area.ids().isEmpty)
    }

    @Test func fsyncRunsWithoutTheUploadsLockHeld() throws {
        let server = Server { $0.fsync = true }
        let location = try #require(server.create(length: 10).headers["location"])
        let offsetDuringSync = Mutex<String?>(nil)
        // A loop thread asking HEAD while a worker fsyncs: it would deadlock here if the
        // fsync ran under the upload's mutex.
        server.area.duringSynchronize = {
            offsetDuringSync.withLock { $0 = server.send(.head, location, ["Tus-Resumable": "1.0.0"]).headers["upload-offset"] }
        }
        #expect(server.patch(location, offset: 0, Array(Self.content[..<4])).status == .noContent)
        #expect(offsetDuringSync.withLock { $0 } == "4")
    }

    /// The last PATCH fsyncs the partial file under its lock and publishes under the same
    /// lock: the publish does not sync the bytes again. One found complete at start-up (the
    /// daemon died before its fsync, maybe) is synced when it is published.
    @Test func onlyBytesFsyncedUnderTheHeldLockSkipASecondFsync() throws {
        let server = Server { $0.fsync = true }
        let location = try #require(server.create(length: 10).headers["location"])
        #expect(server.patch(location, offset: 0, Self.content).status == .noContent)
        #expect(server.storage.files[Self.path] == Self.content)
        #expect(server.area.adoptedBytesOnDisk.withLock { $0 } == [true])

        let recovered = Server { $0.fsync = true }
        _ = try Self.leaveCompleteUpload(in: recovered)
        recovered.restart()
        #expect(recovered.storage.files[Self.path] == Self.content)
        #expect(recovered.area.adoptedBytesOnDisk.withLock { $0 } == [false])
    }

    @Test func withoutFsyncNothingClaimsTheBytesAreOnDisk() throws {
        let server = Server()
        let location = try #require(server.create(length: 10).headers["location"])
        #expect(server.patch(location, offset: 0, Self.content).status == .noContent)
        #expect(server.area.adoptedBytesOnDisk.withLock { $0 } == [false])
    }

    @Test(arguments: [
        (StorageError.permissionDenied, 503), (.io(call: "renameat2", errno: 5), 503), (.noSpace, 507), (.readOnly, 507),
    ])
    func aFailedPublishKeepsTheDataAndAnEmptyPatchFinishesIt(failure: StorageError, status: Int) throws {
        let server = Server()
        let location = try #require(server.create(length: 10).headers["location"])
        #expect(server.patch(location, offset: 0, Array(Self.content[..<4])).status == .noContent)
        server.storage.state.withLock { $0.publishFailure = failure }
        let last = server.patch(location, offset: 4, Array(Self.content[4...]))
        #expect(last.status.code == status)
        let text = FiledropAppUploadTests.bodyText(last)
        #expect(text.contains("The upload is complete and kept on the server, but could not be saved under its name"))
        #expect(text.contains("retry to finish it"))
        #expect(!text.contains("discarded"))
        let id = try #require(server.area.ids().first)
        #expect(server.area.bytes(id) == Self.content, "the partial file is intact")
        #expect(server.storage.files.isEmpty)
        #expect(server.offset(location) == nil, "HEAD tries to save it too, and says it failed")
        #expect(server.patch(location, offset: 10, []).status.code == status, "still failing, still kept")
        #expect(server.area.bytes(id) == Self.content)

        server.storage.state.withLock { $0.publishFailure = nil }
        let retry = server.patch(location, offset: 10, [])
        #expect(retry.status == .noContent)
        #expect(retry.headers["upload-offset"] == "10")
        #expect(server.storage.files[Self.path] == Self.content)
        #expect(server.area.ids().isEmpty)
        #expect(server.offset(location) == "10")
    }

    @Test func headPublishesAnUploadWhosePublishFailedBefore() throws {
        let server = Server()
        let location = try #require(server.create(length: 10).headers["location"])
        server.storage.state.withLock { $0.publishFailure = .permissionDenied }
        #expect(server.patch(location, offset: 0, Self.content).status == .serviceUnavailable)
        server.storage.state.withLock { $0.publishFailure = nil }
        let status = server.send(.head, location, ["Tus-Resumable": "1.0.0"])
        #expect(status.status == .ok)
        #expect(status.headers["upload-offset"] == "10")
        #expect(status.headers["upload-length"] == "10")
        #expect(server.storage.files[Self.path] == Self.content)
        #expect(server.area.ids().isEmpty)
    }

    @Test func aPublishNoRetryCanHelpDiscardsAndSaysSo() throws {
        let server = Server { $0.onCollision = .reject }
        server.storage.state.withLock { $0.files[Self.path] = Array("old".utf8) }
        let location = try #require(server.create(length: 10).headers["location"])
        let last = server.patch(location, offset: 0, Self.content)
        #expect(last.status == .conflict)
        #expect(FiledropAppUploadTests.bodyText(last).contains("was discarded"))
        #expect(server.area.ids().isEmpty)
        #expect(server.storage.files[Self.path] == Array("old".utf8))
    }

    @Test func diskFullDuringAPatchSaysTheUploadIsKept() throws {
        let server = Server()
        let location = try #require(server.create(length: 10).headers["location"])
        server.area.appendFailure = .noSpace
        let full = server.patch(location, offset: 0, Array(Self.content[..<4]) + Array(Self.content[4...]), pieces: 2)
        #expect(full.status == .insufficientStorage)
        #expect(FiledropAppUploadTests.bodyText(full).contains("kept at byte 0"))
        #expect(!FiledropAppUploadTests.bodyText(full).contains("discarded"))
        server.area.appendFailure = nil
        #expect(server.patch(location, offset: 0, Self.content).status == .noContent)
        #expect(server.storage.files[Self.path] == Self.content)
    }

    /// kill -9 between the last byte and the rename: the partial file holds every byte.
    static func leaveCompleteUpload(in server: Server) throws -> String {
        let location = try #require(server.create(length: 10).headers["location"])
        let id = String(try #require(location.split(separator: "/").last))
        try server.area.update(id) { $0.bytes = Self.content }
        return location
    }

    @Test func startUpPublishesAnUploadThatArrivedComplete() throws {
        let server = Server()
        let location = try Self.leaveCompleteUpload(in: server)
        server.restart()
        #expect(server.storage.files[Self.path] == Self.content)
        #expect(server.area.ids().isEmpty)
        let status = server.send(.head, location, ["Tus-Resumable": "1.0.0"])
        #expect(status.status == .ok)
        #expect(status.headers["upload-offset"] == "10")
        #expect(status.headers["upload-length"] == "10")
    }

    @Test func startUpKeepsACompleteUploadItCannotSaveAndHeadSavesItLater() throws {
        let server = Server()
        let location = try Self.leaveCompleteUpload(in: server)
        server.storage.state.withLock { $0.publishFailure = .permissionDenied }
        server.restart()
        #expect(server.app.publishCompleteTusUploads().kept.isEmpty == false)
        #expect(server.area.ids().count == 1)
        server.storage.state.withLock { $0.publishFailure = nil }
        #expect(server.offset(location) == "10")
        #expect(server.storage.files[Self.path] == Self.content)
    }

    @Test func headAloneSavesACompleteUploadAfterARestart() throws {
        let server = Server()
        let location = try Self.leaveCompleteUpload(in: server)
        server.restart(publishing: false)
        #expect(server.storage.files.isEmpty)
        #expect(server.offset(location) == "10")
        #expect(server.storage.files[Self.path] == Self.content)
    }

    // Admission before side effects.

    /// One upload of 10.0.0.1 holds its only slot (max-uploads-per-client 1).
    static func serverWithSlotTaken(_ log: RecordingLog) throws -> (Server, any RequestBodyConsumer) {
        let server = Server(log: log) { $0.maxUploadsPerClient = 1 }
        guard case .readBody(let holder) = server.route(.put, "/files/held.bin", ["Content-Length": "5"]).resolvedInline() else {
            throw Refused()
        }
        return (server, holder)
    }

    struct Refused: Error {}

    @Test func a429CreationLeavesNoRecordAndNoLogLine() throws {
        let log = RecordingLog()
        let (server, holder) = try Self.serverWithSlotTaken(log)
        let before = log.kinds
        let refused = server.send(
            .post, "/files/",
            [
                "Tus-Resumable": "1.0.0", "Upload-Length": "10",
                "Content-Type": "application/offset+octet-stream",
            ], body: Self.content)
        #expect(refused.status == .tooManyRequests)
        #expect(refused.headers["location"] == nil)
        #expect(server.area.ids().isEmpty)
        #expect(server.uploads.count == 0, "nothing counts against tus-max-per-client or tus-max-pending")
        #expect(log.kinds == before + [.uploadRefused], "one refusal: no upload started, no upload failed")
        holder.abort()
        #expect(server.create(length: 10).status == .created, "a creation without a body takes no slot")
        #expect(
            server.send(
                .post, "/files/",
                [
                    "Tus-Resumable": "1.0.0", "Upload-Length": "10",
                    "Content-Type": "application/offset+octet-stream",
                ], body: Self.content
            ).status == .created)
    }

    @Test func a429PatchStartsNothing() throws {
        let log = RecordingLog()
        let (server, holder) = try Self.serverWithSlotTaken(log)
        let location = try #require(server.create(length: 10).headers["location"])
        let before = log.kinds
        #expect(server.patch(location, offset: 0, Self.content).status == .tooManyRequests)
        #expect(log.kinds == before + [.uploadRefused])
        #expect(server.offset(location) == "0")
        holder.abort()
        #expect(server.patch(location, offset: 0, Self.content).status == .noContent)
        #expect(server.app.access.records.uploads.rememberedClients == 0, "every slot came back")
    }

    @Test func a429PutOpensNoFileAndLogsOnlyTheRefusal() throws {
        let log = RecordingLog()
        let (server, holder) = try Self.serverWithSlotTaken(log)
        let pending = server.storage.pendingUploads
        let before = log.kinds
        #expect(server.send(.put, "/files/b.bin", body: Self.content).status == .tooManyRequests)
        #expect(server.send(.post, "/upload?name=c.bin", body: Self.content).status == .tooManyRequests)
        #expect(server.storage.pendingUploads == pending, "no temp file was opened")
        #expect(log.kinds == before + [.uploadRefused, .uploadRefused], "one refusal each: nothing started, nothing failed")
        holder.abort()
    }

    @Test func aRefusalAfterAdmissionGivesTheSlotBack() throws {
        let server = Server { $0.maxUploadsPerClient = 1 }
        #expect(server.send(.put, "/files/.hidden", body: Self.content).status == .badRequest)
        #expect(server.send(.put, "/files/a.bin", body: Self.content).status == .created)
        #expect(server.app.access.records.uploads.rememberedClients == 0)
    }
}
