import ChakraConfig
import ChakraControl
import ChakraInput
import ChakraSessions
import Foundation
import Testing
@testable import ChakraDaemon

/// Breathing sessions as the core records them: one `.recordSession` per
/// exercise that began with a touch, on the wall clock; `session_finished`
/// only once the shell says the record is written (or why not); the counts
/// in status and metrics. On virtual time, with a fake recorder
/// (`CoreDriver.recordFailure`).
@Suite("Daemon core: session records")
struct SessionRecordingTests {
    /// Wall minus monotonic time in these tests: monotonic 100 is
    /// 2026-11-26T12:00:00Z.
    static let wallOffset = 1_795_694_400.0 - 100

    /// A spiral with a 4 s hold (one cycle of 2 s in, 2 s out), started
    /// from the heart, a wall clock given.
    static func driver(configure: (inout DaemonConfiguration) -> Void = { _ in }) throws -> (CoreDriver, [(Double, Double)]) {
        let driver = try CoreDriver(width: 320, height: 240) {
            $0.config.spiral.customPatterns = [BreathingPattern(name: "quick", phases: [BreathPhase(.in, 2), BreathPhase(.out, 2)])]
            $0.config.spiral.pattern = "quick"
            $0.config.spiral.holdDuration = 4
            $0.config.spiral.completionDelay = 0.5
            configure(&$0)
        }
        driver.rendering = false
        driver.send(.wallClock(offset: wallOffset), at: 100)
        driver.run(until: 101)
        #expect((try? driver.command { .spiral(.start, reply: $0) }?.get()) != nil)
        let path = try #require(try driver.command { .spiral(.path, reply: $0) }?.get().points)
        return (driver, path.map { ($0[0], $0[1]) })
    }

    static func touch(_ driver: CoreDriver, _ phase: TouchPhase, _ p: (Double, Double), at t: Double) {
        driver.send(.touch(TouchContactEvent(phase: phase, id: 1, x: p.0, y: p.1, time: t, deviceX: 0, deviceY: 0, device: 1)), at: t)
    }

    static func state(_ driver: CoreDriver) -> String? { driver.core.status().spiral?.state }

    /// Moves along the path, 10 ms a point, until the spiral is in `wanted`.
    static func trace(_ driver: CoreDriver, _ points: [(Double, Double)], from index: inout Int, t: inout Double, until wanted: String) {
        while index < points.count - 1, state(driver) != wanted {
            index += 1
            t += 0.01
            driver.run(until: t)
            touch(driver, .move, points[index], at: t)
        }
    }

    static func finished(_ driver: CoreDriver) -> [SessionFinishedReport] {
        driver.events.compactMap { if case .sessionFinished(let report) = $0.event { report } else { nil } }
    }

    @Test("a completed exercise: one record on the wall clock with its pattern, times and lifts; session_finished once written")
    func completed() throws {
        let (driver, points) = try Self.driver()
        var t = 102.0, index = 0
        Self.touch(driver, .down, points[0], at: t)
        driver.run(until: t)
        #expect(driver.core.status().sessions.started == 1)
        Self.trace(driver, points, from: &index, t: &t, until: "hold")
        let holdStart = t
        // Lifted once for half a second in the hold, then back on.
        Self.touch(driver, .up, points[index], at: t + 1)
        t += 1.5
        driver.run(until: t)
        Self.touch(driver, .down, points[index], at: t)
        while Self.state(driver) == "hold", t < 130 {
            t += 0.1
            driver.run(until: t)
        }
        #expect(Self.state(driver) == "exhale")
        #expect(driver.records.isEmpty, "no record before the exercise ends")
        Self.trace(driver, points, from: &index, t: &t, until: "completed")
        let completedAt = t
        Self.touch(driver, .up, points[index], at: t + 0.05)
        driver.run(until: t + 2)

        #expect(driver.records.count == 1)
        let record = try #require(driver.records.first)
        #expect(record.outcome == .completed && record.ending == "completed" && record.furthestState == "completed")
        #expect(record.pattern == "quick")
        #expect(abs(record.startedAt - (Self.wallOffset + 102)) < 0.001, "\(record.startedAt)")
        #expect(abs(record.duration - (completedAt - 102)) < 0.02, "\(record.duration)")
        #expect(abs(record.holdSeconds - 4) < 1e-6, "the hold's touched seconds: \(record.holdSeconds)")
        #expect(record.lifts == 1)
        // On the light all along but for the half second lifted in the hold.
        #expect(abs(record.breathedSeconds - (record.duration - 0.5)) < 0.05, "\(record.breathedSeconds) of \(record.duration)")
        #expect(holdStart > 102)

        let reports = Self.finished(driver)
        #expect(reports.count == 1)
        #expect(reports.first?.recorded == true && reports.first?.error == nil && reports.first?.record == record)
        #expect(reports.first?.startedAt == "2026-11-26T12:00:02+00:00")
        let status = driver.core.status()
        #expect(status.sessions.started == 1 && status.sessions.completed == 1 && status.sessions.abandoned == 0)
        #expect(status.sessions.recorded == 1)
        #expect(abs(status.sessions.breathedSeconds - record.breathedSeconds) < 1e-9)
        // The record effect comes after Completed, and the event after the record.
        let completedEvent = try #require(driver.events.firstIndex { if case .spiralState(_, "completed") = $0.event { true } else { false } })
        let finishedEvent = try #require(driver.events.firstIndex { if case .sessionFinished = $0.event { true } else { false } })
        #expect(completedEvent < finishedEvent)
        let text = MetricsText.render(status, version: "test")
        #expect(text.contains("chakra_sessions_started_total 1\n"))
        #expect(text.contains("chakra_sessions_finished_total{outcome=\"completed\"} 1\n"))
    }

    @Test("cancelled, restarted, interrupted by a scene switch, by the screen going off, by a stop: each one abandoned record")
    func abandoned() throws {
        let (driver, points) = try Self.driver()
        var t = 102.0
        /// Begun once the spiral is on screen (touches during the
        /// crossfade into it reach no exercise).
        func beginShort() {
            t += 1
            driver.run(until: t)
            Self.touch(driver, .down, points[0], at: t)
            for index in 1...5 {
                t += 0.01
                Self.touch(driver, .move, points[index], at: t)
            }
        }
        beginShort()
        _ = driver.command { .spiral(.cancel, reply: $0) }
        #expect(driver.records.last?.ending == "cancelled")
        // Back to the heart: start again.
        t += 1
        driver.run(until: t)
        _ = driver.command { .spiral(.start, reply: $0) }
        beginShort()
        _ = driver.command { .spiral(.start, reply: $0) }
        #expect(driver.records.last?.ending == "restarted")
        Self.touch(driver, .up, points[5], at: t)
        t += 1
        driver.run(until: t)
        beginShort()
        _ = driver.command { .switchScene(SceneSwitch(scene: "drift", transition: .cut), reply: $0) }
        #expect(driver.records.last?.ending == "interrupted", "the scene went away")
        Self.touch(driver, .up, points[5], at: t)
        t += 1
        driver.run(until: t)
        _ = driver.command { .spiral(.start, reply: $0) }
        beginShort()
        _ = driver.command { .display(.off, reply: $0) }
        #expect(driver.records.last?.ending == "interrupted", "the screen went off")
        Self.touch(driver, .up, points[5], at: t)
        _ = driver.command { .display(.on, reply: $0) }
        t += 1
        driver.run(until: t)
        _ = driver.command { .spiral(.start, reply: $0) }
        beginShort()
        driver.send(.stop, at: t + 0.1)
        #expect(!driver.core.running)
        #expect(driver.records.last?.ending == "interrupted", "chakrad stopped")

        #expect(driver.records.count == 5)
        #expect(driver.records.allSatisfy { $0.outcome == .abandoned && $0.furthestState == "inhale" && $0.pattern == "quick" })
        let status = driver.core.status()
        #expect(status.sessions.started == 5 && status.sessions.abandoned == 5 && status.sessions.completed == 0)
        #expect(Self.finished(driver).count == 5)
    }

    @Test("a spiral shown and cancelled with no touch is no session")
    func noTouchNoSession() throws {
        let (driver, _) = try Self.driver()
        driver.run(until: 110)
        _ = driver.command { .spiral(.cancel, reply: $0) }
        driver.run(until: 112)
        #expect(driver.records.isEmpty && Self.finished(driver).isEmpty)
        #expect(driver.core.status().sessions == SessionCounts())
    }

    @Test("a record that cannot be written: session_finished says so, counted as an error of kind session_record")
    func writeFails() throws {
        let (driver, points) = try Self.driver()
        driver.recordFailure = "/var/lib/chakra/sessions.log: No space left on device (ENOSPC)"
        Self.touch(driver, .down, points[0], at: 102)
        Self.touch(driver, .move, points[3], at: 102.1)
        _ = driver.command { .spiral(.cancel, reply: $0) }
        let report = try #require(Self.finished(driver).first)
        #expect(report.recorded == false && report.error?.contains("ENOSPC") == true)
        let status = driver.core.status()
        #expect(status.errors[.sessionRecord] == 1 && status.sessions.recorded == 0 && status.sessions.abandoned == 1)
    }

    @Test("errors by kind: a refused reload and a display read back as failed are counted")
    func errorCounts() throws {
        let driver = try CoreDriver()
        driver.rendering = false
        driver.run(until: 101)
        var config = driver.core.configuration.config
        config.scene.defaultScene = "fireworks"
        let refused = driver.command { .applyConfiguration(LoadedConfig(config: config), reply: $0) }
        #expect((try? refused?.get()) == nil)
        #expect(driver.core.status().errors[.configReload] == 1)
        driver.displayCheck = .failed("test display stuck on")
        _ = driver.command { .display(.off, reply: $0) }
        #expect(driver.core.status().errors[.displayPower] == 1)
        #expect(driver.core.status().errors.total == 2)
    }
}
