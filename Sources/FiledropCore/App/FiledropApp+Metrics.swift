import FiledropHTTP

extension FiledropApp {
    /// `GET /metrics`. Free space (statvfs), `/proc/self` and every tus upload's lock are
    /// read by a worker, which renders the page too: the loop only sends it.
    func metricsPage() -> RouteDecision {
        let metrics = store.monitor.metrics
        let (storage, tusUploads, probe) = (storage, tusUploads, processProbe)
        let version = String(ConfigurationLoader.version.split(separator: " ").last ?? "")
        return .blocking(
            "metrics",
            {
                let readings = MetricsReadings(
                    freeBytes: storage.availableSpace(), tusPending: tusUploads?.pending,
                    openFileDescriptors: probe?.openFileDescriptors(), residentBytes: probe?.residentBytes())
                return MetricsPage.render(metrics, readings, version: version)
            }
        ) { page in
            .respond(
                Response(
                    status: .ok, headers: [.contentType: PrometheusTextWriter.contentType, .cacheControl: "no-store"],
                    body: .bytes(page)))
        }
    }
}
