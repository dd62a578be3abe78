import FiledropHTTP

/// The fields of the tus 1.0.0 protocol and of filedrop's own answers, named once like the
/// engine's well-known names.
extension HTTPFieldName {
    public static let tusResumable = HTTPFieldName("Tus-Resumable")
    public static let tusVersion = HTTPFieldName("Tus-Version")
    public static let tusExtension = HTTPFieldName("Tus-Extension")
    public static let tusMaxSize = HTTPFieldName("Tus-Max-Size")
    public static let tusChecksumAlgorithm = HTTPFieldName("Tus-Checksum-Algorithm")
    public static let uploadOffset = HTTPFieldName("Upload-Offset")
    public static let uploadLength = HTTPFieldName("Upload-Length")
    public static let uploadDeferLength = HTTPFieldName("Upload-Defer-Length")
    public static let uploadMetadata = HTTPFieldName("Upload-Metadata")
    public static let uploadExpires = HTTPFieldName("Upload-Expires")
    public static let uploadChecksum = HTTPFieldName("Upload-Checksum")
    /// protocol.md "X-HTTP-Method-Override": the method a client that cannot send PATCH or
    /// DELETE means.
    public static let xHTTPMethodOverride = HTTPFieldName("X-HTTP-Method-Override")
    /// filedrop's own: the stored file's URL on the PATCH that completes a tus upload, so the
    /// page can say "saved as" for a renamed file (never in drop mode).
    public static let filedropSavedAs = HTTPFieldName("Filedrop-Saved-As")
}
