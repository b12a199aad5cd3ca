import Testing
@testable import ChakraInput

/// Protocol A: anonymous contacts, all of them in every frame, each closed
/// by SYN_MT_REPORT; matched to the previous frame's by nearness.
@Suite("TouchTracker, protocol A")
struct ProtocolATests {
    @Test func contactsFollowTheNearestAndEmptyFramesLiftEverything() {
        var tracker = TouchTracker(protocol: .multitouchA)
        #expect(tracker.process([abs(MT_X, 10), abs(MT_Y, 20), mtReport, abs(MT_X, 300), abs(MT_Y, 400), mtReport, report(1)])
            == [down(1, 10, 20, 1), down(2, 300, 400, 1)])
        // Listed the other way round: each continues the contact it is nearest.
        #expect(tracker.process([abs(MT_X, 305), abs(MT_Y, 398), mtReport, abs(MT_X, 12), abs(MT_Y, 22), mtReport, report(2)])
            == [move(2, 305, 398, 2), move(1, 12, 22, 2)])
        // Unchanged: nothing.
        #expect(tracker.process([abs(MT_X, 305), abs(MT_Y, 398), mtReport, abs(MT_X, 12), abs(MT_Y, 22), mtReport, report(3)]).isEmpty)
        // One contact left, near the first: the other went up.
        #expect(tracker.process([abs(MT_X, 14), abs(MT_Y, 22), mtReport, report(4)]) == [up(2, 305, 398, 4), move(1, 14, 22, 4)])
        // A lone SYN_MT_REPORT, then SYN_REPORT: no contacts, all up.
        #expect(tracker.process([mtReport, report(5)]) == [up(1, 14, 22, 5)])
        #expect(tracker.activeContacts == 0)
        // A bare SYN_REPORT is an empty frame too.
        _ = tracker.process([abs(MT_X, 1), abs(MT_Y, 1), mtReport, report(6)])
        #expect(tracker.process([report(7)]) == [up(3, 1, 1, 7)])
    }

    @Test func trackingIDsWinOverNearness() {
        var tracker = TouchTracker(protocol: .multitouchA)
        _ = tracker.process([abs(TRACKING_ID, 5), abs(MT_X, 100), abs(MT_Y, 100), mtReport,
                             abs(TRACKING_ID, 6), abs(MT_X, 200), abs(MT_Y, 100), mtReport, report()])
        // The fingers crossed: by distance they would swap; the ids say not.
        #expect(tracker.process([abs(TRACKING_ID, 5), abs(MT_X, 210), abs(MT_Y, 100), mtReport,
                                 abs(TRACKING_ID, 6), abs(MT_X, 90), abs(MT_Y, 100), mtReport, report()])
            == [move(1, 210, 100), move(2, 90, 100)])
    }

    /// Found by fuzzing: positions at the ends of the 32-bit range (a
    /// broken or hostile device; the kernel does not clamp them) made the
    /// squared distance overflow Int64, a trap that ended chakrad.
    @Test func positionsAtTheEndsOfTheRangeAreMatchedNotATrap() {
        var tracker = TouchTracker(protocol: .multitouchA)
        _ = tracker.process([abs(MT_X, Int32.min), abs(MT_Y, Int32.min), mtReport, report()])
        #expect(tracker.process([abs(MT_X, Int32.max), abs(MT_Y, Int32.max), mtReport, report()])
            == [move(1, Int32.max, Int32.max)])
        // Two far-apart contacts still go to the nearer one each.
        #expect(tracker.process([abs(MT_X, Int32.max), abs(MT_Y, Int32.max), mtReport,
                                 abs(MT_X, Int32.min), abs(MT_Y, 0), mtReport, report()])
            == [down(2, Int32.min, 0)])
    }

    @Test func axesWithoutSynMTReportAndIncompleteContacts() {
        var tracker = TouchTracker(protocol: .multitouchA)
        // A contact missing its Y is not one; the last contact's SYN_MT_REPORT may be missing.
        #expect(tracker.process([abs(MT_X, 1), mtReport, abs(MT_X, 5), abs(MT_Y, 6), report()]) == [down(1, 5, 6)])
    }

    @Test func synDroppedThenResync() {
        var tracker = TouchTracker(protocol: .multitouchA)
        _ = tracker.process([touchKey(true), abs(MT_X, 10), abs(MT_Y, 10), mtReport, report()])
        // Kernel side: the partial frame after the drop is discarded.
        _ = tracker.process([dropped])
        #expect(tracker.process([abs(MT_X, 500), abs(MT_Y, 500), mtReport, report()]).isEmpty)
        // A resync carries no contacts: they stay as they were...
        _ = tracker.process([dropped])
        #expect(tracker.process([report()], sync: true).isEmpty)
        #expect(tracker.activeContacts == 1)
        #expect(tracker.process([abs(MT_X, 11), abs(MT_Y, 10), mtReport, report()]) == [move(1, 11, 10)])
        // ...unless BTN_TOUCH came back 0: every finger is up.
        _ = tracker.process([dropped])
        #expect(tracker.process([touchKey(false), report(8)], sync: true) == [up(1, 11, 10, 8)])
    }

    @Test func cancelUntilLiftedIgnoresTheContactsStillListed() {
        var tracker = TouchTracker(protocol: .multitouchA)
        _ = tracker.process([abs(MT_X, 10), abs(MT_Y, 20), mtReport, report()])
        var changes: [TouchChange] = []
        tracker.cancelAll(time: 5, untilLifted: true) { changes.append($0) }
        #expect(changes == [TouchChange(.cancel, id: 1, x: 10, y: 20, time: 5)])
        // Still listed, moving, then a second contact far away: only the
        // second is news, and only it counts as down (found by fuzzing: the
        // ignored contact was counted).
        #expect(tracker.process([abs(MT_X, 12), abs(MT_Y, 20), mtReport, report()]).isEmpty)
        #expect(tracker.activeContacts == 0)
        #expect(tracker.process([abs(MT_X, 13), abs(MT_Y, 20), mtReport, abs(MT_X, 900), abs(MT_Y, 900), mtReport, report()])
            == [down(2, 900, 900)])
        #expect(tracker.activeContacts == 1)
        // Everything up: only the second had a `down`.
        #expect(tracker.process([mtReport, report()]) == [up(2, 900, 900)])
        #expect(tracker.process([abs(MT_X, 5), abs(MT_Y, 5), mtReport, report()]) == [down(3, 5, 5)])
    }
}

@Suite("TouchTracker, single-touch")
struct SingleTouchTests {
    @Test func downMoveUpAndTouchingAgainInPlace() {
        var tracker = TouchTracker(protocol: .singleTouch)
        // Axes without BTN_TOUCH: hovering, nothing.
        #expect(tracker.process([abs(ABS_X, 5), abs(ABS_Y, 5), report()]).isEmpty)
        #expect(tracker.process([touchKey(true), abs(ABS_X, 100), abs(ABS_Y, 200), report(1)]) == [down(1, 100, 200, 1)])
        #expect(tracker.process([abs(ABS_X, 101), report(2)]) == [move(1, 101, 200, 2)])
        #expect(tracker.process([touchKey(false), report(3)]) == [up(1, 101, 200, 3)])
        // Same place again: the kernel sends no axes.
        #expect(tracker.process([touchKey(true), report(4)]) == [down(2, 101, 200, 4)])
        // Multitouch events on a single-touch tracker are not its business.
        #expect(tracker.process([abs(MT_X, 7), abs(TRACKING_ID, -1), report()]).isEmpty)
    }

    @Test func synDroppedResync() {
        var tracker = TouchTracker(protocol: .singleTouch)
        _ = tracker.process([touchKey(true), abs(ABS_X, 100), abs(ABS_Y, 200), report()])
        _ = tracker.process([dropped])
        // Discarded: the kernel's partial frame.
        #expect(tracker.process([abs(ABS_X, 3), touchKey(false), report()]).isEmpty)
        _ = tracker.process([dropped])
        // libevdev's resync: moved to 150, then lifted, while events were lost.
        #expect(tracker.process([abs(ABS_X, 150), touchKey(false), report(5)], sync: true) == [up(1, 100, 200, 5)])
        #expect(tracker.process([touchKey(true), report(6)]) == [down(2, 150, 200, 6)])
    }

    @Test func aTouchAlreadyDownWhenOpenedIsIgnored() {
        var tracker = TouchTracker(protocol: .singleTouch)
        tracker.seedSingle(x: 10, y: 20, touching: true)
        #expect(tracker.process([abs(ABS_X, 11), report()]).isEmpty)
        #expect(tracker.process([touchKey(false), report()]).isEmpty)
        #expect(tracker.process([touchKey(true), report()]) == [down(1, 11, 20)])
    }

    @Test func cancelUntilLiftedIgnoresTheTouchStillDown() {
        var tracker = TouchTracker(protocol: .singleTouch)
        _ = tracker.process([touchKey(true), abs(ABS_X, 3), abs(ABS_Y, 4), report()])
        var changes: [TouchChange] = []
        tracker.cancelAll(time: 5, untilLifted: true) { changes.append($0) }
        #expect(changes == [TouchChange(.cancel, id: 1, x: 3, y: 4, time: 5)])
        #expect(tracker.process([abs(ABS_X, 7), report()]).isEmpty)
        #expect(tracker.process([touchKey(false), report()]).isEmpty)
        #expect(tracker.process([touchKey(true), report()]) == [down(2, 7, 4)])
        // Not touching when cancelled: the next touch is news at once.
        tracker.cancelAll(time: 6, untilLifted: true) { _ in }
        _ = tracker.process([touchKey(false), report()])
        changes = []
        tracker.cancelAll(time: 7, untilLifted: true) { changes.append($0) }
        #expect(changes.isEmpty)
        #expect(tracker.process([touchKey(true), report()]) == [down(3, 7, 4)])
    }
}
