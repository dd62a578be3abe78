import FiledropCore

/// libFuzzer entry for what a LocalSend sender's bytes meet before any file is opened (built by
/// `scripts/fuzz.sh FuzzLocalSend`): the same bytes as a `prepare-upload` body, as a device body
/// (`register`, a multicast announcement) and as a JSON value with small limits. It must never
/// trap; the same bytes must give the same answer twice; an error's offset lies within the
/// limit; an accepted device, written out again, must read back as the same device.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLocalSend(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let prepared = prepare(bytes)
    precondition(prepared == prepare(bytes), "the same prepare-upload body gave two answers")
    if case .success(let request) = prepared {
        precondition(request.files.count <= LocalSendPrepareRequest.maxFiles, "more files than the limit")
    }
    if case .success(let (device, announce)) = device(bytes) {
        let again = try? LocalSendDevice.parse(device.json(announce: announce))
        precondition(again?.device == device && again?.announce == announce, "written out, the device read differently")
    }
    do {
        _ = try JSONValue.parse(bytes, maxBytes: 64, maxDepth: 2)
    } catch {
        precondition(error.offset >= 0 && error.offset <= max(bytes.count, 64), "offset \(error.offset)")
    }
    return 0
}

private func prepare(_ bytes: [UInt8]) -> Result<LocalSendPrepareRequest, LocalSendDevice.InvalidBody> {
    do {
        return .success(try LocalSendPrepareRequest.parse(bytes))
    } catch {
        return .failure(error)
    }
}

private func device(_ bytes: [UInt8]) -> Result<(LocalSendDevice, Bool), LocalSendDevice.InvalidBody> {
    do {
        return .success(try LocalSendDevice.parse(bytes))
    } catch {
        return .failure(error)
    }
}
