// libFuzzer target: raw evdev event streams into the touch tracker, for
// each of the three protocols. Built and run by tests/fuzz/run.sh.
import ChakraInput

/// Event types and codes a touchscreen sends (linux/input-event-codes.h);
/// the fuzzer's bytes pick among them so most events mean something.
private let types: [UInt16] = [0x00, 0x01, 0x03]  // EV_SYN, EV_KEY, EV_ABS
private let codes: [UInt16: [UInt16]] = [
    0x00: [0, 2, 3],  // SYN_REPORT, SYN_MT_REPORT, SYN_DROPPED
    0x01: [0x14a, 0x145, 0x110],  // BTN_TOUCH, BTN_TOOL_FINGER, BTN_LEFT
    0x03: [0x00, 0x01, 0x2f, 0x35, 0x36, 0x39, 0x30, 0x3a],  // X, Y, MT_SLOT, MT_X, MT_Y, MT_TRACKING_ID, MT_TOUCH_MAJOR, MT_PRESSURE
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTouch(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 1 else { return 0 }
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let touchProtocol: TouchProtocol = switch bytes[0] % 3 {
    case 0: .multitouchB(slots: Int(bytes[1] % 70))
    case 1: .multitouchA
    default: .singleTouch
    }
    var tracker = TouchTracker(protocol: touchProtocol)
    let limit = switch touchProtocol {
    case .multitouchB(let slots): min(max(slots, 1), TouchTracker.maxSlots)
    case .multitouchA: TouchTracker.maxContacts
    case .singleTouch: 1
    }
    var checker = ContactChecker(limit: limit)
    var time = 0.0
    var sync = false
    // Six bytes per event: a selector (low two bits: the type; 0x80: the
    // next byte is the code itself, not an index into `codes`; 0x40: the
    // value is all 32 bits, else a small one so slots and ids repeat;
    // 0xFF alone: sync events start or end; 0xFE alone: the contacts
    // cancelled until lifted, as when the VT goes away and comes back),
    // the code byte, the value.
    var index = 2
    while index + 6 <= size {
        let selector = bytes[index]
        if selector == 0xFE {
            tracker.cancelAll(time: time, untilLifted: true) { checker.take($0) }
            if tracker.activeContacts != 0 || !checker.down.isEmpty { fatalError("contacts left after cancelAll(untilLifted:)") }
            index += 1
            continue
        }
        if selector == 0xFF {
            // A libevdev resync: the events up to the next SYN_REPORT are sync events.
            sync.toggle()
            index += 1
            continue
        }
        let type = types[Int(selector & 0x03) % 3]
        let choices = codes[type]!
        let code = selector & 0x80 != 0 ? UInt16(bytes[index + 1]) : choices[Int(bytes[index + 1]) % choices.count]
        var raw: UInt32 = 0
        for k in 0..<4 { raw |= UInt32(bytes[index + 2 + k]) << (8 * k) }
        let value = selector & 0x40 != 0 ? Int32(bitPattern: raw) : Int32(raw % 8) - 1
        time += 0.001
        tracker.process(InputEvent(type: type, code: code, value: value, time: time), sync: sync) { checker.take($0) }
        if type == 0 && code == 0 { sync = false }
        if tracker.activeContacts != checker.down.count { fatalError("tracker reports \(tracker.activeContacts) down, emitted \(checker.down.count)") }
        index += 6
    }
    tracker.cancelAll(time: time + 1) { checker.take($0) }
    if !checker.down.isEmpty || tracker.activeContacts != 0 { fatalError("contacts left after cancelAll") }
    return 0
}

/// What a consumer of the changes relies on: a contact goes down once,
/// moves and ends only while down, ends once, ids never come back, and
/// there are never more contacts down than the tracker allows.
private struct ContactChecker {
    let limit: Int
    var down: Set<Int> = []
    var ended: Set<Int> = []

    mutating func take(_ change: TouchChange) {
        switch change.phase {
        case .down:
            guard !down.contains(change.id), !ended.contains(change.id) else { fatalError("\(change): id reused") }
            down.insert(change.id)
            guard down.count <= limit else { fatalError("\(down.count) contacts down") }
        case .move:
            guard down.contains(change.id) else { fatalError("\(change): not down") }
        case .up, .cancel:
            guard down.remove(change.id) != nil else { fatalError("\(change): not down") }
            ended.insert(change.id)
        }
    }
}
