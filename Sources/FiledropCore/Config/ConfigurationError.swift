/// Why the configuration could not be accepted, and where the offending text came from,
/// so the message can point at the flag, variable or file line to fix.
public struct ConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Reason: Equatable, Sendable {
        /// The value does not parse; `expected` describes what would.
        case invalidValue(expected: String)
        /// A config file names a key the table does not have.
        case unknownKey
        /// The command line has an option the table does not have.
        case unknownFlag
        /// An option that takes a value came last or was followed by another option.
        case missingValue
        /// The key exists but cannot be set from here (`config` inside a config file).
        case notAllowedHere
        /// A word on the command line that is not an option.
        case unexpectedArgument
        /// A config file line that is not `key = value`.
        case malformedLine
        /// The named configuration file does not exist or cannot be read.
        case unreadableFile
    }

    /// Where a setting came from.
    public enum Location: Equatable, Sendable {
        case commandLine
        case environment(variable: String)
        case file(path: String, line: Int)
    }

    /// The key name, or the flag / argument / path as written when there is no key.
    public var key: String
    public var value: String?
    public var reason: Reason
    public var location: Location

    public init(key: String, value: String? = nil, reason: Reason, location: Location) {
        self.key = key
        self.value = value
        self.reason = reason
        self.location = location
    }

    public var description: String {
        let prefix = if case .file(let path, let line) = location { "\(path.logEscaped):\(line): " } else { "" }
        let quotedValue = "\"\((value ?? "").logEscaped)\""
        switch reason {
        case .invalidValue(let expected):
            let spellings = ConfigKey.named(key).map { " (\($0.flag), \($0.environmentVariable))" } ?? ""
            return "\(prefix)invalid value \(quotedValue) for \(key)\(spellings): expected \(expected)"
        case .unknownKey:
            return "\(prefix)unknown key \"\(key.logEscaped)\" (see filedrop --help)"
        case .unknownFlag:
            return "unknown option \"\(key.logEscaped)\" (see filedrop --help)"
        case .missingValue:
            return "option \(key.logEscaped) needs a value"
        case .notAllowedHere:
            return "\(prefix)\(key) cannot be set in a configuration file"
        case .unexpectedArgument:
            return "unexpected argument \"\(key.logEscaped)\" (see filedrop --help)"
        case .malformedLine:
            return "\(prefix)expected \"key = value\", found \(quotedValue)"
        case .unreadableFile:
            return "cannot read configuration file \"\(key.logEscaped)\""
        }
    }
}
