/// One file a sender announces in `prepare-upload` (LocalSend protocol v2.1 §4.1): the id the
/// `files` map is keyed by, the name (folders allowed: "album/a.jpg"), the size the body must
/// have, the media type, and an optional SHA-256. `preview` and `metadata` are read past.
public struct LocalSendFileOffer: Sendable, Equatable {
    public var id: String
    public var fileName: String
    public var size: UInt64
    public var fileType: String?
    /// Lowercase hex when the sender gave one; checked against the bytes when hashing is on.
    public var sha256: String?

    public init(id: String, fileName: String, size: UInt64, fileType: String? = nil, sha256: String? = nil) {
        self.id = id
        self.fileName = fileName
        self.size = size
        self.fileType = fileType
        self.sha256 = sha256
    }

    /// An id or token is a query parameter: long enough for any UUID, short enough to log.
    public static let maxIDBytes = 256

    /// The entry `key` of the `files` map.
    init(key: String, json value: JSONValue) throws(LocalSendDevice.InvalidBody) {
        guard !key.isEmpty, key.utf8.count <= Self.maxIDBytes else {
            throw LocalSendDevice.InvalidBody("a file id is empty or longer than \(Self.maxIDBytes) bytes")
        }
        guard value.objectValue != nil else { throw LocalSendDevice.InvalidBody("file \(key.logEscaped) is not an object") }
        if let id = value["id"], !id.isNull, id.stringValue != key {
            throw LocalSendDevice.InvalidBody("file \(key.logEscaped) has another id inside")
        }
        guard let fileName = value["fileName"]?.stringValue else {
            throw LocalSendDevice.InvalidBody("file \(key.logEscaped) has no fileName")
        }
        guard let size = value["size"]?.integerValue, size >= 0 else {
            throw LocalSendDevice.InvalidBody("file \(key.logEscaped) has no size in whole bytes")
        }
        let fileType = value["fileType"]?.stringValue
        var sha256: String?
        if let hash = value["sha256"], !hash.isNull {
            guard let text = hash.stringValue, SHA256Text.bytes(hex: text) != nil else {
                throw LocalSendDevice.InvalidBody("file \(key.logEscaped) has a sha256 that is not 64 hex digits")
            }
            sha256 = text.lowercased()
        }
        self.init(id: key, fileName: fileName, size: UInt64(size), fileType: fileType, sha256: sha256)
    }
}
