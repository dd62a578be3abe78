/// The body of `prepare-upload` (§4.1): who sends, and what.
public struct LocalSendPrepareRequest: Sendable, Equatable {
    public var sender: LocalSendDevice
    /// In the order of their ids, so the session (and the log) lists them the same way each time.
    public var files: [LocalSendFileOffer]

    /// 1 MiB: a thousand files with long names and small previews; a body promising more is
    /// refused before it is read (413) or as it streams past the limit.
    public static let maxBodyBytes = 1 << 20
    /// Files one session may announce.
    public static let maxFiles = 10_000

    public static func parse(_ bytes: some Collection<UInt8>) throws(LocalSendDevice.InvalidBody) -> LocalSendPrepareRequest {
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes, maxBytes: maxBodyBytes)
        } catch {
            throw LocalSendDevice.InvalidBody("the body is not a JSON object of at most \(maxBodyBytes) bytes (\(error))")
        }
        guard let info = value["info"] else { throw LocalSendDevice.InvalidBody("info is missing") }
        let sender = try LocalSendDevice(json: info)
        guard let members = value["files"]?.objectValue else { throw LocalSendDevice.InvalidBody("files is missing") }
        guard members.count <= maxFiles else {
            throw LocalSendDevice.InvalidBody("more than \(maxFiles) files in one session")
        }
        var files: [LocalSendFileOffer] = []
        for key in members.keys.sorted() {
            files.append(try LocalSendFileOffer(key: key, json: members[key]!))
        }
        return LocalSendPrepareRequest(sender: sender, files: files)
    }
}
