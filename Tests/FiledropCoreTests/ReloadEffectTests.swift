import Testing

@testable import FiledropCore

/// Every key says whether a reload applies it; a reload names the restart-only keys that changed.
@Suite struct ReloadEffectTests {
    @Test func restartOnlyChangesAreNamedInTableOrder() {
        let running = Configuration()
        var next = running
        #expect(ConfigKey.restartOnlyChanges(from: running, to: next).isEmpty)
        next.threads = 4
        next.listen = [ListenAddress(host: "127.0.0.1", port: 9000)]
        next.maxUploadSize = 1024
        next.title = "other"
        next.logLevel = .debug
        next.accessLog = false
        #expect(ConfigKey.restartOnlyChanges(from: running, to: next) == ["listen", "threads"])
    }

    @Test func onlyCrossingOffNeedsARestartForTLSAndTheHTTPMode() {
        var running = Configuration()
        running.tls = .files
        var next = running
        next.tls = .auto
        next.httpMode = .serve
        #expect(ConfigKey.restartOnlyChanges(from: running, to: next).isEmpty)
        next.tls = .off
        next.httpMode = .off
        #expect(ConfigKey.restartOnlyChanges(from: running, to: next) == ["tls", "http-mode"])
    }

    @Test(arguments: [
        "access-log", "log-level", "save-dir", "web-root", "access", "password-hash", "max-upload-size", "drain-timeout",
    ])
    func appliesOnReload(_ name: String) throws {
        #expect(try #require(ConfigKey.named(name)).appliesOnReload)
    }

    @Test(arguments: ["listen", "https-listen", "threads", "max-connections", "head-timeout", "localsend-port", "control-socket"])
    func needsARestart(_ name: String) throws {
        #expect(try #require(ConfigKey.named(name)).appliesOnReload == false)
    }
}

/// `filedrop reload` finds the daemon's control socket even when the configuration it is
/// about to report on does not parse.
@Suite struct ReloadCommandLineTests {
    static func parse(_ arguments: [String], environment: [String: String] = [:], files: [String: String] = [:]) throws -> Command
    {
        try ConfigurationLoader.parse(
            arguments: ["reload"] + arguments, environment: environment,
            readFile: { files[$0] }, fileExists: { files[$0] != nil })
    }

    @Test func theSocketComesFromTheOptionTheConfigurationOrTheRuntimeDirectory() throws {
        #expect(try Self.parse(["--control-socket", "/tmp/c.sock"]) == .reload(controlSocket: "/tmp/c.sock"))
        #expect(try Self.parse([], environment: ["RUNTIME_DIRECTORY": "/run/x"]) == .reload(controlSocket: "/run/x/control.sock"))
        #expect(
            try Self.parse([], files: ["/etc/filedrop/filedrop.conf": "control-socket = /srv/c.sock\n"])
                == .reload(controlSocket: "/srv/c.sock"))
        #expect(try Self.parse([]) == .reload(controlSocket: ConfigurationLoader.packagedControlSocket))
    }

    @Test func anInvalidConfigurationStillFindsTheSocket() throws {
        let files = ["/etc/filedrop/filedrop.conf": "access = bogus\n"]
        #expect(
            try Self.parse([], environment: ["RUNTIME_DIRECTORY": "/run/filedrop"], files: files)
                == .reload(controlSocket: "/run/filedrop/control.sock"))
        #expect(
            try Self.parse([], environment: ["FILEDROP_CONTROL_SOCKET": "/tmp/e.sock"], files: files)
                == .reload(controlSocket: "/tmp/e.sock"))
    }

    @Test func otherOptionsAreRefused() {
        #expect(throws: ConfigurationError.self) { try Self.parse(["--title", "x"]) }
        #expect(throws: ConfigurationError.self) { try Self.parse(["now"]) }
    }
}
