import CEvdev
import ChakraDisplay
import Glibc
import Logging

/// Vibration through an evdev force-feedback device (FF_RUMBLE: the
/// kernel's gpio-vibra, pwm-vibra, or any memless rumble driver). The two
/// effects are uploaded once (EVIOCSFF) and played by writing EV_FF events,
/// one write(2) per call, so the spiral can call `tick()` as the finger
/// moves. Without a device every call does nothing; failures are logged
/// once and never thrown (haptics are a nicety, SPEC §2: "where none
/// exists, the visual pulse alone").
///
/// Owns the device (opened read-write) until deinit; closing it erases the
/// uploaded effects (the kernel flushes them per descriptor).
public final class Haptics {
    private var device: EvdevDevice?
    private var tickEffect: Int32 = -1
    private var beatEffect: Int32 = -1
    private let logger: Logger
    private var reportedFailure = false

    /// "/dev/input/event4 \"pwm-vibrator\"", or nil without a device.
    public private(set) var deviceDescription: String?

    /// `choice`: `.automatic` takes the first node with FF_RUMBLE; a path
    /// or name takes that one (if it has FF_RUMBLE). nil: none wanted.
    public init(choice: DeviceChoice?, directory: String = "/dev/input", logger: Logger) {
        self.logger = logger
        guard let choice else {
            logger.info("haptics: off (configured \"none\")")
            return
        }
        var candidates = InputNodes.list(directory: directory)
        if case .path(let wanted) = choice { candidates = [InputNodes.resolve(wanted)] }
        for path in candidates {
            guard let found = try? EvdevDevice(path: path, writable: true) else { continue }
            guard choice.accepts(path: path, name: found.name), found.hasCode(EventCode.EV_FF, EventCode.FF_RUMBLE) else { continue }
            if upload(to: found) {
                device = found
                deviceDescription = "\(path) \"\(found.name)\""
                logger.info("haptics: \(deviceDescription!) (FF_RUMBLE, \(CEvdev_effect_count(found.fd)) effects)")
                return
            }
        }
        let wanted = if case .automatic = choice { "any" } else { "\(choice)" }
        logger.info("haptics: no force-feedback device (FF_RUMBLE, wanted: \(wanted)); the visual pulse alone")
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
        let written = write(device.fd, &event, MemoryLayout<input_event>.size)
        guard written < 0 else { return }
        let code = errno
        if code == ENODEV {
            logger.warning("haptics: \(deviceDescription ?? "the device") is gone; no more vibration")
            self.device = nil
            deviceDescription = nil
        } else if !reportedFailure {
            reportedFailure = true
            logger.warning("haptics: \(SystemError(call: "write(EV_FF)", errno: code)) (reported once)")
        }
    }
}
