import FiledropHTTP

/// Parses the header section of one multipart part: `name: value` lines separated by CRLF
/// (RFC 2046 §5.1.1, RFC 7578 §4.8), then the `Content-Disposition` parameters.
enum PartHeadParser {
    /// `block` is the header section without its final empty line (empty for a part with no
    /// headers). Values are UTF-8 as browsers send them; bytes that are not UTF-8 are read as
    /// ISO-8859-1 (what older clients send) rather than refused.
    static func parse(_ block: ArraySlice<UInt8>, limits: MultipartLimits) -> Result<PartHead, HTTPError> {
        var headers = HTTPHeaders()
        var pending: (name: String, value: [UInt8])?
        var count = 0
        for line in lines(of: block) {
            if line.contains(where: { $0 == 0 || $0 == 0x0D || $0 == 0x0A }) {
                return .failure(.badRequest("A part of the form has a header with a control character in it."))
            }
            if let first = line.first, HeaderParameters.isWhitespace(first) {
                // RFC 5322 §2.2.3: a line starting with white space continues the previous field.
                guard pending != nil else {
                    return .failure(.badRequest("A part of the form starts its headers with a continuation line."))
                }
                pending!.value.append(UInt8(ascii: " "))
                pending!.value.append(contentsOf: trimmed(line))
                continue
            }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")),
                colon > line.startIndex,
                line[..<colon].allSatisfy(HeaderParameters.isTokenByte)
            else {
                return .failure(.badRequest("A part of the form has a malformed header line."))
            }
            if let field = pending { headers.add(name: field.name, value: text(field.value[...])) }
            count += 1
            guard count <= limits.maxPartHeaderCount else {
                return .failure(.badRequest("A part of the form has more than \(limits.maxPartHeaderCount) headers."))
            }
            pending = (String(decoding: line[..<colon], as: UTF8.self), Array(trimmed(line[(colon + 1)...])))
        }
        if let field = pending { headers.add(name: field.name, value: text(field.value[...])) }

        var disposition: ContentDisposition?
        if let value = headers[.contentDisposition] {
            guard let parsed = ContentDisposition(parsing: value) else {
                return .failure(.badRequest("A part of the form has a malformed Content-Disposition header."))
            }
            disposition = parsed
        }
        return .success(
            PartHead(
                headers: headers,
                name: disposition?.name,
                filename: disposition?.filename,
                contentType: headers[.contentType]
            ))
    }

    private static func lines(of block: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        guard !block.isEmpty else { return [] }
        var result: [ArraySlice<UInt8>] = []
        var start = block.startIndex
        var index = block.startIndex
        while index + 1 < block.endIndex {
            if block[index] == 0x0D, block[index + 1] == 0x0A {
                result.append(block[start..<index])
                index += 2
                start = index
            } else {
                index += 1
            }
        }
        result.append(block[start...])
        return result
    }

    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = bytes
        while let first = slice.first, HeaderParameters.isWhitespace(first) { slice.removeFirst() }
        while let last = slice.last, HeaderParameters.isWhitespace(last) { slice.removeLast() }
        return slice
    }

    private static func text(_ bytes: ArraySlice<UInt8>) -> String {
        String(validating: bytes, as: UTF8.self)
            ?? String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }
}
