/// Multitouch protocol A: every frame lists all contacts, anonymously (a
/// device may add ABS_MT_TRACKING_ID). Contacts of consecutive frames are
/// matched by tracking id where both have one, otherwise nearest first
/// (ties go to the earlier contact in the frame's order); what is left over
/// went up or came down.
extension TouchTracker {
    mutating func applyAnonymous(_ event: InputEvent) {
        switch (event.type, event.code) {
        case (EventCode.EV_ABS, EventCode.ABS_MT_POSITION_X): (pending.x, pending.hasX) = (event.value, true)
        case (EventCode.EV_ABS, EventCode.ABS_MT_POSITION_Y): (pending.y, pending.hasY) = (event.value, true)
        case (EventCode.EV_ABS, EventCode.ABS_MT_TRACKING_ID): pending.trackingID = event.value
        case (EventCode.EV_KEY, EventCode.BTN_TOUCH): touchKey = event.value != 0
        default: break
        }
    }

    /// SYN_MT_REPORT: the contact described since the last one is complete.
    /// A lone SYN_MT_REPORT (no axes) is the empty report some drivers send
    /// when the last finger lifts.
    mutating func closeContact() {
        guard touchProtocol == .multitouchA else { return }
        if pending.hasX, pending.hasY, (pending.trackingID ?? 0) >= 0, framePoints.count < Self.maxContacts {
            framePoints.append(pending)
        }
        pending = Point()
    }

    mutating func endAnonymousFrame(time: Double, resync: Bool, emit: (TouchChange) -> Void) {
        if resync {
            // No multitouch state comes over a resync: keep the contacts
            // unless BTN_TOUCH says every finger is up.
            framePoints.removeAll(keepingCapacity: true)
            pending = Point()
            if touchKey == false { liftAll(time: time, emit: emit) }
            return
        }
        // Axes with no SYN_MT_REPORT before SYN_REPORT: take them as a contact.
        if pending.hasX || pending.hasY { closeContact() }
        matchContacts()
        // (A contact of -1 is ignored until it lifts: no `up` or `move` for it.)
        for index in contacts.indices where !matched[index] && contacts[index].contact > 0 {
            emit(TouchChange(.up, id: contacts[index].contact, x: contacts[index].x, y: contacts[index].y, time: time))
        }
        for index in framePoints.indices {
            let point = framePoints[index]
            if point.contact == 0 {
                framePoints[index].contact = newContactID()
                emit(TouchChange(.down, id: framePoints[index].contact, x: point.x, y: point.y, time: time))
            } else if point.contact > 0, let old = contacts.first(where: { $0.contact == point.contact }), old.x != point.x || old.y != point.y {
                emit(TouchChange(.move, id: point.contact, x: point.x, y: point.y, time: time))
            }
        }
        swap(&contacts, &framePoints)
        framePoints.removeAll(keepingCapacity: true)
    }

    private mutating func liftAll(time: Double, emit: (TouchChange) -> Void) {
        for contact in contacts where contact.contact > 0 {
            emit(TouchChange(.up, id: contact.contact, x: contact.x, y: contact.y, time: time))
        }
        contacts.removeAll(keepingCapacity: true)
    }

    /// Gives each frame point the id of the contact it continues (0: a new
    /// one) and marks `matched` for the contacts that go on. At most 16 ×
    /// 16 pairs; in practice one or two.
    private mutating func matchContacts() {
        for index in contacts.indices { matched[index] = false }
        // By tracking id, where the device sends them.
        for p in framePoints.indices {
            guard let id = framePoints[p].trackingID else { continue }
            if let c = contacts.indices.first(where: { !matched[$0] && contacts[$0].trackingID == id }) {
                matched[c] = true
                framePoints[p].contact = contacts[c].contact
            }
        }
        // Then the closest remaining pair, again and again.
        while true {
            var best: (point: Int, contact: Int, distance: Double)?
            for p in framePoints.indices where framePoints[p].contact == 0 {
                for c in contacts.indices where !matched[c] {
                    if let a = framePoints[p].trackingID, let b = contacts[c].trackingID, a != b { continue }
                    // In Double: a device may send any 32-bit position, and
                    // the square of a 32-bit difference overflows Int64
                    // (found by fuzzing: a trap, chakrad gone).
                    let dx = Double(framePoints[p].x) - Double(contacts[c].x)
                    let dy = Double(framePoints[p].y) - Double(contacts[c].y)
                    let distance = dx * dx + dy * dy
                    if distance < best?.distance ?? .infinity { best = (p, c, distance) }
                }
            }
            guard let pair = best else { return }
            matched[pair.contact] = true
            framePoints[pair.point].contact = contacts[pair.contact].contact
        }
    }
}
