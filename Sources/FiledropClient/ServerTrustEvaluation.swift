#if canImport(Security)
    import CommonCrypto
    import Foundation
    import Security

    /// Apple platforms: checks a server's `SecTrust` against a `ServerTrust` for the URLSession
    /// delegate. The system's evaluation keeps doing the work (signatures, dates, the host name
    /// through the SSL policy); only its anchors change, to the CA file or the pinned certificate.
    enum ServerTrustEvaluation {
        /// nil when the server is trusted; else why not, in a sentence.
        static func failure(of trust: SecTrust, against choice: ServerTrust) -> String? {
            switch choice {
            case .system:
                return evaluate(trust)
            case .certificateAuthority(let file):
                guard let data = try? Data(contentsOf: file) else { return "cannot read the CA file \(file.path)" }
                let anchors = PEMCertificates.derCertificates(in: data).compactMap {
                    SecCertificateCreateWithData(nil, $0 as CFData)
                }
                guard !anchors.isEmpty else { return "no certificate in the CA file \(file.path)" }
                return evaluate(trust, anchors: anchors)
            case .pinnedCertificate(let pin):
                let presented = chain(of: trust)
                guard let match = presented.first(where: { fingerprint(of: $0) == pin }) else {
                    let seen = presented.map { fingerprint(of: $0).description }.joined(separator: ", ")
                    return "no certificate the server sent has the SHA-256 \(pin) (it sent \(seen))"
                }
                return evaluate(trust, anchors: [match])
            }
        }

        private static func evaluate(_ trust: SecTrust, anchors: [SecCertificate]? = nil) -> String? {
            if let anchors {
                SecTrustSetAnchorCertificates(trust, anchors as CFArray)
                SecTrustSetAnchorCertificatesOnly(trust, true)
            }
            var error: CFError?
            if SecTrustEvaluateWithError(trust, &error) { return nil }
            return error.map { CFErrorCopyDescription($0) as String } ?? "the certificate is not trusted"
        }

        private static func chain(of trust: SecTrust) -> [SecCertificate] {
            if #available(macOS 12.0, iOS 15.0, tvOS 15.0, watchOS 8.0, *) {
                return (SecTrustCopyCertificateChain(trust) as? [SecCertificate]) ?? []
            }
            return (0..<SecTrustGetCertificateCount(trust)).compactMap { SecTrustGetCertificateAtIndex(trust, $0) }
        }

        private static func fingerprint(of certificate: SecCertificate) -> CertificateFingerprint? {
            // CommonCrypto rather than CryptoKit: it is there on every OS version this builds for.
            let der = SecCertificateCopyData(certificate) as Data
            var digest = [UInt8](repeating: 0, count: Int(CC_SHA256_DIGEST_LENGTH))
            der.withUnsafeBytes { _ = CC_SHA256($0.baseAddress, CC_LONG($0.count), &digest) }
            return CertificateFingerprint(digest: digest)
        }
    }
#endif
