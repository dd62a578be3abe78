import FiledropHTTP

/// Everything an operator can set, after flags, `FILEDROP_*` environment, the config file
/// and defaults have been merged (in that order of precedence) by `ConfigurationLoader`.
/// `ConfigKey.all` documents each member.
public struct Configuration: Sendable, Equatable {
    public var listen: [ListenAddress] = [ListenAddress(host: "", port: 8080)]
    /// HTTPS addresses; used only when `tls` is not `.off`.
    public var httpsListen: [ListenAddress] = [ListenAddress(host: "", port: 8443)]
    /// Whether HTTPS is served, and where its certificate comes from.
    public var tls: TLSMode = .off
    /// PEM certificate (chain allowed) and private key for `tls = files`.
    public var tlsCertificateFile: String? = nil
    public var tlsKeyFile: String? = nil
    /// Where `tls = auto` keeps its CA and server certificate; never inside save-dir.
    public var tlsDirectory: String = "./filedrop-tls"
    /// What the plain-HTTP port does while HTTPS is on.
    public var httpMode: PlainHTTPMode = .redirect
    public var saveDirectory: String = "./uploads"
    /// A folder to serve the page from instead of the one built into the binary.
    public var webRoot: String? = nil
    /// Per file; nil means no limit.
    public var maxUploadSize: UInt64? = nil
    /// The whole multipart body; nil means no limit.
    public var maxRequestSize: UInt64? = nil
    /// Uploads are refused when they would leave less than this free on the save directory's file system.
    public var minFreeSpace: UInt64 = 64 << 20
    public var onCollision: CollisionPolicy = .rename
    public var saveMode: SaveMode = .group
    public var access: AccessMode = .open
    public var fsync: Bool = true
    /// SHA-256 of every upload, kept with the file and reported (issue 21).
    public var sha256: Bool = true
    public var allowHidden: Bool = false
    public var allowDelete: Bool = false
    public var maxConnections: Int = 1024
    /// Connections one client address may hold at once.
    public var maxConnectionsPerClient: Int = 64
    /// Uploads one client address may run at once.
    public var maxUploadsPerClient: Int = 8
    /// Bytes one client address may upload per hour; nil means no limit.
    public var uploadQuotaPerHour: UInt64? = nil
    /// Names accepted in `Host` besides IP literals, `localhost` and the machine's own names.
    public var allowedHosts: [String] = []
    /// Whether the daemon announces itself over mDNS (DNS-SD through Avahi).
    public var mdns: Bool = true
    /// The DNS-SD instance name; nil means "filedrop on HOSTNAME".
    public var mdnsName: String? = nil
    /// Whether the LocalSend receiver (issue 22) serves HTTPS on `localsendPort`.
    public var localsend: Bool = false
    public var localsendPort: Int = 53317
    /// The PIN a LocalSend sender must give (`?pin=`); nil accepts every session where access allows.
    public var localsendPin: String? = nil
    /// A LocalSend session idle this long (no upload running, no request) ends.
    public var localsendTimeout: Duration = .seconds(120)
    /// Where LocalSend devices announce themselves (protocol v2.1 §3.1); read at start only.
    public var localsendMulticast: MulticastGroup = .localSendDefault
    /// Time allowed for a request line and header section to arrive.
    public var headTimeout: Duration = .seconds(10)
    /// Inactivity allowed while a body is arriving.
    public var bodyTimeout: Duration = .seconds(60)
    /// How long an idle keep-alive connection is kept.
    public var idleTimeout: Duration = .seconds(60)
    /// A download read slower than this many bytes per second, over 30 s, is cut off; 0 never.
    public var minSendRate: UInt64 = 1024
    /// Grace period for requests in flight after SIGTERM.
    public var drainTimeout: Duration = .seconds(20)
    /// Event-loop threads; 0 means one per CPU.
    public var threads: Int = 0
    public var title: String = "filedrop"
    public var logLevel: LogLevel = .info
    /// One info line per request (the access log); off for benchmarks and quiet setups.
    public var accessLog: Bool = true
    /// Access-log lines per interval; the rest are counted in one summary line per interval.
    public var accessLogRate: AccessLogRate = .default
    /// Hash checked by access control; nil means no password.
    public var passwordHash: String? = nil
    /// Bytes all unfinished resumable (tus) uploads may hold together; nil means no limit.
    public var tusMaxPending: UInt64? = 10 << 30
    /// Unfinished resumable uploads one client address may have at once.
    public var tusMaxPerClient: Int = 20
    /// An unfinished resumable upload nobody writes to for this long is deleted.
    public var tusExpiration: Duration = .seconds(24 * 3600)
    /// Who may read `GET /metrics`.
    public var metricsAccess: MetricsAccess = .loopback
    /// The on-upload hook: a program run for every finished file (never through a shell); nil for none.
    public var onUpload: String? = nil
    /// Hook runs at once, at most.
    public var onUploadConcurrency: Int = 2
    /// A hook still running after this gets SIGTERM, then SIGKILL.
    public var onUploadTimeout: Duration = .seconds(60)
    /// The webhook that gets a POST per finished file; nil for none.
    public var notifyURL: NotifyTarget? = nil
    /// JSON or ntfy's format for `notifyURL`.
    public var notifyFormat: NotifyTarget.Format = .auto
    /// The configuration file that was read, for messages; nil when none was.
    /// Where `filedrop reload` reaches the daemon; nil for none.
    public var controlSocket: String? = nil
    public var configFile: String? = nil

    /// The built-in defaults, before the environment-dependent ones
    /// (`save-dir`, `web-root`) are filled in by the loader.
    public init() {}
}

/// Where the HTTPS certificate comes from.
public enum TLSMode: String, Sendable, Equatable, CaseIterable {
    /// Plain HTTP only.
    case off
    /// filedrop's own CA (made on first start) issues a certificate for every address served.
    case auto
    /// `tls-cert` and `tls-key` (or systemd credentials `tls.crt` and `tls.key`).
    case files
}

/// What the plain-HTTP port does while HTTPS is on.
public enum PlainHTTPMode: String, Sendable, Equatable, CaseIterable {
    /// Pages redirect to HTTPS; passwords and uploads are refused; `/ca.crt` and `/trust` are served.
    case redirect
    /// Everything is served over plain HTTP too.
    case serve
    /// No plain-HTTP port.
    case off
}

/// Who may read what is saved: the service's own user alone, or its group too, so a person
/// at the machine reads uploads by joining the group instead of with sudo. The process's
/// umask still applies on top (the package's unit sets one that keeps the group's read).
public enum SaveMode: String, Sendable, Equatable, CaseIterable {
    /// Files 0600, folders 0700.
    case owner
    /// Files 0640, folders 0750; a folder made inside a set-group-ID one inherits the group
    /// and the bit (the package's save directory is 2750), so everything stays the group's.
    case group
}

/// What an upload does when its name is taken.
public enum CollisionPolicy: String, Sendable, Equatable, CaseIterable {
    /// Store as `name (1).ext`, `name (2).ext`, ...
    case rename
    /// Replace the existing file atomically.
    case overwrite
    /// Refuse the upload (409 Conflict).
    case reject
}

/// Who may do what without a password.
public enum AccessMode: String, Sendable, Equatable, CaseIterable {
    /// Anyone may list, download and upload.
    case open
    /// Anyone may upload; listing and downloading need the password.
    case drop
    /// Everything needs the password.
    case `private`
    /// Anyone may list and download; nobody may upload.
    case readOnly = "read-only"
}
