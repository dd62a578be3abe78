import FiledropClient
import Glibc

/// Asks a person whether to trust a server neither the system store nor `known_servers`
/// knows, as ssh does for a new host: only when standard input and standard error are both
/// a terminal, so a script is never left waiting for an answer nobody will give.
enum TrustPrompt {
    /// true on `y`/`yes`, false on anything else, nil when there is nobody to ask.
    static func ask(address: String, certificate: PeerCertificate, systemFailure: String?) -> Bool? {
        guard isatty(STDIN_FILENO) == 1, isatty(STDERR_FILENO) == 1 else { return nil }
        let why = systemFailure.map { " (\($0))" } ?? ""
        writeStandardError(
            """
            The server \(address) is not trusted by this system's certificates\(why),
            and it is not in known_servers. It presents:
              \(ClientOutput.escaped(certificate.subject))
              SHA-256 \(certificate.fingerprint)
            Compare that fingerprint with the one the server shows (its page, its start-up log,
            `systemctl status filedrop`) before you say yes.
            Trust this server? [y/N] 
            """)
        var answer: [UInt8] = []
        var byte: UInt8 = 0
        while read(STDIN_FILENO, &byte, 1) == 1, byte != UInt8(ascii: "\n") {
            answer.append(byte)
        }
        let text = String(decoding: answer, as: UTF8.self).lowercased()
        return text == "y" || text == "yes"
    }
}
