import ChakraControl
import ChakraDisplay
import ChakraPNG
import ChakraRaster
import ChakraScenes
import Foundation
import ChakraSystem
import Synchronization
import Testing
@testable import ChakraDaemon

/// The whole daemon on the headless output, driven through its command
/// queue from another thread, as the control socket will drive it.
@Suite("Daemon on the headless output", .serialized)
struct HeadlessDaemonTests {
    /// Starts the daemon on a thread; returns it and a way to wait for its end.
    private func start(_ configure: (inout DaemonConfiguration) -> Void) throws -> (Daemon, () -> Error?) {
        var configuration = DaemonConfiguration()
        configuration.output = .headless
        configuration.outputOptions.headlessWidth = 96
        configuration.outputOptions.headlessHeight = 54
        configuration.terminal = .none
        configure(&configuration)
        let daemon = try Daemon(configuration: configuration, logger: Logger(label: "test"))
        let outcome = Mutex<(done: Bool, error: (any Error)?)>((false, nil))
        let thread = Thread {
            do { try daemon.run() } catch { outcome.withLock { $0.error = error } }
            outcome.withLock { $0.done = true }
        }
        thread.start()
        return (daemon, {
            let deadline = Date().addingTimeInterval(20)
            while !outcome.withLock({ $0.done }), Date() < deadline { usleep(10_000) }
            #expect(outcome.withLock { $0.done }, "the daemon did not stop")
            return outcome.withLock { $0.error }
        })
    }

    private func snapshot(_ daemon: Daemon) throws -> PNGImage.RGB {
        let result = Mutex<Result<FrameSnapshot, DaemonCommandError>?>(nil)
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            daemon.control.send(.snapshotFrame { reply in result.withLock { $0 = reply } })
            while result.withLock({ $0 }) == nil, Date() < deadline { usleep(5_000) }
            // The memory as it is (rotated as the panel shows it).
            if case .success(let frame)? = result.withLock({ $0 }) { return FrameLoop.rgb(of: frame.frame.pixels) }
            result.withLock { $0 = nil }   // no frame yet: ask again
            usleep(20_000)
        }
        throw DaemonCommandError.noFrameYet
    }

    /// Polls `condition` for up to 20 s.
    private func eventually(_ condition: () throws -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if (try? condition()) == true { return true }
            usleep(20_000)
        }
        return false
    }

    /// The scene drawn directly, for comparison.
    private func reference(width: Int, height: Int, time: Double, rotation: Rotation = .none, scene name: String = "heart") -> PNGImage.RGB {
        let (w, h) = rotation.swapsAxes ? (height, width) : (width, height)
        let scene = SceneCatalog.make(name, width: w, height: h, settings: RenderSettings())!
        let frame = FrameBuffer(width: width, height: height, format: .xrgb8888)
        scene.render(time: time, into: frame.pixels.rotated(rotation))
        return PNGImage.RGB(width: width, height: height, bytes: frame.rgbBytes())
    }

    @Test func pinnedTimeShowsExactlyThatFrame() throws {
        let (daemon, finish) = try start { $0.pinnedTime = 2.5 }
        let shown = try snapshot(daemon)
        daemon.control.send(.stop)
        #expect(finish() == nil)
        #expect(shown == reference(width: 96, height: 54, time: 2.5))
        #expect(shown != reference(width: 96, height: 54, time: 0.3))
        // One frame for a frozen clock, not one per refresh.
        #expect(daemon.control.status.frames.presented == 1)
    }

    /// Switches scene and waits for the reply.
    private func switchScene(_ daemon: Daemon, to name: String, _ transition: SceneTransition) -> Result<SceneChangeReport, DaemonCommandError>? {
        let result = Mutex<Result<SceneChangeReport, DaemonCommandError>?>(nil)
        let request = SceneSwitch(scene: name, transition: transition.kind, duration: transition.duration)
        daemon.control.send(.switchScene(request) { reply in result.withLock { $0 = reply } })
        let deadline = Date().addingTimeInterval(20)
        while result.withLock({ $0 }) == nil, Date() < deadline { usleep(5_000) }
        return result.withLock { $0 }
    }

    @Test func crossfadeMixesTheTwoScenesThenShowsTheNewOne() throws {
        let (daemon, finish) = try start {
            $0.pinnedTime = 2.5
            $0.fps = 60
        }
        let heart = reference(width: 96, height: 54, time: 2.5)
        let calm = reference(width: 96, height: 54, time: 2.5, scene: "calm")
        #expect(try snapshot(daemon) == heart)
        // A slow spring (response 4 s), so slow debug-build frames on a busy
        // machine still catch it midway.
        guard case .success? = switchScene(daemon, to: "calm", SceneTransition(kind: .crossfade, duration: 4)) else {
            Issue.record("switch failed")
            return
        }
        var between = 0
        let reachedCalm = eventually {
            let shown = try snapshot(daemon)
            if shown == calm { return true }
            // Every channel lies between the two scenes' (give or take the
            // dither's level), and the frame is neither scene.
            let mixed = zip(shown.bytes.indices, shown.bytes).allSatisfy { i, v in
                Int(v) >= Int(min(heart.bytes[i], calm.bytes[i])) - 1 && Int(v) <= Int(max(heart.bytes[i], calm.bytes[i])) + 1
            }
            #expect(mixed, "a crossfade frame outside the two scenes")
            if shown != heart { between += 1 }
            return false
        }
        #expect(reachedCalm, "the crossfade ends on the new scene exactly")
        #expect(between >= 2, "frames between the two scenes were shown (\(between))")
        #expect(daemon.control.status.scene == "calm")
        // A cut is immediate.
        let cut = switchScene(daemon, to: "heart", SceneTransition(kind: .cut))
        #expect(cut.map { if case .success = $0 { true } else { false } } == true, "cut: \(String(describing: cut))")
        #expect(eventually { try snapshot(daemon) == heart })
        let last = try snapshot(daemon)
        #expect(last == heart, "after the cut: \(zip(last.bytes, heart.bytes).map { abs(Int($0) - Int($1)) }.max()!) max, calm? \(last == calm)")
        daemon.control.send(.stop)
        #expect(finish() == nil)
    }

    @Test func rotationTurnsTheFrameIntoMemory() throws {
        let (daemon, finish) = try start {
            $0.pinnedTime = 1
            $0.rotation = .clockwise90
        }
        let shown = try snapshot(daemon)
        daemon.control.send(.stop)
        #expect(finish() == nil)
        #expect(shown == reference(width: 96, height: 54, time: 1, rotation: .clockwise90))
        #expect(shown != reference(width: 96, height: 54, time: 1, rotation: .clockwise270))
    }

    @Test func animatesThenPausesThenSwitchesSettings() throws {
        let (daemon, finish) = try start { $0.fps = 50 }
        let first = try snapshot(daemon)
        usleep(300_000)
        #expect(try snapshot(daemon) != first)                    // time moves
        daemon.control.send(.playback(paused: true) { _ in })
        // Frozen: two snapshots in a row agree (debug builds draw slowly, so wait for it).
        #expect(eventually { try snapshot(daemon) == { usleep(150_000); return try snapshot(daemon) }() })
        daemon.control.send(.change(.reduceMotion(true)) { _ in })
        #expect(eventually { daemon.control.status.settings.reduceMotion })
        let replies = Mutex<[Result<SceneChangeReport, DaemonCommandError>]>([])
        daemon.control.send(.switchScene(SceneSwitch(scene: "nope")) { reply in replies.withLock { $0.append(reply) } })
        daemon.control.send(.stop)
        #expect(finish() == nil)
        let answered = replies.withLock { $0 }
        #expect(answered.count == 1)
        if case .failure(.unknownScene("nope"))? = answered.first {} else { Issue.record("unknown scene accepted: \(answered)") }
    }

    @Test func unknownSceneFailsAtStart() throws {
        let (_, finish) = try start { $0.scene = "nope" }
        #expect(finish() as? DaemonCommandError == .unknownScene("nope"))
    }
}
