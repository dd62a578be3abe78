import Testing

@testable import FiledropCore
@testable import FiledropHTTP

/// Every policy the server sends, as it goes on the wire: built from directives, the values
/// are the very strings the handlers used to write out by hand.
@Suite struct SecurityPolicyTests {
    @Test(arguments: [
        (SecurityPolicy.nothing, "default-src 'none'; frame-ancestors 'none'"),
        (
            .uploadPage,
            "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
                + "connect-src 'self'; worker-src 'self'; manifest-src 'self'; frame-ancestors 'none'; form-action 'self'; "
                + "base-uri 'none'; object-src 'none'"
        ),
        (.generatedPage, "default-src 'none'; style-src 'self'; img-src 'self'"),
        (.inlineStyledDocument, "default-src 'none'; style-src 'unsafe-inline'"),
        (
            .trustPage,
            "default-src 'none'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; "
                + "base-uri 'none'; form-action 'none'"
        ),
        (.storedFile, "sandbox; default-src 'none'; img-src 'self' data:; media-src 'self'; style-src 'unsafe-inline'"),
    ])
    func policyText(policy: SecurityPolicy, expected: String) {
        #expect(policy.contentSecurityPolicy == expected)
    }

    @Test func defaultFieldsInWireOrder() {
        #expect(
            ResponseHeadSerializer.defaultFields.map(\.name.text)
                == ["X-Content-Type-Options", "Referrer-Policy", "X-Frame-Options", "Content-Security-Policy"])
        #expect(
            ResponseHeadSerializer.defaultFields.map(\.value)
                == ["nosniff", "no-referrer", "DENY", SecurityPolicy.nothing.contentSecurityPolicy])
    }

    @Test func addingAPolicySetsTheField() {
        var headers = HTTPHeaders()
        headers.add(policy: .storedFile)
        #expect(headers[.contentSecurityPolicy] == SecurityPolicy.storedFile.contentSecurityPolicy)
        #expect(headers.count == 1)
    }

    /// Each kind of answer carries its own policy (the serializer's default is for the rest).
    @Test func answersCarryTheirPolicy() {
        #expect(
            Response.error(.notFound, format: .html).headers[.contentSecurityPolicy]
                == SecurityPolicy.inlineStyledDocument.contentSecurityPolicy)
        #expect(Response.error(.notFound, format: .json).headers[.contentSecurityPolicy] == nil)
        let listing = DirectoryListing(path: .root, entries: [], title: "t", query: nil)
        #expect(
            listing.response(format: .html).headers[.contentSecurityPolicy] == SecurityPolicy.generatedPage.contentSecurityPolicy)
        #expect(listing.response(format: .json).headers[.contentSecurityPolicy] == nil)
    }
}
