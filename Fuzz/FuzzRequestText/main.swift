import FiledropHTTP

@testable import FiledropCore

/// libFuzzer entry for the text a request carries into names, ranges and access decisions
/// (built by `scripts/fuzz.sh FuzzRequestText`). The first byte picks a file size for the
/// Range check; the rest is used as a Range header, a URL path, a client file name, a
/// Content-Disposition value, a Host, an Origin and an Authorization value. Properties:
/// - ranges lie inside the file and there are at most `maxRanges`;
/// - a URL path is percent-decoded per component and, when the name policy accepts it,
///   every component is a plain name (no `/`, `.`, `..`, NUL) and survives re-encoding;
/// - a stored name is one component the policy accepts again unchanged;
/// - our own Content-Disposition value for any name is ASCII, has no CR/LF, and parses back
///   with the same disposition;
/// - a `LocationPath` made of the text is `/`, or `/` then neither `/` nor `\`, and reads back;
/// - NFC is idempotent and canonically equivalent to its input;
/// - Host, Origin and Basic-credential checks never trap, and an accepted Host has no
///   whitespace, `/` or `@` in it;
/// - tus headers: accepted `Upload-Metadata` keys are printable ASCII without space or comma
///   and the raw value is echoed unchanged; an accepted `Upload-Offset` is digits only; an
///   accepted `Upload-Checksum` names one algorithm; base64 that decodes re-encodes to the
///   same bytes; a saved upload record that loads saves and loads back the same.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequestText(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else { return 0 }
    let fileSize = UInt64(data[0]) * 37
    let text = String(decoding: UnsafeBufferPointer(start: data + 1, count: size - 1), as: UTF8.self)

    if case .ranges(let ranges) = ByteRangeRequest(header: text, size: fileSize) {
        precondition(!ranges.isEmpty && ranges.count <= ByteRangeRequest.maxRanges)
        precondition(ranges.allSatisfy { $0.upperBound < fileSize })
    }

    let policy = FileNamePolicy()
    let decoded = text.split(separator: "/", omittingEmptySubsequences: true).map { percentDecoded($0) }
    if decoded.allSatisfy({ $0 != nil }), let path = try? policy.storagePath(fromComponents: decoded.map { $0! }) {
        for component in path.components {
            precondition(!component.isEmpty && component != "." && component != ".." && !component.contains("/"))
            precondition(!component.unicodeScalars.contains { $0.value == 0 })
            precondition(percentDecoded(percentEncodedPathComponent(component)) == component)
        }
    }
    if let stored = try? policy.storedName(from: text) {
        precondition(!stored.contains("/") && !stored.isEmpty)
        let again = try? policy.storagePath(fromComponents: [stored])
        precondition(again?.components == [stored], "stored name \(stored) is refused when asked for")
    }

    // A Location never leads to another host: `/` alone, or `/` then neither `/` nor `\`,
    // ASCII without controls, and the same path again when read back.
    for location in [LocationPath(requestPath: text), LocationPath(components: decoded.compactMap { $0 })].compactMap({ $0 }) {
        let bytes = Array(location.description.utf8)
        precondition(bytes.first == UInt8(ascii: "/"), "location \(location)")
        precondition(
            bytes.count == 1 || (bytes[1] != UInt8(ascii: "/") && bytes[1] != UInt8(ascii: "\\")), "location \(location)")
        precondition(bytes.allSatisfy { $0 > 0x20 && $0 < 0x7F }, "location \(location)")
        precondition(LocationPath(requestPath: location.description) == location, "location \(location) reads back differently")
    }
    // NFC is idempotent and keeps what canonical equivalence compares.
    let normalized = text.nfcNormalized
    precondition(
        normalized.nfcNormalized.unicodeScalars.elementsEqual(normalized.unicodeScalars), "NFC of NFC differs for \(text)")
    precondition(normalized == text, "NFC changed what \(text) means")

    for disposition in [DispositionType.attachment, .inline] {
        let value = contentDispositionValue(filename: text, disposition: disposition)
        precondition(value.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }, "non-ASCII or control byte in \(value)")
        precondition(ContentDisposition(parsing: value)?.type == disposition.rawValue)
    }
    _ = ContentDisposition(parsing: text)

    let hosts = HostValidator(names: ["nas.lan"])
    if hosts.accepts(authority: text) {
        precondition(!text.contains(where: { $0 == " " || $0 == "/" || $0 == "@" || $0 == "\t" }), "accepted host \(text)")
    }
    var headers: HTTPHeaders = ["Host": "nas.lan:8080", "Origin": text]
    _ = try? OriginCheck.check(RequestHead(method: .post, target: "/upload", version: .http1_1, headers: headers))
    headers.replaceOrAdd(name: "Sec-Fetch-Site", value: text)
    _ = try? OriginCheck.check(RequestHead(method: .post, target: "/upload", version: .http1_1, headers: headers))
    if let credentials = BasicCredentials(authorization: text) {
        precondition(!credentials.user.contains(UInt8(ascii: ":")))
        precondition(!(credentials.user + credentials.password).contains { $0 < 0x20 || $0 == 0x7F })
    }
    fuzzTusHeaders(text, bytes: UnsafeBufferPointer(start: data + 1, count: size - 1))
    return 0
}

private func fuzzTusHeaders(_ text: String, bytes: UnsafeBufferPointer<UInt8>) {
    if let metadata = try? UploadMetadata(parsing: text) {
        precondition(metadata.raw == text)
        precondition(
            metadata.values.keys.allSatisfy {
                !$0.isEmpty && $0.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ",") }
            })
    }
    if let checksum = try? UploadChecksum(parsing: text) {
        precondition(!checksum.algorithm.isEmpty && !checksum.algorithm.contains(" "))
    }
    let head = RequestHead(method: .patch, target: "/files/.tus/x", version: .http1_1, headers: ["Upload-Offset": text])
    if let offset = try? TusHeaders.integer(head, "Upload-Offset") {
        precondition(
            text.trimmingOWS().utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") },
            "offset \(offset) from \(text)")
    }
    if let decoded = Base64.decode(Substring(text)) {
        precondition(Base64.decode(Substring(Base64.encode(decoded))) == decoded, "base64 round trip of \(text)")
    }
    if let record = TusRecord(decoding: Array(bytes)) {
        precondition(TusRecord(decoding: record.encoded()) == record, "upload record round trip")
    }
}
