import Testing

@testable import FiledropCore
@testable import FiledropHTTP

/// Runs the loader with everything injected; `files` is the whole visible file system.
private func load(
    _ arguments: [String] = [],
    environment: [String: String] = [:],
    files: [String: String] = [:],
    directories: Set<String> = []
) throws(ConfigurationError) -> Command {
    try ConfigurationLoader.parse(
        arguments: arguments, environment: environment,
        readFile: { files[$0] }, fileExists: { files[$0] != nil || directories.contains($0) })
}

private func configuration(
    _ arguments: [String] = [],
    environment: [String: String] = [:],
    files: [String: String] = [:],
    directories: Set<String> = []
) throws -> Configuration {
    guard case .run(let configuration) = try load(arguments, environment: environment, files: files, directories: directories)
    else {
        Issue.record("expected a run command")
        return Configuration()
    }
    return configuration
}

private func loadError(
    _ arguments: [String] = [],
    environment: [String: String] = [:],
    files: [String: String] = [:]
) -> ConfigurationError? {
    do {
        _ = try load(arguments, environment: environment, files: files)
        return nil
    } catch {
        return error
    }
}

@Suite struct ConfigurationDefaultsTests {
    @Test func defaultsWithNothingSet() throws {
        let loaded = try configuration()
        #expect(loaded == Configuration())
        #expect(loaded.listen == [ListenAddress(host: "", port: 8080)])
        #expect(loaded.saveDirectory == "./uploads")
        #expect(loaded.webRoot == nil)
        #expect(loaded.maxUploadSize == nil)
        #expect(loaded.tusMaxPending == 10 << 30)
        #expect(loaded.tusMaxPerClient == 20)
        #expect(loaded.tusExpiration == .seconds(24 * 3600))
        #expect(loaded.maxRequestSize == nil)
        #expect(loaded.minFreeSpace == 64 * 1024 * 1024)
        #expect(loaded.onCollision == .rename)
        #expect(loaded.access == .open)
        #expect(loaded.fsync == true)
        #expect(loaded.allowHidden == false)
        #expect(loaded.allowDelete == false)
        #expect(loaded.accessLog == true)
        #expect(loaded.maxConnections == 1024)
        #expect(loaded.maxConnectionsPerClient == 64)
        #expect(loaded.maxUploadsPerClient == 8)
        #expect(loaded.uploadQuotaPerHour == nil)
        #expect(loaded.allowedHosts == [])
        #expect(loaded.headTimeout == .seconds(10))
        #expect(loaded.bodyTimeout == .seconds(60))
        #expect(loaded.idleTimeout == .seconds(60))
        #expect(loaded.drainTimeout == .seconds(20))
        #expect(loaded.threads == 0)
        #expect(loaded.title == "filedrop")
        #expect(loaded.logLevel == .info)
        #expect(loaded.passwordHash == nil)
        #expect(loaded.configFile == nil)
    }

    @Test func saveDirectoryDefaultsToFirstStateDirectory() throws {
        let loaded = try configuration(environment: ["STATE_DIRECTORY": "/var/lib/filedrop:/var/lib/other"])
        #expect(loaded.saveDirectory == "/var/lib/filedrop")
        let overridden = try configuration(["--save-dir", "/srv/drop"], environment: ["STATE_DIRECTORY": "/var/lib/filedrop"])
        #expect(overridden.saveDirectory == "/srv/drop")
    }

    /// The page is built in: a folder left by an older package does not take its place.
    @Test func webRootIsBuiltInUnlessGiven() throws {
        #expect(try configuration(directories: ["/usr/share/filedrop/web", "./web"]).webRoot == nil)
        #expect(try configuration(["--web-root", "./web"]).webRoot == "./web")
    }
}

/// A key, a valid value for it, and what that value must produce.
struct ValidSetting: Sendable, CustomTestStringConvertible {
    var key: String
    var value: String
    var expect: @Sendable (Configuration) -> Bool
    var testDescription: String { "\(key)=\(value)" }
}

@Suite struct ConfigurationKeyTests {
    static let validSettings: [ValidSetting] = [
        .init(key: "listen", value: "127.0.0.1:9000") { $0.listen == [ListenAddress(host: "127.0.0.1", port: 9000)] },
        .init(key: "listen", value: "[::1]:0") { $0.listen == [ListenAddress(host: "::1", port: 0)] },
        .init(key: "save-dir", value: "/srv/drop box") { $0.saveDirectory == "/srv/drop box" },
        .init(key: "web-root", value: "/opt/web") { $0.webRoot == "/opt/web" },
        .init(key: "max-upload-size", value: "64M") { $0.maxUploadSize == 64 << 20 },
        .init(key: "max-upload-size", value: "0") { $0.maxUploadSize == nil },
        .init(key: "max-upload-size", value: "unlimited") { $0.maxUploadSize == nil },
        .init(key: "max-request-size", value: "1G") { $0.maxRequestSize == 1 << 30 },
        .init(key: "max-request-size", value: "10") { $0.maxRequestSize == 10 },
        .init(key: "min-free-space", value: "512K") { $0.minFreeSpace == 512 << 10 },
        .init(key: "min-free-space", value: "0") { $0.minFreeSpace == 0 },
        .init(key: "on-collision", value: "overwrite") { $0.onCollision == .overwrite },
        .init(key: "on-collision", value: "reject") { $0.onCollision == .reject },
        .init(key: "access", value: "drop") { $0.access == .drop },
        .init(key: "access", value: "private") { $0.access == .private },
        .init(key: "access", value: "read-only") { $0.access == .readOnly },
        .init(key: "fsync", value: "off") { $0.fsync == false },
        .init(key: "allow-hidden", value: "yes") { $0.allowHidden == true },
        .init(key: "allow-delete", value: "1") { $0.allowDelete == true },
        .init(key: "access-log", value: "off") { $0.accessLog == false },
        .init(key: "access-log", value: "true") { $0.accessLog == true },
        .init(key: "access-log-rate", value: "50/1s") { $0.accessLogRate == AccessLogRate(lines: 50, interval: .seconds(1)) },
        .init(key: "access-log-rate", value: "unlimited") { $0.accessLogRate == .unlimited },
        .init(key: "max-connections", value: "1") { $0.maxConnections == 1 },
        .init(key: "max-connections", value: "1000000") { $0.maxConnections == 1_000_000 },
        .init(key: "head-timeout", value: "500ms") { $0.headTimeout == .milliseconds(500) },
        .init(key: "body-timeout", value: "2m") { $0.bodyTimeout == .seconds(120) },
        .init(key: "idle-timeout", value: "5") { $0.idleTimeout == .seconds(5) },
        .init(key: "drain-timeout", value: "0") { $0.drainTimeout == .zero },
        .init(key: "drain-timeout", value: "1h") { $0.drainTimeout == .seconds(3600) },
        .init(key: "threads", value: "4") { $0.threads == 4 },
        .init(key: "threads", value: "1024") { $0.threads == 1024 },
        .init(key: "title", value: "Büro-Ablage 📁") { $0.title == "Büro-Ablage 📁" },
        .init(key: "log-level", value: "debug") { $0.logLevel == .debug },
        .init(key: "log-level", value: "warning") { $0.logLevel == .warning },
        .init(key: "password-hash", value: "$scrypt$ln=15$abc$def") { $0.passwordHash == "$scrypt$ln=15$abc$def" },
        .init(key: "max-connections-per-client", value: "1") { $0.maxConnectionsPerClient == 1 },
        .init(key: "max-connections-per-client", value: "1000000") { $0.maxConnectionsPerClient == 1_000_000 },
        .init(key: "max-uploads-per-client", value: "2") { $0.maxUploadsPerClient == 2 },
        .init(key: "upload-quota-per-hour", value: "10G") { $0.uploadQuotaPerHour == 10 << 30 },
        .init(key: "upload-quota-per-hour", value: "unlimited") { $0.uploadQuotaPerHour == nil },
        .init(key: "allowed-hosts", value: "nas.lan,Files.Home.") { $0.allowedHosts == ["nas.lan", "Files.Home."] },
        .init(key: "allowed-hosts", value: "a, b") { $0.allowedHosts == ["a", "b"] },
        .init(key: "tus-max-pending", value: "2G") { $0.tusMaxPending == 2 << 30 },
        .init(key: "tus-max-pending", value: "unlimited") { $0.tusMaxPending == nil },
        .init(key: "tus-max-per-client", value: "100000") { $0.tusMaxPerClient == 100_000 },
        .init(key: "tus-expiration", value: "30m") { $0.tusExpiration == .seconds(1800) },
        .init(key: "metrics-access", value: "password") { $0.metricsAccess == .password },
        .init(key: "metrics-access", value: "off") { $0.metricsAccess == .off },
    ]

    /// The same setting given as a flag (both spellings), a variable and a file line must agree.
    @Test(arguments: validSettings)
    func validValueFromEverySource(setting: ValidSetting) throws {
        let key = try #require(ConfigKey.named(setting.key))
        let sources = [
            try configuration(["--\(setting.key)=\(setting.value)"]),
            try configuration(["--\(setting.key)", setting.value]),
            try configuration(environment: [key.environmentVariable: setting.value]),
            try configuration(["--config", "/c.conf"], files: ["/c.conf": "\(setting.key) = \(setting.value)\n"]),
        ]
        for loaded in sources {
            #expect(setting.expect(loaded))
        }
    }

    @Test(arguments: [
        ("listen", "localhost:80"), ("listen", "1.2.3.4:65536"), ("listen", "[::1]"), ("listen", ""),
        ("save-dir", ""), ("save-dir", "a\nb"), ("web-root", ""),
        ("max-upload-size", "12X"), ("max-upload-size", "-1"), ("max-upload-size", "1.5M"), ("max-upload-size", "16777216T"),
        ("max-request-size", "M"), ("min-free-space", "unlimited"), ("min-free-space", ""),
        ("on-collision", "Rename"), ("on-collision", "skip"), ("access", "readonly"), ("access", ""),
        ("fsync", "maybe"), ("allow-hidden", "2"), ("allow-delete", ""),
        ("max-connections", "0"), ("max-connections", "1000001"), ("max-connections", "+5"), ("max-connections", "ten"),
        ("head-timeout", "0"), ("head-timeout", "0s"), ("body-timeout", "1d"), ("idle-timeout", "-1s"), ("drain-timeout", "1.5s"),
        ("threads", "-1"), ("threads", "1025"),
        ("title", ""), ("title", "evil\u{1B}[31m"), ("title", String(repeating: "x", count: 201)),
        ("log-level", "warn"), ("log-level", "INFO"), ("password-hash", ""), ("password-hash", "has space"),
        ("max-connections-per-client", "0"), ("max-connections-per-client", "1000001"), ("max-uploads-per-client", "0"),
        ("upload-quota-per-hour", "lots"), ("allowed-hosts", "evil.example/x"), ("allowed-hosts", "-bad.lan"),
        ("allowed-hosts", "a..b"), ("allowed-hosts", "nas.lan:8080"), ("allowed-hosts", "über.lan"),
        ("tus-max-pending", "10X"), ("tus-max-per-client", "0"), ("tus-max-per-client", "100001"), ("tus-expiration", "0s"),
        ("metrics-access", "public"), ("metrics-access", "Loopback"),
    ])
    func invalidValueIsRefusedFromEverySource(key name: String, value: String) throws {
        let key = try #require(ConfigKey.named(name))
        let expected = ConfigurationError.Reason.invalidValue(expected: key.expected)
        let fromFlag = loadError(["--\(name)=\(value)"])
        #expect(fromFlag == ConfigurationError(key: name, value: value, reason: expected, location: .commandLine))
        let fromEnvironment = loadError(environment: [key.environmentVariable: value])
        #expect(fromEnvironment?.reason == expected)
        if !value.contains("\n") {
            let fromFile = loadError(["--config=/c.conf"], files: ["/c.conf": "# comment\n\(name) = \"\(value)\"\n"])
            #expect(
                fromFile
                    == ConfigurationError(key: name, value: value, reason: expected, location: .file(path: "/c.conf", line: 2)))
        }
    }

    @Test func limitsOneOver() {
        #expect(loadError(["--threads=1024"]) == nil)
        #expect(loadError(["--threads=1025"]) != nil)
        #expect(loadError(["--max-connections=1000000"]) == nil)
        #expect(loadError(["--max-connections=1000001"]) != nil)
        #expect(loadError(["--title", String(repeating: "x", count: 200)]) == nil)
        #expect(loadError(["--title", String(repeating: "x", count: 201)]) != nil)
        #expect(loadError(["--max-connections-per-client=1000000"]) == nil)
        #expect(loadError(["--max-connections-per-client=1000001"]) != nil)
        #expect(loadError(["--max-uploads-per-client=1000000"]) == nil)
        #expect(loadError(["--max-uploads-per-client=1000001"]) != nil)
        #expect(loadError(["--allowed-hosts", String(repeating: "a", count: 63)]) == nil)
        #expect(loadError(["--allowed-hosts", String(repeating: "a", count: 64)]) != nil)
        #expect(loadError(["--max-upload-size=16777215T"]) == nil)
        #expect(loadError(["--max-upload-size=16777216T"]) != nil)
        #expect(loadError(["--tus-max-per-client=100000"]) == nil)
        #expect(loadError(["--tus-max-per-client=100001"]) != nil)
    }

    @Test func invalidValueMessageNamesFlagAndVariable() {
        let error = loadError(["--max-upload-size", "12X"])
        #expect(
            error?.description
                == #"invalid value "12X" for max-upload-size (--max-upload-size, FILEDROP_MAX_UPLOAD_SIZE): expected a size such as 64M, or unlimited"#
        )
    }

    @Test func messagesEscapeControlCharacters() throws {
        let error = try #require(loadError(["--title", "a\u{1B}[2Jb"]))
        #expect(error.description.contains(#""a\x1b[2Jb""#))
        #expect(!error.description.contains("\u{1B}"))
    }

    @Test func environmentNamesFollowKeyNames() throws {
        #expect(try #require(ConfigKey.named("max-upload-size")).environmentVariable == "FILEDROP_MAX_UPLOAD_SIZE")
        #expect(try #require(ConfigKey.named("listen")).environmentVariable == "FILEDROP_LISTEN")
        #expect(Set(ConfigKey.all.map(\.name)).count == ConfigKey.all.count)
    }

    @Test func helpDocumentsEveryKey() throws {
        guard case .help(let text) = try load(["--help"]) else {
            Issue.record("expected help")
            return
        }
        for key in ConfigKey.all {
            #expect(text.contains(key.flag))
            #expect(text.contains(key.environmentVariable))
            #expect(text.contains("Default: \(key.defaultText)."))
            #expect(text.contains(key.meaning))
        }
        #expect(text.contains("--fsync, --no-fsync"))
    }
}

@Suite struct ConfigurationPrecedenceTests {
    static let file = ["/etc/filedrop/filedrop.conf": "title = from file\nthreads = 3\n"]

    @Test func flagsBeatEnvironmentBeatFileBeatDefaults() throws {
        let fileOnly = try configuration(files: Self.file)
        #expect(fileOnly.title == "from file")
        #expect(fileOnly.threads == 3)
        #expect(fileOnly.configFile == "/etc/filedrop/filedrop.conf")

        let withEnvironment = try configuration(environment: ["FILEDROP_TITLE": "from env"], files: Self.file)
        #expect(withEnvironment.title == "from env")
        #expect(withEnvironment.threads == 3)

        let withFlag = try configuration(["--title", "from flag"], environment: ["FILEDROP_TITLE": "from env"], files: Self.file)
        #expect(withFlag.title == "from flag")
        #expect(withFlag.threads == 3)
    }

    @Test func lastValueWithinOneSourceWins() throws {
        #expect(try configuration(["--title=a", "--title=b"]).title == "b")
        let files = ["/c": "title = a\ntitle = b\n"]
        #expect(try configuration(["--config=/c"], files: files).title == "b")
    }

    @Test func overriddenValuesAreStillValidated() {
        let error = loadError(["--threads=2"], environment: ["FILEDROP_THREADS": "many"])
        #expect(error?.location == .environment(variable: "FILEDROP_THREADS"))
    }

    @Test func listenAccumulatesWithinASourceAndAHigherSourceReplacesIt() throws {
        let files = ["/c": "listen = 127.0.0.1:1\nlisten = [::1]:2\n"]
        let fromFile = try configuration(["--config=/c"], files: files)
        #expect(fromFile.listen == [ListenAddress(host: "127.0.0.1", port: 1), ListenAddress(host: "::1", port: 2)])

        let fromEnvironment = try configuration(
            ["--config=/c"], environment: ["FILEDROP_LISTEN": "10.0.0.1:3, [::1]:4 5"], files: files)
        #expect(
            fromEnvironment.listen == [
                ListenAddress(host: "10.0.0.1", port: 3), ListenAddress(host: "::1", port: 4), ListenAddress(host: "", port: 5),
            ])

        let fromFlags = try configuration(
            ["--config=/c", "--listen", ":6", "--listen=127.0.0.1:7"],
            environment: ["FILEDROP_LISTEN": "10.0.0.1:3"], files: files)
        #expect(fromFlags.listen == [ListenAddress(host: "", port: 6), ListenAddress(host: "127.0.0.1", port: 7)])
    }

    @Test func emptyListenVariableIsAnError() {
        #expect(
            loadError(environment: ["FILEDROP_LISTEN": " , "])?.reason
                == .invalidValue(expected: ConfigKey.named("listen")!.expected))
    }

    @Test func unknownFiledropVariablesAreIgnored() throws {
        #expect(try configuration(environment: ["FILEDROP_FUZZ": "1", "FILEDROP_NOPE": "x"]) == Configuration())
    }
}

@Suite struct ConfigurationFileTests {
    @Test func explicitFileMustExist() {
        #expect(
            loadError(["--config", "/missing.conf"])
                == ConfigurationError(key: "/missing.conf", reason: .unreadableFile, location: .commandLine))
        #expect(
            loadError(environment: ["FILEDROP_CONFIG": "/missing.conf"])?.location == .environment(variable: "FILEDROP_CONFIG"))
    }

    @Test func flagChoosesFileOverVariableAndDefault() throws {
        let files = ["/a": "title = a", "/b": "title = b", "/etc/filedrop/filedrop.conf": "title = default"]
        #expect(try configuration(["--config", "/a"], environment: ["FILEDROP_CONFIG": "/b"], files: files).title == "a")
        #expect(try configuration(environment: ["FILEDROP_CONFIG": "/b"], files: files).title == "b")
        #expect(try configuration(files: files).title == "default")
        let none = try configuration(["--config="], files: files)
        #expect(none.title == "filedrop")
        #expect(none.configFile == nil)
        #expect(try configuration(["--config", "/a"], files: files).configFile == "/a")
    }

    @Test func syntax() throws {
        let text = """
            \u{FEFF}# a comment
            ; another comment

               title   =   "  spaced  "\r
            save-dir = /srv/with # hash
            web-root='/opt/its'
            password-hash = "a\\"b\\\\c"
            listen = 1.2.3.4:5
            listen = 6
            fsync=no
            """
        let loaded = try configuration(["--config", "/c"], files: ["/c": text])
        #expect(loaded.title == "  spaced  ")
        #expect(loaded.saveDirectory == "/srv/with # hash")
        #expect(loaded.webRoot == "/opt/its")
        #expect(loaded.passwordHash == #"a"b\c"#)
        #expect(loaded.listen == [ListenAddress(host: "1.2.3.4", port: 5), ListenAddress(host: "", port: 6)])
        #expect(loaded.fsync == false)
    }

    @Test(arguments: [
        (
            "title = a\nbogus = 1\n",
            ConfigurationError(key: "bogus", value: "1", reason: .unknownKey, location: .file(path: "/c", line: 2))
        ),
        (
            "\n\njust words\n",
            ConfigurationError(key: "", value: "just words", reason: .malformedLine, location: .file(path: "/c", line: 3))
        ),
        (
            "= value\n",
            ConfigurationError(key: "", value: "= value", reason: .malformedLine, location: .file(path: "/c", line: 1))
        ),
        (
            "title = \"open\n",
            ConfigurationError(key: "", value: "title = \"open", reason: .malformedLine, location: .file(path: "/c", line: 1))
        ),
        (
            "#\ntitle = \"a\" b\n",
            ConfigurationError(key: "", value: "title = \"a\" b", reason: .malformedLine, location: .file(path: "/c", line: 2))
        ),
        (
            "title = \"a\\nb\"\n",
            ConfigurationError(key: "", value: "title = \"a\\nb\"", reason: .malformedLine, location: .file(path: "/c", line: 1))
        ),
        (
            "config = /other\n",
            ConfigurationError(key: "config", value: "/other", reason: .notAllowedHere, location: .file(path: "/c", line: 1))
        ),
        (
            "threads = 2\nthreads = x\n",
            ConfigurationError(
                key: "threads", value: "x", reason: .invalidValue(expected: "a whole number from 0 to 1024"),
                location: .file(path: "/c", line: 2))
        ),
    ])
    func syntaxErrorsNameTheLine(text: String, expected: ConfigurationError) {
        #expect(
            loadError(
                ["--config=/c"],
                files: ["/c": text.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\r\n")])
                == expected)
        #expect(loadError(["--config=/c"], files: ["/c": text]) == expected)
    }

    @Test func fileErrorMessagesStartWithPathAndLine() {
        let error = loadError(["--config=/etc/f.conf"], files: ["/etc/f.conf": "\n\nmax-size = 1\n"])
        #expect(error?.description == #"/etc/f.conf:3: unknown key "max-size" (see filedrop --help)"#)
    }
}

@Suite struct CommandLineTests {
    @Test func booleanSpellings() throws {
        #expect(try configuration(["--allow-hidden"]).allowHidden == true)
        #expect(try configuration(["--no-fsync"]).fsync == false)
        #expect(try configuration(["--fsync", "no"]).fsync == false)
        #expect(try configuration(["--fsync=off"]).fsync == false)
        #expect(try configuration(["--allow-delete", "--title", "x"]).allowDelete == true)
        #expect(try configuration(["--no-fsync", "--fsync"]).fsync == true)
        #expect(try configuration(["--no-access-log"]).accessLog == false)
        #expect(try configuration(["--access-log"]).accessLog == true)
        #expect(try configuration(environment: ["FILEDROP_ACCESS_LOG": "0"]).accessLog == false)
    }

    @Test func helpVersionAndPasswd() throws {
        #expect(try load(["-V"]) == .version("filedrop 0.1.0"))
        #expect(try load(["--version"]) == .version("filedrop 0.1.0"))
        guard case .help = try load(["-h"]) else {
            Issue.record("expected help")
            return
        }
        #expect(try load(["passwd"]) == .passwd)
        #expect(
            loadError(["passwd", "extra"])
                == ConfigurationError(key: "extra", reason: .unexpectedArgument, location: .commandLine))
    }

    @Test(arguments: [
        (["--bogus"], ConfigurationError(key: "--bogus", reason: .unknownFlag, location: .commandLine)),
        (["--no-title"], ConfigurationError(key: "--no-title", reason: .unknownFlag, location: .commandLine)),
        (["--no-fsync=yes"], ConfigurationError(key: "--no-fsync", reason: .unknownFlag, location: .commandLine)),
        (["--title"], ConfigurationError(key: "--title", reason: .missingValue, location: .commandLine)),
        (["--title", "--fsync"], ConfigurationError(key: "--title", reason: .missingValue, location: .commandLine)),
        (["serve"], ConfigurationError(key: "serve", reason: .unexpectedArgument, location: .commandLine)),
        (["-x"], ConfigurationError(key: "-x", reason: .unexpectedArgument, location: .commandLine)),
        (["--"], ConfigurationError(key: "--", reason: .unexpectedArgument, location: .commandLine)),
        (["--fsync", "passwd"], ConfigurationError(key: "passwd", reason: .unexpectedArgument, location: .commandLine)),
    ])
    func badCommandLines(arguments: [String], expected: ConfigurationError) {
        #expect(loadError(arguments) == expected)
    }

    @Test func emptyInlineValueIsAValueNotAMissingOne() {
        #expect(loadError(["--title="])?.reason == .invalidValue(expected: ConfigKey.named("title")!.expected))
    }
}

@Suite struct ConfigValueSyntaxTests {
    @Test(
        arguments: [
            ("0", 0), ("10", 10), ("512K", 512 * 1024), ("512k", 512 * 1024), ("64M", 64 << 20), ("1G", 1 << 30),
            ("2T", 2 << 40), ("18446744073709551615", UInt64.max), ("16777215T", 16_777_215 << 40),
        ] as [(String, UInt64)])
    func sizes(text: String, bytes: UInt64) {
        #expect(ByteSize.parse(text) == bytes)
    }

    @Test(arguments: ["", "K", "1.5M", "-1", " 1", "1 ", "1MB", "1KiB", "1P", "18446744073709551616", "16777216T", "0x10", "١٢"])
    func notSizes(text: String) {
        #expect(ByteSize.parse(text) == nil)
    }

    @Test func sizeFormatRoundTrips() {
        #expect(ByteSize.format(64 << 20) == "64M")
        #expect(ByteSize.format(1536) == "1536")
        #expect(ByteSize.format(0) == "0")
        #expect(ByteSize.format(3 << 40) == "3T")
        for bytes: UInt64 in [0, 1, 1023, 1024, 1536, 64 << 20, UInt64.max] {
            #expect(ByteSize.parse(ByteSize.format(bytes)) == bytes)
        }
    }

    @Test(arguments: [
        ("10", Duration.seconds(10)), ("10s", .seconds(10)), ("500ms", .milliseconds(500)), ("2m", .seconds(120)),
        ("1h", .seconds(3600)), ("0", .zero), ("1S", .seconds(1)),
    ])
    func durations(text: String, duration: Duration) {
        #expect(DurationText.parse(text) == duration)
    }

    @Test(arguments: ["", "s", "1d", "-1s", "1.5s", "1 s", "10sec", "9223372036854775807s", "99999999999999999999"])
    func notDurations(text: String) {
        #expect(DurationText.parse(text) == nil)
    }

    @Test func durationFormat() {
        #expect(DurationText.format(.seconds(10)) == "10s")
        #expect(DurationText.format(.seconds(120)) == "2m")
        #expect(DurationText.format(.milliseconds(1500)) == "1500ms")
        #expect(DurationText.format(.zero) == "0ms")
    }

    @Test(
        arguments: [
            ("127.0.0.1:8080", "127.0.0.1", 8080), ("[::1]:0", "::1", 0), (":8080", "", 8080), ("8080", "", 8080),
            ("[::]:80", "", 80), ("0.0.0.0:1", "0.0.0.0", 1), ("[fe80::1:2]:65535", "fe80::1:2", 65535),
            ("[::ffff:192.0.2.1]:9", "::ffff:192.0.2.1", 9), ("[1:2:3:4:5:6:7:8]:9", "1:2:3:4:5:6:7:8", 9),
            ("[1:2:3:4:5:6:1.2.3.4]:9", "1:2:3:4:5:6:1.2.3.4", 9), ("[1::]:9", "1::", 9),
        ] as [(String, String, UInt16)])
    func listenAddresses(text: String, host: String, port: UInt16) throws {
        let address = try #require(ListenAddress(parsing: text))
        #expect(address == ListenAddress(host: host, port: port))
        #expect(ListenAddress(parsing: address.description) == address)
    }

    @Test(arguments: [
        "", ":", "65536", "[::1]", "[::1]80", "::1:80", "localhost:80", "1.2.3:80", "1.2.3.256:80", "01.2.3.4.5:80",
        "[1:2:3:4:5:6:7:8:9]:1", "[1::2::3]:1", "[:::1]:1", "[12345::]:1", "[g::]:1", "1.2.3.4:-1", "1.2.3.4:+80",
        "[1:2:3:4:5:6:7]:1", "[::1.2.3]:1", "[fe80::1%eth0]:1", " 80", "080080",
    ])
    func notListenAddresses(text: String) {
        #expect(ListenAddress(parsing: text) == nil)
    }

    @Test func listenDescriptions() {
        #expect(ListenAddress(host: "", port: 8080).description == "[::]:8080")
        #expect(ListenAddress(host: "::1", port: 1).description == "[::1]:1")
        #expect(ListenAddress(host: "127.0.0.1", port: 2).description == "127.0.0.1:2")
    }

    @Test func logLevelNamesRoundTrip() {
        for level in LogLevel.allCases {
            #expect(LogLevel(name: level.name) == level)
        }
        #expect(LogLevel.debug < LogLevel.info)
    }
}
