import Testing

@testable import FiledropCore
@testable import FiledropTesting

/// A form that fails at a later part, through the real connection state machine: the files
/// before it stay stored, and the error's answer lists them beside the refused part.
@Suite struct FormStoppedTests {
    static let boundary = "formStopped"

    static func part(_ name: String, _ content: String) -> String {
        "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\(name)\"\r\n\r\n\(content)\r\n"
    }

    static func request(_ body: String, accept: String) -> String {
        "POST /upload.html HTTP/1.1\r\nHost: localhost\r\nAccept: \(accept)\r\n"
            + "Content-Type: multipart/form-data; boundary=\(boundary)\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body
    }

    static let threeAndAMalformedFourth =
        part("a.txt", "A") + part("b.txt", "B") + part("c.txt", "C")
        + "--\(boundary)\r\nContent-Disposition form-data\r\n\r\nx\r\n--\(boundary)--\r\n"

    /// (`InMemoryStorage` keeps no real CRC-32.)
    @Test func malformedFourthPartListsTheThreeStored() throws {
        let server = InMemoryServer()
        let driver = server.exchange(Self.request(Self.threeAndAMalformedFourth, accept: "application/json"))
        let answer = driver.sent.joined()
        #expect(answer.hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
        #expect(answer.contains("\r\nConnection: close\r\n"))
        #expect(
            answer.hasSuffix(
                #"{"files":[{"name":"a.txt","size":1,"crc32":"00000000","url":"/files/a.txt"},"#
                    + #"{"name":"b.txt","size":1,"crc32":"00000000","url":"/files/b.txt"},"#
                    + #"{"name":"c.txt","size":1,"crc32":"00000000","url":"/files/c.txt"}],"errors":[],"#
                    + #""error":"3 files stored; part 4 of the form was refused: A part of the form has a malformed header line.","status":400}"#
                    + "\n"))
        #expect(server.storage.files.count == 3)
        #expect(server.storage.state.withLock { $0.pendingUploads } == 0)
    }

    /// Nothing before the failure: the plain error, as any other refusal.
    @Test func malformedFirstPartIsThePlainError() {
        let server = InMemoryServer()
        let body = "--\(Self.boundary)\r\nContent-Disposition form-data\r\n\r\nx\r\n--\(Self.boundary)--\r\n"
        let answer = server.exchange(Self.request(body, accept: "application/json")).sent.joined()
        #expect(answer.hasSuffix(#"{"error":"A part of the form has a malformed header line.","status":400}"# + "\n"))
    }

    /// A body that ends before the closing boundary (found at `finish`) names the next part.
    @Test func unfinishedFormListsWhatWasStored() {
        let server = InMemoryServer()
        let body = Self.part("a.txt", "A") + Self.part("b.txt", "B") + "--\(Self.boundary)\r\n"
        let answer = server.exchange(Self.request(body, accept: "text/plain")).sent.joined()
        #expect(answer.hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
        #expect(
            answer.hasSuffix(
                "stored a.txt 1 bytes /files/a.txt\nstored b.txt 1 bytes /files/b.txt\n"
                    + "400 Bad Request: 2 files stored; part 3 of the form was refused: "
                    + "The upload ended before the end of the form data; it was probably interrupted.\n"))
    }
}
