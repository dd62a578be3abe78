import Foundation

/// Decides whom to trust for one `https://` server the way ssh does for hosts, with the
/// system's store first: a server with a real certificate needs nothing; one the person
/// trusted before (`KnownServers`) must still present that certificate; an unknown one is
/// shown and asked about on a terminal, and refused in a script. `--ca` and `--fingerprint`
/// (`requested`) override all of it. Sans I/O: the connection and the terminal come in as
/// `inspect` and `ask`, so every branch is testable with fakes.
public struct TrustOnFirstUse: Sendable {
    /// What one TLS handshake told about the server.
    public struct Inspection: Sendable, Equatable {
        /// The chain verified against the system store and the host name matched.
        public var trustedBySystem: Bool
        /// The certificates the server sent, leaf first.
        public var chain: [PeerCertificate]
        /// Why the system store did not trust it (libssl's sentence), for messages.
        public var systemFailure: String?

        public init(trustedBySystem: Bool, chain: [PeerCertificate], systemFailure: String? = nil) {
            self.trustedBySystem = trustedBySystem
            self.chain = chain
            self.systemFailure = systemFailure
        }

        /// The certificate to offer for trust: the last of the chain (the CA, when the
        /// server sends it, as filedrop's `auto` does), else the leaf.
        public var anchorCandidate: PeerCertificate? { chain.last }
    }

    /// What to do.
    public enum Decision: Sendable, Equatable {
        /// URLSession as it is: the system store trusts the server.
        case system
        /// Verify against this CA file only (`--ca`).
        case certificateAuthority(URL)
        /// Verify with this certificate of the chain as the only anchor. `remember` is set
        /// when the person just said yes: the entry to append to `known_servers`.
        case pinned(PeerCertificate, remember: Bool)
        /// Do not connect; say why.
        case refused(Refusal)
    }

    /// Why a server is not trusted, with what a person needs to decide.
    public enum Refusal: Sendable, Equatable {
        /// `--fingerprint` matched none of the certificates the server sent.
        case pinNotFound(pin: CertificateFingerprint, seen: [PeerCertificate])
        /// Neither the system nor `known_servers` knows it, and nobody can be asked.
        case unknownServer(address: String, candidate: PeerCertificate, systemFailure: String?)
        /// The person was asked and did not say yes.
        case declined(address: String)
        /// `known_servers` has this server with another certificate: possibly an attacker.
        case changed(address: String, known: KnownServers.Entry, seen: [PeerCertificate])
        /// The server sent no certificate at all (not a TLS server, or the handshake broke).
        case noCertificate(address: String, reason: String?)
    }

    public var address: String
    public var requested: ServerTrust?
    public var known: KnownServers

    public init(address: String, requested: ServerTrust?, known: KnownServers) {
        self.address = address
        self.requested = requested
        self.known = known
    }

    /// The decision. `inspect` makes one verified handshake (called at most once, and not
    /// for `--ca`); `ask` puts the question to a person (the certificate offered, and why
    /// the system store refused it) and returns nil when there is no terminal to ask on.
    public func decide(
        inspect: () throws(FiledropClientError) -> Inspection,
        ask: (PeerCertificate, String?) -> Bool?
    ) throws(FiledropClientError) -> Decision {
        switch requested {
        case .certificateAuthority(let file):
            return .certificateAuthority(file)
        case .pinnedCertificate(let pin):
            let inspection = try inspect()
            guard let match = inspection.chain.first(where: { $0.fingerprint == pin }) else {
                return .refused(.pinNotFound(pin: pin, seen: inspection.chain))
            }
            return .pinned(match, remember: false)
        case .system:
            // URLSession verifies against the system store itself.
            return .system
        case nil:
            break
        }
        let inspection = try inspect()
        if inspection.trustedBySystem { return .system }
        guard let candidate = inspection.anchorCandidate else {
            return .refused(.noCertificate(address: address, reason: inspection.systemFailure))
        }
        let entries = known.entries(for: address)
        if let first = entries.first {
            for entry in entries {
                if let match = inspection.chain.first(where: { $0.fingerprint == entry.fingerprint }) {
                    return .pinned(match, remember: false)
                }
            }
            return .refused(.changed(address: address, known: first, seen: inspection.chain))
        }
        switch ask(candidate, inspection.systemFailure) {
        case true?: return .pinned(candidate, remember: true)
        case false?: return .refused(.declined(address: address))
        case nil: return .refused(.unknownServer(address: address, candidate: candidate, systemFailure: inspection.systemFailure))
        }
    }
}
