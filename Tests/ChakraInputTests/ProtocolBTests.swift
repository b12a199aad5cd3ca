import Testing
@testable import ChakraInput

/// Multitouch protocol B: slots, tracking ids, only changes sent
/// (Documentation/input/multi-touch-protocol.rst).
@Suite("TouchTracker, protocol B")
struct ProtocolBTests {
    @Test func twoFingersLiftAndSlotReuse() {
        var tracker = TouchTracker(protocol: .multitouchB(slots: 10))
        // First finger in slot 0.
        #expect(tracker.process([abs(SLOT, 0), abs(TRACKING_ID, 10), abs(MT_X, 100), abs(MT_Y, 200), report(1.0)])
            == [down(1, 100, 200, 1.0)])
        // Second finger in slot 1.
        #expect(tracker.process([abs(SLOT, 1), abs(TRACKING_ID, 11), abs(MT_X, 300), abs(MT_Y, 400), report(1.01)])
            == [down(2, 300, 400, 1.01)])
        // Both move; an axis without ABS_MT_SLOT is for the current slot (1).
        #expect(tracker.process([abs(MT_Y, 420), abs(SLOT, 0), abs(MT_X, 110), report(1.02)])
            == [move(1, 110, 200, 1.02), move(2, 300, 420, 1.02)])
        #expect(tracker.activeContacts == 2)
        // The first lifts: TRACKING_ID -1, no position; up where it was last.
        #expect(tracker.process([abs(TRACKING_ID, -1), report(1.03)]) == [up(1, 110, 200, 1.03)])
        // A new touch reuses slot 0 with the same X: the kernel sends only Y.
        #expect(tracker.process([abs(TRACKING_ID, 12), abs(MT_Y, 250), report(1.04)]) == [down(3, 110, 250, 1.04)])
        // Both lift in one frame: ups in slot order.
        #expect(tracker.process([abs(SLOT, 1), abs(TRACKING_ID, -1), abs(SLOT, 0), abs(TRACKING_ID, -1), report(1.05)])
            == [up(3, 110, 250, 1.05), up(2, 300, 420, 1.05)])
        #expect(tracker.activeContacts == 0)
        // Nothing changed: nothing to say.
        #expect(tracker.process([report(1.06)]).isEmpty)
    }

    @Test func aNewTrackingIDInTheSameFrameEndsTheOldContactFirst() {
        var tracker = TouchTracker(protocol: .multitouchB(slots: 2))
        _ = tracker.process([abs(TRACKING_ID, 20), abs(MT_X, 5), abs(MT_Y, 6), report()])
        // Replaced without a -1 in between: up, then the new one down.
        #expect(tracker.process([abs(TRACKING_ID, 21), abs(MT_X, 50), report()]) == [up(1, 5, 6), down(2, 50, 6)])
        // Lifted and touched again between two reports.
        #expect(tracker.process([abs(TRACKING_ID, -1), abs(TRACKING_ID, 22), abs(MT_Y, 60), report()]) == [up(2, 50, 6), down(3, 50, 60)])
        // A second finger coming down in the frame another lifts: the lift is reported first.
        #expect(tracker.process([abs(SLOT, 1), abs(TRACKING_ID, 23), abs(MT_X, 1), abs(MT_Y, 2), abs(SLOT, 0), abs(TRACKING_ID, -1), report()])
            == [up(3, 50, 60), down(4, 1, 2)])
    }

    @Test func positionsWithoutATrackingIDAndPointerEmulationAreIgnored() {
        var tracker = TouchTracker(protocol: .multitouchB(slots: 2))
        // Axes in a slot with no contact (hover, or libevdev's resync of an
        // ended slot) make no contact.
        #expect(tracker.process([abs(MT_X, 7), abs(MT_Y, 8), report()]).isEmpty)
        // The legacy single-touch events a protocol B device also sends.
        #expect(tracker.process([abs(TRACKING_ID, 1), touchKey(true), abs(ABS_X, 999), abs(ABS_Y, 999), report()]) == [down(1, 7, 8)])
        // A slot beyond the table: its events are dropped until the next ABS_MT_SLOT.
        #expect(tracker.process([abs(SLOT, 40), abs(TRACKING_ID, 5), abs(MT_X, 1), abs(SLOT, 0), abs(MT_X, 9), report()]) == [move(1, 9, 8)])
    }

    /// A kernel reader's view: after SYN_DROPPED, everything up to and
    /// including the next SYN_REPORT is discarded.
    @Test func eventsAfterSynDroppedAreDiscardedUntilTheNextReport() {
        var tracker = TouchTracker(protocol: .multitouchB(slots: 2))
        _ = tracker.process([abs(TRACKING_ID, 3), abs(MT_X, 10), abs(MT_Y, 10), report()])
        #expect(tracker.process([dropped, abs(MT_X, 999), abs(TRACKING_ID, -1), report()]).isEmpty)
        #expect(tracker.activeContacts == 1)
        // Then events count again.
        #expect(tracker.process([abs(MT_Y, 11), report()]) == [move(1, 10, 11)])
    }

    /// libevdev (≥ 1.10) after SYN_DROPPED: LIBEVDEV_READ_FLAG_SYNC yields
    /// two frames of differences against the state it passed on last
    /// (libevdev.h, "Synchronizing ABS_MT_TRACKING_ID"): first the slots
    /// whose contact ended, then the state now, ending with ABS_MT_SLOT of
    /// the slot the kernel has current.
    @Test func libevdevResyncAfterSynDropped() {
        var tracker = TouchTracker(protocol: .multitouchB(slots: 4))
        _ = tracker.process([abs(SLOT, 0), abs(TRACKING_ID, 30), abs(MT_X, 100), abs(MT_Y, 100),
                             abs(SLOT, 1), abs(TRACKING_ID, 40), abs(MT_X, 500), abs(MT_Y, 500), report(2.0)])
        // The drop. While it lasted, finger 30 lifted and another (31) came
        // down in slot 0 at (700, 100); finger 40 moved to x 520; a third
        // (32) touched in slot 2.
        #expect(tracker.process([dropped]).isEmpty)
        let endedFrame = [abs(SLOT, 0), abs(TRACKING_ID, -1), report(2.5)]
        #expect(tracker.process(endedFrame, sync: true) == [up(1, 100, 100, 2.5)])
        let stateFrame = [abs(SLOT, 0), abs(TRACKING_ID, 31), abs(MT_X, 700),
                          abs(SLOT, 1), abs(MT_X, 520),
                          abs(SLOT, 2), abs(TRACKING_ID, 32), abs(MT_X, 50), abs(MT_Y, 60),
                          abs(SLOT, 1), report(2.5)]
        #expect(tracker.process(stateFrame, sync: true) == [down(3, 700, 100, 2.5), move(2, 520, 500, 2.5), down(4, 50, 60, 2.5)])
        // Normal events again, for the current slot the resync ended on (1).
        #expect(tracker.process([abs(MT_X, 530), report(2.6)]) == [move(2, 530, 500, 2.6)])
        #expect(tracker.activeContacts == 3)
    }

    /// Older libevdev sends the resync as one frame: -1 and the new id in a row.
    @Test func oneFrameResync() {
        var tracker = TouchTracker(protocol: .multitouchB(slots: 2))
        _ = tracker.process([abs(TRACKING_ID, 1), abs(MT_X, 10), abs(MT_Y, 20), report()])
        _ = tracker.process([dropped])
        #expect(tracker.process([abs(SLOT, 0), abs(TRACKING_ID, -1), abs(TRACKING_ID, 2), abs(MT_X, 15), abs(SLOT, 0), report()], sync: true)
            == [up(1, 10, 20), down(2, 15, 20)])
    }

    /// Nothing changed during the drop: libevdev's resync is empty (not even
    /// a SYN_REPORT); the reader says so with endResync.
    @Test func emptyResync() {
        var tracker = TouchTracker(protocol: .multitouchB(slots: 2))
        _ = tracker.process([abs(TRACKING_ID, 1), abs(MT_X, 10), abs(MT_Y, 20), report()])
        _ = tracker.process([dropped])
        var changes: [TouchChange] = []
        tracker.endResync(time: 3) { changes.append($0) }
        #expect(changes.isEmpty)
        #expect(tracker.process([abs(MT_X, 11), report()]) == [move(1, 11, 20)])
    }

    @Test func aFingerAlreadyDownWhenOpenedIsIgnoredUntilItLifts() {
        var tracker = TouchTracker(protocol: .multitouchB(slots: 2))
        tracker.seedSlot(0, trackingID: 7, x: 10, y: 10)
        tracker.seedSlot(1, trackingID: -1, x: 40, y: 50)
        tracker.seedCurrentSlot(0)
        #expect(tracker.activeContacts == 0)
        #expect(tracker.process([abs(MT_X, 12), report()]).isEmpty)
        #expect(tracker.process([abs(TRACKING_ID, -1), report()]).isEmpty)
        // Slot 1 keeps the position read at open: a touch there sends no axes.
        #expect(tracker.process([abs(SLOT, 1), abs(TRACKING_ID, 8), report()]) == [down(1, 40, 50)])
    }

    @Test func cancelEndsWhatIsDownAndIdsContinueAcrossTrackers() {
        var first = TouchTracker(protocol: .multitouchB(slots: 2))
        _ = first.process([abs(TRACKING_ID, 1), abs(MT_X, 1), abs(MT_Y, 2), report()])
        var changes: [TouchChange] = []
        first.cancelAll(time: 9) { changes.append($0) }
        #expect(changes == [TouchChange(.cancel, id: 1, x: 1, y: 2, time: 9)])
        #expect(first.activeContacts == 0)
        var second = TouchTracker(protocol: .singleTouch)
        second.nextContactID = first.nextContactID
        #expect(second.process([touchKey(true), abs(ABS_X, 3), abs(ABS_Y, 4), report()]) == [down(2, 3, 4)])
    }

    /// The VT switched away with a finger on the panel: it ends with
    /// `cancel`, then nothing more is heard of it until it lifts, while a
    /// new finger is a new contact as always.
    @Test func cancelUntilLiftedIgnoresTheFingersStillDown() {
        var tracker = TouchTracker(protocol: .multitouchB(slots: 2))
        _ = tracker.process([abs(TRACKING_ID, 1), abs(MT_X, 10), abs(MT_Y, 20), report()])
        var changes: [TouchChange] = []
        tracker.cancelAll(time: 5, untilLifted: true) { changes.append($0) }
        #expect(changes == [TouchChange(.cancel, id: 1, x: 10, y: 20, time: 5)])
        #expect(tracker.activeContacts == 0)
        // It moves on, and a second finger comes down: only the second is news.
        #expect(tracker.process([abs(MT_X, 15), abs(SLOT, 1), abs(TRACKING_ID, 2), abs(MT_X, 50), abs(MT_Y, 60), report()])
            == [down(2, 50, 60)])
        // The first lifts: no `up` for a contact nobody was told of.
        #expect(tracker.process([abs(SLOT, 0), abs(TRACKING_ID, -1), report()]).isEmpty)
        // The same slot touched again: a new contact.
        #expect(tracker.process([abs(TRACKING_ID, 3), abs(MT_X, 30), report()]) == [down(3, 30, 20)])
        // Cancelling again ignores both until lifted; a second cancel says nothing.
        changes = []
        tracker.cancelAll(time: 6, untilLifted: true) { changes.append($0) }
        tracker.cancelAll(time: 7, untilLifted: true) { changes.append($0) }
        #expect(changes.map(\.id) == [3, 2] && changes.allSatisfy { $0.phase == .cancel })
        #expect(tracker.process([abs(MT_X, 31), abs(SLOT, 1), abs(TRACKING_ID, -1), report()]).isEmpty)
    }
}
