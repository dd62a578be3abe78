import FiledropHTTP

/// One documented setting. `ConfigKey.all` is the single table behind the command-line
/// flags, the `FILEDROP_*` environment variables, the config file keys, `--help` and
/// validation, so they cannot drift apart.
public struct ConfigKey: Sendable {
    /// How a key takes its value.
    public enum Kind: Sendable, Equatable {
        /// `--key VALUE`; the last one wins.
        case value(placeholder: String)
        /// `--key`, `--no-key`, `--key=yes`; see `ConfigKey.parseBoolean`.
        case boolean
        /// Repeatable; occurrences within one source accumulate, a higher source replaces them.
        case list(placeholder: String)
    }

    /// The file key; also the flag after `--`.
    public let name: String
    public let kind: Kind
    /// The default as `--help` shows it.
    public let defaultText: String
    /// One line for `--help`.
    public let meaning: String
    /// Completes "expected ..." in an invalid-value message.
    public let expected: String
    /// False for `config`, which says where the file is and so cannot be inside it.
    public let settableInFile: Bool
    /// Whether a reload (SIGHUP, `filedrop reload`) applies a new value, or only a restart does.
    public let reload: ReloadEffect
    /// Stores a valid value; returns false, leaving the configuration alone, for an invalid one.
    let apply: @Sendable (inout Configuration, String) -> Bool
    /// For a list key: empties it, before a source that sets it replaces what lower ones gave.
    let clearList: @Sendable (inout Configuration) -> Void

    public var flag: String { "--\(name)" }

    public var appliesOnReload: Bool { reload.appliesOnReload }

    /// The restart-only keys whose values differ between the running configuration and the
    /// one a reload read, in table order: a reload keeps their old values and says so.
    public static func restartOnlyChanges(from running: Configuration, to next: Configuration) -> [String] {
        all.filter { !$0.appliesOnReload && $0.reload.differs(running, next) }.map(\.name)
    }

    /// `FILEDROP_` + the name uppercased with `-` as `_`: `max-upload-size` -> `FILEDROP_MAX_UPLOAD_SIZE`.
    /// Made once with the table: every parse looks up each key's variable.
    public let environmentVariable: String

    public static func named(_ name: String) -> ConfigKey? {
        all.first { $0.name == name }
    }

    /// `true|false|yes|no|on|off|1|0`, any case.
    public static func parseBoolean(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "true", "yes", "on", "1": true
        case "false", "no", "off", "0": false
        default: nil
        }
    }

    public static let all: [ConfigKey] = [
        ConfigKey(
            name: "config", kind: .value(placeholder: "FILE"), defaultText: "/etc/filedrop/filedrop.conf if present",
            meaning: "Configuration file of `key = value` lines; a named file must exist, an empty name reads none.",
            expected: "a file path", settableInFile: false
        ) { _, value in
            // The loader reads the file and records it in `configFile`; here it is only checked.
            value.isEmpty || isPlainText(value)
        },
        ConfigKey(
            name: "listen", kind: .list(placeholder: "ADDRESS"), defaultText: "[::]:8080",
            meaning:
                "Address to listen on, repeatable; [::], :PORT or PORT mean all IPv4 and IPv6 addresses. Unused when systemd passes sockets.",
            expected: "an address such as 127.0.0.1:8080, [::1]:8080 or 8080", reload: .restartOnly(\.listen),
            clearList: { $0.listen = [] }
        ) { configuration, value in
            guard let address = ListenAddress(parsing: value) else { return false }
            configuration.listen.append(address)
            return true
        },
        ConfigKey(
            name: "https-listen", kind: .list(placeholder: "ADDRESS"), defaultText: "[::]:8443",
            meaning: "HTTPS address to listen on when tls is not off, repeatable; same syntax as listen.",
            expected: "an address such as 127.0.0.1:8443, [::1]:8443 or 8443", reload: .restartOnly(\.httpsListen),
            clearList: { $0.httpsListen = [] }
        ) { configuration, value in
            guard let address = ListenAddress(parsing: value) else { return false }
            configuration.httpsListen.append(address)
            return true
        },
        ConfigKey(
            name: "tls", kind: .value(placeholder: "MODE"), defaultText: "off",
            meaning:
                "HTTPS: off, auto (filedrop's own CA issues a certificate for every address served) or files (tls-cert and tls-key).",
            expected: "off, auto or files", reload: .restartOnly(differs: { ($0.tls == .off) != ($1.tls == .off) })
        ) { configuration, value in
            guard let mode = TLSMode(rawValue: value) else { return false }
            configuration.tls = mode
            return true
        },
        ConfigKey(
            name: "tls-cert", kind: .value(placeholder: "FILE"), defaultText: "$CREDENTIALS_DIRECTORY/tls.crt if present",
            meaning: "PEM certificate (chain allowed) for tls = files.",
            expected: "a file path"
        ) { configuration, value in
            guard isPlainText(value) else { return false }
            configuration.tlsCertificateFile = value
            return true
        },
        ConfigKey(
            name: "tls-key", kind: .value(placeholder: "FILE"), defaultText: "$CREDENTIALS_DIRECTORY/tls.key if present",
            meaning: "PEM private key for tls = files.",
            expected: "a file path"
        ) { configuration, value in
            guard isPlainText(value) else { return false }
            configuration.tlsKeyFile = value
            return true
        },
        ConfigKey(
            name: "tls-dir", kind: .value(placeholder: "DIR"),
            defaultText: "the second StateDirectory= path if set, else ./filedrop-tls",
            meaning:
                "Where tls = auto keeps its CA (key mode 0600, never served) and server certificate; must not be inside save-dir.",
            expected: "a directory path"
        ) { configuration, value in
            guard isPlainText(value) else { return false }
            configuration.tlsDirectory = value
            return true
        },
        ConfigKey(
            name: "http-mode", kind: .value(placeholder: "MODE"), defaultText: "redirect",
            meaning:
                "The plain-HTTP port while tls is on: redirect (pages go to HTTPS, with tls = auto browsers see /trust first; passwords and uploads are refused), serve, or off.",
            expected: "redirect, serve or off", reload: .restartOnly(differs: { ($0.httpMode == .off) != ($1.httpMode == .off) })
        ) { configuration, value in
            guard let mode = PlainHTTPMode(rawValue: value) else { return false }
            configuration.httpMode = mode
            return true
        },
        ConfigKey(
            name: "save-dir", kind: .value(placeholder: "DIR"), defaultText: "$STATE_DIRECTORY if set, else ./uploads",
            meaning: "Directory uploads are saved to and downloaded from.",
            expected: "a directory path"
        ) { configuration, value in
            guard isPlainText(value) else { return false }
            configuration.saveDirectory = value
            return true
        },
        ConfigKey(
            name: "save-mode", kind: .value(placeholder: "MODE"), defaultText: "group",
            meaning: "Who reads saved files: group (files 0640, folders 0750: the service's group too) or owner (0600, 0700).",
            expected: "group or owner"
        ) { configuration, value in
            guard let mode = SaveMode(rawValue: value) else { return false }
            configuration.saveMode = mode
            return true
        },
        ConfigKey(
            name: "web-root", kind: .value(placeholder: "DIR"), defaultText: "the page built into filedrop",
            meaning:
                "Serve the upload page (index.html, scripts, styles, catalogues) from this directory instead, e.g. to work on it.",
            expected: "a directory path"
        ) { configuration, value in
            guard isPlainText(value) else { return false }
            configuration.webRoot = value
            return true
        },
        ConfigKey(
            name: "max-upload-size", kind: .value(placeholder: "SIZE"), defaultText: "unlimited",
            meaning: "Largest single file accepted; K/M/G/T are powers of 1024, 0 or unlimited for no limit.",
            expected: "a size such as 64M, or unlimited"
        ) { configuration, value in
            guard let size = parseOptionalSize(value) else { return false }
            configuration.maxUploadSize = size
            return true
        },
        ConfigKey(
            name: "max-request-size", kind: .value(placeholder: "SIZE"), defaultText: "unlimited",
            meaning: "Largest upload request (the whole multipart body); 0 or unlimited for no limit.",
            expected: "a size such as 1G, or unlimited"
        ) { configuration, value in
            guard let size = parseOptionalSize(value) else { return false }
            configuration.maxRequestSize = size
            return true
        },
        sizeKey(
            "min-free-space", default: "64M", meaning: "Refuse uploads that would leave less free space than this in save-dir.",
            expected: "a size such as 64M", \.minFreeSpace),
        ConfigKey(
            name: "on-collision", kind: .value(placeholder: "POLICY"), defaultText: "rename",
            meaning: "When an upload's name is taken: rename (name (1).ext), overwrite, or reject (409).",
            expected: "rename, overwrite or reject"
        ) { configuration, value in
            guard let policy = CollisionPolicy(rawValue: value) else { return false }
            configuration.onCollision = policy
            return true
        },
        ConfigKey(
            name: "access", kind: .value(placeholder: "MODE"), defaultText: "open",
            meaning: "open (anyone lists, downloads, uploads), drop (upload only), private (password for all), read-only.",
            expected: "open, drop, private or read-only"
        ) { configuration, value in
            guard let mode = AccessMode(rawValue: value) else { return false }
            configuration.access = mode
            return true
        },
        ConfigKey(
            name: "metrics-access", kind: .value(placeholder: "MODE"), defaultText: "loopback",
            meaning:
                "Who may read GET /metrics: off (404), loopback (this machine only), password (the access password, from anywhere) or open.",
            expected: "off, loopback, password or open"
        ) { configuration, value in
            guard let mode = MetricsAccess(rawValue: value) else { return false }
            configuration.metricsAccess = mode
            return true
        },
        ConfigKey(
            name: "tus-max-pending", kind: .value(placeholder: "SIZE"), defaultText: "10G",
            meaning: "Space all unfinished resumable (tus) uploads may hold together; 0 or unlimited for no limit.",
            expected: "a size such as 10G, or unlimited"
        ) { configuration, value in
            guard let size = parseOptionalSize(value) else { return false }
            configuration.tusMaxPending = size
            return true
        },
        ConfigKey(
            name: "tus-max-per-client", kind: .value(placeholder: "N"), defaultText: "20",
            meaning: "Unfinished resumable (tus) uploads one client address may have at once.",
            expected: "a whole number from 1 to 100000"
        ) { configuration, value in
            guard let number = parseInteger(value, in: 1...100_000) else { return false }
            configuration.tusMaxPerClient = number
            return true
        },
        durationKey(
            "tus-expiration", default: .seconds(24 * 3600),
            meaning: "An unfinished resumable (tus) upload idle this long is deleted.", \.tusExpiration),
        booleanKey("fsync", default: true, meaning: "Flush each upload to disk before it becomes visible.", \.fsync),
        booleanKey(
            "sha256", default: true,
            meaning:
                "Compute each upload's SHA-256 while it streams: in the answer, the JSON listing, ?sha256 and the xattr user.filedrop.sha256; checks a client's Repr-Digest.",
            \.sha256),
        booleanKey("allow-hidden", default: false, meaning: "List, serve and accept names starting with a dot.", \.allowHidden),
        booleanKey(
            "allow-delete", default: false,
            meaning: "Let clients delete and rename (MOVE) files and folders (subject to access).", \.allowDelete),
        ConfigKey(
            name: "max-connections", kind: .value(placeholder: "N"), defaultText: "1024",
            meaning:
                "Connections served at once; at the limit a new one takes the slot of the oldest that has not finished its TLS handshake or first request head; once every slot holds a request, new ones wait in the listen backlog and idle keep-alive ones are closed to make room.",
            expected: "a whole number from 1 to 1000000", reload: .restartOnly(\.maxConnections)
        ) { configuration, value in
            guard let number = parseInteger(value, in: 1...1_000_000) else { return false }
            configuration.maxConnections = number
            return true
        },
        ConfigKey(
            name: "max-connections-per-client", kind: .value(placeholder: "N"), defaultText: "64",
            meaning:
                "Connections one client address may hold at once; once half of max-connections are open, at most a fair share of the free ones (set it to max-connections to turn that off, e.g. behind a proxy). More are answered 503.",
            expected: "a whole number from 1 to 1000000", reload: .restartOnly(\.maxConnectionsPerClient)
        ) { configuration, value in
            guard let number = parseInteger(value, in: 1...1_000_000) else { return false }
            configuration.maxConnectionsPerClient = number
            return true
        },
        ConfigKey(
            name: "max-uploads-per-client", kind: .value(placeholder: "N"), defaultText: "8",
            meaning: "Uploads one client address may run at once; more are answered 429.",
            expected: "a whole number from 1 to 1000000"
        ) { configuration, value in
            guard let number = parseInteger(value, in: 1...1_000_000) else { return false }
            configuration.maxUploadsPerClient = number
            return true
        },
        ConfigKey(
            name: "upload-quota-per-hour", kind: .value(placeholder: "SIZE"), defaultText: "unlimited",
            meaning: "Bytes one client address may upload per hour, then 429; 0 or unlimited for no limit.",
            expected: "a size such as 10G, or unlimited"
        ) { configuration, value in
            guard let size = parseOptionalSize(value) else { return false }
            configuration.uploadQuotaPerHour = size
            return true
        },
        ConfigKey(
            name: "allowed-hosts", kind: .value(placeholder: "NAMES"), defaultText: "none",
            meaning:
                "Comma-separated host names clients may use besides IP addresses, localhost, the hostname and hostname.local (others get 421).",
            expected: "host names separated by commas, such as nas.lan,files.home"
        ) { configuration, value in
            let names = value.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }).map(String.init)
            guard names.allSatisfy(isHostName) else { return false }
            configuration.allowedHosts = names
            return true
        },
        booleanKey(
            "mdns", default: true,
            meaning: "Announce the page on the LAN with DNS-SD over mDNS (_http._tcp, _https._tcp) through avahi-daemon.", \.mdns),
        ConfigKey(
            name: "mdns-name", kind: .value(placeholder: "NAME"), defaultText: "filedrop on HOSTNAME",
            meaning: "The name devices list for this drop when they browse the LAN (mdns).",
            expected: "1 to 63 bytes of UTF-8 without control characters"
        ) { configuration, value in
            guard isPlainText(value), value.utf8.count <= ServiceAdvertisement.maximumNameBytes else { return false }
            configuration.mdnsName = value
            return true
        },
        booleanKey(
            "localsend", default: false,
            meaning:
                "Receive from the LocalSend app (protocol v2.1) over HTTPS on localsend-port, with the same storage policy as every upload.",
            reload: .restartOnly(\.localsend), \.localsend),
        ConfigKey(
            name: "localsend-port", kind: .value(placeholder: "PORT"), defaultText: "53317",
            meaning:
                "TCP port of the LocalSend HTTPS server (all addresses); the protocol's default is 53317, 0 picks a free one.",
            expected: "a port number from 0 to 65535", reload: .restartOnly(\.localsendPort)
        ) { configuration, value in
            guard let number = parseInteger(value, in: 0...65535) else { return false }
            configuration.localsendPort = number
            return true
        },
        ConfigKey(
            name: "localsend-pin", kind: .value(placeholder: "PIN"), defaultText: "none",
            meaning: "PIN a LocalSend sender must give to send; without one every session is accepted (access open only).",
            expected: "1 to 64 characters without control characters"
        ) { configuration, value in
            guard isPlainText(value), value.count <= 64 else { return false }
            configuration.localsendPin = value
            return true
        },
        durationKey(
            "localsend-timeout", default: .seconds(120),
            meaning: "A LocalSend session with no file arriving for this long ends; its unfinished files leave nothing.",
            reload: .restartOnly(\.localsendTimeout), \.localsendTimeout),
        ConfigKey(
            name: "localsend-multicast", kind: .value(placeholder: "GROUP:PORT"), defaultText: "224.0.0.167:53317",
            meaning: "IPv4 multicast group and UDP port where filedrop announces itself to LocalSend devices and answers theirs.",
            expected: "an IPv4 multicast address and port such as 224.0.0.167:53317", reload: .restartOnly(\.localsendMulticast)
        ) { configuration, value in
            guard let group = MulticastGroup(parsing: value) else { return false }
            configuration.localsendMulticast = group
            return true
        },
        durationKey(
            "head-timeout", default: .seconds(10), meaning: "Time allowed for a request's line and headers to arrive.",
            reload: .restartOnly(\.headTimeout), \.headTimeout),
        durationKey(
            "body-timeout", default: .seconds(60), meaning: "Inactivity allowed while a request body is arriving.",
            reload: .restartOnly(\.bodyTimeout), \.bodyTimeout),
        durationKey(
            "idle-timeout", default: .seconds(60), meaning: "How long an idle keep-alive connection stays open.",
            reload: .restartOnly(\.idleTimeout), \.idleTimeout),
        sizeKey(
            "min-send-rate", default: "1K",
            meaning: "A response read slower than this per second, over 30 s, is cut off (a slot held for nothing); 0 never.",
            expected: "a size per second such as 1K, or 0", reload: .restartOnly(\.minSendRate), \.minSendRate),
        durationKey(
            "drain-timeout", default: .seconds(20), allowZero: true,
            meaning: "After SIGTERM, how long requests in flight may take to finish.", \.drainTimeout),
        ConfigKey(
            name: "threads", kind: .value(placeholder: "N"), defaultText: "0",
            meaning: "Event-loop threads; 0 means one per CPU.",
            expected: "a whole number from 0 to 1024", reload: .restartOnly(\.threads)
        ) { configuration, value in
            guard let number = parseInteger(value, in: 0...1024) else { return false }
            configuration.threads = number
            return true
        },
        ConfigKey(
            name: "title", kind: .value(placeholder: "TEXT"), defaultText: "filedrop",
            meaning: "Name shown on the upload page.",
            expected: "1 to 200 characters without control characters"
        ) { configuration, value in
            guard isPlainText(value), value.count <= 200 else { return false }
            configuration.title = value
            return true
        },
        ConfigKey(
            name: "log-level", kind: .value(placeholder: "LEVEL"), defaultText: "info",
            meaning: "Least severe messages logged: error, warning, notice, info or debug.",
            expected: "error, warning, notice, info or debug"
        ) { configuration, value in
            guard let level = LogLevel(name: value) else { return false }
            configuration.logLevel = level
            return true
        },
        booleanKey(
            "access-log", default: true,
            meaning: "Log each request (method, path, status, bytes, duration, client) at info level.", \.accessLog),
        ConfigKey(
            name: "access-log-rate", kind: .value(placeholder: "N/DURATION"), defaultText: AccessLogRate.default.text,
            meaning:
                "Access-log lines written per interval; requests beyond are counted in one summary line per interval. Uploads are always logged.",
            expected: "lines per interval such as 1000/10s (interval from 1s to 1h), or unlimited"
        ) { configuration, value in
            guard let rate = AccessLogRate(parsing: value) else { return false }
            configuration.accessLogRate = rate
            return true
        },
        ConfigKey(
            name: "on-upload", kind: .value(placeholder: "PROGRAM"), defaultText: "none",
            meaning:
                "Program run for every finished file, with FILEDROP_* variables and JSON on stdin; never through a shell, with the service's sandbox.",
            expected: "an absolute path to an executable"
        ) { configuration, value in
            guard value.hasPrefix("/"), isPlainText(value) else { return false }
            configuration.onUpload = value
            return true
        },
        ConfigKey(
            name: "on-upload-concurrency", kind: .value(placeholder: "N"), defaultText: "2",
            meaning:
                "on-upload runs at once; more finished files wait on disk in the save directory (.filedrop-hooks), none skipped.",
            expected: "a whole number from 1 to 64"
        ) { configuration, value in
            guard let number = parseInteger(value, in: 1...64) else { return false }
            configuration.onUploadConcurrency = number
            return true
        },
        durationKey(
            "on-upload-timeout", default: .seconds(60),
            meaning: "An on-upload run still going after this gets SIGTERM, then SIGKILL of its process group.", \.onUploadTimeout
        ),
        ConfigKey(
            name: "notify-url", kind: .value(placeholder: "URL"), defaultText: "none",
            meaning:
                "http:// or https:// URL that gets a POST per finished file (JSON, or ntfy's format for an ntfy topic), retried with backoff.",
            expected: "an http:// or https:// URL without user name or password"
        ) { configuration, value in
            guard let target = NotifyTarget(parsing: value) else { return false }
            configuration.notifyURL = target
            return true
        },
        ConfigKey(
            name: "notify-format", kind: .value(placeholder: "FORMAT"), defaultText: "auto",
            meaning: "What notify-url gets: json, ntfy (a title and message for a phone), or auto (ntfy for ntfy.sh, else json).",
            expected: "auto, json or ntfy"
        ) { configuration, value in
            guard let format = NotifyTarget.Format(rawValue: value) else { return false }
            configuration.notifyFormat = format
            return true
        },
        ConfigKey(
            name: "password-hash", kind: .value(placeholder: "HASH"), defaultText: "none",
            meaning: "Password hash printed by `filedrop passwd`; drop and private access need one.",
            expected: "a hash printed by filedrop passwd"
        ) { configuration, value in
            guard isPlainText(value), !value.contains(" ") else { return false }
            configuration.passwordHash = value
            return true
        },
        ConfigKey(
            name: "control-socket", kind: .value(placeholder: "PATH"),
            defaultText: "$RUNTIME_DIRECTORY/control.sock if set, else none",
            meaning:
                "Unix socket where `filedrop reload` asks the running daemon to reload and hears the outcome (mode 0660: its user and group).",
            expected: "a socket path", reload: .restartOnly(\.controlSocket)
        ) { configuration, value in
            guard isPlainText(value), value.utf8.count < 108 else { return false }
            configuration.controlSocket = value
            return true
        },
    ]

    private init(
        name: String, kind: Kind, defaultText: String, meaning: String, expected: String,
        settableInFile: Bool = true, reload: ReloadEffect = .applies,
        clearList: @escaping @Sendable (inout Configuration) -> Void = { _ in },
        apply: @escaping @Sendable (inout Configuration, String) -> Bool
    ) {
        self.name = name
        self.kind = kind
        self.defaultText = defaultText
        self.meaning = meaning
        self.expected = expected
        self.settableInFile = settableInFile
        self.reload = reload
        self.apply = apply
        self.clearList = clearList
        self.environmentVariable = "FILEDROP_" + String(name.uppercased().map { $0 == "-" ? "_" : $0 })
    }

    private static func booleanKey(
        _ name: String, default value: Bool, meaning: String, reload: ReloadEffect = .applies,
        _ member: WritableKeyPath<Configuration, Bool> & Sendable
    ) -> ConfigKey {
        ConfigKey(
            name: name, kind: .boolean, defaultText: "\(value)", meaning: meaning,
            expected: "true or false (yes/no, on/off, 1/0)", reload: reload
        ) { configuration, text in
            guard let flag = parseBoolean(text) else { return false }
            configuration[keyPath: member] = flag
            return true
        }
    }

    private static func durationKey(
        _ name: String, default value: Duration, allowZero: Bool = false, meaning: String,
        reload: ReloadEffect = .applies,
        _ member: WritableKeyPath<Configuration, Duration> & Sendable
    ) -> ConfigKey {
        ConfigKey(
            name: name, kind: .value(placeholder: "DURATION"), defaultText: DurationText.format(value), meaning: meaning,
            expected: "a duration such as 10s, 500ms, 2m or 1h\(allowZero ? "" : ", above zero")", reload: reload
        ) { configuration, text in
            guard let duration = DurationText.parse(text), allowZero || duration > .zero else { return false }
            configuration[keyPath: member] = duration
            return true
        }
    }

    private static func sizeKey(
        _ name: String, default text: String, meaning: String, expected: String,
        reload: ReloadEffect = .applies,
        _ member: WritableKeyPath<Configuration, UInt64> & Sendable
    ) -> ConfigKey {
        ConfigKey(
            name: name, kind: .value(placeholder: "SIZE"), defaultText: text, meaning: meaning, expected: expected,
            reload: reload
        ) { configuration, value in
            guard let size = ByteSize.parse(value) else { return false }
            configuration[keyPath: member] = size
            return true
        }
    }

    /// Sizes where 0 and `unlimited` both mean "no limit": `.some(nil)`; `.none` when invalid.
    private static func parseOptionalSize(_ text: String) -> UInt64?? {
        if text.lowercased() == "unlimited" { return .some(nil) }
        guard let size = ByteSize.parse(text) else { return nil }
        return .some(size == 0 ? nil : size)
    }

    private static func parseInteger(_ text: String, in range: ClosedRange<Int>) -> Int? {
        guard text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            let number = Int(text), range.contains(number)
        else { return nil }
        return number
    }

    /// RFC 1123 §2.1 host names: dot-separated labels of letters, digits and hyphens, not
    /// starting or ending with a hyphen; a trailing dot is allowed.
    private static func isHostName(_ text: String) -> Bool {
        let name = text.hasSuffix(".") ? text.dropLast() : Substring(text)
        guard !name.isEmpty, name.utf8.count <= 253 else { return false }
        return name.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            !label.isEmpty && label.utf8.count <= 63 && label.first != "-" && label.last != "-"
                && label.utf8.allSatisfy {
                    $0 == UInt8(ascii: "-") || ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A)
                }
        }
    }

    /// Non-empty and free of control characters, which have no business in paths or titles.
    private static func isPlainText(_ text: String) -> Bool {
        !text.isEmpty && !text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }
}
