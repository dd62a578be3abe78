extension RequestHead {
    /// False when no field can be If-Match, If-None-Match, If-Modified-Since,
    /// If-Unmodified-Since, If-Range (RFC 9110 §13.1) or Range (§14.2): then every one of
    /// those lookups would find nothing, and a file response skips them. One pass over the
    /// names, looking at the first byte and the length only, instead of six lookups; a
    /// field it cannot rule out (any `I...`, any five-byte `R...`) just means the lookups run.
    public var mayHaveConditionalOrRange: Bool {
        headers.containsName { length, first in
            first == UInt8(ascii: "i") || (first == UInt8(ascii: "r") && length == "range".utf8.count)
        }
    }
}
