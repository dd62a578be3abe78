import FiledropHTTP

/// One documented setting. `ConfigKey.all` is the single table behind the command-line
/// flags, the `FILEDROP_*` environment variables, the config file keys, `--help` and
/// validation, so they cannot drift apart.
public struct ConfigKey: Sendable {
    /// How a key takes its value.
    public enum Kind: Sendable, Equatable {
        /// `--key VALUE`; the last one wins.
        case value(placeholder: String)
        /// `--key`, `--no-key`, `--key=yes`; see `ConfigKey.parseBoolean`.
        case boolean
        /// Repeatable; occurrences within one source accumulate, a higher source replaces them.
        case list(placeholder: String)
    }

    /// The file key; also the flag after `--`.
    public let name: String
    public let kind: Kind
    /// The default as `--help` shows it.
    public let defaultText: String
    /// One line for `--help`.
    public let meaning: String
    /// Completes "expected ..." in an invalid-value message.
    public let expected: String
    /// False for `config`, which says where the file is and so cannot be inside it.
    public let settableInFile: Bool
    /// Whether a reload (SIGHUP, `filedrop reload`) applies a new value, or only a restart does.
    public let reload: ReloadEffect
    /// Stores a valid value; returns false, leaving the configuration alone, for an invalid one.
    let apply: @Sendable (inout Configuration, String) -> Bool
    /// For a list key: empties it, before a source that sets it replaces what lower ones gave.
    let clearList: @Sendable (inout Configuration) -> Void

    public var flag: String { "--\(name)" }

    public var appliesOnReload: Bool { reload.appliesOnReload }

    /// The restart-only keys whose values differ between the running configuration and the
    /// one a reload read, in table order: a reload keeps their old values and says so.
    public static func restartOnlyChanges(from running: Configuration, to next: Configuration) -> [String] {
        all.filter { !$0.appliesOnReload && $0.reload.differs(running, next) }.map(\.name)
    }

    /// `FILEDROP_` + the name uppercased with `-` as `_`: `max-upload-size` -> `FILEDROP_MAX_UPLOAD_SIZE`.
    /// Made once with the table: every parse looks up each key's variable.
    public let environmentVariable: String

    public static func named(_ name: String) -> ConfigKey? {
        all.first { $0.name == name }
    }

    /// `true|false|yes|no|on|off|1|0`, any case.
    public static func parseBoolean(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "true", "yes", "on", "1": true
        case "false", "no", "off", "0": false
        default: nil
        }
    }

    /// Every key, in the order `--help`, the man page and filedrop.conf list them.
    public static let all: [ConfigKey] = listening + storage + connections + service

    init(
        name: String, kind: Kind, defaultText: String, meaning: String, expected: String,
        settableInFile: Bool = true, reload: ReloadEffect = .applies,
        clearList: @escaping @Sendable (inout Configuration) -> Void = { _ in },
        apply: @escaping @Sendable (inout Configuration, String) -> Bool
    ) {
        self.name = name
        self.kind = kind
        self.defaultText = defaultText
        self.meaning = meaning
        self.expected = expected
        self.settableInFile = settableInFile
        self.reload = reload
        self.apply = apply
        self.clearList = clearList
        self.environmentVariable = "FILEDROP_" + String(name.uppercased().map { $0 == "-" ? "_" : $0 })
    }

    static func booleanKey(
        _ name: String, default value: Bool, meaning: String, reload: ReloadEffect = .applies,
        _ member: WritableKeyPath<Configuration, Bool> & Sendable
    ) -> ConfigKey {
        ConfigKey(
            name: name, kind: .boolean, defaultText: "\(value)", meaning: meaning,
            expected: "true or false (yes/no, on/off, 1/0)", reload: reload
        ) { configuration, text in
            guard let flag = parseBoolean(text) else { return false }
            configuration[keyPath: member] = flag
            return true
        }
    }

    static func durationKey(
        _ name: String, default value: Duration, allowZero: Bool = false, meaning: String,
        reload: ReloadEffect = .applies,
        _ member: WritableKeyPath<Configuration, Duration> & Sendable
    ) -> ConfigKey {
        ConfigKey(
            name: name, kind: .value(placeholder: "DURATION"), defaultText: DurationText.format(value), meaning: meaning,
            expected: "a duration such as 10s, 500ms, 2m or 1h\(allowZero ? "" : ", above zero")", reload: reload
        ) { configuration, text in
            guard let duration = DurationText.parse(text), allowZero || duration > .zero else { return false }
            configuration[keyPath: member] = duration
            return true
        }
    }

    static func sizeKey(
        _ name: String, default text: String, meaning: String, expected: String,
        reload: ReloadEffect = .applies,
        _ member: WritableKeyPath<Configuration, UInt64> & Sendable
    ) -> ConfigKey {
        ConfigKey(
            name: name, kind: .value(placeholder: "SIZE"), defaultText: text, meaning: meaning, expected: expected,
            reload: reload
        ) { configuration, value in
            guard let size = ByteSize.parse(value) else { return false }
            configuration[keyPath: member] = size
            return true
        }
    }

    /// Sizes where 0 and `unlimited` both mean "no limit": `.some(nil)`; `.none` when invalid.
    static func parseOptionalSize(_ text: String) -> UInt64?? {
        if text.lowercased() == "unlimited" { return .some(nil) }
        guard let size = ByteSize.parse(text) else { return nil }
        return .some(size == 0 ? nil : size)
    }

    static func parseInteger(_ text: String, in range: ClosedRange<Int>) -> Int? {
        guard text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            let number = Int(text), range.contains(number)
        else { return nil }
        return number
    }

    /// RFC 1123 §2.1 host names: dot-separated labels of letters, digits and hyphens, not
    /// starting or ending with a hyphen; a trailing dot is allowed.
    static func isHostName(_ text: String) -> Bool {
        let name = text.hasSuffix(".") ? text.dropLast() : Substring(text)
        guard !name.isEmpty, name.utf8.count <= 253 else { return false }
        return name.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            !label.isEmpty && label.utf8.count <= 63 && label.first != "-" && label.last != "-"
                && label.utf8.allSatisfy {
                    $0 == UInt8(ascii: "-") || ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A)
                }
        }
    }

    /// Non-empty and free of control characters, which have no business in paths or titles.
    static func isPlainText(_ text: String) -> Bool {
        !text.isEmpty && !text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }
}
