/// Facts about the process that take system calls to read (`/proc/self`): the I/O layer
/// implements it; the scrape reads it on a worker thread, never on an event loop.
public protocol ProcessProbe: Sendable {
    func openFileDescriptors() -> Int?
    func residentBytes() -> UInt64?
}

/// What a scrape reads besides the counters: each may be unknown (nil), and its family is
/// then left out rather than reported as 0.
public struct MetricsReadings: Sendable {
    public var freeBytes: UInt64?
    public var tusPending: (uploads: Int, receivedBytes: UInt64, reservedBytes: UInt64)?
    public var openFileDescriptors: Int?
    public var residentBytes: UInt64?

    public init(
        freeBytes: UInt64? = nil, tusPending: (uploads: Int, receivedBytes: UInt64, reservedBytes: UInt64)? = nil,
        openFileDescriptors: Int? = nil, residentBytes: UInt64? = nil
    ) {
        self.freeBytes = freeBytes
        self.tusPending = tusPending
        self.openFileDescriptors = openFileDescriptors
        self.residentBytes = residentBytes
    }
}

/// The body of `GET /metrics`: every family `ServerMetrics` keeps and the readings of the
/// moment, in the Prometheus text format. Names follow Prometheus' conventions: a
/// `filedrop_` prefix, base units (bytes, seconds) and `_total` on counters.
public enum MetricsPage {
    public static func render(_ metrics: ServerMetrics, _ readings: MetricsReadings, version: String) -> [UInt8] {
        var out = PrometheusTextWriter()
        out.family("filedrop_build_info", .gauge, help: "Always 1; the version label says which filedrop this is.")
        out.sample("filedrop_build_info", labels: ["version": version], 1)
        out.family("process_start_time_seconds", .gauge, help: "When the process started, seconds since 1970.")
        out.sample("process_start_time_seconds", metrics.startTime < 0 ? 0 : UInt64(metrics.startTime))
        if let descriptors = readings.openFileDescriptors {
            out.family("process_open_fds", .gauge, help: "Open file descriptors.")
            out.sample("process_open_fds", descriptors)
        }
        if let resident = readings.residentBytes {
            out.family("process_resident_memory_bytes", .gauge, help: "Resident memory size in bytes.")
            out.sample("process_resident_memory_bytes", resident)
        }
        writeUploads(metrics, to: &out)
        out.family(
            "filedrop_refusals_total", .counter,
            help:
                "Requests answered with an error status, and connections refused with 503 before a request, by status and reason."
        )
        for reason in RefusalReason.allCases {
            out.sample(
                "filedrop_refusals_total", labels: ["code": reason.code, "reason": reason.rawValue], metrics.refusals(reason))
        }
        if let connections = metrics.activeConnections {
            out.family("filedrop_active_connections", .gauge, help: "Open client connections.")
            out.sample("filedrop_active_connections", connections)
        }
        out.family(
            "filedrop_active_uploads", .gauge,
            help:
                "Uploads started and not yet stored or failed, one per file; a resumable one from its first PATCH until it is saved, terminated or expires."
        )
        out.sample("filedrop_active_uploads", max(0, metrics.activeUploads))
        if let pending = readings.tusPending {
            out.family("filedrop_tus_pending_uploads", .gauge, help: "Unfinished resumable (tus) uploads kept for resuming.")
            out.sample("filedrop_tus_pending_uploads", pending.uploads)
            out.family("filedrop_tus_pending_bytes", .gauge, help: "Bytes received and kept in unfinished resumable uploads.")
            out.sample("filedrop_tus_pending_bytes", pending.receivedBytes)
            out.family(
                "filedrop_tus_reserved_bytes", .gauge,
                help: "Bytes unfinished resumable uploads hold against tus-max-pending (their declared lengths).")
            out.sample("filedrop_tus_reserved_bytes", pending.reservedBytes)
        }
        if let free = readings.freeBytes {
            out.family(
                "filedrop_save_dir_free_bytes", .gauge, help: "Bytes available to filedrop on the save directory's file system.")
            out.sample("filedrop_save_dir_free_bytes", free)
        }
        let hooks = metrics.hooks
        out.family("filedrop_hook_runs_total", .counter, help: "Runs of the on-upload hook that ended, whatever their outcome.")
        out.sample("filedrop_hook_runs_total", hooks.runs)
        out.family(
            "filedrop_hook_failures_total", .counter,
            help: "Runs of the on-upload hook that exited non-zero, were killed by a signal or could not start.")
        out.sample("filedrop_hook_failures_total", hooks.failures)
        out.family("filedrop_hook_timeouts_total", .counter, help: "Runs of the on-upload hook killed at their timeout.")
        out.sample("filedrop_hook_timeouts_total", hooks.timeouts)
        writeRunQueue(metrics.hookQueue, prefix: "filedrop_hook_queue", what: "on-upload runs", to: &out)
        writeRunQueue(metrics.webhookQueue, prefix: "filedrop_webhook_queue", what: "notify-url notices", to: &out)
        writeDurations(metrics, to: &out)
        return out.bytes
    }

    private static func writeUploads(_ metrics: ServerMetrics, to out: inout PrometheusTextWriter) {
        out.family(
            "filedrop_uploads_total", .counter,
            help:
                "Uploads by method and result: stored or failed once started (one per file), refused before a byte was read (one per request)."
        )
        for method in UploadMethod.allCases {
            for result in UploadResult.allCases {
                out.sample(
                    "filedrop_uploads_total", labels: ["method": method.rawValue, "result": result.rawValue],
                    metrics.uploads(method, result))
            }
        }
        out.family(
            "filedrop_upload_bytes_total", .counter,
            help: "Bytes of uploads by method and result: the stored size, or what arrived before an upload failed.")
        for method in UploadMethod.allCases {
            for result in UploadResult.allCases where result != .refused {
                out.sample(
                    "filedrop_upload_bytes_total", labels: ["method": method.rawValue, "result": result.rawValue],
                    metrics.uploadBytes(method, result))
            }
        }
    }

    private static func writeRunQueue(_ queue: RunQueueMetrics, prefix: String, what: String, to out: inout PrometheusTextWriter)
    {
        out.family(prefix + "_depth", .gauge, help: "Pending \(what) kept on disk in the save directory, waiting or under way.")
        out.sample(prefix + "_depth", queue.depth)
        out.family(
            prefix + "_low_space_total", .counter,
            help: "Pending \(what) queued while the save directory had less than min-free-space free (queued all the same).")
        out.sample(prefix + "_low_space_total", queue.lowSpaceRuns)
        out.family(
            prefix + "_unsaved_total", .counter,
            help:
                "Pending \(what) that could not be written to disk (full, read-only) and waited in memory: lost if the daemon stops first."
        )
        out.sample(prefix + "_unsaved_total", queue.unsavedRuns)
    }

    private static func writeDurations(_ metrics: ServerMetrics, to out: inout PrometheusTextWriter) {
        let name = "filedrop_http_request_duration_seconds"
        out.family(
            name, .histogram,
            help: "From a request's first byte until its response was written, by the kind of route (never the path).")
        let bounds = ServerMetrics.durationBuckets.map(PrometheusTextWriter.format)
        for kind in RequestKind.allCases {
            let reading = metrics.durations(kind)
            for (bound, count) in zip(bounds, reading.cumulativeCounts) {
                out.sample(name + "_bucket", labels: ["route": kind.rawValue, "le": bound], count)
            }
            out.sample(name + "_bucket", labels: ["route": kind.rawValue, "le": "+Inf"], reading.count)
            out.sample(name + "_sum", labels: ["route": kind.rawValue], Double(reading.sumNanoseconds) / 1_000_000_000)
            out.sample(name + "_count", labels: ["route": kind.rawValue], reading.count)
        }
    }
}
