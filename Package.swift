// swift-tools-version:6.0
import PackageDescription

// Optional targets stay out of the default build: `FILEDROP_FUZZ=1` adds the libFuzzer
// entry points (built by `make fuzz` with -sanitize=fuzzer).
let fuzzing = Context.environment["FILEDROP_FUZZ"] == "1"

// `FILEDROP_TUNED_LINK=1` (the Makefile's release build, which the tests and the .deb use)
// links the release binaries for a smaller resident size: lld with packed relocations, the
// daemon's hot functions laid out together, libstdc++ linked in. docs/building.md says why
// each one is there and what it saves; a plain `swift build -c release` leaves them out.
let tunedLink = Context.environment["FILEDROP_TUNED_LINK"] == "1"
let clientReleaseLinkFlags =
    tunedLink
    ? [
        "-static-stdlib",
        "-l_CFURLSessionInterface", "-lCoreFoundation", "-l_FoundationCShims", "-l_FoundationCollections",
        "-l_FoundationICU", "-lswiftSynchronization", "-lcurl",
        "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
    ] : []
let daemonReleaseLinkFlags =
    tunedLink
    ? [
        "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker", "--no-export-dynamic",
        "-L", "\(Context.packageDirectory)/Sources/filedrop/static-libstdc++",
        "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/Sources/filedrop/hot-text.order",
        "-Xlinker", "--no-warn-symbol-ordering",
    ] : []
// One section per function, so the linker can order them (and drop those nothing calls).
let daemonSwiftSettings: [SwiftSetting] =
    tunedLink
    ? [
        .unsafeFlags(["-Xfrontend", "-function-sections"], .when(platforms: [.linux], configuration: .release))
    ] : []

var targets: [Target] = [
    .systemLibrary(
        name: "CSystemd",
        pkgConfig: "libsystemd",
        providers: [.apt(["libsystemd-dev"])]
    ),
    .systemLibrary(
        name: "CZlib",
        pkgConfig: "zlib",
        providers: [.apt(["zlib1g-dev"])]
    ),
    // OpenSSL's libcrypto: EVP digests, incremental: every upload's SHA-256, tus checksums (SHA-1, MD5, SHA-256).
    .systemLibrary(
        name: "CCrypto",
        pkgConfig: "libcrypto",
        providers: [.apt(["libssl-dev"])]
    ),
    // OpenSSL's libssl: TLS 1.2 and 1.3 for the HTTPS port (the same OpenSSL as libcrypto,
    // from the same Debian package; a TLS stack is not something to write by hand).
    .systemLibrary(
        name: "CSSL",
        pkgConfig: "libssl",
        providers: [.apt(["libssl-dev"])]
    ),
    // QR codes of the page's URL (terminal at start, /qr.svg for the page): libqrencode.
    .systemLibrary(
        name: "CQREncode",
        pkgConfig: "libqrencode",
        providers: [.apt(["libqrencode-dev"])]
    ),
    // crypt(3) from libxcrypt: yescrypt password hashes for password-hash.
    .systemLibrary(
        name: "CCrypt",
        pkgConfig: "libcrypt",
        providers: [.apt(["libcrypt-dev"])]
    ),
    // Avahi's client library: DNS-SD announcements over D-Bus to avahi-daemon (mdns). No
    // pkgConfig: avahi-client.pc adds only -D_REENTRANT, a flag SwiftPM refuses with a warning
    // on every build; the headers are in /usr/include and the modulemap links the libraries
    // (libavahi-client-dev, in the Makefile's BUILD_PACKAGES).
    .systemLibrary(name: "CAvahi"),
    // Linux calls the Glibc module hides (accept4, renameat2, O_TMPFILE): header only.
    .systemLibrary(name: "CLinux"),
    // The layers, each depending only on those above it (README, "Layout"):
    // The HTTP/1.1 engine: parsing, framing, the connection state machine, responses. Pure
    // Swift, depends on no other filedrop target and knows nothing of the application.
    .target(name: "FiledropHTTP", swiftSettings: daemonSwiftSettings),
    // The server: epoll loops, connections, TLS sessions, workers. Knows the engine, not the app.
    .target(
        name: "FiledropServer", dependencies: ["FiledropHTTP", "CLinux", "CSSL", "CCrypto"], swiftSettings: daemonSwiftSettings),
    // The application: routes, access, and one folder per feature. Pure Swift: no Glibc, no
    // C modules; it reaches the system only through protocols the adapters implement.
    .target(name: "FiledropCore", dependencies: ["FiledropHTTP"], swiftSettings: daemonSwiftSettings),
    // The POSIX adapters: storage, hashing, hooks, certificates, Avahi, the control socket.
    .target(
        name: "FiledropIO",
        dependencies: [
            "FiledropCore", "FiledropHTTP", "FiledropServer", "CZlib", "CLinux", "CQREncode",
            "CCrypto", "CCrypt", "CSSL", "CAvahi",
        ],
        swiftSettings: daemonSwiftSettings),
    // sd_notify, socket activation, journald.
    .target(
        name: "FiledropSystemd", dependencies: ["FiledropCore", "FiledropHTTP", "CSystemd"], swiftSettings: daemonSwiftSettings),
    // A client for Swift apps and the `filedrop send/get/ls` commands: Foundation only
    // (URLSession; FoundationNetworking on Linux), so it builds for iOS and macOS too.
    .target(name: "FiledropClient"),
    // The page (web/), compiled in by the EmbedWeb plugin: the daemon is one file.
    .target(name: "FiledropWeb", plugins: ["EmbedWeb"]),
    .plugin(name: "EmbedWeb", capability: .buildTool(), dependencies: ["EmbedWebTool"]),
    .executableTarget(name: "EmbedWebTool"),
    .executableTarget(
        name: "filedrop",
        dependencies: [
            "FiledropHTTP", "FiledropServer", "FiledropCore", "FiledropIO", "FiledropSystemd", "FiledropWeb", "CLinux",
        ],
        exclude: ["hot-text.order", "static-libstdc++"],
        swiftSettings: daemonSwiftSettings,
        linkerSettings: [.unsafeFlags(daemonReleaseLinkFlags, .when(platforms: [.linux], configuration: .release))]
    ),
    // Test support, no tests of its own: the in-memory server (app + connection state machine +
    // InMemoryStorage). A test target, so `swift build` never compiles it and no product links
    // it; it may `@testable import` the core (a plain target could not in a release build).
    .testTarget(name: "FiledropTesting", dependencies: ["FiledropHTTP", "FiledropCore"]),
    // The engine alone, with a toy application: no other filedrop target.
    .testTarget(name: "FiledropHTTPTests", dependencies: ["FiledropHTTP"]),
    .testTarget(
        name: "FiledropCoreTests", dependencies: ["FiledropHTTP", "FiledropCore", "FiledropTesting"], exclude: ["Fixtures"]),
    .testTarget(
        name: "FiledropIOTests",
        dependencies: ["FiledropHTTP", "FiledropServer", "FiledropCore", "FiledropIO", "FiledropTesting"]),
    .testTarget(name: "FiledropSystemdTests", dependencies: ["FiledropSystemd", "FiledropHTTP", "FiledropCore"]),
    // `filedrop send|get|ls`, exec'ed by `filedrop`: the daemon stays free of Foundation.
    .executableTarget(
        name: "filedrop-client",
        dependencies: ["FiledropClient", "FiledropHTTP", "FiledropCore", "CLinux", "CSSL"],
        linkerSettings: [.unsafeFlags(clientReleaseLinkFlags, .when(platforms: [.linux], configuration: .release))]
    ),
    .testTarget(name: "FiledropClientTests", dependencies: ["FiledropClient"]),
    // Runs the real binary (built as a dependency) with Foundation's URLSession as the client:
    // named for that client, beside the pytest suite in Tests/EndToEnd.
    .testTarget(name: "URLSessionTests", dependencies: ["filedrop"]),
]

if fuzzing {
    let fuzzTargets = [
        "FuzzHTTPHead", "FuzzChunked", "FuzzMultipart", "FuzzConfigFile", "FuzzRequestText", "FuzzCatalogue",
        "FuzzLocalSend", "FuzzControl",
    ]
    for name in fuzzTargets {
        targets.append(.executableTarget(name: name, dependencies: ["FiledropHTTP", "FiledropCore"], path: "Fuzz/\(name)"))
    }
}

let package = Package(
    name: "filedrop",
    products: [
        .executable(name: "filedrop", targets: ["filedrop"]),
        .executable(name: "filedrop-client", targets: ["filedrop-client"]),
        .library(name: "FiledropClient", targets: ["FiledropClient"]),
    ],
    targets: targets,
    swiftLanguageModes: [.v6]
)
