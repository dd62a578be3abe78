import FiledropHTTP
import Synchronization

/// Every access decision filedrop makes about a request, from its head alone, before any
/// body byte is read (so a refusal goes out instead of `100 Continue`):
///
/// 1. `Host` must name this server (`HostValidator`: DNS rebinding);
/// 2. a state-changing request must not come from another website (`OriginCheck`: CSRF);
/// 3. the password, where the access mode asks for one (`AccessPolicy`), checked with
///    brute-force slowing (`LoginThrottle`) and a short cache of verified headers
///    (`CredentialCache`, because the hash check is slow on purpose). The hash check itself
///    is blocking work for a worker thread (`PasswordCheck`), and only `PasswordCheckGate`'s
///    few run or wait at once: past that, 503, never a queue that grows with a flood;
/// 4. per-client upload slots and the hourly upload quota (`UploadCounters`).
public struct AccessControl: Sendable {
    /// What survives a configuration reload: per-client failure and upload records.
    public final class ClientRecords: Sendable {
        public let throttle: LoginThrottle
        public let uploads: UploadCounters
        public let passwordChecks: PasswordCheckGate

        public init(
            throttle: LoginThrottle = LoginThrottle(), uploads: UploadCounters = UploadCounters(),
            passwordChecks: PasswordCheckGate = PasswordCheckGate()
        ) {
            self.throttle = throttle
            self.uploads = uploads
            self.passwordChecks = passwordChecks
        }
    }

    public let policy: AccessPolicy
    public let hosts: HostValidator
    public let records: ClientRecords
    public let cache: CredentialCache
    public let maxUploadsPerClient: Int
    public let hourlyUploadQuota: UInt64?
    /// TLS is on, so each port has one scheme an `Origin` must name (`OriginCheck`).
    public let servesTLS: Bool
    private let verifier: (any PasswordVerifier)?
    private let now: @Sendable () -> UInt64

    /// - Parameters:
    ///   - machineNames: the machine's own names (`hostname`, `hostname.local`), accepted in `Host`
    ///     besides IP literals, `localhost` and `allowed-hosts`.
    ///   - verifier: checks passwords against `password-hash`; without one, nothing that needs
    ///     the password is ever allowed.
    ///   - now: monotonic nanoseconds, injected so tests control time.
    public init(
        configuration: Configuration, machineNames: [String] = [], verifier: (any PasswordVerifier)? = nil,
        records: ClientRecords = ClientRecords(), cache: CredentialCache = CredentialCache(),
        now: @escaping @Sendable () -> UInt64
    ) {
        policy = AccessPolicy(
            mode: configuration.access, hasPassword: configuration.passwordHash != nil,
            publishesTrustRoutes: configuration.tls != .off, metricsAccess: configuration.metricsAccess)
        hosts = HostValidator(names: configuration.allowedHosts + machineNames)
        maxUploadsPerClient = configuration.maxUploadsPerClient
        hourlyUploadQuota = configuration.uploadQuotaPerHour
        servesTLS = configuration.tls != .off
        self.verifier = verifier
        self.records = records
        self.cache = cache
        self.now = now
    }

    /// Throws the refusal (421, 403, 401, 404, 429 or 503) when the request may not proceed;
    /// returns the password check still to run when the answer needs the slow hash.
    /// `route`: what `head` asks for, as `Route` parsed it.
    public func check(_ head: RequestHead, route: Route, _ context: RequestContext) throws(HTTPError) -> PasswordCheck? {
        try hosts.check(head)
        try OriginCheck.check(head, scheme: servesTLS ? (context.isSecure ? "https" : "http") : nil)
        switch policy.requirement(for: route) {
        case .anyone:
            return nil
        case .password:
            return try authenticate(head.headers[.authorization], client: context.client)
        case .loopbackPeer:
            guard Self.isLoopback(client: context.client) else {
                throw .forbidden("Only this machine may read this (metrics-access = loopback).")
            }
            return nil
        case .nobody:
            throw .notFound
        }
    }

    /// 127.0.0.0/8 or ::1, as the socket layer writes peers (IPv4-mapped ones as IPv4).
    static func isLoopback(client: String) -> Bool {
        client.hasPrefix("127.") || client == "::1"
    }

    /// Takes an upload slot for the client, or throws 429 (`UploadAdmission` calls this
    /// before the upload has any side effect). `bodyLength`: the request's declared body.
    func takeUploadSlot(client: String, bodyLength: UInt64?) throws(HTTPError) {
        try records.uploads.admit(
            client: client, maxActive: maxUploadsPerClient, hourlyQuota: hourlyUploadQuota,
            bodyLength: bodyLength, now: now())
    }

    func releaseUploadSlot(client: String) {
        records.uploads.release(client: client, now: now())
    }

    /// Wraps an admitted upload so its slot is given back when it ends, and every byte
    /// counts against the client's hourly quota.
    func countedUpload(_ upload: any RequestBodyConsumer, client: String) -> any RequestBodyConsumer {
        CountedUpload(upload, counters: records.uploads, client: client, hourlyQuota: hourlyUploadQuota, now: now)
    }

    private func authenticate(_ authorization: String?, client: String) throws(HTTPError) -> PasswordCheck? {
        let time = now()
        let wait = records.throttle.remainingLockout(client: client, now: time)
        guard wait == 0 else {
            throw .tooManyRequests(
                "Too many wrong passwords from your address; try again later.",
                retryAfterSeconds: (wait + 999_999_999) / 1_000_000_000)
        }
        // A browser asks without credentials first and prompts on the 401: not a failure.
        guard let authorization else {
            throw .unauthorized("A password is needed for this. Any user name will do.")
        }
        if cache.contains(authorization, now: time) { return nil }
        guard let credentials = BasicCredentials(authorization: authorization), let verifier else {
            records.throttle.recordFailure(client: client, now: time)
            throw .unauthorized("The password is wrong.")
        }
        try records.passwordChecks.enter()
        return PasswordCheck(
            access: self, authorization: authorization, password: credentials.password, verifier: verifier,
            client: client)
    }

    /// The verdict of a check, on the loop: records it, and throws 401 for a wrong password.
    fileprivate func conclude(_ check: PasswordCheck, correct: Bool) throws(HTTPError) {
        let time = now()
        guard correct else {
            records.throttle.recordFailure(client: check.client, now: time)
            throw .unauthorized("The password is wrong.")
        }
        records.throttle.recordSuccess(client: check.client)
        cache.insert(check.authorization, now: time)
    }
}

/// One password to verify against the hash: `verify` is the slow part (yescrypt, tens of
/// milliseconds of CPU on purpose) and runs on a worker thread; `conclude` records the verdict
/// on the loop. It holds a place in `PasswordCheckGate` until verified.
public struct PasswordCheck: Sendable {
    fileprivate let access: AccessControl
    fileprivate let authorization: String
    fileprivate let password: [UInt8]
    fileprivate let verifier: any PasswordVerifier
    fileprivate let client: String

    /// Blocking: on a worker thread.
    public func verify() -> Bool {
        defer { access.records.passwordChecks.leave() }
        return verifier.verify(password)
    }

    public func conclude(correct: Bool) throws(HTTPError) {
        try access.conclude(self, correct: correct)
    }
}

/// Bounds the password checks running or waiting for a worker, whatever the number of
/// addresses they come from: a flood of guesses gets 503 with `Retry-After` past
/// `capacity`, and never holds more than that much hashing between the workers (per-address
/// throttling cannot help when every guess comes from a new address).
public final class PasswordCheckGate: Sendable {
    public let capacity: Int
    private let inFlight = Atomic<Int>(0)

    public init(capacity: Int = 8) {
        self.capacity = capacity
    }

    public var checksInFlight: Int { inFlight.load(ordering: .relaxed) }

    func enter() throws(HTTPError) {
        guard inFlight.wrappingAdd(1, ordering: .relaxed).newValue <= capacity else {
            inFlight.wrappingSubtract(1, ordering: .relaxed)
            throw .serviceUnavailable("Too many password checks are running; try again in a moment.", retryAfterSeconds: 1)
        }
    }

    func leave() {
        inFlight.wrappingSubtract(1, ordering: .relaxed)
    }
}
