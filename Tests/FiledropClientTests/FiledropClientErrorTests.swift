import Foundation
import Testing

@testable import FiledropClient

/// The server's sentence reaches the user whichever form the server answered in.
@Suite struct FiledropClientErrorTests {
    @Test func jsonErrorBody() {
        let body = Data(#"{"error":"The file is larger than the limit of 1 KiB.","status":413}"#.utf8)
        #expect(
            FiledropClientError.from(status: 413, body: body)
                == .refused(status: 413, message: "The file is larger than the limit of 1 KiB."))
    }

    @Test func textErrorBodyLosesItsStatusPrefix() {
        let body = Data("413 Content Too Large: Uploads are limited to 1 KiB.\n".utf8)
        #expect(
            FiledropClientError.from(status: 413, body: body)
                == .refused(status: 413, message: "Uploads are limited to 1 KiB."))
    }

    @Test func unauthorizedIsItsOwnCase() {
        let body = Data(#"{"error":"A password is required.","status":401}"#.utf8)
        #expect(FiledropClientError.from(status: 401, body: body) == .unauthorized(message: "A password is required."))
    }

    @Test func anHTMLOrEmptyBodyFallsBackToTheStatusText() {
        let error = FiledropClientError.from(status: 404, body: Data("<html>nope</html>".utf8))
        guard case .refused(404, let message) = error else {
            Issue.record("expected a refusal, got \(error)")
            return
        }
        #expect(!message.isEmpty && !message.contains("<"))
        #expect(FiledropClientError.from(status: 500, body: Data()) != .refused(status: 500, message: ""))
    }

    @Test func cancellationStaysCancellation() {
        #expect(FiledropClientError.from(CancellationError()) == .cancelled)
        #expect(FiledropClientError.from(URLError(.cancelled)) == .cancelled)
        guard case .network = FiledropClientError.from(URLError(.cannotConnectToHost)) else {
            Issue.record("a refused connection is a network error")
            return
        }
    }

    @Test(arguments: [
        ("bytes 0-9/100", ContentRange(first: 0, last: 9, total: 100)),
        ("bytes 5-5/*", ContentRange(first: 5, last: 5, total: nil)),
        ("bytes 9-0/100", nil),
        ("bytes */100", nil),
        ("items 0-1/2", nil),
    ])
    func contentRangeParsing(text: String, expected: ContentRange?) {
        #expect(ContentRange(text) == expected)
    }
}

extension ContentRange {
    init(first: Int64, last: Int64, total: Int64?) {
        self.init("bytes \(first)-\(last)/\(total.map(String.init) ?? "*")")!
    }
}
