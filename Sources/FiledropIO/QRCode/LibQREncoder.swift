import CQREncode
import FiledropCore

/// QR codes from libqrencode (Debian libqrencode-dev): byte mode, error correction M,
/// the smallest version that fits.
public struct LibQREncoder: QRCodeEncoder {
    public init() {}

    public func encode(_ text: String) -> QRCode? {
        guard let symbol = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else { return nil }
        defer { QRcode_free(symbol) }
        let size = Int(symbol.pointee.width)
        let data = UnsafeBufferPointer(start: symbol.pointee.data, count: size * size)
        // Bit 0 of each byte is the module's colour; the other bits are libqrencode's bookkeeping.
        return QRCode(size: size, modules: data.map { $0 & 1 == 1 })
    }
}
