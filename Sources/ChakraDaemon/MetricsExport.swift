import ChakraControl
import ChakraSystem

/// The shell's side of `.writeMetrics`: the status as text, written into
/// the directory the configuration names now (a reload may change it).
/// A failing write never stops the daemon, and is not logged every
/// interval: the first failure is, then every `logEvery`th with the count,
/// and the first success after them.
final class MetricsExport {
    static let logEvery = 20   // 5 minutes at the default 15 s

    private let logger: Logger
    private let version: String
    /// Failures in a row.
    private(set) var failures = 0

    init(logger: Logger, version: String = ChakraVersion.current) {
        (self.logger, self.version) = (logger, version)
    }

    func write(_ status: DaemonStatus, into directory: String) {
        let writer = TextfileWriter(directory: directory)
        do {
            try writer.write(MetricsText.render(status, version: version))
            if failures > 0 { logger.notice("metrics: \(writer.path) written again after \(failures) failure(s)") }
            failures = 0
        } catch {
            failures += 1
            if failures == 1 {
                logger.warning("metrics: \(error); trying again every interval")
            } else if failures % Self.logEvery == 0 {
                logger.warning("metrics: still failing (\(failures) times in a row): \(error)")
            }
        }
    }
}
