/// A LocalSend device as the protocol describes it (LocalSend protocol v2.1 §3.1, §3.2, §6.1):
/// the body of `GET info`, of `POST register` both ways, the `info` of `prepare-upload`, and the
/// multicast announcement, which adds `announce`. filedrop's own is `LocalSendDevice.filedrop`;
/// others come from `LocalSendDevice.parse`. The fingerprint of an HTTPS device is the SHA-256 of
/// its certificate (§2), which is how a sender recognises the same receiver on its next visit.
public struct LocalSendDevice: Sendable, Equatable {
    public var alias: String
    /// The protocol version, "major.minor".
    public var version: String
    /// Nullable in the protocol.
    public var deviceModel: String?
    /// mobile, desktop, web, headless or server; nullable, and unknown values are allowed (§7.1).
    public var deviceType: String?
    public var fingerprint: String
    /// The port its HTTP(S) server listens on; absent from `info` answers.
    public var port: Int?
    /// "http" or "https"; absent from `info` answers.
    public var `protocol`: String?
    /// Whether the download API (§5.2, §5.3) is offered; optional, false by default.
    public var download: Bool

    public init(
        alias: String, version: String, deviceModel: String?, deviceType: String?, fingerprint: String,
        port: Int?, protocol: String?, download: Bool
    ) {
        self.alias = alias
        self.version = version
        self.deviceModel = deviceModel
        self.deviceType = deviceType
        self.fingerprint = fingerprint
        self.port = port
        self.protocol = `protocol`
        self.download = download
    }

    /// The version this receiver speaks: v2.1 added `?pin=` and the 401 answer.
    public static let protocolVersion = "2.1"
    /// The default port of both the HTTP(S) server and the multicast group (§1).
    public static let defaultPort = 53317
    /// A device body, an announcement or a `register` request is a few hundred bytes; 16 KiB
    /// leaves room for long aliases and fields a later version adds, and no more.
    public static let maxBodyBytes = 16 * 1024

    /// filedrop as LocalSend devices list it: the same name mDNS announces ("filedrop on
    /// HOSTNAME", or `mdns-name`), a program without a GUI (`headless`, §7.1), HTTPS only, and
    /// no download API (the page and `filedrop get` are that).
    public static func filedrop(alias: String, fingerprint: String, port: Int) -> LocalSendDevice {
        LocalSendDevice(
            alias: alias, version: protocolVersion, deviceModel: "filedrop", deviceType: "headless",
            fingerprint: fingerprint, port: port, protocol: "https", download: false)
    }

    /// The alias: `mdns-name` when set, else "filedrop on HOSTNAME", cut as DNS-SD cuts it so
    /// the phone's two lists show one name.
    public static func alias(configured: String?, hostName: String) -> String {
        ServiceAdvertisement.instanceName(configured: configured, hostName: hostName)
    }

    /// §2: the fingerprint of an HTTPS device is its certificate's SHA-256, as uppercase hex
    /// (the official app's `calculateHashOfCertificate` writes it so, and peers that pin it,
    /// such as localsendd, compare it case-sensitively); `colonHex` is the `AB:CD:...` form
    /// OpenSSL tools print.
    public static func fingerprint(colonHex: String) -> String {
        String(colonHex.uppercased().filter { $0 != ":" })
    }

    /// The JSON body; `announce` is written only for a multicast message (§3.1).
    public func json(announce: Bool? = nil) -> [UInt8] {
        JSONWriter.document { json in
            json.object { json in write(into: &json, announce: announce) }
        }
    }

    /// The members, for a body that nests the device (`prepare-upload`'s `info`).
    public func write(into json: inout JSONWriter, announce: Bool? = nil) {
        json.member("alias", alias)
        json.member("version", version)
        json.member("deviceModel", deviceModel)
        json.member("deviceType", deviceType)
        json.member("fingerprint", fingerprint)
        if let port { json.member("port", port) }
        if let `protocol` { json.member("protocol", `protocol`) }
        json.member("download", download)
        if let announce { json.member("announce", announce) }
    }

    /// A device from a body of its own (`register`, a multicast message), with its `announce`
    /// flag (false when absent). Anything over `maxBodyBytes`, not JSON, or missing a required
    /// member is an `InvalidBody` (the protocol's 400).
    public static func parse(_ bytes: some Collection<UInt8>) throws(InvalidBody) -> (device: LocalSendDevice, announce: Bool) {
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes, maxBytes: maxBodyBytes)
        } catch {
            throw InvalidBody("the body is not a JSON object of at most \(maxBodyBytes) bytes (\(error))")
        }
        let device = try LocalSendDevice(json: value)
        guard let announce = value["announce"], !announce.isNull else { return (device, false) }
        guard let flag = announce.boolValue else { throw InvalidBody("announce is not true or false") }
        return (device, flag)
    }

    /// A device from a parsed object. Only `alias` and `version` are required: `fingerprint` is
    /// ignored over HTTPS (§3.2) and some senders leave it out; the rest are nullable or optional.
    public init(json value: JSONValue) throws(InvalidBody) {
        guard value.objectValue != nil else { throw InvalidBody("the device is not a JSON object") }
        guard let alias = value["alias"]?.stringValue, !alias.isEmpty else { throw InvalidBody("alias is missing") }
        guard let version = value["version"]?.stringValue else { throw InvalidBody("version is missing") }
        self.init(
            alias: alias, version: version,
            deviceModel: try Self.optionalString(value, "deviceModel"),
            deviceType: try Self.optionalString(value, "deviceType"),
            fingerprint: try Self.optionalString(value, "fingerprint") ?? "",
            port: nil, protocol: try Self.optionalString(value, "protocol"), download: false)
        if let port = value["port"], !port.isNull {
            guard let number = port.integerValue, (1...65535).contains(number) else {
                throw InvalidBody("port is not 1 to 65535")
            }
            self.port = Int(number)
        }
        if let download = value["download"], !download.isNull {
            guard let flag = download.boolValue else { throw InvalidBody("download is not true or false") }
            self.download = flag
        }
    }

    private static func optionalString(_ value: JSONValue, _ key: String) throws(InvalidBody) -> String? {
        guard let member = value[key], !member.isNull else { return nil }
        guard let text = member.stringValue else { throw InvalidBody("\(key) is not a string") }
        return text
    }

    /// A body the protocol cannot use: answered 400 "Invalid body" (§4.1), with the sentence.
    public struct InvalidBody: Error, Equatable, Sendable {
        public let reason: String

        public init(_ reason: String) {
            self.reason = reason
        }
    }
}
