import Testing

@testable import FiledropCore
@testable import FiledropTesting

/// What the registry counts and how a scrape reads it.
@Suite struct ServerMetricsTests {
    @Test func uploadsCountByMethodAndResultWithTheirBytes() {
        let metrics = ServerMetrics(startTime: 0)
        let monitor = UploadMonitor(log: NoLog(), now: { 0 }, metrics: metrics)
        let stored = monitor.started(name: "a.txt", expectedSize: 5, client: "c", method: .form)
        let failed = monitor.started(name: "b.bin", expectedSize: nil, client: "c", method: .tus)
        #expect(metrics.activeUploads == 2)
        stored.advance(to: 5)
        stored.finished(stored: StoredFile(path: StoragePath.root.appending(checkedName: "a.txt"), size: 5, crc32: nil))
        failed.advance(to: 7)
        failed.failed(reason: "cut off")
        // Ending twice counts once, as the monitor logs once.
        failed.failed(reason: "again")
        #expect(metrics.activeUploads == 0)
        #expect(metrics.uploads(.form, .stored) == 1)
        #expect(metrics.uploadBytes(.form, .stored) == 5)
        #expect(metrics.uploads(.tus, .failed) == 1)
        #expect(metrics.uploadBytes(.tus, .failed) == 7)
        #expect(metrics.uploads(.put, .stored) == 0)
    }

    /// An error response counts as a refusal; one to an upload route whose body was never
    /// read is also a refused upload of that method.
    @Test func refusedRequestsCountByReasonAndRefusedUploadsByMethod() {
        let metrics = ServerMetrics(startTime: 0)
        metrics.requestFinished(.putUpload, status: .contentTooLarge, refusal: .tooLarge, readBody: false, durationNanoseconds: 1)
        metrics.requestFinished(.formUpload, status: .unauthorized, refusal: nil, readBody: false, durationNanoseconds: 1)
        // The body was read: the upload started and ends as stored or failed, not refused.
        metrics.requestFinished(.tusUpload, status: .conflict, refusal: nil, readBody: true, durationNanoseconds: 1)
        metrics.requestFinished(.download, status: .notFound, refusal: .notFound, readBody: false, durationNanoseconds: 1)
        metrics.requestFinished(.download, status: .ok, refusal: nil, readBody: false, durationNanoseconds: 1)
        metrics.refused(.connectionLimit)
        #expect(metrics.refusals(.tooLarge) == 1)
        #expect(metrics.refusals(.unauthorized) == 1)
        #expect(metrics.refusals(.conflict) == 1)
        #expect(metrics.refusals(.notFound) == 1)
        #expect(metrics.refusals(.connectionLimit) == 1)
        #expect(RefusalReason.allCases.reduce(0) { $0 + metrics.refusals($1) } == 5)
        #expect(metrics.uploads(.put, .refused) == 1)
        #expect(metrics.uploads(.form, .refused) == 1)
        #expect(metrics.uploads(.tus, .refused) == 0)
    }

    @Test func histogramBucketsAreCumulativeAndBoundsInclusive() {
        let metrics = ServerMetrics(startTime: 0)
        for nanoseconds: UInt64 in [500_000, 1_000_000, 1_000_001, 2_000_000_000, 400_000_000_000] {
            metrics.requestFinished(.page, status: .ok, refusal: nil, readBody: false, durationNanoseconds: nanoseconds)
        }
        let reading = metrics.durations(.page)
        let bounds = ServerMetrics.durationBuckets
        #expect(reading.cumulativeCounts.count == bounds.count)
        #expect(reading.cumulativeCounts[bounds.firstIndex(of: 0.001)!] == 2)
        #expect(reading.cumulativeCounts[bounds.firstIndex(of: 0.005)!] == 3)
        #expect(reading.cumulativeCounts[bounds.firstIndex(of: 1)!] == 3)
        #expect(reading.cumulativeCounts[bounds.firstIndex(of: 2.5)!] == 4)
        #expect(reading.cumulativeCounts.last == 4)
        #expect(reading.count == 5)
        #expect(reading.sumNanoseconds == 402_002_500_001)
        #expect(metrics.durations(.download).count == 0)
    }

    @Test func hookOutcomesCountRunsFailuresAndTimeouts() {
        let metrics = ServerMetrics(startTime: 0)
        #expect(metrics.hooks == (0, 0, 0))
        metrics.hookFinished(outcome: .succeeded)
        metrics.hookFinished(outcome: .failed)
        metrics.hookFinished(outcome: .timedOut)
        metrics.hookFinished(outcome: .succeeded)
        #expect(metrics.hooks == (4, 1, 1))
    }

    @Test func connectionGaugeReadsTheServerOnceObserved() {
        let metrics = ServerMetrics(startTime: 0)
        #expect(metrics.activeConnections == nil)
        metrics.observeConnections { 3 }
        #expect(metrics.activeConnections == 3)
    }

    /// Every family once, HELP before TYPE before its samples; unknown readings left out.
    @Test func pageHasEachFamilyOnceWithHelpAndType() {
        let metrics = ServerMetrics(startTime: 1_700_000_000)
        metrics.observeConnections { 2 }
        metrics.hookQueue.setDepth(7)
        metrics.webhookQueue.keptInMemory(2)
        let page = String(
            decoding: MetricsPage.render(
                metrics, MetricsReadings(freeBytes: 42, tusPending: (1, 10, 100)),
                version: "0.1.0"), as: UTF8.self)
        let lines = page.split(separator: "\n")
        let helps = lines.filter { $0.hasPrefix("# HELP ") }.map { $0.split(separator: " ")[2] }
        let types = lines.filter { $0.hasPrefix("# TYPE ") }.map { $0.split(separator: " ")[2] }
        #expect(helps == types)
        #expect(Set(helps).count == helps.count)
        for family in [
            "filedrop_uploads_total", "filedrop_upload_bytes_total", "filedrop_refusals_total",
            "filedrop_active_connections", "filedrop_active_uploads", "filedrop_tus_pending_bytes",
            "filedrop_save_dir_free_bytes", "filedrop_hook_runs_total", "filedrop_hook_failures_total",
            "filedrop_hook_timeouts_total", "filedrop_hook_queue_depth", "filedrop_webhook_queue_depth",
            "filedrop_hook_queue_unsaved_total", "filedrop_http_request_duration_seconds", "filedrop_build_info",
            "process_start_time_seconds",
        ] {
            #expect(helps.contains(Substring(family)), "\(family)")
        }
        #expect(!helps.contains("process_open_fds"))
        #expect(lines.contains("filedrop_save_dir_free_bytes 42"))
        #expect(lines.contains("filedrop_tus_pending_bytes 10"))
        #expect(lines.contains("filedrop_active_connections 2"))
        #expect(lines.contains("filedrop_hook_queue_depth 7"))
        #expect(lines.contains("filedrop_webhook_queue_depth 0"))
        #expect(lines.contains("filedrop_webhook_queue_unsaved_total 2"))
        #expect(lines.contains("process_start_time_seconds 1700000000"))
        #expect(lines.contains("filedrop_build_info{version=\"0.1.0\"} 1"))
        #expect(lines.contains("filedrop_http_request_duration_seconds_bucket{route=\"tus_upload\",le=\"+Inf\"} 0"))
        #expect(lines.contains("filedrop_refusals_total{code=\"413\",reason=\"too_large\"} 0"))
    }
}
