import Testing

@testable import FiledropCore

/// notify-url: the URL it takes, the request a finished upload becomes (JSON or ntfy), and
/// when it is sent again.
@Suite struct WebhookTests {
    @Test func urlsItTakes() throws {
        let plain = try #require(NotifyTarget(parsing: "http://192.168.1.5:9000/hook?x=1#frag"))
        #expect(
            (plain.secure, plain.host, plain.port, plain.target, plain.hostHeader) == (
                false, "192.168.1.5", 9000, "/hook?x=1", "192.168.1.5:9000"
            ))
        let ntfy = try #require(NotifyTarget(parsing: "https://ntfy.sh/my-topic"))
        #expect(
            (ntfy.secure, ntfy.host, ntfy.port, ntfy.target, ntfy.hostHeader) == (true, "ntfy.sh", 443, "/my-topic", "ntfy.sh"))
        let v6 = try #require(NotifyTarget(parsing: "http://[::1]:8081"))
        #expect((v6.host, v6.port, v6.target, v6.hostHeader) == ("::1", 8081, "/", "[::1]:8081"))
    }

    @Test(arguments: [
        "ftp://host/x", "http://", "http://user:pw@host/", "http://host:0/", "http://host:65536/",
        "http://host/a b", "https://[::1/", "http://host:x/", "http://hö.st/",
    ])
    func urlsItRefuses(text: String) {
        #expect(NotifyTarget(parsing: text) == nil)
    }

    @Test func autoMeansNtfyForNtfySh() throws {
        #expect(try #require(NotifyTarget(parsing: "https://ntfy.sh/t")).resolved(.auto) == .ntfy)
        #expect(try #require(NotifyTarget(parsing: "https://eu.NTFY.sh/t")).resolved(.auto) == .ntfy)
        #expect(try #require(NotifyTarget(parsing: "https://notntfy.sh/t")).resolved(.auto) == .json)
        #expect(try #require(NotifyTarget(parsing: "http://10.0.0.2/t")).resolved(.ntfy) == .ntfy)
    }

    @Test func ntfyRequestIsAMessageForAPhone() {
        let event = UploadEvent(
            kind: .finished, uploadID: 1, path: "scans/IMG 1.jpg", size: 2_500_000, client: "10.0.0.7",
            method: .form, time: 0)
        let request = WebhookRequest(event: event, format: .ntfy, baseURL: "https://10.0.0.2:8443", title: "filedrop")
        #expect(request.contentType == "text/plain; charset=utf-8")
        #expect(String(decoding: request.body, as: UTF8.self) == "IMG 1.jpg (2.3 MiB) from 10.0.0.7")
        #expect(request.headers.map(\.name.text) == ["Title", "Tags", "Click"])
        #expect(
            request.headers.map(\.value) == ["filedrop: new file", "inbox_tray", "https://10.0.0.2:8443/files/scans/IMG%201.jpg"])
    }

    @Test func nonASCIIHeaderTextIsAnEncodedWord() {
        #expect(WebhookRequest.headerValue("Büro") == "=?UTF-8?B?QsO8cm8=?=")
        #expect(WebhookRequest.headerValue("a\r\nInjected: 1") == "=?UTF-8?B?YQ0KSW5qZWN0ZWQ6IDE=?=")
        #expect(WebhookRequest.headerValue("plain") == "plain")
    }

    @Test func retriesServerErrorsAndNetworkFailuresOnly() {
        #expect(RetrySchedule.verdict(status: 200) == .delivered)
        #expect(RetrySchedule.verdict(status: 204) == .delivered)
        #expect(RetrySchedule.verdict(status: 500) == .retry)
        #expect(RetrySchedule.verdict(status: 503) == .retry)
        #expect(RetrySchedule.verdict(status: nil) == .retry)
        #expect(RetrySchedule.verdict(status: 404) == .giveUp)
        #expect(RetrySchedule.verdict(status: 413) == .giveUp)
        #expect(RetrySchedule.verdict(status: 301) == .giveUp)
    }

    @Test func backoffDoublesWithJitterAndStops() {
        let schedule = RetrySchedule(attempts: 5, initialDelay: 1000, maximumDelay: 4000)
        #expect(schedule.delay(after: 1, random: 0) == 500)
        #expect(schedule.delay(after: 1, random: 0.5) == 750)
        #expect(schedule.delay(after: 2, random: 0) == 1000)
        #expect(schedule.delay(after: 3, random: 0) == 2000)
        #expect(schedule.delay(after: 4, random: 0.999_999_9)! < 4000)
        #expect(schedule.delay(after: 4, random: 0) == 2000)
        #expect(schedule.delay(after: 5, random: 0) == nil)
    }
}
