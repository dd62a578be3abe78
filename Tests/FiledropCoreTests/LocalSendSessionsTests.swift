import Testing

@testable import FiledropCore
@testable import FiledropHTTP

/// The session machine of LocalSend protocol v2.1 §4: time passes as numbers, nothing sleeps.
@Suite struct LocalSendSessionsTests {
    static let second: UInt64 = 1_000_000_000

    static func file(_ id: String, token: String = "t", size: UInt64 = 10) -> LocalSendSessions.File {
        LocalSendSessions.File(
            offer: LocalSendFileOffer(id: id, fileName: "\(id).bin", size: size), token: token + id,
            directory: .root, name: "\(id).bin")
    }

    static func started(_ files: [LocalSendSessions.File] = [file("a"), file("b")], client: String = "10.0.0.2")
        -> LocalSendSessions
    {
        var sessions = LocalSendSessions(idleTimeout: 60 * second)
        guard case .accepted = sessions.start(id: "s1", client: client, sender: "phone", files: files, now: 0) else {
            Issue.record("not accepted")
            return sessions
        }
        return sessions
    }

    @Test func everyFileSavedFinishesTheSession() {
        var sessions = Self.started()
        #expect(
            sessions.beginUpload(sessionId: "s1", fileId: "a", token: "ta", client: "10.0.0.2", now: 1)
                == .receive(
                    {
                        var file = Self.file("a")
                        file.state = .receiving
                        return file
                    }()))
        #expect(sessions.uploadEnded(sessionId: "s1", fileId: "a", saved: true, now: 2) == nil)
        guard case .receive = sessions.beginUpload(sessionId: "s1", fileId: "b", token: "tb", client: "10.0.0.2", now: 3) else {
            Issue.record("b refused")
            return
        }
        let finished = sessions.uploadEnded(sessionId: "s1", fileId: "b", saved: true, now: 4)
        #expect(finished?.saved == 2)
        #expect(sessions.active == nil)
    }

    @Test func anotherSenderIsBlockedWhileASessionIsActive() {
        var sessions = Self.started()
        #expect(sessions.start(id: "s2", client: "10.0.0.3", sender: "other", files: [Self.file("x")], now: 1) == .blocked)
        #expect(sessions.active?.id == "s1")
    }

    @Test func theSameSenderReplacesItsIdleSession() {
        var sessions = Self.started()
        guard
            case .accepted(let session, let previous) = sessions.start(
                id: "s2", client: "10.0.0.2", sender: "phone",
                files: [Self.file("x")], now: 1)
        else {
            Issue.record("not accepted")
            return
        }
        #expect(session.id == "s2" && previous?.id == "s1")
    }

    @Test func theSameSenderCannotReplaceASessionThatIsReceiving() {
        var sessions = Self.started()
        _ = sessions.beginUpload(sessionId: "s1", fileId: "a", token: "ta", client: "10.0.0.2", now: 1)
        #expect(sessions.start(id: "s2", client: "10.0.0.2", sender: "phone", files: [Self.file("x")], now: 2) == .blocked)
    }

    @Test func nothingToSendIs204AndStartsNothing() {
        var sessions = LocalSendSessions(idleTimeout: Self.second)
        #expect(sessions.start(id: "s", client: "c", sender: "p", files: [], now: 0) == .nothingToSend)
        #expect(sessions.active == nil)
    }

    @Test func wrongSessionTokenOrAddressIsRefused() {
        var sessions = Self.started()
        let refusals = [
            sessions.beginUpload(sessionId: "nope", fileId: "a", token: "ta", client: "10.0.0.2", now: 1),
            sessions.beginUpload(sessionId: "s1", fileId: "a", token: "tb", client: "10.0.0.2", now: 1),
            sessions.beginUpload(sessionId: "s1", fileId: "never-announced", token: "ta", client: "10.0.0.2", now: 1),
            sessions.beginUpload(sessionId: "s1", fileId: "a", token: "ta", client: "10.0.0.9", now: 1),
        ]
        for refusal in refusals {
            guard case .refused(let error) = refusal else {
                Issue.record("accepted: \(refusal)")
                continue
            }
            #expect(error.status == .forbidden)
        }
    }

    @Test func aSpentTokenIsRefusedAndAFileInFlightIsAConflict() {
        var sessions = Self.started()
        _ = sessions.beginUpload(sessionId: "s1", fileId: "a", token: "ta", client: "10.0.0.2", now: 1)
        guard
            case .refused(let busy) = sessions.beginUpload(sessionId: "s1", fileId: "a", token: "ta", client: "10.0.0.2", now: 1)
        else {
            Issue.record("a second upload of a file in flight was accepted")
            return
        }
        #expect(busy.status == .conflict)
        _ = sessions.uploadEnded(sessionId: "s1", fileId: "a", saved: true, now: 2)
        guard
            case .refused(let spent) = sessions.beginUpload(sessionId: "s1", fileId: "a", token: "ta", client: "10.0.0.2", now: 3)
        else {
            Issue.record("a spent token was accepted")
            return
        }
        #expect(spent.status == .forbidden)
    }

    @Test func aFailedUploadMayBeSentAgain() {
        var sessions = Self.started()
        _ = sessions.beginUpload(sessionId: "s1", fileId: "a", token: "ta", client: "10.0.0.2", now: 1)
        _ = sessions.uploadEnded(sessionId: "s1", fileId: "a", saved: false, now: 2)
        guard case .receive = sessions.beginUpload(sessionId: "s1", fileId: "a", token: "ta", client: "10.0.0.2", now: 3) else {
            Issue.record("the retry was refused")
            return
        }
    }

    @Test func anIdleSessionExpiresOneTickAfterItsTimeoutAndNotBefore() {
        var sessions = Self.started()
        #expect(sessions.expire(now: 60 * Self.second - 1) == nil)
        #expect(sessions.expire(now: 60 * Self.second)?.id == "s1")
        #expect(sessions.active == nil)
    }

    @Test func aSessionReceivingDoesNotExpire() {
        var sessions = Self.started()
        _ = sessions.beginUpload(sessionId: "s1", fileId: "a", token: "ta", client: "10.0.0.2", now: 1)
        #expect(sessions.expire(now: 3600 * Self.second) == nil)
        _ = sessions.uploadEnded(sessionId: "s1", fileId: "a", saved: true, now: 3600 * Self.second)
        #expect(sessions.expire(now: 3660 * Self.second - 1) == nil)
        #expect(sessions.expire(now: 3660 * Self.second)?.saved == 1)
    }

    @Test func cancelEndsTheSessionOnlyForItsSender() {
        var sessions = Self.started()
        #expect(sessions.cancel(sessionId: "s1", client: "10.0.0.3") == nil)
        #expect(sessions.cancel(sessionId: "other", client: "10.0.0.2") == nil)
        _ = sessions.beginUpload(sessionId: "s1", fileId: "a", token: "ta", client: "10.0.0.2", now: 1)
        #expect(sessions.cancel(sessionId: "s1", client: "10.0.0.2")?.id == "s1")
        #expect(!sessions.isReceiving(sessionId: "s1", fileId: "a"))
        #expect(sessions.uploadEnded(sessionId: "s1", fileId: "a", saved: true, now: 2) == nil)
    }
}

/// `prepare-upload`'s body (§4.1) and the accept policy in front of it.
@Suite struct LocalSendPrepareRequestTests {
    /// The specification's example request, its comments and trailing commas removed.
    static let specificationExample = #"""
        {"info": {"alias": "Nice Orange", "version": "2.0", "deviceModel": "Samsung", "deviceType": "mobile",
                  "fingerprint": "random string", "port": 53317, "protocol": "https", "download": true},
         "files": {"some file id": {"id": "some file id", "fileName": "my image.png", "size": 324242, "fileType": "image/jpeg",
                                    "sha256": null, "preview": "*preview data*",
                                    "metadata": {"modified": "2021-01-01T12:34:56Z", "accessed": "2021-01-01T12:34:56Z"}},
                   "another file id": {"id": "another file id", "fileName": "another image.jpg", "size": 1234,
                                       "fileType": "image/jpeg", "sha256": null, "preview": "*preview data*"}}}
        """#

    @Test func readsTheSpecificationsExample() throws {
        let request = try LocalSendPrepareRequest.parse(Array(Self.specificationExample.utf8))
        #expect(request.sender.alias == "Nice Orange")
        #expect(
            request.files == [
                LocalSendFileOffer(id: "another file id", fileName: "another image.jpg", size: 1234, fileType: "image/jpeg"),
                LocalSendFileOffer(id: "some file id", fileName: "my image.png", size: 324242, fileType: "image/jpeg"),
            ])
    }

    @Test(arguments: [
        #"{"files": {}}"#,
        #"{"info": {"alias": "a", "version": "2"}}"#,
        #"{"info": {"alias": "a", "version": "2"}, "files": {"x": {"fileName": "a", "size": -1}}}"#,
        #"{"info": {"alias": "a", "version": "2"}, "files": {"x": {"fileName": "a", "size": 1.5}}}"#,
        #"{"info": {"alias": "a", "version": "2"}, "files": {"x": {"size": 1}}}"#,
        #"{"info": {"alias": "a", "version": "2"}, "files": {"x": {"id": "y", "fileName": "a", "size": 1}}}"#,
        #"{"info": {"alias": "a", "version": "2"}, "files": {"x": {"fileName": "a", "size": 1, "sha256": "abc"}}}"#,
        #"{"info": {"alias": "a", "version": "2"}, "files": {"": {"fileName": "a", "size": 1}}}"#,
    ])
    func refusesInvalidBodies(_ body: String) {
        #expect(throws: LocalSendDevice.InvalidBody.self) { try LocalSendPrepareRequest.parse(Array(body.utf8)) }
    }

    @Test func refusesOneByteOverTheBodyLimit() throws {
        let head = #"{"info": {"alias": "a", "version": "2", "deviceModel": ""#
        let tail = #""}, "files": {}}"#
        let fill = LocalSendPrepareRequest.maxBodyBytes - head.utf8.count - tail.utf8.count
        #expect(throws: Never.self) {
            try LocalSendPrepareRequest.parse(Array((head + String(repeating: "x", count: fill) + tail).utf8))
        }
        #expect(throws: LocalSendDevice.InvalidBody.self) {
            try LocalSendPrepareRequest.parse(Array((head + String(repeating: "x", count: fill + 1) + tail).utf8))
        }
    }

    @Test func refusesOneFileOverTheFileLimit() throws {
        func body(files: Int) -> [UInt8] {
            let entries = (0..<files).map { #""f\#($0)": {"fileName": "n", "size": 0}"# }.joined(separator: ",")
            return Array(#"{"info": {"alias": "a", "version": "2"}, "files": {\#(entries)}}"#.utf8)
        }
        #expect(
            try LocalSendPrepareRequest.parse(body(files: LocalSendPrepareRequest.maxFiles)).files.count
                == LocalSendPrepareRequest.maxFiles)
        #expect(throws: LocalSendDevice.InvalidBody.self) {
            try LocalSendPrepareRequest.parse(body(files: LocalSendPrepareRequest.maxFiles + 1))
        }
    }

    @Test func theAcceptPolicyFollowsTheAccessModeAndThePIN() throws {
        let throttle = LoginThrottle()
        func status(_ mode: AccessMode, pin: String?, given: String?) -> HTTPStatus? {
            do {
                try LocalSendAcceptPolicy(mode: mode, pin: pin).check(pin: given, client: "c", throttle: throttle, now: 0)
                return nil
            } catch {
                return error.status
            }
        }
        #expect(status(.open, pin: nil, given: nil) == nil)
        #expect(status(.open, pin: "1234", given: "1234") == nil)
        #expect(status(.open, pin: "1234", given: nil) == .unauthorized)
        #expect(status(.drop, pin: nil, given: nil) == .forbidden)
        #expect(status(.private, pin: nil, given: "x") == .forbidden)
        #expect(status(.private, pin: "1234", given: "1234") == nil)
        #expect(status(.readOnly, pin: "1234", given: "1234") == .forbidden)
    }

    @Test func wrongPINsAreThrottledPerAddress() {
        let throttle = LoginThrottle()
        let policy = LocalSendAcceptPolicy(mode: .open, pin: "1234")
        for _ in 0..<throttle.settings.freeFailures + 1 {
            #expect(throws: HTTPError.self) { try policy.check(pin: "0000", client: "c", throttle: throttle, now: 0) }
        }
        do {
            try policy.check(pin: "1234", client: "c", throttle: throttle, now: 0)
            Issue.record("the right PIN went through during the lockout")
        } catch {
            #expect(error.status == .tooManyRequests)
        }
        #expect(throws: Never.self) { try policy.check(pin: "1234", client: "other", throttle: throttle, now: 0) }
    }
}

/// The limits of what a sender may make the receiver hold, each one byte over.
@Suite struct LocalSendLimitTests {
    @Test func aJSONBodyTakesItsLimitAndNotAByteMore() throws {
        let body = LocalSendJSONBody(limit: 8) { bytes in .ready(Response(status: .ok, body: .bytes(bytes))) }
        let eight = [UInt8](repeating: 0x20, count: 8)
        try eight.withUnsafeBytes { _ = try body.consume($0) }
        #expect(throws: HTTPError.contentTooLarge(limit: 8)) { try [UInt8(0x20)].withUnsafeBytes { _ = try body.consume($0) } }
    }

    @Test func aFileIDTakesItsLimitAndNotAByteMore() throws {
        func body(idBytes: Int) -> [UInt8] {
            let id = String(repeating: "i", count: idBytes)
            return Array(#"{"info": {"alias": "a", "version": "2"}, "files": {"\#(id)": {"fileName": "n", "size": 1}}}"#.utf8)
        }
        #expect(try LocalSendPrepareRequest.parse(body(idBytes: LocalSendFileOffer.maxIDBytes)).files.count == 1)
        #expect(throws: LocalSendDevice.InvalidBody.self) {
            try LocalSendPrepareRequest.parse(body(idBytes: LocalSendFileOffer.maxIDBytes + 1))
        }
    }

    @Test func routesAreTheSpecificationsNamesAndMethods() {
        #expect(LocalSendRoute(method: .get, path: "/api/localsend/v2/info") == .info)
        #expect(LocalSendRoute(method: .head, path: "/api/localsend/v2/info") == .info)
        #expect(LocalSendRoute(method: .post, path: "/api/localsend/v2/register") == .register)
        #expect(LocalSendRoute(method: .post, path: "/api/localsend/v2/prepare-upload") == .prepareUpload)
        #expect(LocalSendRoute(method: .post, path: "/api/localsend/v2/upload") == .upload)
        #expect(LocalSendRoute(method: .post, path: "/api/localsend/v2/cancel") == .cancel)
        #expect(LocalSendRoute(method: .get, path: "/api/localsend/v2/upload") == .methodRefused(.get, allowed: .post))
        #expect(LocalSendRoute(method: .post, path: "/api/localsend/v2/prepare-download") == .unknown)
        #expect(LocalSendRoute(method: .get, path: "/api/localsend/v1/info") == .unknown)
        #expect(LocalSendRoute(method: .get, path: "/api/other") == nil)
    }
}

/// The access log never holds a LocalSend PIN or token.
@Suite struct AccessLogRedactionTests {
    @Test(arguments: [
        ("/api/localsend/v2/prepare-upload?pin=4711", "/api/localsend/v2/prepare-upload?pin=-"),
        ("/api/localsend/v2/upload?sessionId=s&fileId=f&token=t0k3n", "/api/localsend/v2/upload?sessionId=s&fileId=f&token=-"),
        ("/files/a?pinned=1&tokens=2", "/files/a?pinned=1&tokens=2"),
        ("/files/pin=1", "/files/pin=1"),
        ("/x?token", "/x?token"),
    ])
    func secretsInTheQueryAreNotLogged(_ target: String, _ logged: String) {
        let record = AccessLogRecord(
            method: .post, target: target, status: 200, bytesSent: 0, bytesReceived: 0,
            durationMicroseconds: 0, client: "c", responseCut: false)
        #expect(record.target == logged)
        #expect(!record.event.message.contains("4711") && !record.event.message.contains("t0k3n"))
    }
}
