import CCrypto
import FiledropServer
import Glibc

/// The fields of one X.509 v3 certificate, and `sign`, which turns them into a signed
/// libcrypto `X509`: a random serial, validity in Unix seconds, subject fields, extensions in
/// OpenSSL's configuration syntax (constants written here, never user text), and the subject
/// alternative names built as typed GENERAL_NAMEs (names do reach here from configuration).
struct CertificateBuilder {
    /// Subject fields in order, such as `("O", "filedrop")`, `("CN", name)`.
    var subject: [(field: String, value: String)]
    var notBefore: Int64
    var notAfter: Int64
    /// Such as `(NID_basic_constraints, "critical,CA:TRUE,pathlen:0")`.
    var extensions: [(nid: Int32, value: String)]
    /// DNS names and IP literals (IPv4 or IPv6, no brackets) for subjectAltName; none, no extension.
    var dnsNames: [String] = []
    var ipAddresses: [String] = []

    /// ub-common-name (RFC 5280 Appendix A.1): a longer CN is not encodable.
    static let commonNameLimit = 64

    /// Signs with `issuerKey` (ECDSA with SHA-256). `issuer` nil makes it self-signed: the
    /// issuer name is the subject and the extensions see the certificate as its own issuer.
    func sign(publicKey subjectKey: PrivateKey, issuer: X509Certificate?, issuerKey: PrivateKey) throws(CertificateError)
        -> X509Certificate
    {
        guard let pointer = X509_new() else { throw LibcryptoErrorQueue.failure("allocate a certificate") }
        let certificate = X509Certificate(taking: pointer)
        guard X509_set_version(pointer, Int(X509_VERSION_3)) == 1 else {
            throw LibcryptoErrorQueue.failure("set the certificate version")
        }
        try setRandomSerial(pointer)
        guard ASN1_TIME_set(X509_getm_notBefore(pointer), time_t(notBefore)) != nil,
            ASN1_TIME_set(X509_getm_notAfter(pointer), time_t(notAfter)) != nil
        else { throw LibcryptoErrorQueue.failure("set the validity period") }
        guard let name = X509_get_subject_name(pointer) else { throw LibcryptoErrorQueue.failure("read the subject name") }
        for (field, value) in subject {
            let bytes = Array(value.utf8)
            guard X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8, bytes, Int32(bytes.count), -1, 0) == 1 else {
                throw LibcryptoErrorQueue.failure("set the subject's \(field)")
            }
        }
        let issuerName = issuer.map { X509_get_subject_name($0.pointer) } ?? name
        guard X509_set_issuer_name(pointer, issuerName) == 1, X509_set_pubkey(pointer, subjectKey.pointer) == 1 else {
            throw LibcryptoErrorQueue.failure("set the issuer and public key")
        }
        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuer?.pointer ?? pointer, pointer, nil, nil, 0)
        for (nid, value) in extensions {
            guard let ext = X509V3_EXT_nconf_nid(nil, &context, nid, value) else {
                throw LibcryptoErrorQueue.failure("make the extension \(value)")
            }
            defer { X509_EXTENSION_free(ext) }
            guard X509_add_ext(pointer, ext, -1) == 1 else { throw LibcryptoErrorQueue.failure("add the extension \(value)") }
        }
        if !dnsNames.isEmpty || !ipAddresses.isEmpty {
            try addSubjectAlternativeNames(pointer)
        }
        guard X509_sign(pointer, issuerKey.pointer, EVP_sha256()) > 0 else {
            throw LibcryptoErrorQueue.failure("sign the certificate")
        }
        return certificate
    }

    /// 128 random bits, read as a positive integer (RFC 5280 §4.1.2.2: positive, at most 20
    /// octets; CA/Browser Forum: at least 64 bits from a CSPRNG).
    private func setRandomSerial(_ certificate: OpaquePointer) throws(CertificateError) {
        var bytes = [UInt8](repeating: 0, count: 16)
        guard RAND_bytes(&bytes, Int32(bytes.count)) == 1 else {
            throw LibcryptoErrorQueue.failure("draw a random serial number")
        }
        if bytes.allSatisfy({ $0 == 0 }) { bytes[bytes.count - 1] = 1 }
        guard let number = BN_bin2bn(bytes, Int32(bytes.count), nil) else {
            throw LibcryptoErrorQueue.failure("make a serial number")
        }
        defer { BN_free(number) }
        guard BN_to_ASN1_INTEGER(number, X509_get_serialNumber(certificate)) != nil else {
            throw LibcryptoErrorQueue.failure("set the serial number")
        }
    }

    /// subjectAltName, critical only when the subject is empty (RFC 5280 §4.2.1.6).
    private func addSubjectAlternativeNames(_ certificate: OpaquePointer) throws(CertificateError) {
        guard let names = GENERAL_NAMES_new() else { throw LibcryptoErrorQueue.failure("allocate subject alternative names") }
        defer { GENERAL_NAMES_free(names) }
        for dnsName in dnsNames {
            guard let text = ASN1_IA5STRING_new() else { throw LibcryptoErrorQueue.failure("allocate a DNS name") }
            let bytes = Array(dnsName.utf8)
            guard ASN1_STRING_set(text, bytes, Int32(bytes.count)) == 1 else {
                ASN1_IA5STRING_free(text)
                throw LibcryptoErrorQueue.failure("set a DNS name")
            }
            try append(type: GEN_DNS, value: text, freeing: { ASN1_IA5STRING_free(text) }, to: names)
        }
        for address in ipAddresses {
            guard let octets = a2i_IPADDRESS(address) else {
                LibcryptoErrorQueue.clear()
                throw .invalidName(address)
            }
            try append(type: GEN_IPADD, value: octets, freeing: { ASN1_OCTET_STRING_free(octets) }, to: names)
        }
        guard
            X509_add1_ext_i2d(
                certificate, NID_subject_alt_name, UnsafeMutableRawPointer(names), subject.isEmpty ? 1 : 0,
                UInt(X509V3_ADD_DEFAULT)) == 1
        else { throw LibcryptoErrorQueue.failure("add the subject alternative names") }
    }

    /// Wraps `value` in a GENERAL_NAME owned by `names`; on failure `value` is freed here.
    private func append(
        type: Int32, value: UnsafeMutablePointer<ASN1_STRING>, freeing: () -> Void,
        to names: OpaquePointer
    ) throws(CertificateError) {
        guard let name = GENERAL_NAME_new() else {
            freeing()
            throw LibcryptoErrorQueue.failure("allocate a subject alternative name")
        }
        GENERAL_NAME_set0_value(name, type, UnsafeMutableRawPointer(value))
        guard filedrop_sk_GENERAL_NAME_push(names, name) > 0 else {
            GENERAL_NAME_free(name)
            throw LibcryptoErrorQueue.failure("add a subject alternative name")
        }
    }
}
