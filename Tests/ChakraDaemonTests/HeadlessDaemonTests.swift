import ChakraDisplay
import ChakraPNG
import ChakraRaster
import ChakraScenes
import Foundation
import Logging
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
        let result = Mutex<Result<PNGImage.RGB, DaemonCommandError>?>(nil)
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            daemon.control.send(.snapshot { reply in result.withLock { $0 = reply } })
            while result.withLock({ $0 }) == nil, Date() < deadline { usleep(5_000) }
            if case .success(let image)? = result.withLock({ $0 }) { return image }
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
    private func reference(width: Int, height: Int, time: Double, rotation: Rotation = .none) -> PNGImage.RGB {
        let (w, h) = rotation.swapsAxes ? (height, width) : (width, height)
        let scene = SceneCatalog.make("heart", width: w, height: h, settings: RenderSettings())!
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
        #expect(daemon.control.status.framesPresented == 1)
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
        daemon.control.send(.pause)
        // Frozen: two snapshots in a row agree (debug builds draw slowly, so wait for it).
        #expect(eventually { try snapshot(daemon) == { usleep(150_000); return try snapshot(daemon) }() })
        daemon.control.send(.setSettings(RenderSettings(reduceMotion: true, lowPower: false)))
        #expect(eventually { daemon.control.status.settings.reduceMotion })
        let replies = Mutex<[Result<Void, DaemonCommandError>]>([])
        daemon.control.send(.switchScene("nope") { reply in replies.withLock { $0.append(reply) } })
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
