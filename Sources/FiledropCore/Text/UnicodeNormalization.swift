/// Unicode Normalization Form C (UAX #15) without Foundation.
///
/// The standard library has no public NFC API in Swift 6.3 and FoundationEssentials has no
/// `precomposedStringWithCanonicalMapping`; the standard library does export
/// `String._nfcCodeUnits`, the normalizer it uses for `String ==`, which is what this wraps.
/// File names are normalized so that `é` typed on macOS (decomposed, NFD) and on Linux or
/// Windows (composed) name the same file.
extension String {
    public var nfcNormalized: String {
        // On contiguous bytes: iterating the UTF8View cost 30 instructions a byte.
        if withUTF8Bytes({ $0.allSatisfy { $0 < 0x80 } }) { return self }
        return String(decoding: _nfcCodeUnits, as: UTF8.self)
    }
}
