import CEvdev
import ChakraDisplay
import ChakraRaster
import ChakraSystem
import Glibc

/// The touchscreens, as one source for a poll(2) loop: every open device
/// and the hotplug watch sit behind one epoll descriptor, `descriptor`,
/// which never changes while devices come and go, so the frame loop's
/// fixed `Poller` holds it from the start. When poll says it is readable,
/// `handleReadable` reads everything pending and hands over the contacts,
/// mapped to scene pixels, with the kernel's CLOCK_MONOTONIC times.
///
/// Devices: every touchscreen in /dev/input (`DeviceClassification`), or
/// only the configured one (a path, or a name to match); each node looked
/// at gets one log line saying what was taken and why the others were
/// skipped. Hotplug: inotify on /dev/input opens new touchscreens (and
/// tries again when udev changes a node's permissions) and drops vanished
/// ones; a read that says ENODEV drops the device too, its contacts ending
/// with `cancel`, and the rest goes on. Others who want to know of nodes
/// coming and going (the haptics) hear of them through `onNodeChange`.
///
/// Away (the daemon's VT is not in front): the grabs are let go, so the
/// program in front gets the touches, and nothing reaches the scene; the
/// contacts down at the switch end with `cancel`, and fingers still on the
/// panel when the daemon is back count only after they lift.
///
/// Steady state (events at up to ~1 kHz) allocates nothing: libevdev reads
/// into its own queue, the tracker has fixed tables, the epoll array is
/// made at init. Hotplug allocates (names, paths, log lines).
///
/// Owns the epoll descriptor, the inotify watch and the open devices until
/// deinit; one thread uses it (the frame loop's).
public final class TouchInput {
    public struct Settings: Sendable, Equatable {
        public var device: DeviceChoice
        /// EVIOCGRAB each touchscreen: no other reader sees the touches.
        public var grab: Bool
        public var calibration: Calibration
        /// The rotation the picture is drawn with (touches turn with it).
        public var rotation: Rotation
        /// The display panel's size in its own orientation (the output's mode).
        public var panelWidth: Int
        public var panelHeight: Int
        public var directory: String

        public init(panelWidth: Int, panelHeight: Int, rotation: Rotation = .none, calibration: Calibration = .identity,
                    device: DeviceChoice = .automatic, grab: Bool = false, directory: String = "/dev/input") {
            (self.panelWidth, self.panelHeight, self.rotation, self.calibration) = (panelWidth, panelHeight, rotation, calibration)
            (self.device, self.grab, self.directory) = (device, grab, directory)
        }
    }

    /// Poll this for readability.
    public let descriptor: Int32
    public private(set) var settings: Settings
    /// The touchscreens in use.
    public var devices: [TouchDeviceInfo] { open.map(\.info) }
    /// Counts changes to `devices` (for a status that shows them).
    public private(set) var generation = 0
    /// The VT is switched away: the devices are read but not grabbed, and
    /// their touches dropped.
    public private(set) var isAway = false
    /// Told of every change in the input directory, after the touchscreens
    /// have taken theirs (the frame loop's thread).
    public var onNodeChange: ((InputNodeChange) -> Void)?

    private var open: [TouchDevice] = []
    private let watch: DirectoryWatch?
    private let logger: Logger
    /// Nodes looked at and not taken: their device number, and whether to
    /// look again when their attributes change (no permission yet).
    private var skipped: [String: (deviceNumber: UInt64, retry: Bool)] = [:]
    private var nextContactID = 1
    private var nextDeviceNumber = 1
    private let ready: UnsafeMutablePointer<epoll_event>
    private static let readyCapacity = 16

    public init(settings: Settings, logger: Logger) throws(SystemError) {
        self.settings = settings
        self.logger = logger
        descriptor = try Syscall.check("epoll_create1", { epoll_create1(Int32(EPOLL_CLOEXEC)) })
        ready = .allocate(capacity: Self.readyCapacity)
        do {
            watch = try DirectoryWatch(directory: settings.directory)
        } catch {
            watch = nil
            logger.warning("input: no hotplug (\(error)); only the devices there now are used")
        }
        if let watch {
            addToEpoll(watch.descriptor)
            if !watch.isWatching { logger.info("input: \(settings.directory) does not exist yet; waiting for it") }
        }
        scan()
    }

    deinit {
        open.removeAll()
        Descriptor.close(descriptor)
        ready.deallocate()
    }

    /// Reads whatever is pending (devices and hotplug) and calls `emit` with
    /// each touch change, in order. Never blocks.
    public func handleReadable(_ emit: (TouchContactEvent) -> Void) {
        while true {
            guard let count = try? Syscall.check("epoll_wait", { epoll_wait(descriptor, ready, Int32(Self.readyCapacity), 0) }),
                  count > 0 else { return }
            for index in 0..<Int(count) {
                let fd = ready[index].data.fd
                if let watch, fd == watch.descriptor {
                    watch.drain { change in self.apply(change, emit) }
                } else if let device = open.first(where: { $0.device.fd == fd }) {
                    read(device, emit)
                }
            }
            if count < Self.readyCapacity { return }
        }
    }

    /// The same, collected (tools and tests; allocates).
    public func handleReadable() -> [TouchContactEvent] {
        var events: [TouchContactEvent] = []
        handleReadable { events.append($0) }
        return events
    }

    /// The daemon's VT went away (`true`) or came back: grabs let go or
    /// taken again; going away ends the contacts that are down (`emit`).
    public func setAway(_ away: Bool, _ emit: (TouchContactEvent) -> Void) {
        guard away != isAway else { return }
        isAway = away
        for device in open {
            // Back: fingers that came down while away are not the scene's.
            device.cancelAll(untilLifted: true, away ? emit : { _ in })
            if away, device.info.grabbed {
                do throws(SystemError) { try device.device.ungrab() } catch {
                    logger.warning("input: \(error)")
                }
                device.info.grabbed = false
            } else if !away, settings.grab {
                device.info.grabbed = grab(device.device)
            }
        }
        if !open.isEmpty { generation += 1 }
        let grabs = open.filter(\.info.grabbed).count
        let message = away ? "input: away; touches are left to the VT in front"
            : "input: back; touches reach the scene again" + (grabs > 0 ? " (\(grabs) grabbed)" : "")
        logger.info("\(message)")
    }

    /// The display changed size or rotation: touches map to the new frame.
    public func setDisplay(panelWidth: Int, panelHeight: Int, rotation: Rotation) {
        (settings.panelWidth, settings.panelHeight, settings.rotation) = (panelWidth, panelHeight, rotation)
        for device in open { device.mapping = mapping(for: device.info.axes) }
    }

    // MARK: devices

    private func read(_ device: TouchDevice, _ emit: (TouchContactEvent) -> Void) {
        device.tracker.nextContactID = nextContactID
        let drops = device.drops
        let result = device.drain(isAway ? { _ in } : emit)
        nextContactID = device.tracker.nextContactID
        if Self.passesPowerOfTen(from: drops, to: device.drops) {
            logger.warning("input: \(device.info.path) overflowed (SYN_DROPPED, \(device.drops) time\(device.drops == 1 ? "" : "s") so far); resynced from the device's state")
        }
        switch result {
        case .drained: break
        case .gone: remove(device, because: "it is gone (ENODEV)", emit)
        case .failed(let error): remove(device, because: "\(error)", emit)
        }
    }

    /// Said the 1st, 10th, 100th... time: when the count went past one of
    /// them (one read may see several drops: found by the VM's flood, where
    /// a count going from 0 to 2 in one read was never said).
    static func passesPowerOfTen(from before: Int, to after: Int) -> Bool {
        var power = 1
        while power <= after {
            if power > before { return true }
            power *= 10
        }
        return false
    }

    private func scan() {
        let nodes = InputNodes.list(directory: settings.directory)
        for path in nodes { consider(path) }
        // A configured node outside the directory (a udev symlink elsewhere).
        if case .path(let wanted) = settings.device {
            let target = InputNodes.resolve(wanted)
            if !target.hasPrefix(settings.directory + "/") { consider(target) }
        }
        if open.isEmpty {
            let looked = nodes.count == 1 ? "1 input device" : "\(nodes.count) input devices"
            logger.info("input: no touchscreen (\(looked) looked at, wanted: \(settings.device)); watching \(settings.directory) for one")
        }
    }

    private func apply(_ change: InputNodeChange, _ emit: (TouchContactEvent) -> Void) {
        defer { onNodeChange?(change) }
        switch change {
        case .appeared(let path):
            consider(path)
        case .vanished(let path):
            skipped[path] = nil
            if let device = open.first(where: { $0.device.path == path }) { remove(device, because: "its node was deleted", emit) }
        case .rescan:
            for device in open where InputNodes.deviceNumber(device.device.path) != device.device.deviceNumber {
                remove(device, because: "its node is gone", emit)
            }
            scan()
        }
    }

    /// Opens the node and takes it if it is a touchscreen we want.
    private func consider(_ path: String) {
        if open.contains(where: { $0.device.path == path }) { return }
        guard let number = InputNodes.deviceNumber(path) else { return }
        if let known = skipped[path], known.deviceNumber == number, !known.retry { return }
        let device: EvdevDevice
        do {
            device = try EvdevDevice(path: path)
        } catch {
            if error.errno == EACCES || error.errno == EPERM {
                if skipped[path]?.retry != true {
                    logger.info("input: cannot open \(path) yet (\(error)); trying again when its permissions change")
                }
                skipped[path] = (number, true)
            } else {
                logger.debug("input: \(error)")
            }
            return
        }
        let capabilities = device.capabilities
        let describe = "\(path) \"\(capabilities.name)\""
        guard settings.device.accepts(path: path, name: capabilities.name) else {
            // A configured udev link (by-path, by-id) that does not exist
            // yet may come to name this node: look again on its next IN_ATTRIB.
            var pending = false
            if case .path(let wanted) = settings.device { pending = access(wanted, F_OK) != 0 }
            skip(path, number, "input: skipped \(describe): not the configured device (\(settings.device))", retry: pending)
            return
        }
        let classification = DeviceClassification(capabilities, configured: settings.device != .automatic)
        guard case .touchscreen(let touchProtocol, let axes, let reason) = classification else {
            skip(path, number, "input: skipped \(describe): \(classification.reason)")
            return
        }
        take(device, touchProtocol: touchProtocol, axes: axes, reason: reason)
    }

    private func skip(_ path: String, _ number: UInt64, _ message: String, retry: Bool = false) {
        let repeated = skipped[path]?.deviceNumber == number
        skipped[path] = (number, retry)
        if !repeated { logger.info("\(message)") }
    }

    private func take(_ device: EvdevDevice, touchProtocol: TouchProtocol, axes: TouchMapping.Axes, reason: String) {
        let grabbed = settings.grab && !isAway && grab(device)
        var monotonic = true
        do throws(SystemError) {
            try device.useMonotonicClock()
        } catch {
            monotonic = false
            logger.warning("input: \(error); events are timed when read")
        }
        let info = TouchDeviceInfo(number: nextDeviceNumber, path: device.path, name: device.name, touchProtocol: touchProtocol,
                                   axes: axes, grabbed: grabbed, reason: reason)
        nextDeviceNumber += 1
        let touch = TouchDevice(device: device, info: info, mapping: mapping(for: axes), monotonic: monotonic)
        addToEpoll(device.fd)
        open.append(touch)
        skipped[device.path] = nil
        generation += 1
        logger.info("input: touchscreen \(info)")
    }

    private func grab(_ device: EvdevDevice) -> Bool {
        do throws(SystemError) {
            try device.grab()
            return true
        } catch {
            logger.warning("input: cannot grab \(device.path), using it shared: \(error)")
            return false
        }
    }

    private func remove(_ device: TouchDevice, because reason: String, _ emit: (TouchContactEvent) -> Void) {
        device.cancelAll(isAway ? { _ in } : emit)
        _ = try? Syscall.check("epoll_ctl(DEL)") { epoll_ctl(descriptor, EPOLL_CTL_DEL, device.device.fd, nil) }
        open.removeAll { $0 === device }
        generation += 1
        logger.info("input: removed \(device.info.path) \"\(device.info.name)\": \(reason)")
    }

    private func mapping(for axes: TouchMapping.Axes) -> TouchMapping {
        TouchMapping(axes: axes, panelWidth: settings.panelWidth, panelHeight: settings.panelHeight,
                     rotation: settings.rotation, calibration: settings.calibration)
    }

    private func addToEpoll(_ fd: Int32) {
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.fd = fd
        do {
            try Syscall.check("epoll_ctl(ADD)") { epoll_ctl(descriptor, EPOLL_CTL_ADD, fd, &event) }
        } catch {
            logger.error("input: \(error)")
        }
    }
}
