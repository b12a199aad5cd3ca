import ChakraSystem
import Foundation
import Synchronization
import Testing
@testable import ChakraDisplay

/// A kiosk booted before udev loaded its screen's driver: the output is
/// chosen again once udev's device events are done (DeviceEventQueue, the
/// file /run/udev/queue as `udevadm settle` reads it), instead of settling
/// for headless or failing. Here the queue is a marker file in a directory
/// of the test's own; the real one is checked by the arm64 guest's reboot
/// (tests/vm/cases/70-debian-arm64.sh).
@Suite("Waiting for udev's device events when no display is found")
struct DeviceSettleTests {
    /// A directory of its own, standing for /run/udev.
    final class RunUdev: Sendable {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("chakra-udev-\(UUID().uuidString)").path
        var marker: String { path + "/queue" }
        var queue: DeviceEventQueue { DeviceEventQueue(marker: marker) }
        init(busy: Bool) throws {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            if busy { try Data().write(to: URL(fileURLWithPath: marker)) }
        }
        func done() { try? FileManager.default.removeItem(atPath: marker) }
        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    /// Records the log; calls `onLine` with each line as it is written.
    final class Log: LogSink, Sendable {
        let level = Logger.Level.trace
        let lines = Mutex<[String]>([])
        let onLine: @Sendable (String) -> Void
        init(onLine: @escaping @Sendable (String) -> Void = { _ in }) { self.onLine = onLine }
        func write(level: Logger.Level, label: String, message: String) {
            lines.withLock { $0.append("\(level) \(message)") }
            onLine(message)
        }
        var all: [String] { lines.withLock { $0 } }
    }

    @Test("no queue file, or no directory: nothing pending, no wait")
    func idleQueue() throws {
        let udev = try RunUdev(busy: false)
        #expect(!udev.queue.isBusy)
        #expect(udev.queue.waitUntilIdle(limit: 3600))
        let nowhere = DeviceEventQueue(marker: udev.path + "/missing/queue")
        #expect(!nowhere.isBusy)
        #expect(nowhere.waitUntilIdle(limit: 3600))
    }

    @Test("a queue that stays busy: the wait gives up at its limit")
    func busyQueueTimesOut() throws {
        let udev = try RunUdev(busy: true)
        #expect(udev.queue.isBusy)
        let started = MonotonicClock.now()
        #expect(!udev.queue.waitUntilIdle(limit: 0.2))
        #expect(MonotonicClock.now() - started >= 0.2)
        #expect(udev.queue.isBusy)
    }

    @Test("the queue file deleted or renamed away ends the wait (inotify)", arguments: [false, true])
    func queueEmptiedEndsTheWait(renamed: Bool) throws {
        let udev = try RunUdev(busy: true)
        let waiter = udev.queue
        let result = Mutex<Bool?>(nil)
        let finished = DispatchSemaphore(value: 0)
        let thread = Thread {
            // An hour's limit: only the file's going can end this wait.
            result.withLock { $0 = waiter.waitUntilIdle(limit: 3600) }
            finished.signal()
        }
        thread.start()
        if renamed {
            try FileManager.default.moveItem(atPath: udev.marker, toPath: udev.path + "/queue.old")
        } else {
            udev.done()
        }
        // The waiter's answer, awaited: it comes once the thread saw the
        // file go (the 600 s bound is for a broken wait, not a clock raced).
        #expect(finished.wait(timeout: .now() + 600) == .success)
        #expect(result.withLock { $0 } == true)
    }

    @Test("auto with no display while udev is busy: waits for it, then chooses again")
    func autoWaitsThenChoosesAgain() throws {
        // A DRM node that does not exist: DRM fails before and after the
        // wait, whatever this machine has, so auto's choice is asked twice.
        let udev = try RunUdev(busy: true)
        // udev finishes as soon as the daemon says it waits: the wait then
        // ends on the file's absence, deterministically.
        let marker = udev.marker
        let log = Log { line in if line.contains("waiting up to") { try? FileManager.default.removeItem(atPath: marker) } }
        var options = OutputOptions()
        options.device = udev.path + "/dri/card0"
        #expect(throws: DisplayError.self) {
            _ = try OutputFactory.open(.auto, options: options, logger: Logger(label: "test", sink: log), deviceEvents: udev.queue)
        }
        let lines = log.all
        #expect(lines.contains { $0.hasPrefix("notice output: ") && $0.contains("while udev is still handling device events") })
        #expect(lines.contains { $0.contains("udev's device events done after") && $0.contains("choosing again") })
    }

    @Test("a display found, or headless asked for: no wait even while udev is busy")
    func noWaitWhenNotNeeded() throws {
        let udev = try RunUdev(busy: true)
        let log = Log()
        var options = OutputOptions()
        options.headlessWidth = 64
        options.headlessHeight = 48
        let output = try OutputFactory.open(.headless, options: options, logger: Logger(label: "test", sink: log), deviceEvents: udev.queue)
        defer { output.close() }
        #expect(output.width == 64)
        #expect(!log.all.contains { $0.contains("udev") })
        #expect(udev.queue.isBusy)
    }

    @Test("no display and udev idle: headless at once, no wait")
    func idleUdevNoWait() throws {
        let udev = try RunUdev(busy: false)
        let log = Log()
        var options = OutputOptions()
        options.device = udev.path + "/dri/card0"
        #expect(throws: DisplayError.self) {
            _ = try OutputFactory.open(.drm, options: options, logger: Logger(label: "test", sink: log), deviceEvents: udev.queue)
        }
        #expect(!log.all.contains { $0.contains("udev") })
    }
}
