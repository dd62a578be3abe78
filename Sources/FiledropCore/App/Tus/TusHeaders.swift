import FiledropHTTP

/// The tus 1.0.0 request headers, parsed strictly (tus.io protocol.md, "Headers").
enum TusHeaders {
    /// The only protocol version served.
    static let version = "1.0.0"
    /// protocol.md "Protocol Extensions": what `Tus-Extension` advertises.
    static let extensions = [
        "creation", "creation-with-upload", "creation-defer-length", "termination", "expiration", "checksum",
    ]
    /// protocol.md "Core Protocol, PATCH": the only body type a PATCH may carry.
    static let patchContentType = "application/offset+octet-stream"

    /// `Upload-Offset`, `Upload-Length`: a non-negative integer, digits only
    /// (protocol.md "Upload-Offset", "Upload-Length").
    static func integer(_ head: RequestHead, _ name: HTTPFieldName) throws(TusError) -> UInt64? {
        let values = head.headers.values(for: name)
        guard let value = values.first else { return nil }
        let text = value.trimmingOWS()
        guard values.count == 1, !text.isEmpty, text.utf8.count <= 20,
            text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            let number = UInt64(text)
        else {
            throw .badRequest("The \(name.text.lowercased()) header must be one non-negative integer.")
        }
        return number
    }

    /// protocol.md "Tus-Resumable": the version the client speaks; 412 for any other.
    static func checkVersion(_ head: RequestHead) throws(TusError) {
        guard head.headers[.tusResumable]?.trimmingOWS() == version else {
            throw .unsupportedVersion
        }
    }

    /// protocol.md "X-HTTP-Method-Override": the method to act on when the client's
    /// environment cannot send PATCH or DELETE.
    static func effectiveMethod(_ head: RequestHead) -> HTTPMethod {
        guard let override = head.headers[.xHTTPMethodOverride]?.trimmingOWS(), !override.isEmpty else { return head.method }
        return HTTPMethod(token: override)
    }

    /// protocol.md "Content-Type" of a PATCH: the media type without parameters.
    static func hasPatchContentType(_ head: RequestHead) -> Bool {
        guard let value = head.headers[.contentType] else { return false }
        let mediaType = value.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return String(mediaType).trimmingOWS().lowercased() == patchContentType
    }

    /// The body length when `Content-Length` frames it, nil for chunked or no body.
    static func contentLength(_ head: RequestHead) -> UInt64? {
        guard !head.headers.contains(.transferEncoding), let value = head.headers[.contentLength] else { return nil }
        return UInt64(value.trimmingOWS())
    }

    /// Whether the request carries a body at all (RFC 9112 §6.3).
    static func hasBody(_ head: RequestHead) -> Bool {
        head.headers.contains(.transferEncoding) || (contentLength(head) ?? 0) > 0
    }
}

/// protocol.md "Upload-Metadata": comma-separated `key base64value` pairs; keys unique and
/// without spaces or commas, the value may be left out.
struct UploadMetadata: Equatable, Sendable {
    /// The header exactly as sent, echoed on HEAD ("as specified by the Client").
    var raw: String
    var values: [String: [UInt8]]

    static let empty = UploadMetadata(raw: "", values: [:])

    init(raw: String, values: [String: [UInt8]]) {
        self.raw = raw
        self.values = values
    }

    init(parsing header: String) throws(TusError) {
        var values: [String: [UInt8]] = [:]
        for pair in header.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = pair.trimmingOWS().split(separator: " ", omittingEmptySubsequences: false)
            guard let key = parts.first, !key.isEmpty, parts.count <= 2,
                key.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
            else {
                throw .badRequest("Upload-Metadata must be comma-separated \"key base64value\" pairs.")
            }
            let value: [UInt8]
            if parts.count == 2 {
                guard let decoded = Base64.decode(parts[1]) else {
                    throw .badRequest("The Upload-Metadata value of \"\(String(key).logEscaped)\" is not base64.")
                }
                value = decoded
            } else {
                value = []
            }
            guard values.updateValue(value, forKey: String(key)) == nil else {
                throw .badRequest("The Upload-Metadata key \"\(String(key).logEscaped)\" appears twice.")
            }
        }
        self.raw = header
        self.values = values
    }

    /// A value as UTF-8 text; nil when absent or not valid UTF-8.
    func text(_ key: String) -> String? {
        values[key].flatMap { String(validating: $0, as: UTF8.self) }
    }
}

/// protocol.md "Upload-Checksum": `algorithm base64digest` for the body of one PATCH.
struct UploadChecksum: Equatable, Sendable {
    var algorithm: String
    var digest: [UInt8]

    init(parsing header: String) throws(TusError) {
        let parts = header.trimmingOWS().split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 2, let digest = Base64.decode(parts[1]) else {
            throw .badRequest("Upload-Checksum must be \"algorithm base64digest\".")
        }
        self.algorithm = String(parts[0])
        self.digest = digest
    }
}
