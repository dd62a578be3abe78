import FiledropCore

/// libFuzzer entry for the language catalogues' reader (built by `scripts/fuzz.sh
/// FuzzCatalogue`): any bytes as `web/i18n-<code>.json`. It must never trap; the same bytes must
/// give the same answer twice; an error's offset lies within the input; an accepted object,
/// written out again as JSON, must read back as the same members; and the daemon's loading of
/// it (every language, the page template filled) must never trap either.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCatalogue(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let first = parse(bytes)
    precondition(first == parse(bytes), "the same catalogue gave two answers")
    switch first {
    case .failure(let error):
        precondition(
            error.offset >= 0 && error.offset <= max(bytes.count, FlatJSONObject.defaultMaxBytes), "offset \(error.offset)")
    case .success(let members):
        let written =
            "{"
            + members.sorted { $0.key < $1.key }
            .map { "\"\($0.key.jsonEscaped)\":\"\($0.value.jsonEscaped)\"" }.joined(separator: ",") + "}"
        precondition(parse(Array(written.utf8)) == .success(members), "written out, the catalogue read differently")
    }
    let languages = PageLanguages { name in
        name == "index.html" ? Array("<html lang=\"{{@lang}}\">{{page.tagline}}{{@switch}}{{@strings}}".utf8) : bytes
    }
    for language in PageLanguage.allCases {
        _ = languages.text(language).plural("report.saved", count: 2)
    }
    return 0
}

private func parse(_ bytes: [UInt8]) -> Result<[String: String], FlatJSONObject.ParseError> {
    do {
        return .success(try FlatJSONObject.parse(bytes))
    } catch {
        return .failure(error)
    }
}
