import Foundation
import Testing

@testable import FiledropClient

/// Every branch of the trust decision, with a fake handshake and a fake person: trusted by
/// the system, known, unknown on a terminal (yes, no) and in a script, changed, and the
/// `--ca` / `--fingerprint` overrides.
@Suite struct TrustOnFirstUseTests {
    static func certificate(_ byte: UInt8, _ subject: String) -> PeerCertificate {
        PeerCertificate(
            der: [0x30, byte], fingerprint: CertificateFingerprint(digest: [UInt8](repeating: byte, count: 32))!, subject: subject
        )
    }

    static let leaf = certificate(0x4F, "/CN=laptop")
    static let ca = certificate(0xA1, "/CN=filedrop CA")
    static let other = certificate(0x77, "/CN=mallory")
    static let address = "192.168.1.20:8443"
    static let untrusted = TrustOnFirstUse.Inspection(
        trustedBySystem: false, chain: [leaf, ca], systemFailure: "self-signed certificate in certificate chain")

    /// Counts handshakes and questions, answers with `answer`.
    final class Fakes: @unchecked Sendable {
        var inspection: TrustOnFirstUse.Inspection
        var answer: Bool?
        var inspections = 0
        var questions: [PeerCertificate] = []

        init(_ inspection: TrustOnFirstUse.Inspection = TrustOnFirstUseTests.untrusted, answer: Bool? = nil) {
            self.inspection = inspection
            self.answer = answer
        }

        func decide(requested: ServerTrust? = nil, known: String = "") throws -> TrustOnFirstUse.Decision {
            try TrustOnFirstUse(address: TrustOnFirstUseTests.address, requested: requested, known: KnownServers(parsing: known))
                .decide(
                    inspect: { () throws(FiledropClientError) in
                        self.inspections += 1
                        return self.inspection
                    },
                    ask: { certificate, _ in
                        self.questions.append(certificate)
                        return self.answer
                    })
        }
    }

    @Test func theSystemStoreComesFirst() throws {
        let fakes = Fakes(.init(trustedBySystem: true, chain: [Self.leaf]), answer: false)
        #expect(try fakes.decide(known: "\(Self.address) \(Self.other.fingerprint)") == .system)
        #expect(fakes.questions.isEmpty)
        #expect(fakes.inspections == 1)
    }

    @Test(arguments: [ca, leaf])
    func aKnownServerIsPinnedToItsCertificate(_ remembered: PeerCertificate) throws {
        let fakes = Fakes(answer: false)
        let known = "# mine\n\(Self.address) \(Self.other.fingerprint)\n\(Self.address) \(remembered.fingerprint)\n"
        #expect(try fakes.decide(known: known) == .pinned(remembered, remember: false))
        #expect(fakes.questions.isEmpty)
    }

    @Test func anUnknownServerOnATerminalIsAskedAboutItsCA() throws {
        let yes = Fakes(answer: true)
        #expect(try yes.decide() == .pinned(Self.ca, remember: true))
        #expect(yes.questions == [Self.ca])
        let no = Fakes(answer: false)
        #expect(try no.decide() == .refused(.declined(address: Self.address)))
    }

    @Test func aServerThatSendsOnlyItsLeafIsAskedAboutTheLeaf() throws {
        let fakes = Fakes(.init(trustedBySystem: false, chain: [Self.leaf]), answer: true)
        #expect(try fakes.decide() == .pinned(Self.leaf, remember: true))
    }

    @Test func anUnknownServerInAScriptIsRefusedWithItsFingerprint() throws {
        let fakes = Fakes(answer: nil)
        #expect(
            try fakes.decide(known: "10.0.0.1:8443 \(Self.ca.fingerprint)")
                == .refused(
                    .unknownServer(address: Self.address, candidate: Self.ca, systemFailure: Self.untrusted.systemFailure)))
    }

    @Test func aChangedCertificateIsRefusedNamingTheLine() throws {
        let fakes = Fakes(answer: true)
        let known = "# mine\n\n\(Self.address) \(Self.other.fingerprint)\n"
        let decision = try fakes.decide(known: known)
        let entry = KnownServers.Entry(address: Self.address, fingerprint: Self.other.fingerprint, line: 3)
        #expect(decision == .refused(.changed(address: Self.address, known: entry, seen: [Self.leaf, Self.ca])))
        #expect(fakes.questions.isEmpty, "a changed server is never offered for trust")
    }

    @Test(arguments: [ca, leaf])
    func aPinMatchesAnyCertificateOfTheChain(_ pinned: PeerCertificate) throws {
        let fakes = Fakes(answer: false)
        #expect(try fakes.decide(requested: .pinnedCertificate(pinned.fingerprint)) == .pinned(pinned, remember: false))
    }

    @Test func aPinOverridesTheSystemAndKnownServers() throws {
        let fakes = Fakes(.init(trustedBySystem: true, chain: [Self.leaf, Self.ca]))
        let decision = try fakes.decide(
            requested: .pinnedCertificate(Self.other.fingerprint), known: "\(Self.address) \(Self.ca.fingerprint)")
        #expect(decision == .refused(.pinNotFound(pin: Self.other.fingerprint, seen: [Self.leaf, Self.ca])))
    }

    @Test func aCAFileNeedsNoHandshakeFirst() throws {
        let fakes = Fakes()
        let file = URL(fileURLWithPath: "/tmp/ca.crt")
        #expect(try fakes.decide(requested: .certificateAuthority(file)) == .certificateAuthority(file))
        #expect(try fakes.decide(requested: .system) == .system)
        #expect(fakes.inspections == 0)
    }

    @Test func noCertificateIsNothingToTrust() throws {
        let fakes = Fakes(.init(trustedBySystem: false, chain: [], systemFailure: "wrong version number"), answer: true)
        #expect(try fakes.decide() == .refused(.noCertificate(address: Self.address, reason: "wrong version number")))
    }

    @Test func aFailedHandshakeIsTheCallersError() {
        #expect(throws: FiledropClientError.network("refused")) {
            try TrustOnFirstUse(address: Self.address, requested: nil, known: KnownServers(parsing: ""))
                .decide(inspect: { () throws(FiledropClientError) in throw .network("refused") }, ask: { _, _ in true })
        }
    }
}
