import Foundation
import Testing

@testable import FiledropClient

/// The framing of CA files: several PEM blocks with text around them, or one DER blob.
@Suite struct PEMCertificatesTests {
    @Test func readsEveryPEMBlockInOrder() {
        let text = """
            subject=CN = leaf
            -----BEGIN CERTIFICATE-----
            \(Data([0x30, 1, 2]).base64EncodedString())
            -----END CERTIFICATE-----
            -----BEGIN CERTIFICATE-----
            \(Data([0x30, 3]).base64EncodedString())
            -----END CERTIFICATE-----

            """
        #expect(PEMCertificates.derCertificates(in: Data(text.utf8)) == [Data([0x30, 1, 2]), Data([0x30, 3])])
    }

    @Test func takesDERAsOneCertificateAndRefusesTheRest() {
        #expect(PEMCertificates.derCertificates(in: Data([0x30, 0x82, 1, 0])) == [Data([0x30, 0x82, 1, 0])])
        #expect(PEMCertificates.derCertificates(in: Data("-----BEGIN PRIVATE KEY-----\n".utf8)).isEmpty)
        #expect(PEMCertificates.derCertificates(in: Data()).isEmpty)
    }
}
