import Synchronization
import Testing

@testable import FiledropCore
@testable import FiledropHTTP
@testable import FiledropTesting

/// The address the QR code and the page's link give a phone, what `/config.json` says about
/// it, and the no-script result page's address reopened.
@Suite struct PhoneAddressTests {
    static let lan = PhoneAddress(lanURLs: ["http://192.168.1.5:8080/", "http://[fd00::5]:8080/", "http://127.0.0.1:8080/"])

    @Test(arguments: [
        "http://127.0.0.1:8080/", "http://localhost:8080/", "http://[::1]:8080/", "http://LOCALHOST:8080/",
        "http://app.localhost:8080/", "http://127.1.2.3:8080/",
    ])
    func aLoopbackPageSendsThePhoneToTheFirstLANAddress(page: String) {
        #expect(Self.lan.url(forPageURL: page) == "http://192.168.1.5:8080/")
    }

    @Test(arguments: ["http://192.168.1.7:8080/", "http://laptop.local:8080/", "http://[fd00::5]:8080/"])
    func aPageOpenedOnTheNetworkKeepsItsAddress(page: String) {
        #expect(Self.lan.url(forPageURL: page) == page)
    }

    @Test func loopbackURLsAreNotOfferedToOtherDevices() {
        #expect(Self.lan.reachableURLs == ["http://192.168.1.5:8080/", "http://[fd00::5]:8080/"])
        #expect(!Self.lan.isLoopbackOnly)
    }

    @Test func listeningOnLoopbackOnlyIsSaidAndTheAddressBarStays() {
        let loopback = PhoneAddress(lanURLs: ["http://127.0.0.1:8080/", "http://[::1]:8080/"])
        #expect(loopback.isLoopbackOnly)
        #expect(loopback.url(forPageURL: "http://localhost:8080/") == "http://localhost:8080/")
        #expect(!PhoneAddress(lanURLs: []).isLoopbackOnly)
    }

    final class RecordingQREncoder: QRCodeEncoder {
        let texts = Mutex<[String]>([])
        func encode(_ text: String) -> QRCode? {
            texts.withLock { $0.append(text) }
            return QRCode(size: 1, modules: [true])
        }
    }

    static func app(_ encoder: RecordingQREncoder = RecordingQREncoder(), _ configure: (inout Configuration) -> Void = { _ in })
        -> FiledropApp
    {
        var configuration = Configuration()
        configure(&configuration)
        return InMemoryServer(configuration: configuration, qrEncoder: encoder, phoneAddress: lan).app
    }

    static func head(_ method: HTTPMethod, _ target: String, host: String) -> RequestHead {
        RequestHead(method: method, target: target, version: .http1_1, headers: ["Host": host])
    }

    @Test func theQRCodeOfALoopbackPageIsTheLANAddress() {
        let encoder = RecordingQREncoder()
        _ = FiledropAppUploadTests.send(Self.app(encoder), Self.head(.get, "/qr.svg", host: "127.0.0.1:8080"))
        #expect(encoder.texts.withLock { $0 } == ["http://192.168.1.5:8080/"])
    }

    @Test func theConfigurationNamesThePhoneAddressTheLANURLsAndWhetherDeletingIsAllowed() {
        let app = Self.app { $0.allowDelete = true }
        let text = FiledropAppUploadTests.bodyText(
            FiledropAppUploadTests.send(app, Self.head(.get, "/config.json", host: "localhost:8080")))
        #expect(
            text.contains(
                "\"allowDelete\":true,\"allowRename\":true,\"phoneURL\":\"http://192.168.1.5:8080/\","
                    + "\"lanURLs\":[\"http://192.168.1.5:8080/\",\"http://[fd00::5]:8080/\"],\"loopbackOnly\":false}"))
    }

    @Test(arguments: [HTTPMethod.get, .head])
    func theResultPageReopenedSendsThePersonToThePage(method: HTTPMethod) {
        let response = FiledropAppUploadTests.send(Self.app(), Self.head(method, "/upload.html", host: "192.168.1.5:8080"))
        #expect(response.status == .seeOther)
        #expect(response.headers["Location"] == "/")
    }

    @Test func otherMethodsOnTheFormAddressAreStillRefused() {
        let response = FiledropAppUploadTests.send(Self.app(), Self.head(.put, "/upload.html", host: "192.168.1.5:8080"))
        #expect(response.status == .methodNotAllowed)
    }
}
