import Glibc

/// `filedrop send|get|ls` run the client, a separate executable (`filedrop-client`), so that
/// the daemon never maps Foundation and libcurl. It sits beside this one in a build tree and
/// in the package's libexec directory once installed (a program only `filedrop` runs: not
/// on the PATH, no manual page of its own).
enum ClientLauncher {
    static let commands: Set<String> = ["send", "get", "ls"]

    /// Replaces this process with the client when the first argument is a client command;
    /// returns only if it is not, or with an exit code when the client cannot be started.
    static func execIfRequested(_ arguments: [String]) -> Int32? {
        guard let first = arguments.dropFirst().first, commands.contains(first) else { return nil }
        let path = clientPath()
        // libcurl pulls in GnuTLS (through librtmp and libldap), whose library constructor
        // initialises it at load: about 650 KiB of RSS the client never uses, since its
        // TLS is OpenSSL's and only http and https URLs are allowed. The few programs that
        // want GnuTLS call gnutls_global_init themselves (librtmp, libldap do).
        setenv("GNUTLS_NO_IMPLICIT_INIT", "1", 0)
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        execv(path, &argv)
        writeStandardError("filedrop: cannot start the client \(path) (errno \(errno))\n")
        return 1
    }

    static let installedPath = "/usr/libexec/filedrop/filedrop-client"

    /// `filedrop-client` beside this executable (/proc/self/exe) or under `../libexec/filedrop`
    /// from it, whichever exists; the installed path when neither does.
    private static func clientPath() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX))
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return installedPath }
        let path = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = path.lastIndex(of: "/") else { return installedPath }
        let directory = String(path[...slash])
        let candidates = [directory + "filedrop-client", directory + "../libexec/filedrop/filedrop-client"]
        return candidates.first { access($0, X_OK) == 0 } ?? installedPath
    }
}
