extension ConfigKey {
    /// Where the daemon listens and how it speaks HTTPS; the configuration file itself.
    static let listening: [ConfigKey] = [
        ConfigKey(
            name: "config", kind: .value(placeholder: "FILE"), defaultText: "/etc/filedrop/filedrop.conf if present",
            meaning: "Configuration file of `key = value` lines; a named file must exist, an empty name reads none.",
            expected: "a file path", settableInFile: false
        ) { _, value in
            // The loader reads the file and records it in `configFile`; here it is only checked.
            value.isEmpty || isPlainText(value)
        },
        ConfigKey(
            name: "listen", kind: .list(placeholder: "ADDRESS"), defaultText: "[::]:8080",
            meaning:
                "Address to listen on, repeatable; [::], :PORT or PORT mean all IPv4 and IPv6 addresses. Unused when systemd passes sockets.",
            expected: "an address such as 127.0.0.1:8080, [::1]:8080 or 8080", reload: .restartOnly(\.listen),
            clearList: { $0.listen = [] }
        ) { configuration, value in
            guard let address = ListenAddress(parsing: value) else { return false }
            configuration.listen.append(address)
            return true
        },
        ConfigKey(
            name: "https-listen", kind: .list(placeholder: "ADDRESS"), defaultText: "[::]:8443",
            meaning: "HTTPS address to listen on when tls is not off, repeatable; same syntax as listen.",
            expected: "an address such as 127.0.0.1:8443, [::1]:8443 or 8443", reload: .restartOnly(\.httpsListen),
            clearList: { $0.httpsListen = [] }
        ) { configuration, value in
            guard let address = ListenAddress(parsing: value) else { return false }
            configuration.httpsListen.append(address)
            return true
        },
        ConfigKey(
            name: "tls", kind: .value(placeholder: "MODE"), defaultText: "off",
            meaning:
                "HTTPS: off, auto (filedrop's own CA issues a certificate for every address served) or files (tls-cert and tls-key).",
            expected: "off, auto or files", reload: .restartOnly(differs: { ($0.tls == .off) != ($1.tls == .off) })
        ) { configuration, value in
            guard let mode = TLSMode(rawValue: value) else { return false }
            configuration.tls = mode
            return true
        },
        ConfigKey(
            name: "tls-cert", kind: .value(placeholder: "FILE"), defaultText: "$CREDENTIALS_DIRECTORY/tls.crt if present",
            meaning: "PEM certificate (chain allowed) for tls = files.",
            expected: "a file path"
        ) { configuration, value in
            guard isPlainText(value) else { return false }
            configuration.tlsCertificateFile = value
            return true
        },
        ConfigKey(
            name: "tls-key", kind: .value(placeholder: "FILE"), defaultText: "$CREDENTIALS_DIRECTORY/tls.key if present",
            meaning: "PEM private key for tls = files.",
            expected: "a file path"
        ) { configuration, value in
            guard isPlainText(value) else { return false }
            configuration.tlsKeyFile = value
            return true
        },
        ConfigKey(
            name: "tls-dir", kind: .value(placeholder: "DIR"),
            defaultText: "the second StateDirectory= path if set, else ./filedrop-tls",
            meaning:
                "Where tls = auto keeps its CA (key mode 0600, never served) and server certificate; must not be inside save-dir.",
            expected: "a directory path"
        ) { configuration, value in
            guard isPlainText(value) else { return false }
            configuration.tlsDirectory = value
            return true
        },
        ConfigKey(
            name: "http-mode", kind: .value(placeholder: "MODE"), defaultText: "redirect",
            meaning:
                "The plain-HTTP port while tls is on: redirect (pages go to HTTPS, with tls = auto browsers see /trust first; passwords and uploads are refused), serve, or off.",
            expected: "redirect, serve or off", reload: .restartOnly(differs: { ($0.httpMode == .off) != ($1.httpMode == .off) })
        ) { configuration, value in
            guard let mode = PlainHTTPMode(rawValue: value) else { return false }
            configuration.httpMode = mode
            return true
        },
    ]
}
