import Testing

@testable import FiledropCore

/// What the hook and the webhook get from a finished upload: the FILEDROP_* variables, the
/// clean environment and the JSON.
@Suite struct UploadEventRecordTests {
    static let finished = UploadEvent(
        kind: .finished, uploadID: 7, path: "run 3/data ü.csv", size: 1234, client: "192.168.1.9",
        method: .tus, time: 1_796_000_000)

    @Test func hookEnvironmentIsCleanAndComplete() {
        let entries = HookEnvironment.entries(
            for: Self.finished, baseURL: "http://192.168.1.20:8080/",
            localPath: "/srv/drop/run 3/data ü.csv",
            daemonEnvironment: [
                "LANG": "de_DE.UTF-8", "FILEDROP_PASSWORD_HASH": "$y$secret",
                "HOME": "/root", "INVOCATION_ID": "x",
            ])
        #expect(
            entries == [
                "PATH=/usr/local/bin:/usr/bin:/bin",
                "LANG=de_DE.UTF-8",
                "FILEDROP_EVENT=upload.finished",
                "FILEDROP_PATH=/srv/drop/run 3/data ü.csv",
                "FILEDROP_NAME=data ü.csv",
                "FILEDROP_RELATIVE_PATH=run 3/data ü.csv",
                "FILEDROP_SIZE=1234",
                "FILEDROP_CLIENT=192.168.1.9",
                "FILEDROP_URL=http://192.168.1.20:8080/files/run%203/data%20%C3%BC.csv",
                "FILEDROP_TIME=2026-11-30T00:53:20Z",
                "FILEDROP_METHOD=tus",
            ])
    }

    @Test func sha256IsPassedWhenKnown() {
        var event = Self.finished
        event.sha256 = String(repeating: "ab", count: 32)
        let entries = HookEnvironment.entries(for: event, baseURL: nil, localPath: "/x", daemonEnvironment: [:])
        #expect(entries.contains("FILEDROP_SHA256=" + String(repeating: "ab", count: 32)))
        #expect(entries.contains("FILEDROP_URL=/files/run%203/data%20%C3%BC.csv"))
    }

    @Test func webhookJSONHasTheDocumentedMembers() {
        let json = String(decoding: Self.finished.json(baseURL: "http://host:8080"), as: UTF8.self)
        #expect(
            json
                == #"{"event":"upload.finished","name":"data ü.csv","size":1234,"sha256":null,"client":"192.168.1.9","method":"tus","url":"http://host:8080/files/run%203/data%20%C3%BC.csv","time":"2026-11-30T00:53:20Z"}"#
                + "\n")
    }

    @Test func hookJSONAddsTheLocalPath() {
        let json = String(decoding: Self.finished.json(baseURL: nil, localPath: "/srv/\"q\".csv"), as: UTF8.self)
        #expect(json.contains(#""path":"/srv/\"q\".csv""#))
        #expect(json.contains(#""url":"/files/run%203/data%20%C3%BC.csv""#))
    }

    @Test func deletedIsAFileEvent() {
        let event = UploadEvent(kind: .deleted, uploadID: 0, path: "a.txt", size: 0, client: "c", method: nil, time: 0)
        #expect(event.eventName == "file.deleted")
        #expect(String(decoding: event.json(baseURL: nil), as: UTF8.self).contains(#""method":null"#))
    }
}
