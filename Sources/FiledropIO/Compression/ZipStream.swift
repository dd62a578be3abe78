import FiledropCore
import FiledropHTTP

/// A ZIP archive of a folder, produced while the client reads it: a depth-first walk over
/// `Storage.list` (so symlinks and hidden or temporary files stay out exactly as in the
/// listings), one file open at a time, read in 256 KiB pieces, deflated or stored, CRC-32
/// computed on the way. Memory is one read buffer, one deflate stream and the central
/// directory (a few dozen bytes per entry); nothing touches the disk.
final class ZipStream: ResponseBodySource {
    /// Files at least this big get ZIP64 local headers up front: the size is only known
    /// for certain after the data went out, and deflate can grow incompressible data by
    /// about 0.03 %, so the threshold keeps a margin below 4 GiB.
    static let zip64LocalThreshold: UInt64 = 0xF000_0000

    private struct PendingDirectory {
        var path: StoragePath
        var prefix: [UInt8]
        var entries: [FileMetadata]
        var next = 0
    }

    private struct EntryData {
        var reader: FileRegionReader
        var deflater: Deflater?
        var crc = CRC32()
        var entryIndex: Int
    }

    private enum Phase {
        case walking
        case data(EntryData)
        case centralDirectory(next: Int)
        case finished
    }

    private let storage: any Storage
    private let root: StoragePath
    /// The entries of `root` the archive holds (a multi-select download); nil for all.
    private let selection: Set<String>?
    private var pending: [PendingDirectory] = []
    private var entries: [ZipRecords.Entry] = []
    private var phase = Phase.walking
    private var offset: UInt64 = 0
    private var started = false
    /// Where the central directory begins, set when the walk is over.
    private var directoryStart: UInt64 = 0

    init(directory: StoragePath, selecting selection: Set<String>? = nil, storage: any Storage) {
        self.root = directory
        self.selection = selection
        self.storage = storage
    }

    var knownLength: UInt64? { nil }

    func nextChunk() throws -> ResponseChunk? {
        if !started {
            started = true
            push(root, prefix: [])
        }
        while true {
            let output: [UInt8]?
            switch phase {
            case .walking: output = walk()
            case .data(var data):
                // Take the entry out of `phase` first so its read buffer is uniquely owned
                // and reading into it does not copy it.
                phase = .walking
                output = try continueData(&data)
            case .centralDirectory(let next): output = centralDirectory(from: next)
            case .finished: return nil
            }
            if let output, !output.isEmpty {
                offset += UInt64(output.count)
                return .bytes(output)
            }
        }
    }

    // MARK: - Walking the tree

    private func push(_ directory: StoragePath, prefix: [UInt8]) {
        // A folder that vanished or cannot be read mid-walk contributes nothing more.
        var listed = (try? storage.list(directory)) ?? []
        if let selection, directory == root {
            listed.removeAll { !selection.contains($0.name) }
        }
        pending.append(PendingDirectory(path: directory, prefix: prefix, entries: listed.sorted { $0.name < $1.name }))
    }

    /// The next entry's local header (starting its data for files), or the switch to the
    /// central directory when the walk is over.
    private func walk() -> [UInt8]? {
        while let top = pending.last {
            guard top.next < top.entries.count else {
                pending.removeLast()
                continue
            }
            let metadata = top.entries[top.next]
            pending[pending.count - 1].next += 1
            let path = top.path.appending(checkedName: metadata.name)
            let name = top.prefix + Array(metadata.name.utf8)
            let modified = ZipTimestamp(nanosecondsSince1970: metadata.modified)
            switch metadata.kind {
            case .directory:
                let entry = ZipRecords.Entry(
                    name: name + [UInt8(ascii: "/")], method: .stored, flags: ZipRecords.utf8NamesFlag, modified: modified,
                    localHeaderOffset: offset, isDirectory: true, zip64Local: false)
                entries.append(entry)
                push(path, prefix: entry.name)
                return ZipRecords.localFileHeader(entry)
            case .file:
                // Gone or replaced by something else since the listing: leave it out.
                guard let file = try? storage.open(path), file.metadata.kind == .file else { continue }
                let size = file.metadata.size
                let stored =
                    size == 0 || MediaTypes.isAlreadyCompressed(MediaTypes.type(forFileName: metadata.name))
                    || !Self.deflateHelps(FileRegion(file: file.handle, offset: 0, length: size))
                let entry = ZipRecords.Entry(
                    name: name, method: stored ? .stored : .deflated,
                    flags: ZipRecords.utf8NamesFlag | ZipRecords.dataDescriptorFlag, modified: modified,
                    localHeaderOffset: offset, isDirectory: false, zip64Local: size >= Self.zip64LocalThreshold)
                entries.append(entry)
                phase = .data(
                    EntryData(
                        reader: FileRegionReader(FileRegion(file: file.handle, offset: 0, length: size)),
                        deflater: stored ? nil : Deflater(format: .raw), entryIndex: entries.count - 1))
                return ZipRecords.localFileHeader(entry)
            }
        }
        directoryStart = offset
        phase = .centralDirectory(next: 0)
        return nil
    }

    /// Sample size for `deflateHelps`.
    static let probeSize = 64 << 10

    /// Deflates the first 64 KiB on the side (fast level): unknown types that turn out
    /// incompressible (random data, encrypted or packed formats) are stored, which costs
    /// nothing instead of deflate's full CPU time for under 3 % saved. The method is in
    /// the local header, so this has to be decided before the data starts.
    static func deflateHelps(_ region: FileRegion) -> Bool {
        var probe = FileRegionReader(
            FileRegion(file: region.file, offset: 0, length: min(region.length, UInt64(probeSize))),
            pieceSize: probeSize)
        guard let sample = try? probe.withNextPiece({ Array($0) }), !sample.isEmpty else { return true }
        return Deflater.compressed(sample, format: .raw, level: 1).count < sample.count * 97 / 100
    }

    // MARK: - File data

    /// The next piece of the current entry's data; at the end of the file also the data
    /// descriptor, and the walk resumes.
    private func continueData(_ data: inout EntryData) throws -> [UInt8] {
        var output: [UInt8] = []
        var ended = false
        while output.isEmpty && !ended {
            ended = try data.reader.withNextPiece { piece in
                data.crc.update(piece)
                entries[data.entryIndex].uncompressedSize += UInt64(piece.count)
                if let deflater = data.deflater {
                    deflater.compress(piece, finish: piece.isEmpty, into: &output)
                } else {
                    output.append(contentsOf: piece)
                }
                return piece.isEmpty
            }
        }
        entries[data.entryIndex].compressedSize += UInt64(output.count)
        if ended {
            entries[data.entryIndex].crc = data.crc.value
            output += ZipRecords.dataDescriptor(entries[data.entryIndex])
            phase = .walking
        } else {
            phase = .data(data)
        }
        return output
    }

    // MARK: - Central directory

    /// Central directory headers in batches of about 64 KiB, then the end records.
    private func centralDirectory(from first: Int) -> [UInt8] {
        var output: [UInt8] = []
        var index = first
        while index < entries.count && output.count < 64 << 10 {
            output += ZipRecords.centralDirectoryHeader(entries[index])
            index += 1
        }
        if index < entries.count {
            phase = .centralDirectory(next: index)
            return output
        }
        let directorySize = offset + UInt64(output.count) - directoryStart
        output += ZipRecords.endOfCentralDirectory(
            entryCount: entries.count, directorySize: directorySize, directoryOffset: directoryStart)
        phase = .finished
        entries = []
        return output
    }
}
