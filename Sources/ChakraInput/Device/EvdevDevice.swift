import CEvdev
import ChakraDisplay
import ChakraSystem
import Glibc

/// One open evdev node and its libevdev context. Owns both from init to
/// deinit (libevdev_free, then close: the reverse of creation).
final class EvdevDevice {
    let path: String
    let fd: Int32
    let handle: OpaquePointer
    /// The device number (st_rdev): a node recreated for another device has
    /// another one.
    let deviceNumber: UInt64

    /// Opens `path` non-blocking; `writable` for force feedback (EV_FF is
    /// written to the node).
    init(path: String, writable: Bool = false) throws(SystemError) {
        let flags = (writable ? O_RDWR : O_RDONLY) | O_NONBLOCK | O_CLOEXEC
        let fd = try Syscall.check("open(\(path))", { open(path, flags) })
        var status = stat()
        guard fstat(fd, &status) == 0 else {
            let code = errno
            Descriptor.close(fd)
            throw SystemError(call: "fstat(\(path))", errno: code)
        }
        var handle: OpaquePointer?
        let result = libevdev_new_from_fd(fd, &handle)
        guard result == 0, let handle else {
            Descriptor.close(fd)
            throw SystemError(call: "libevdev_new_from_fd(\(path))", errno: result < 0 ? -result : EINVAL)
        }
        (self.path, self.fd, self.handle, self.deviceNumber) = (path, fd, handle, UInt64(status.st_rdev))
    }

    deinit {
        libevdev_free(handle)
        Descriptor.close(fd)
    }

    var name: String { libevdev_get_name(handle).map { String(cString: $0) } ?? "" }

    func hasProperty(_ property: UInt32) -> Bool { libevdev_has_property(handle, property) == 1 }

    func hasCode(_ type: UInt16, _ code: UInt16) -> Bool { libevdev_has_event_code(handle, UInt32(type), UInt32(code)) == 1 }

    /// The absinfo range of an axis the device has.
    func range(_ code: UInt16) -> ClosedRange<Int32>? {
        guard hasCode(EventCode.EV_ABS, code), let info = libevdev_get_abs_info(handle, UInt32(code)) else { return nil }
        let (low, high) = (info.pointee.minimum, info.pointee.maximum)
        return low <= high ? low...high : high...low
    }

    var capabilities: DeviceCapabilities {
        var device = DeviceCapabilities(name: name)
        device.direct = hasProperty(EventCode.INPUT_PROP_DIRECT)
        device.pointer = hasProperty(EventCode.INPUT_PROP_POINTER)
        device.mtPositionX = range(EventCode.ABS_MT_POSITION_X)
        device.mtPositionY = range(EventCode.ABS_MT_POSITION_Y)
        if hasCode(EventCode.EV_ABS, EventCode.ABS_MT_SLOT) {
            let slots = libevdev_get_num_slots(handle)
            device.slots = slots > 0 ? Int(slots) : nil
        }
        device.absX = range(EventCode.ABS_X)
        device.absY = range(EventCode.ABS_Y)
        device.buttonTouch = hasCode(EventCode.EV_KEY, EventCode.BTN_TOUCH)
        device.toolFinger = hasCode(EventCode.EV_KEY, EventCode.BTN_TOOL_FINGER)
        device.toolPen = hasCode(EventCode.EV_KEY, EventCode.BTN_TOOL_PEN)
        device.rumble = hasCode(EventCode.EV_FF, EventCode.FF_RUMBLE)
        return device
    }

    /// EVIOCGRAB: no other reader (the console, another program) gets the
    /// events while this descriptor is open.
    func grab() throws(SystemError) {
        try Syscall.drm("libevdev_grab(\(path))", { libevdev_grab(handle, LIBEVDEV_GRAB) })
    }

    /// EVIOCGRAB 0: the others (the console, the program in front) get
    /// the events again.
    func ungrab() throws(SystemError) {
        try Syscall.drm("libevdev_grab(\(path), ungrab)", { libevdev_grab(handle, LIBEVDEV_UNGRAB) })
    }

    /// EVIOCSCLOCKID: event times on CLOCK_MONOTONIC, the clock the frame
    /// loop and DRM's flip events use (the kernel's default is REALTIME).
    func useMonotonicClock() throws(SystemError) {
        try Syscall.drm("libevdev_set_clock_id(\(path))", { libevdev_set_clock_id(handle, CLOCK_MONOTONIC) })
    }

    func slotValue(_ slot: Int, _ code: UInt16) -> Int32 {
        libevdev_get_slot_value(handle, UInt32(slot), UInt32(code))
    }

    func value(_ type: UInt16, _ code: UInt16) -> Int32 {
        libevdev_get_event_value(handle, UInt32(type), UInt32(code))
    }

    var currentSlot: Int { Int(libevdev_get_current_slot(handle)) }
}
