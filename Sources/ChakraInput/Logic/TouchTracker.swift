/// How a device reports touches (Documentation/input/multi-touch-protocol.rst
/// in the kernel), decided from its capabilities when it is opened.
public enum TouchProtocol: Sendable, Equatable, CustomStringConvertible {
    /// Slots (ABS_MT_SLOT): each contact lives in a slot, ABS_MT_TRACKING_ID
    /// ≥ 0 starts it, -1 ends it; only changes are sent.
    case multitouchB(slots: Int)
    /// Anonymous contacts: every frame lists all of them, each closed by
    /// SYN_MT_REPORT; a frame with none means every finger is up.
    case multitouchA
    /// ABS_X/ABS_Y and BTN_TOUCH: one contact.
    case singleTouch

    public var description: String {
        switch self {
        case .multitouchB(let slots): "multitouch protocol B (\(slots) slots)"
        case .multitouchA: "multitouch protocol A"
        case .singleTouch: "single-touch"
        }
    }
}

public enum TouchPhase: String, Sendable, Equatable {
    case down, move, up
    /// The contact ended without a lift: its device went away. Treat it as
    /// an `up` that did not happen where the finger really left.
    case cancel
}

/// One contact's change in one frame, in device coordinates.
public struct TouchChange: Sendable, Equatable, CustomStringConvertible {
    public var phase: TouchPhase
    /// Unique for the tracker's life (`TouchTracker.nextContactID`): a new
    /// touch in a reused slot gets a new id.
    public var id: Int
    public var x: Int32
    public var y: Int32
    /// The time of the SYN_REPORT that ended the frame.
    public var time: Double

    public init(_ phase: TouchPhase, id: Int, x: Int32, y: Int32, time: Double = 0) {
        (self.phase, self.id, self.x, self.y, self.time) = (phase, id, x, y, time)
    }

    public var description: String { "\(phase) #\(id) (\(x), \(y))" }
}

/// Turns one device's raw events into contacts: down, move and up with ids
/// and device coordinates, emitted per frame (at SYN_REPORT). Pure: it
/// never reads a device, so recorded sequences drive it in tests.
///
/// SYN_DROPPED (the kernel's buffer overflowed): the events after it are
/// discarded until the next SYN_REPORT, as the kernel documents. A reader
/// using libevdev then drains LIBEVDEV_READ_FLAG_SYNC and passes those
/// events with `sync: true`: they are the differences between the state
/// libevdev last passed on and the device's state now (per slot, with
/// TRACKING_ID -1 then the new id for a contact that was replaced), and
/// the SYN_REPORT that ends them emits the changes from what was last
/// reported to the device's state. Protocol A carries no multitouch state
/// over a resync; there only BTN_TOUCH 0 (every finger up) is taken from
/// it, and the next real frame lists the contacts again.
///
/// Nothing is allocated per event: the slot table and the protocol A
/// scratch lists are sized at init. Owned by one device reader.
public struct TouchTracker: Sendable {
    public let touchProtocol: TouchProtocol
    /// The id the next new contact gets; a reader with several devices
    /// shares one sequence by carrying this over between trackers.
    public var nextContactID = 1

    /// Protocol A contacts beyond this many in one frame are ignored.
    public static let maxContacts = 16
    /// Slots beyond this are ignored (real panels have 2 to 20).
    public static let maxSlots = 64

    /// After SYN_DROPPED, until a SYN_REPORT.
    private(set) var dropped = false

    // Protocol B.
    struct Slot {
        var trackingID: Int32 = -1
        var x: Int32 = 0
        var y: Int32 = 0
        /// The contact that was in the slot ended during this frame (a
        /// TRACKING_ID of -1, or a new id replacing it).
        var ended = false
        /// The reported contact's id (0: none; -1: down since before the
        /// device was opened, ignored until it ends) and the position
        /// reported last.
        var contact = 0
        var shownX: Int32 = 0
        var shownY: Int32 = 0
    }
    var slots: [Slot]
    var currentSlot = 0

    // Protocol A.
    struct Point {
        var x: Int32 = 0
        var y: Int32 = 0
        var hasX = false
        var hasY = false
        var trackingID: Int32?
        /// The reported contact's id.
        var contact = 0
    }
    var pending = Point()
    var framePoints: [Point]
    var contacts: [Point]
    var matched: [Bool]
    /// BTN_TOUCH as last seen (protocol A and single-touch).
    var touchKey: Bool?

    // Single-touch.
    var single = Point()
    var singleShown = Point()

    public init(protocol touchProtocol: TouchProtocol) {
        self.touchProtocol = touchProtocol
        if case .multitouchB(let count) = touchProtocol {
            slots = Array(repeating: Slot(), count: min(max(count, 1), Self.maxSlots))
        } else {
            slots = []
        }
        let capacity = touchProtocol == .multitouchA ? Self.maxContacts : 0
        framePoints = []
        framePoints.reserveCapacity(capacity)
        contacts = []
        contacts.reserveCapacity(capacity)
        matched = Array(repeating: false, count: capacity)
    }

    /// The contacts reported as down now.
    public var activeContacts: Int {
        switch touchProtocol {
        case .multitouchB: slots.reduce(0) { $0 + ($1.contact > 0 ? 1 : 0) }
        case .multitouchA: contacts.reduce(0) { $0 + ($1.contact > 0 ? 1 : 0) }
        case .singleTouch: singleShown.contact > 0 ? 1 : 0
        }
    }

    /// Takes one event; at the end of a frame calls `emit` with each
    /// contact that changed (ups first, then downs and moves). `sync`: the
    /// event comes from libevdev's resync after SYN_DROPPED.
    public mutating func process(_ event: InputEvent, sync: Bool = false, emit: (TouchChange) -> Void) {
        if event.type == EventCode.EV_SYN {
            switch event.code {
            case EventCode.SYN_DROPPED:
                dropped = true
                pending = Point()
                framePoints.removeAll(keepingCapacity: true)
            case EventCode.SYN_REPORT:
                if sync {
                    dropped = false
                    endFrame(time: event.time, resync: true, emit: emit)
                } else if dropped {
                    // The end of the frame the drop cut: discarded.
                    dropped = false
                    pending = Point()
                    framePoints.removeAll(keepingCapacity: true)
                } else {
                    endFrame(time: event.time, resync: false, emit: emit)
                }
            case EventCode.SYN_MT_REPORT:
                if !dropped || sync { closeContact() }
            default:
                break
            }
            return
        }
        if dropped && !sync { return }
        apply(event)
    }

    /// The reader finished draining libevdev's resync. libevdev sends
    /// nothing (not even a SYN_REPORT) when nothing changed during the
    /// drop; this ends the discarding then. (libevdev ≥ 1.10 sends the
    /// resync as two frames: slots that ended, then the state now.)
    public mutating func endResync(time: Double, emit: (TouchChange) -> Void) {
        guard dropped else { return }
        dropped = false
        endFrame(time: time, resync: true, emit: emit)
    }

    /// Ends every reported contact with `cancel`. `untilLifted`: the
    /// fingers still on the panel are then ignored until they lift, as if
    /// they had been down when the device was opened (the daemon's VT was
    /// switched away: what they do next is not for the scene); otherwise
    /// they are forgotten (the device is gone).
    public mutating func cancelAll(time: Double, untilLifted: Bool = false, emit: (TouchChange) -> Void) {
        for index in slots.indices where slots[index].contact != 0 || untilLifted {
            if slots[index].contact > 0 {
                emit(TouchChange(.cancel, id: slots[index].contact, x: slots[index].shownX, y: slots[index].shownY, time: time))
            }
            slots[index].contact = untilLifted && slots[index].trackingID >= 0 ? -1 : 0
        }
        for contact in contacts where contact.contact > 0 {
            emit(TouchChange(.cancel, id: contact.contact, x: contact.x, y: contact.y, time: time))
        }
        if untilLifted {
            for index in contacts.indices { contacts[index].contact = -1 }
        } else {
            contacts.removeAll(keepingCapacity: true)
        }
        if singleShown.contact > 0 {
            emit(TouchChange(.cancel, id: singleShown.contact, x: singleShown.x, y: singleShown.y, time: time))
        }
        singleShown.contact = untilLifted && (touchKey ?? false) ? -1 : 0
    }

    private mutating func apply(_ event: InputEvent) {
        switch touchProtocol {
        case .multitouchB: applySlotted(event)
        case .multitouchA: applyAnonymous(event)
        case .singleTouch: applySingle(event)
        }
    }

    private mutating func endFrame(time: Double, resync: Bool, emit: (TouchChange) -> Void) {
        switch touchProtocol {
        case .multitouchB: endSlottedFrame(time: time, emit: emit)
        case .multitouchA: endAnonymousFrame(time: time, resync: resync, emit: emit)
        case .singleTouch: endSingleFrame(time: time, emit: emit)
        }
    }

    mutating func newContactID() -> Int {
        defer { nextContactID += 1 }
        return nextContactID
    }

    // MARK: single-touch

    private mutating func applySingle(_ event: InputEvent) {
        switch (event.type, event.code) {
        case (EventCode.EV_ABS, EventCode.ABS_X): single.x = event.value
        case (EventCode.EV_ABS, EventCode.ABS_Y): single.y = event.value
        case (EventCode.EV_KEY, EventCode.BTN_TOUCH): touchKey = event.value != 0
        default: break
        }
    }

    private mutating func endSingleFrame(time: Double, emit: (TouchChange) -> Void) {
        let touching = touchKey ?? false
        if singleShown.contact != 0, !touching {
            if singleShown.contact > 0 {
                emit(TouchChange(.up, id: singleShown.contact, x: singleShown.x, y: singleShown.y, time: time))
            }
            singleShown.contact = 0
        }
        if touching, singleShown.contact == 0 {
            singleShown = Point(x: single.x, y: single.y, contact: newContactID())
            emit(TouchChange(.down, id: singleShown.contact, x: single.x, y: single.y, time: time))
        } else if touching, singleShown.contact > 0, single.x != singleShown.x || single.y != singleShown.y {
            (singleShown.x, singleShown.y) = (single.x, single.y)
            emit(TouchChange(.move, id: singleShown.contact, x: single.x, y: single.y, time: time))
        }
    }
}

/// The state a device is in when it is opened (libevdev reads it then:
/// EVIOCGABS, EVIOCGKEY, EVIOCGMTSLOTS). Positions matter because the
/// kernel never repeats a value: a new touch in a slot at the X the slot
/// had before sends only its Y. A finger already on the panel is ignored
/// until it lifts: no `down` was ever seen for it.
extension TouchTracker {
    /// Protocol B: one slot's values.
    public mutating func seedSlot(_ index: Int, trackingID: Int32, x: Int32, y: Int32) {
        guard slots.indices.contains(index) else { return }
        slots[index] = Slot(trackingID: max(trackingID, -1), x: x, y: y, contact: trackingID >= 0 ? -1 : 0)
    }

    /// Protocol B: the slot the next events without ABS_MT_SLOT are for.
    public mutating func seedCurrentSlot(_ index: Int) {
        currentSlot = slots.indices.contains(index) ? index : -1
    }

    /// Single-touch (and BTN_TOUCH for protocol A).
    public mutating func seedSingle(x: Int32, y: Int32, touching: Bool) {
        (single.x, single.y) = (x, y)
        touchKey = touching
        if touchProtocol == .singleTouch { singleShown = Point(x: x, y: y, contact: touching ? -1 : 0) }
    }
}

extension TouchTracker {
    /// Every event in order; the changes they emit (tests, tools).
    public mutating func process(_ events: [InputEvent], sync: Bool = false) -> [TouchChange] {
        var changes: [TouchChange] = []
        for event in events { process(event, sync: sync) { changes.append($0) } }
        return changes
    }
}
