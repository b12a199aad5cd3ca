import ArgumentParser
import ChakraConfig
import ChakraDisplay
import ChakraInput
import ChakraRaster
import ChakraSystem
import Glibc

/// `chakrad input`: the input devices and which are touchscreens (and why);
/// with --watch, the touches as the daemon would get them, one line each,
/// until SIGINT or SIGTERM. An operator's and the VM tests' view of
/// ChakraInput.
struct InputCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "input",
        abstract: "List input devices and touchscreens; --watch prints touches as they come.",
        discussion: """
        Without --watch: one line per /dev/input/event* node, saying whether it is a touchscreen and why \
        (INPUT_PROP_DIRECT with ABS_MT_POSITION_X/Y, or ABS_X/ABS_Y with BTN_TOUCH) and whether it can \
        vibrate (FF_RUMBLE). With --watch: takes the touchscreens as the daemon does (and any plugged in \
        later) and prints each touch change as `PHASE id=N x=X y=Y device=DX,DY t=SECONDS dev=N`, X and Y \
        in pixels of the scene on a display of --size turned by --rotation. --rumble plays one effect on \
        the force-feedback device and exits.
        """
    )

    @Flag(help: "Print touches as they come, until interrupted.")
    var watch = false

    @Option(help: ArgumentHelp("Touchscreen: an evdev node or a device name to match (default: every touchscreen).", valueName: "path|name"))
    var device: String?

    @Option(help: ArgumentHelp("The display's mode the touches map to (the panel, before rotation).", valueName: "WxH"))
    var size = ScreenSize(width: 1280, height: 720)

    @Option(help: "The picture's rotation, which touches follow: 0, 90, 180 or 270.",
            transform: { text in
                guard let rotation = Int(text).flatMap(Rotation.init(rawValue:)) else { throw ValidationError("--rotation must be 0, 90, 180 or 270") }
                return rotation
            })
    var rotation: Rotation = .none

    @Option(help: ArgumentHelp("libinput calibration matrix: six numbers, \"a b c d e f\" or a,b,c,d,e,f.", valueName: "matrix"),
            transform: { text in
                let numbers = text.split { $0 == " " || $0 == "," }.compactMap { Double($0) }
                guard let calibration = Calibration(numbers) else { throw ValidationError("--calibration needs six numbers (got '\(text)')") }
                return calibration
            })
    var calibration: Calibration = .identity

    @Flag(help: "Grab the touchscreens (EVIOCGRAB) while watching.")
    var grab = false

    @Option(help: ArgumentHelp("Play one rumble effect on the force-feedback device and exit: tick or beat.", valueName: "effect"))
    var rumble: RumbleName?

    @Option(help: ArgumentHelp("Force-feedback device for --rumble (default: the first with FF_RUMBLE).", valueName: "path|name"))
    var haptics: String?

    @Option(help: ArgumentHelp("Directory of the evdev nodes.", visibility: .hidden))
    var directory = "/dev/input"

    @Flag(help: ArgumentHelp("With --watch: count the contacts and print only the total at the end (allocation counts).", visibility: .hidden))
    var countOnly = false

    enum RumbleName: String, ExpressibleByArgument, CaseIterable { case tick, beat }

    func validate() throws {
        if watch, rumble != nil { throw ValidationError("--watch and --rumble do not go together") }
    }

    func run() throws {
        LogOutput.set(StreamLog.standardOutput(level: .info))
        let logger = Logger(label: "chakrad")
        if let rumble {
            try playRumble(rumble, logger: logger)
        } else if watch {
            try watchTouches(logger: logger)
        } else {
            list()
        }
    }

    private func list() {
        let choice = DeviceChoice(device)
        let reports = InputNodes.survey(directory: directory, choice: choice)
        for report in reports { print(Self.line(report, choice: choice)) }
        let touchscreens = reports.filter { $0.classification?.isTouchscreen == true && choice.accepts(report: $0) }.count
        print("\(reports.count) input device\(reports.count == 1 ? "" : "s"), \(touchscreens) touchscreen\(touchscreens == 1 ? "" : "s")")
    }

    static func line(_ report: InputNodes.Report, choice: DeviceChoice) -> String {
        guard let capabilities = report.capabilities, let classification = report.classification else {
            return "\(report.path): cannot open: \(report.error ?? "?")"
        }
        var text = "\(report.path) \"\(capabilities.name)\": "
        switch classification {
        case .touchscreen(let touchProtocol, let axes, let reason):
            text += choice.accepts(report: report) ? "touchscreen, " : "a touchscreen but not the one asked for (\(choice)), "
            text += "\(touchProtocol), x \(axes.minX)..\(axes.maxX) y \(axes.minY)..\(axes.maxY) (\(reason))"
        case .other(let reason):
            text += "not a touchscreen: \(reason)"
        }
        if capabilities.rumble { text += "; force feedback (FF_RUMBLE)" }
        return text
    }

    private func watchTouches(logger: Logger) throws {
        let signals = try SignalSource(signals: [SIGINT, SIGTERM])
        let settings = TouchInput.Settings(panelWidth: size.width, panelHeight: size.height, rotation: rotation,
                                           calibration: calibration, device: DeviceChoice(device), grab: grab, directory: directory)
        let input = try TouchInput(settings: settings, logger: logger)
        let scene = rotation.swapsAxes ? "\(size.height)x\(size.width)" : "\(size.width)x\(size.height)"
        say("watching: display \(size) rotation \(rotation.rawValue) (scene \(scene)), calibration \(calibration), "
              + "\(input.devices.count) touchscreen\(input.devices.count == 1 ? "" : "s"); Ctrl-C stops")
        let poller = Poller(descriptors: [signals.descriptor, input.descriptor])
        var running = true
        var count = 0
        while running {
            try poller.wait(timeout: nil)
            if poller.isReadable(0) { signals.drain { _ in running = false } }
            if poller.isReadable(1) {
                if countOnly {
                    input.handleReadable { _ in count += 1 }
                } else {
                    input.handleReadable { event in
                        count += 1
                        say("\(event) t=\(String(format6: event.time)) dev=\(event.device)")
                    }
                }
            }
        }
        say("stopped after \(count) contact event\(count == 1 ? "" : "s")")
    }

    /// One line straight to standard output, at once: the watcher runs
    /// with its output in a file (the VM tests), and the log lines between
    /// (StreamLog writes each at once) must stay in order.
    private func say(_ line: String) {
        var text = line + "\n"
        text.withUTF8 { bytes in _ = try? Descriptor.writeAll(1, bytes.baseAddress!, count: bytes.count) }
    }

    private func playRumble(_ name: RumbleName, logger: Logger) throws {
        let haptics = Haptics(choice: DeviceChoice(haptics), directory: directory, logger: logger)
        guard haptics.isAvailable else { throw ExitCode.failure }
        name == .tick ? haptics.tick() : haptics.beat()
        print("rumble: \(name.rawValue) on \(haptics.deviceDescription ?? "?")")
        // Closing the device erases its effects: let this one play out.
        usleep(UInt32(Int(name == .tick ? Rumble.tick.length : Rumble.beat.length) * 1000 + 100_000))
    }
}

extension DeviceChoice {
    func accepts(report: InputNodes.Report) -> Bool {
        switch self {
        case .automatic: true
        case .path(let path): InputNodesPath.same(path, report.path)
        case .name: matchesName(report.name ?? "")
        }
    }
}

private enum InputNodesPath {
    static func same(_ a: String, _ b: String) -> Bool {
        guard let ra = realpath(a, nil) else { return a == b }
        defer { free(ra) }
        guard let rb = realpath(b, nil) else { return false }
        defer { free(rb) }
        return strcmp(ra, rb) == 0
    }
}

extension String {
    /// Seconds with six decimals (microseconds, the kernel's resolution).
    init(format6 value: Double) {
        let micro = Int64((value * 1e6).rounded())
        let fraction = String(micro % 1_000_000)
        self = "\(micro / 1_000_000)." + String(repeating: "0", count: 6 - fraction.count) + fraction
    }
}
