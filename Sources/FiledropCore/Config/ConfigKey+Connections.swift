extension ConfigKey {
    /// Connections and their limits, the names it answers to, discovery, timeouts.
    static let connections: [ConfigKey] = [
        ConfigKey(
            name: "max-connections", kind: .value(placeholder: "N"), defaultText: "1024",
            meaning:
                "Connections served at once; at the limit a new one takes the slot of the oldest that has not finished its TLS handshake or first request head; once every slot holds a request, new ones wait in the listen backlog and idle keep-alive ones are closed to make room.",
            expected: "a whole number from 1 to 1000000", reload: .restartOnly(\.maxConnections)
        ) { configuration, value in
            guard let number = parseInteger(value, in: 1...1_000_000) else { return false }
            configuration.maxConnections = number
            return true
        },
        ConfigKey(
            name: "max-connections-per-client", kind: .value(placeholder: "N"), defaultText: "64",
            meaning:
                "Connections one client address may hold at once; once half of max-connections are open, at most a fair share of the free ones (set it to max-connections to turn that off, e.g. behind a proxy). More are answered 503.",
            expected: "a whole number from 1 to 1000000", reload: .restartOnly(\.maxConnectionsPerClient)
        ) { configuration, value in
            guard let number = parseInteger(value, in: 1...1_000_000) else { return false }
            configuration.maxConnectionsPerClient = number
            return true
        },
        ConfigKey(
            name: "max-uploads-per-client", kind: .value(placeholder: "N"), defaultText: "8",
            meaning: "Uploads one client address may run at once; more are answered 429.",
            expected: "a whole number from 1 to 1000000"
        ) { configuration, value in
            guard let number = parseInteger(value, in: 1...1_000_000) else { return false }
            configuration.maxUploadsPerClient = number
            return true
        },
        ConfigKey(
            name: "upload-quota-per-hour", kind: .value(placeholder: "SIZE"), defaultText: "unlimited",
            meaning: "Bytes one client address may upload per hour, then 429; 0 or unlimited for no limit.",
            expected: "a size such as 10G, or unlimited"
        ) { configuration, value in
            guard let size = parseOptionalSize(value) else { return false }
            configuration.uploadQuotaPerHour = size
            return true
        },
        ConfigKey(
            name: "allowed-hosts", kind: .value(placeholder: "NAMES"), defaultText: "none",
            meaning:
                "Comma-separated host names clients may use besides IP addresses, localhost, the hostname and hostname.local (others get 421).",
            expected: "host names separated by commas, such as nas.lan,files.home"
        ) { configuration, value in
            let names = value.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }).map(String.init)
            guard names.allSatisfy(isHostName) else { return false }
            configuration.allowedHosts = names
            return true
        },
        booleanKey(
            "mdns", default: true,
            meaning: "Announce the page on the LAN with DNS-SD over mDNS (_http._tcp, _https._tcp) through avahi-daemon.", \.mdns),
        ConfigKey(
            name: "mdns-name", kind: .value(placeholder: "NAME"), defaultText: "filedrop on HOSTNAME",
            meaning: "The name devices list for this drop when they browse the LAN (mdns).",
            expected: "1 to 63 bytes of UTF-8 without control characters"
        ) { configuration, value in
            guard isPlainText(value), value.utf8.count <= ServiceAdvertisement.maximumNameBytes else { return false }
            configuration.mdnsName = value
            return true
        },
        booleanKey(
            "localsend", default: false,
            meaning:
                "Receive from the LocalSend app (protocol v2.1) over HTTPS on localsend-port, with the same storage policy as every upload.",
            reload: .restartOnly(\.localsend), \.localsend),
        ConfigKey(
            name: "localsend-port", kind: .value(placeholder: "PORT"), defaultText: "53317",
            meaning:
                "TCP port of the LocalSend HTTPS server (all addresses); the protocol's default is 53317, 0 picks a free one.",
            expected: "a port number from 0 to 65535", reload: .restartOnly(\.localsendPort)
        ) { configuration, value in
            guard let number = parseInteger(value, in: 0...65535) else { return false }
            configuration.localsendPort = number
            return true
        },
        ConfigKey(
            name: "localsend-pin", kind: .value(placeholder: "PIN"), defaultText: "none",
            meaning: "PIN a LocalSend sender must give to send; without one every session is accepted (access open only).",
            expected: "1 to 64 characters without control characters"
        ) { configuration, value in
            guard isPlainText(value), value.count <= 64 else { return false }
            configuration.localsendPin = value
            return true
        },
        durationKey(
            "localsend-timeout", default: .seconds(120),
            meaning: "A LocalSend session with no file arriving for this long ends; its unfinished files leave nothing.",
            reload: .restartOnly(\.localsendTimeout), \.localsendTimeout),
        ConfigKey(
            name: "localsend-multicast", kind: .value(placeholder: "GROUP:PORT"), defaultText: "224.0.0.167:53317",
            meaning: "IPv4 multicast group and UDP port where filedrop announces itself to LocalSend devices and answers theirs.",
            expected: "an IPv4 multicast address and port such as 224.0.0.167:53317", reload: .restartOnly(\.localsendMulticast)
        ) { configuration, value in
            guard let group = MulticastGroup(parsing: value) else { return false }
            configuration.localsendMulticast = group
            return true
        },
        durationKey(
            "head-timeout", default: .seconds(10), meaning: "Time allowed for a request's line and headers to arrive.",
            reload: .restartOnly(\.headTimeout), \.headTimeout),
        durationKey(
            "body-timeout", default: .seconds(60), meaning: "Inactivity allowed while a request body is arriving.",
            reload: .restartOnly(\.bodyTimeout), \.bodyTimeout),
        durationKey(
            "idle-timeout", default: .seconds(60), meaning: "How long an idle keep-alive connection stays open.",
            reload: .restartOnly(\.idleTimeout), \.idleTimeout),
        sizeKey(
            "min-send-rate", default: "1K",
            meaning: "A response read slower than this per second, over 30 s, is cut off (a slot held for nothing); 0 never.",
            expected: "a size per second such as 1K, or 0", reload: .restartOnly(\.minSendRate), \.minSendRate),
        durationKey(
            "drain-timeout", default: .seconds(20), allowZero: true,
            meaning: "After SIGTERM, how long requests in flight may take to finish.", \.drainTimeout),
        ConfigKey(
            name: "threads", kind: .value(placeholder: "N"), defaultText: "0",
            meaning: "Event-loop threads; 0 means one per CPU.",
            expected: "a whole number from 0 to 1024", reload: .restartOnly(\.threads)
        ) { configuration, value in
            guard let number = parseInteger(value, in: 0...1024) else { return false }
            configuration.threads = number
            return true
        },
    ]
}
