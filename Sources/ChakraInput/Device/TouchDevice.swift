import CEvdev
import ChakraDisplay
import ChakraRaster
import ChakraSystem
import Glibc

/// A touch, as the scene sees it.
public struct TouchContactEvent: Sendable, Equatable, CustomStringConvertible {
    public var phase: TouchPhase
    /// Unique for the life of the `TouchInput`, whichever device it came from.
    public var id: Int
    /// Scene pixels (0..<width, 0..<height of the frame the scene draws).
    public var x: Double
    public var y: Double
    /// The kernel's time of the event, seconds on CLOCK_MONOTONIC (the
    /// clock of `MonotonicClock.now()`).
    public var time: Double
    /// The raw device coordinates.
    public var deviceX: Int32
    public var deviceY: Int32
    /// `TouchDeviceInfo.number` of the device it came from.
    public var device: Int

    public init(phase: TouchPhase, id: Int, x: Double, y: Double, time: Double, deviceX: Int32, deviceY: Int32, device: Int) {
        (self.phase, self.id, self.x, self.y, self.time) = (phase, id, x, y, time)
        (self.deviceX, self.deviceY, self.device) = (deviceX, deviceY, device)
    }

    public var description: String {
        "\(phase) id=\(id) x=\(Self.format(x)) y=\(Self.format(y)) device=\(deviceX),\(deviceY)"
    }

    /// One decimal, rounded half away from zero.
    static func format(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return (tenths < 0 ? "-" : "") + "\(abs(tenths) / 10).\(abs(tenths) % 10)"
    }
}

/// A touchscreen in use, for `status` and logs.
public struct TouchDeviceInfo: Sendable, Equatable, CustomStringConvertible {
    /// Counts up from 1 as devices are opened (a replugged panel gets a new one).
    public var number: Int
    public var path: String
    public var name: String
    public var touchProtocol: TouchProtocol
    public var axes: TouchMapping.Axes
    public var grabbed: Bool
    /// Why it was taken.
    public var reason: String

    public var description: String {
        "\(path) \"\(name)\": \(touchProtocol), x \(axes.minX)..\(axes.maxX) y \(axes.minY)..\(axes.maxY)"
            + (grabbed ? ", grabbed" : "") + " (\(reason))"
    }
}

/// An open touchscreen: its node, its tracker and its mapping. Owned by
/// `TouchInput` until the device goes away or the input is closed.
final class TouchDevice {
    let device: EvdevDevice
    var info: TouchDeviceInfo
    var tracker: TouchTracker
    var mapping: TouchMapping
    /// EVIOCSCLOCKID worked: the kernel's times are on CLOCK_MONOTONIC.
    /// Otherwise events are stamped when they are read.
    let monotonic: Bool
    /// Draining libevdev's resync (after a SYN_DROPPED).
    private var syncing = false
    /// SYN_DROPPED seen so far (the reader fell behind the kernel's buffer).
    private(set) var drops = 0

    init(device: EvdevDevice, info: TouchDeviceInfo, mapping: TouchMapping, monotonic: Bool) {
        (self.device, self.info, self.mapping, self.monotonic) = (device, info, mapping, monotonic)
        tracker = TouchTracker(protocol: info.touchProtocol)
        seed()
    }

    /// The tracker starts from the state libevdev read at open.
    private func seed() {
        switch info.touchProtocol {
        case .multitouchB(let slots):
            for slot in 0..<slots {
                tracker.seedSlot(slot, trackingID: device.slotValue(slot, EventCode.ABS_MT_TRACKING_ID),
                                 x: device.slotValue(slot, EventCode.ABS_MT_POSITION_X),
                                 y: device.slotValue(slot, EventCode.ABS_MT_POSITION_Y))
            }
            tracker.seedCurrentSlot(device.currentSlot)
        case .multitouchA, .singleTouch:
            tracker.seedSingle(x: device.value(EventCode.EV_ABS, EventCode.ABS_X), y: device.value(EventCode.EV_ABS, EventCode.ABS_Y),
                               touching: device.value(EventCode.EV_KEY, EventCode.BTN_TOUCH) != 0)
        }
    }

    enum DrainResult { case drained, gone(SystemError), failed(SystemError) }

    /// Reads until the kernel has nothing more (libevdev's -EAGAIN), feeding
    /// the tracker and calling `emit` with each mapped change. libevdev's
    /// own loop (tools/libevdev-events.c): READ_STATUS_SYNC on a normal
    /// read is the SYN_DROPPED; then READ_FLAG_SYNC until -EAGAIN gives the
    /// resync. No allocation here: one input_event on the stack.
    func drain(_ emit: (TouchContactEvent) -> Void) -> DrainResult {
        var raw = input_event()
        let normal = UInt32(LIBEVDEV_READ_FLAG_NORMAL.rawValue), sync = UInt32(LIBEVDEV_READ_FLAG_SYNC.rawValue)
        let statusSync = Int32(LIBEVDEV_READ_STATUS_SYNC.rawValue)
        while true {
            let result = libevdev_next_event(device.handle, syncing ? sync : normal, &raw)
            if result == -EAGAIN {
                guard syncing else { return .drained }
                syncing = false
                tracker.endResync(time: MonotonicClock.now()) { emitMapped($0, emit) }
                continue
            }
            if result == -EINTR { continue }
            if result < 0 {
                let error = SystemError(call: "libevdev_next_event(\(device.path))", errno: -result)
                return result == -ENODEV ? .gone(error) : .failed(error)
            }
            let event = InputEvent(type: raw.type, code: raw.code, value: raw.value, time: time(of: &raw))
            if result == statusSync && !syncing {
                syncing = true  // this event is the SYN_DROPPED itself
                drops += 1
                tracker.process(event) { emitMapped($0, emit) }
            } else {
                tracker.process(event, sync: syncing) { emitMapped($0, emit) }
            }
        }
    }

    /// The contacts still down end with `cancel` (the device is gone or
    /// closed; `untilLifted`: the reader stops listening, and the fingers
    /// on the panel are ignored until they lift).
    func cancelAll(untilLifted: Bool = false, _ emit: (TouchContactEvent) -> Void) {
        tracker.cancelAll(time: MonotonicClock.now(), untilLifted: untilLifted) { emitMapped($0, emit) }
    }

    @inline(__always)
    private func time(of event: inout input_event) -> Double {
        guard monotonic else { return MonotonicClock.now() }
        return Double(CEvdev_event_seconds(&event)) + Double(CEvdev_event_microseconds(&event)) * 1e-6
    }

    @inline(__always)
    private func emitMapped(_ change: TouchChange, _ emit: (TouchContactEvent) -> Void) {
        let (x, y) = mapping.map(x: change.x, y: change.y)
        emit(TouchContactEvent(phase: change.phase, id: change.id, x: x, y: y, time: change.time,
                               deviceX: change.x, deviceY: change.y, device: info.number))
    }
}
