import FiledropHTTP

/// `/ca.mobileconfig`: filedrop's CA certificate in an Apple configuration profile, which is
/// how iOS and iPadOS install a CA from Safari (they do not install a bare `.crt` as one).
/// One `com.apple.security.root` payload carries the DER (Apple's Configuration Profile
/// Reference: `CertificateRoot`, and the top-level and common payload keys).
///
/// The `PayloadUUID`s and identifiers come from the certificate's fingerprint: downloading
/// the profile again gives the same profile, which replaces the one installed instead of
/// adding a second, while another server's CA (another fingerprint) is a profile of its own.
/// Unsigned: iOS shows it as "Not Verified", which the `/trust` page explains.
struct MobileConfigProfile {
    static let fileName = "filedrop-ca.mobileconfig"

    let anchor: TrustAnchor
    /// How the person reached the server (the request's host), shown in the profile's name.
    let serverName: String

    /// The profile's own UUID and its payload's, `8-4-4-4-12` hex, from the fingerprint.
    var uuids: (profile: String, payload: String) {
        var digits = Array(anchor.fingerprintHex)
        // SHA-256 has 64 digits; a shorter fingerprint still gives two well-formed UUIDs.
        digits += Array(repeating: "0", count: max(0, 64 - digits.count))
        return (Self.uuid(Array(digits[0..<32])), Self.uuid(Array(digits[32..<64])))
    }

    /// RFC 9562 §5.8 (UUIDv8, custom data): version 8, variant `10`, the rest hash bits.
    private static func uuid(_ digits: [Character]) -> String {
        var digits = digits
        digits[12] = "8"
        let variant = (digits[16].hexDigitValue ?? 0) & 0x3 | 0x8
        digits[16] = Character(String(variant, radix: 16, uppercase: true))
        let text = String(digits)
        var groups: [Substring] = []
        var start = text.startIndex
        for length in [8, 4, 4, 4, 12] {
            let end = text.index(start, offsetBy: length)
            groups.append(text[start..<end])
            start = end
        }
        return groups.joined(separator: "-")
    }

    var identifier: String {
        "local.filedrop.ca." + anchor.fingerprintHex.prefix(16)
    }

    var displayName: String {
        "filedrop CA on " + serverName
    }

    var xml: String {
        let (profileUUID, payloadUUID) = uuids
        let description =
            "Lets this device trust the HTTPS connection to the filedrop server on \(serverName). "
            + "SHA-256 fingerprint: \(anchor.fingerprintSHA256). After installing it, switch on full trust for "
            + "\"\(anchor.commonName)\" in Settings > General > About > Certificate Trust Settings."
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>PayloadContent</key>
            \t<array>
            \t\t<dict>
            \t\t\t<key>PayloadCertificateFileName</key>
            \t\t\t<string>\(CertificateDownload.fileName)</string>
            \t\t\t<key>PayloadContent</key>
            \t\t\t<data>\(Base64.encode(anchor.certificateDER))</data>
            \t\t\t<key>PayloadDescription</key>
            \t\t\t<string>The certificate authority of the filedrop server on \(serverName.xmlEscaped).</string>
            \t\t\t<key>PayloadDisplayName</key>
            \t\t\t<string>\(anchor.commonName.xmlEscaped)</string>
            \t\t\t<key>PayloadIdentifier</key>
            \t\t\t<string>\(identifier).certificate</string>
            \t\t\t<key>PayloadType</key>
            \t\t\t<string>com.apple.security.root</string>
            \t\t\t<key>PayloadUUID</key>
            \t\t\t<string>\(payloadUUID)</string>
            \t\t\t<key>PayloadVersion</key>
            \t\t\t<integer>1</integer>
            \t\t</dict>
            \t</array>
            \t<key>PayloadDescription</key>
            \t<string>\(description.xmlEscaped)</string>
            \t<key>PayloadDisplayName</key>
            \t<string>\(displayName.xmlEscaped)</string>
            \t<key>PayloadIdentifier</key>
            \t<string>\(identifier)</string>
            \t<key>PayloadOrganization</key>
            \t<string>filedrop</string>
            \t<key>PayloadRemovalDisallowed</key>
            \t<false/>
            \t<key>PayloadType</key>
            \t<string>Configuration</string>
            \t<key>PayloadUUID</key>
            \t<string>\(profileUUID)</string>
            \t<key>PayloadVersion</key>
            \t<integer>1</integer>
            </dict>
            </plist>

            """
    }

    /// No ETag: the profile names the host it was fetched from, and it is fetched once.
    func response() -> Response {
        Response(
            status: .ok,
            headers: [
                .contentType: "application/x-apple-aspen-config", .cacheControl: "no-cache",
                .contentDisposition: "attachment; filename=\"\(Self.fileName)\"",
            ],
            body: .bytes(Array(xml.utf8)))
    }
}

extension String {
    /// Text for an XML 1.0 document: markup characters as entities (`htmlEscaped` writes the
    /// five XML ones), and the characters XML 1.0 forbids even as references (§2.2: C0
    /// controls but tab, newline and carriage return; U+FFFE, U+FFFF) left out.
    fileprivate var xmlEscaped: String {
        var allowed = String.UnicodeScalarView()
        for scalar in unicodeScalars {
            switch scalar.value {
            case 0x09, 0x0A, 0x0D: allowed.append(scalar)
            case 0x00..<0x20, 0xFFFE, 0xFFFF: continue
            default: allowed.append(scalar)
            }
        }
        return String(allowed).htmlEscaped
    }
}
