import FiledropClient

extension TrustOnFirstUse.Refusal {
    /// What the command prints before it exits with 3: the fingerprints involved and, for a
    /// script, the options that would make the server trusted.
    func message(url: String, knownServersFile: String) -> String {
        switch self {
        case .pinNotFound(let pin, let seen):
            return """
                filedrop: no certificate of \(url) has the SHA-256 given with --fingerprint
                  wanted \(pin)
                \(Self.list(seen))
                """
        case .unknownServer(let address, let candidate, let systemFailure):
            let why = systemFailure.map { " (\($0))" } ?? ""
            return """
                filedrop: the server \(address) is not trusted by this system's certificates\(why)
                and is not in \(knownServersFile).
                It presents \(ClientOutput.escaped(candidate.subject)) with the SHA-256 fingerprint
                  \(candidate.fingerprint)
                If that is the fingerprint the server shows, trust it with one of:
                  --fingerprint \(candidate.fingerprint)
                  --ca FILE      (the server's CA certificate, e.g. saved from https://\(address)/ca.crt and checked)
                or run the command once on a terminal and answer yes, which remembers it.
                """
        case .declined(let address):
            return "filedrop: not trusted, nothing sent to \(address)"
        case .changed(let address, let known, let seen):
            return """
                @@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@
                @    WARNING: SERVER IDENTIFICATION HAS CHANGED!         @
                @@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@
                Someone could be intercepting the connection to \(address) right now,
                or the server got a new certificate authority (a reinstall, a new state directory).
                known_servers remembers \(known.fingerprint)
                \(Self.list(seen))
                If the change is expected, remove line \(known.line) of \(knownServersFile)
                and run the command again. Nothing was sent.
                """
        case .noCertificate(let address, let reason):
            return "filedrop: \(address) sent no certificate\(reason.map { " (\($0))" } ?? "")"
        }
    }

    private static func list(_ certificates: [PeerCertificate]) -> String {
        guard !certificates.isEmpty else { return "the server sent no certificate" }
        return "the server sent:\n"
            + certificates.map {
                "  \($0.fingerprint)  \(ClientOutput.escaped($0.subject))"
            }.joined(separator: "\n")
    }
}
