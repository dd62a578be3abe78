// Temporary stand-in until the Escaping branch lands.
extension String {
    public var htmlEscaped: String {
        var out = ""
        for c in unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }
    public var jsonEscaped: String {
        var out = ""
        for c in unicodeScalars {
            switch c {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where c.value < 0x20: out += "\\u00" + (c.value < 16 ? "0" : "") + String(c.value, radix: 16)
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }
    public var logEscaped: String {
        var out = ""
        for c in unicodeScalars {
            if c.value < 0x20 || c.value == 0x7F { out += "\\x" + (c.value < 16 ? "0" : "") + String(c.value, radix: 16) } else { out.unicodeScalars.append(c) }
        }
        return out
    }
}
