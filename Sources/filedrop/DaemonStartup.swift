import CLinux
import FiledropCore
import FiledropHTTP
import FiledropIO
import FiledropServer
import FiledropSystemd
import Glibc

/// The steps of the daemon's start (and reload) that need nothing of a running daemon but
/// its configuration and its log: each takes what it uses, so `Daemon` keeps only the
/// state a running daemon carries.
enum DaemonStartup {
    /// `path` resolved (symbolic links too): the hook gets FILEDROP_PATH whatever its directory.
    static func absolutePath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Freed transfer buffers go back to the kernel. glibc's default raises its mmap threshold
    /// to the size of the largest mmap'd block freed (a 256 KiB SHA-256 chunk, a gzip reader's
    /// piece), so every later buffer that size comes from the per-thread arenas instead, and
    /// what the arenas free stays in them: after 16 concurrent uploads the daemon held 37 MiB
    /// of freed chunks (48 MiB RSS with 1,000 idle connections, 18 MiB with this). Fixed
    /// thresholds end that adjustment: blocks of 128 KiB and up are mmap'd and unmapped when
    /// freed, and an arena gives back free space above 128 KiB at its top. The thresholds
    /// hold for every arena, so setting them before the first transfer is enough.
    static func returnFreedBuffersToTheKernel() {
        _ = mallopt(M_MMAP_THRESHOLD, 128 << 10)
        _ = mallopt(M_TRIM_THRESHOLD, 128 << 10)
    }

    /// Every connection is a descriptor: lift the soft limit to the hard one (the usual
    /// 1024 soft limit is below the default max-connections), as daemon(7) suggests.
    static func raiseOpenFileLimit(log: any LogSink) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) != 0 {
            log.log(LogEvent(level: .warning, message: "cannot raise the open-file limit: errno \(errno)"))
        }
    }

    /// The modes `save-mode` creates saved files and folders with.
    static func storageOptions(_ mode: SaveMode) -> StorageOptions {
        switch mode {
        case .owner: StorageOptions(fileMode: 0o600, directoryMode: 0o700)
        case .group: StorageOptions(fileMode: 0o640, directoryMode: 0o750)
        }
    }

    static func openSaveDirectory(_ configuration: Configuration) throws -> PosixStorage {
        do {
            // fsync and min-free-space are the core's storage policy (FiledropApp makes it).
            return try PosixStorage(root: configuration.saveDirectory, options: storageOptions(configuration.saveMode))
        } catch {
            throw StartupError(message: "cannot open the save directory \(configuration.saveDirectory): \(error)", exitCode: 1)
        }
    }

    /// The catalogues and the translated page, read again on each reload; each catalogue that
    /// is missing or broken is one warning, and its language reads English.
    static func loadLanguages(_ configuration: Configuration, builtIn: BuiltInWebRoot, log: any LogSink) -> PageLanguages {
        let languages = PageLanguages { name in
            guard let webRoot = configuration.webRoot else { return builtIn.bytes(of: name) }
            return readSmallFile(webRoot + "/" + name, limit: FlatJSONObject.defaultMaxBytes)
        }
        for problem in languages.problems {
            log.log(LogEvent(level: .warning, message: problem, fields: [("web_root", configuration.webRoot ?? "built in")]))
        }
        return languages
    }

    /// The checker for password-hash; drop and private access cannot run without one.
    static func passwordVerifier(_ configuration: Configuration, log: any LogSink) throws -> CryptPassword? {
        guard let hash = configuration.passwordHash else {
            if configuration.metricsAccess == .password {
                throw StartupError(
                    message: "metrics-access \"password\" needs a password: "
                        + "run `filedrop passwd` and set password-hash (--password-hash, FILEDROP_PASSWORD_HASH)",
                    exitCode: StartupError.invalidConfiguration)
            }
            if configuration.access == .drop || configuration.access == .private {
                throw StartupError(
                    message: "access mode \"\(configuration.access.rawValue)\" needs a password: "
                        + "run `filedrop passwd` and set password-hash (--password-hash, FILEDROP_PASSWORD_HASH)",
                    exitCode: StartupError.invalidConfiguration)
            }
            if configuration.allowDelete && configuration.access == .open {
                log.log(
                    LogEvent(
                        level: .warning, message: "allow-delete without password-hash: anyone on the network may delete files"))
            }
            return nil
        }
        do {
            return try CryptPassword(hash: hash)
        } catch {
            throw StartupError(message: "password-hash: \(error)", exitCode: StartupError.invalidConfiguration)
        }
    }

    /// Plain and HTTPS sockets: from systemd socket activation when there are any (the
    /// HTTPS ones named `https` by FileDescriptorName=), else our own.
    static func openListeners(_ configuration: Configuration) throws -> (plain: [ListeningSocket], secure: [ListeningSocket]) {
        let activated = SocketActivation.listenFileDescriptors()
        if !activated.isEmpty {
            if configuration.tls == .off, let https = activated.first(where: { $0.name == "https" }) {
                throw StartupError(
                    message: "systemd passed an HTTPS socket (fd \(https.fd), FileDescriptorName=https) but tls is off",
                    exitCode: StartupError.invalidConfiguration)
            }
            let plain = try activated.filter { $0.name != "https" }.map { try ListeningSocket(adopting: $0.fd) }
            let secure = try activated.filter { $0.name == "https" }.map { try ListeningSocket(adopting: $0.fd) }
            return (plain, secure)
        }
        let plainAddresses = configuration.tls != .off && configuration.httpMode == .off ? [] : configuration.listen
        let secureAddresses = configuration.tls == .off ? [] : configuration.httpsListen
        return (try plainAddresses.map(bind), try secureAddresses.map(bind))
    }

    /// The LocalSend receiver's HTTPS port on the hosts of `listen` (`localSendHosts`), one
    /// port number for all of them (the first one's, when the port is 0); empty while
    /// `localsend` is off. Bound here even under socket activation: no unit file passes it.
    static func openLocalSendListeners(_ configuration: Configuration) throws -> [ListeningSocket] {
        guard configuration.localsend else { return [] }
        var listeners: [ListeningSocket] = []
        var port = UInt16(configuration.localsendPort)
        for host in localSendHosts(configuration) {
            let listener = try bind(ListenAddress(host: host, port: port))
            port = listener.address.port
            listeners.append(listener)
        }
        return listeners
    }

    /// Where LocalSend listens: where the web server does. Phones find it by the address they
    /// heard the announcement from, so any address of `listen` that is a wildcard (`[::]`,
    /// `0.0.0.0`) means every address; otherwise only those of `listen`, so a server kept on
    /// loopback does not open LocalSend to the network.
    static func localSendHosts(_ configuration: Configuration) -> [String] {
        let hosts = configuration.listen.map(\.host)
        if hosts.isEmpty || hosts.contains("") { return [""] }
        var seen = Set<String>()
        return hosts.filter { seen.insert($0).inserted }
    }

    private static func bind(_ address: ListenAddress) throws -> ListeningSocket {
        do {
            return try ListeningSocket.bind(host: address.host, port: address.port)
        } catch {
            throw StartupError(message: "cannot listen on \(address): \(error)", exitCode: 1)
        }
    }

    static func serverConfiguration(_ configuration: Configuration, metrics: ServerMetrics, accessLog: AccessLogQueue)
        -> ServerConfiguration
    {
        var server = ServerConfiguration()
        server.maxConnections = configuration.maxConnections
        server.maxConnectionsPerClient = configuration.maxConnectionsPerClient
        server.threads = configuration.threads
        server.connection.headTimeout = nanoseconds(configuration.headTimeout)
        server.connection.bodyTimeout = nanoseconds(configuration.bodyTimeout)
        server.connection.idleTimeout = nanoseconds(configuration.idleTimeout)
        server.connection.writeTimeout = nanoseconds(configuration.bodyTimeout)
        server.connection.minSendRate = configuration.minSendRate
        server.observer = RequestRecorder(metrics: metrics, accessLog: accessLog)
        return server
    }
}

extension DaemonStartup {
    /// Whether requests are logged: `access-log`, and a `log-level` that lets info through
    /// (below it, records would be built only for the sink to drop).
    static func logsRequests(_ configuration: Configuration) -> Bool {
        configuration.accessLog && AccessLogRecord.level >= configuration.logLevel
    }

    /// The event loops `HTTPServer` makes for `threads`, each with a shard of the access log's queue.
    static func eventLoopCount(_ configuration: Configuration) -> Int {
        configuration.threads > 0 ? configuration.threads : max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }

    /// LocalSend's multicast discovery on the server's main loop (`localsend-multicast`). Nil,
    /// after a warning, when the group's port cannot be had: the receiver still serves, and
    /// a sender that scans over HTTP (`register`, §3.2) still finds it.
    static func startLocalSendDiscovery(
        _ configuration: Configuration, device: LocalSendDevice, server: HTTPServer,
        log: any LogSink
    ) -> LocalSendMulticast? {
        let group = configuration.localsendMulticast
        let hosts = localSendHosts(configuration)
        // Announced only on interfaces LocalSend listens on: all of them for a wildcard, else
        // those holding one of `listen`'s IPv4 addresses (none when it is loopback only).
        let addresses: Set<String>? = hosts.contains("") || hosts.contains("0.0.0.0") ? nil : Set(hosts)
        if let addresses, !addresses.contains(where: { !$0.contains(":") && !$0.hasPrefix("127.") }) {
            log.log(LogEvent(level: .info, message: "LocalSend discovery is off: listen has no LAN IPv4 address to announce on"))
            return nil
        }
        do {
            let multicast = try LocalSendMulticast(group: group, device: device, log: log, addresses: addresses)
            try server.runLocalSendDiscovery(multicast)
            log.log(LogEvent(level: .info, message: "LocalSend discovery on \(group)"))
            return multicast
        } catch {
            log.log(
                LogEvent(
                    level: .warning,
                    message: "LocalSend discovery is off: cannot use \(group) (\(error)); "
                        + "senders that scan over HTTP still find the receiver"))
            return nil
        }
    }
}
