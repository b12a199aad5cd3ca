import CEvdev
import ChakraDisplay
import ChakraSystem
import Glibc

/// Vibration through an evdev force-feedback device (FF_RUMBLE: the
/// kernel's gpio-vibra, pwm-vibra, or any memless rumble driver). The two
/// effects are uploaded once (EVIOCSFF) and played by writing EV_FF events,
/// one write(2) per call, so the spiral can call `tick()` as the finger
/// moves. Without a device every call does nothing; failures are logged
/// once and never thrown (haptics are a nicety: where there is no motor,
/// the orb's visual pulse alone carries the rhythm).
///
/// A device that appears after start (a USB rumble pad, a driver loaded
/// late) is found through `nodeChanged`, which the touch input's watch on
/// the input directory calls; one that goes away is dropped, and the next
/// one that comes is taken.
///
/// Owns the device (opened read-write) until deinit; closing it erases the
/// uploaded effects (the kernel flushes them per descriptor).
public final class Haptics {
    private var device: EvdevDevice?
    private var tickEffect: Int32 = -1
    private var beatEffect: Int32 = -1
    private let choice: DeviceChoice?
    private let directory: String
    private let logger: Logger
    private var reportedFailure = false

    /// "/dev/input/event4 \"pwm-vibrator\"", or nil without a device.
    public private(set) var deviceDescription: String?

    /// `choice`: `.automatic` takes the first node with FF_RUMBLE; a path
    /// or name takes that one (if it has FF_RUMBLE). nil: none wanted.
    public init(choice: DeviceChoice?, directory: String = "/dev/input", logger: Logger) {
        (self.choice, self.directory, self.logger) = (choice, directory, logger)
        guard let choice else {
            logger.info("haptics: off (configured \"none\")")
            return
        }
        if search(InputNodes.list(directory: directory)) { return }
        let wanted = if case .automatic = choice { "any" } else { "\(choice)" }
        logger.info("haptics: no force-feedback device (FF_RUMBLE, wanted: \(wanted)); the visual pulse alone until one appears")
    }

    /// A node in the input directory came, went, or everything may have
    /// changed: take a new device if there is none, drop ours if it went.
    public func nodeChanged(_ change: InputNodeChange) {
        guard choice != nil else { return }
        switch change {
        case .vanished(let path):
            if let device, device.path == path { drop(because: "its node was deleted") }
        case .appeared(let path):
            if device == nil { search([path]) }
        case .rescan:
            if let device, access(device.path, F_OK) != 0 { drop(because: "its node is gone") }
            if device == nil { search(InputNodes.list(directory: directory)) }
        }
    }

    /// Takes the first of `nodes` the choice accepts that has FF_RUMBLE
    /// and takes the effects. A configured path is looked at whatever
    /// `nodes` holds (a udev link may have come to name a new node).
    @discardableResult
    private func search(_ nodes: [String]) -> Bool {
        guard let choice else { return false }
        var candidates = nodes
        if case .path(let wanted) = choice { candidates = [InputNodes.resolve(wanted)] }
        for path in candidates {
            guard let found = try? EvdevDevice(path: path, writable: true) else { continue }
            guard choice.accepts(path: path, name: found.name), found.hasCode(EventCode.EV_FF, EventCode.FF_RUMBLE) else { continue }
            if upload(to: found) {
                device = found
                reportedFailure = false
                deviceDescription = "\(path) \"\(found.name)\""
                logger.info("haptics: \(deviceDescription!) (FF_RUMBLE, \(CEvdev_effect_count(found.fd)) effects)")
                return true
            }
        }
        return false
    }

    private func drop(because reason: String) {
        logger.warning("haptics: \(deviceDescription ?? "the device") is gone (\(reason)); the visual pulse alone until another appears")
        device = nil
        deviceDescription = nil
    }

    public var isAvailable: Bool { device != nil }

    /// A short tracing tick.
    public func tick() { play(tickEffect) }

    /// One heartbeat pulse.
    public func beat() { play(beatEffect) }

    private func upload(to device: EvdevDevice) -> Bool {
        beatEffect = Self.upload(Rumble.beat, to: device.fd)
        guard beatEffect >= 0 else {
            logger.warning("haptics: \(device.path): \(SystemError(call: "EVIOCSFF", errno: -beatEffect))")
            return false
        }
        // A driver with room for one effect only: the tick is a beat.
        tickEffect = Self.upload(Rumble.tick, to: device.fd)
        if tickEffect < 0 { tickEffect = beatEffect }
        return true
    }

    private static func upload(_ rumble: Rumble, to fd: Int32) -> Int32 {
        CEvdev_upload_rumble(fd, -1, rumble.strong, rumble.weak, rumble.length, 0)
    }

    private func play(_ effect: Int32) {
        guard let device else { return }
        var event = input_event()
        event.type = EventCode.EV_FF
        event.code = UInt16(effect)
        event.value = 1  // play once
        do {
            try Syscall.check("write(EV_FF)") { write(device.fd, &event, MemoryLayout<input_event>.size) }
        } catch where error.errno == ENODEV {
            drop(because: "ENODEV")
        } catch {
            guard !reportedFailure else { return }
            reportedFailure = true
            logger.warning("haptics: \(error) (reported once)")
        }
    }
}
