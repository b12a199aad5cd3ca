/// Multitouch protocol B: the slot table. The kernel sends only what
/// changed: ABS_MT_SLOT when the slot changes, then that slot's axes; a
/// slot keeps its values until they change (libevdev.h, "Synchronizing the
/// state of the device").
extension TouchTracker {
    mutating func applySlotted(_ event: InputEvent) {
        guard event.type == EventCode.EV_ABS else { return }
        if event.code == EventCode.ABS_MT_SLOT {
            // Out of range: ignore that slot's events until the next ABS_MT_SLOT.
            currentSlot = event.value >= 0 && Int(event.value) < slots.count ? Int(event.value) : -1
            return
        }
        guard currentSlot >= 0 else { return }
        switch event.code {
        case EventCode.ABS_MT_TRACKING_ID:
            let id = max(event.value, -1)
            guard id != slots[currentSlot].trackingID else { return }
            // A valid id ending (-1) or replaced by another: the contact is over.
            if slots[currentSlot].trackingID >= 0 { slots[currentSlot].ended = true }
            slots[currentSlot].trackingID = id
        case EventCode.ABS_MT_POSITION_X: slots[currentSlot].x = event.value
        case EventCode.ABS_MT_POSITION_Y: slots[currentSlot].y = event.value
        default: break
        }
    }

    mutating func endSlottedFrame(time: Double, emit: (TouchChange) -> Void) {
        // Lifts first, so that a consumer following one finger sees it go
        // before another comes down in the same frame.
        for index in slots.indices {
            let slot = slots[index]
            if slot.contact != 0, slot.ended || slot.trackingID < 0 {
                // (A contact of -1 was already down when the device was opened: no `up` for it.)
                if slot.contact > 0 { emit(TouchChange(.up, id: slot.contact, x: slot.shownX, y: slot.shownY, time: time)) }
                slots[index].contact = 0
            }
            slots[index].ended = false
        }
        for index in slots.indices {
            let slot = slots[index]
            guard slot.trackingID >= 0 else { continue }
            if slot.contact == 0 {
                let id = newContactID()
                slots[index].contact = id
                (slots[index].shownX, slots[index].shownY) = (slot.x, slot.y)
                emit(TouchChange(.down, id: id, x: slot.x, y: slot.y, time: time))
            } else if slot.contact > 0, slot.x != slot.shownX || slot.y != slot.shownY {
                (slots[index].shownX, slots[index].shownY) = (slot.x, slot.y)
                emit(TouchChange(.move, id: slot.contact, x: slot.x, y: slot.y, time: time))
            }
        }
    }
}
