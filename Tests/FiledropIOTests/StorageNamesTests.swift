import Testing

@testable import FiledropIO

@Suite("StorageNames")
struct StorageNamesTests {
    @Test(
        "Client names: plain components that are not the server's own",
        arguments: [
            ("a.txt", true), ("😀", true), (".hidden", true), ("..x", true), ("x..", true), (".filedro", true),
            (".FILEDROP", true), (" ", true),
            ("", false), (".", false), ("..", false), ("a/b", false), ("/", false), ("a\0b", false),
            (".filedrop", false), (".filedrop-tmp-0123456789abcdef", false), (".filedrop-partial", false),
        ])
    func clientNames(name: String, allowed: Bool) {
        #expect(StorageNames.isClientName(name) == allowed)
        #expect(StorageNames.isClientName(name) == (StorageNames.isPlainComponent(name) && !StorageNames.isReserved(name)))
    }
}
