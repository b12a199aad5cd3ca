import ChakraConfig
import ChakraSystem
import Glibc

/// The TV's power over HDMI-CEC, for the frame loop: `request(on:)` and
/// go on drawing; when `descriptor` (the reports' mailbox) turns readable,
/// `takeReports()` says what the TV did. The bus work — Standby or Image
/// View On and Active Source, then asking the power status for up to 5 s
/// (CECPowerSequence) — blocks for seconds, so it runs on a thread of its
/// own ("chakra-cec") that owns the adapter.
///
/// Requests that come while one is under way do not queue up: the thread
/// then carries out the last one asked (off-on-off is off). Each one
/// carried out gives one report.
public final class CECController {
    public let path: String
    /// The loop to the thread: the power last asked for, and the stop.
    private let bus: MailboxThread<Bool?>
    /// The thread to the loop.
    private let results: Mailbox<Results>

    /// Readable while reports wait for `takeReports()`.
    public var descriptor: Int32 { results.descriptor }

    /// "cec /dev/cec0 vivid-000-vid-out0, playback device 4, physical
    /// 1.0.0.0", as of the last request carried out.
    public var summary: String { results.read { $0.summary } }

    /// The adapter `choice` names, configured as a Playback device, with
    /// its thread started; nil when none is wanted (`.disabled`) or, for
    /// `.auto`, none opens (most kiosk PCs have no CEC: not an error). A
    /// configured path that cannot be used is an error. Call it after the
    /// signals are blocked, like anything that starts a thread.
    public static func open(choice: CECChoice, logger: Logger, directory: String = "/dev") throws(SystemError) -> CECController? {
        switch choice {
        case .disabled:
            logger.info("cec: off (configured \"none\")")
            return nil
        case .device(let path):
            let adapter = try CECAdapter(path: path)
            return try CECController(adapter: adapter, claim: adapter.claimPlaybackAddress(osdName: osdName), logger: logger)
        case .auto:
            let paths = adapters(in: directory)
            for path in paths {
                do {
                    let adapter = try CECAdapter(path: path)
                    // 0.0.0.0 is the root of the HDMI tree: the adapter of
                    // an HDMI input, a TV's own side. A source never has it.
                    if try adapter.addresses().physical == CECPhysicalAddress(raw: 0) {
                        logger.info("cec: \(path) not used: physical address 0.0.0.0 (an HDMI input, the TV's side)")
                        continue
                    }
                    return try CECController(adapter: adapter, claim: adapter.claimPlaybackAddress(osdName: osdName), logger: logger)
                } catch {
                    logger.info("cec: \(path) not used: \(error)")
                }
            }
            logger.info("cec: no HDMI-CEC adapter\(paths.isEmpty ? " (no \(directory)/cec*)" : " that works"); the TV is not told of display power")
            return nil
        }
    }

    /// The name the TV lists for this source.
    static let osdName = "chakra"

    /// /dev/cec* in number order (cec2 before cec10).
    static func adapters(in directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var found: [(Int, String)] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name.hasPrefix("cec"), let number = Int(name.dropFirst(3)) else { continue }
            found.append((number, directory + "/" + name))
        }
        return found.sorted { $0.0 < $1.0 }.map(\.1)
    }

    init(adapter: CECAdapter, claim: CECAdapter.Claim, logger: Logger) throws(SystemError) {
        path = adapter.path
        let summary = Self.summary(of: adapter)
        bus = try MailboxThread(name: "chakra-cec", mail: nil)
        results = try Mailbox(Results(summary: summary))
        logger.info("\(summary) (\(claim.rawValue))")
        let handoff = Handoff(adapter: adapter)
        bus.start { [results] bus in
            Self.serve(handoff.adapter, bus: bus, results: results, logger: logger)
        }
    }

    deinit { close() }

    /// The TV on (Image View On, Active Source) or to standby. Returns at
    /// once; the report comes through `descriptor`.
    public func request(on: Bool) {
        bus.post { $0 = on }
    }

    /// The reports of the requests carried out since the last call, oldest
    /// first.
    public func takeReports() -> [DisplayPowerReport] {
        results.take { results in
            defer { results.reports.removeAll() }
            return results.reports
        }
    }

    /// Stops the thread once its current request (if any) is over; it
    /// closes the adapter. The TV is left as it is. Not waited for: the
    /// request under way may ask the TV for seconds more.
    public func close() {
        bus.stop(timeout: 0)
    }

    /// The thread's whole life: wait for a request, carry out the last one
    /// asked, post the report, until told to stop.
    private static func serve(_ adapter: CECAdapter, bus: MailboxThread<Bool?>, results: Mailbox<Results>, logger: Logger) {
        defer { adapter.close() }
        let sequence = CECPowerSequence(bus: adapter)
        while true {
            do {
                try bus.waitForMail(timeout: nil)
            } catch {
                logger.error("cec: the request thread stops: \(error)")
                return
            }
            let (wanted, stopping) = bus.take { wanted in
                defer { wanted = nil }
                return wanted
            }
            if stopping { return }
            guard let wanted else { continue }
            let report = sequence.run(on: wanted)
            let summary = summary(of: adapter)
            results.post { results in
                results.reports.append(report)
                results.summary = summary
            }
        }
    }

    static func summary(of adapter: CECAdapter) -> String {
        let head = "cec \(adapter.path) \(adapter.name)"
        guard let addresses = try? adapter.addresses() else { return head }
        let logical = addresses.logical.map { "playback device \($0)" } ?? "no logical address yet"
        return "\(head), \(logical), physical \(addresses.physical)"
    }

    /// The thread to the loop.
    private struct Results: Sendable {
        var reports: [DisplayPowerReport] = []
        var summary: String
    }

    /// The adapter crosses to the thread once and is used there alone.
    private struct Handoff: @unchecked Sendable {
        let adapter: CECAdapter
    }
}
