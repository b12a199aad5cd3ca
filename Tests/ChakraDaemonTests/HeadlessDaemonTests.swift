import ChakraControl
import ChakraDisplay
import ChakraPNG
import ChakraRaster
import ChakraScenes
import Foundation
import ChakraSystem
import ChakraTestSupport
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
        let failure = Mutex<(any Error)?>(nil)
        let finished = DispatchSemaphore(value: 0)
        Thread {
            do { try daemon.run() } catch { failure.withLock { $0 = error } }
            finished.signal()
        }.start()
        return (daemon, {
            #expect(finished.wait(timeout: .now() + 60) == .success, "the daemon did not stop")
            return failure.withLock { $0 }
        })
    }

    /// The frame shown, once there is one.
    private func snapshot(_ daemon: Daemon) throws -> PNGImage.RGB {
        var shown: PNGImage.RGB?
        _ = eventually {
            // No frame yet: ask again.
            guard case .success(let frame)? = askForSnapshot(daemon) else { return false }
            // The memory as it is (rotated as the panel shows it).
            shown = FrameLoop.rgb(of: frame.frame.pixels)
            return true
        }
        guard let shown else { throw DaemonCommandError.noFrameYet }
        return shown
    }

    /// One snapshot command, its reply waited for.
    private func askForSnapshot(_ daemon: Daemon) -> Result<FrameSnapshot, DaemonCommandError>? {
        let reply = Mutex<Result<FrameSnapshot, DaemonCommandError>?>(nil)
        let answered = DispatchSemaphore(value: 0)
        daemon.control.send(.snapshotFrame { result in
            reply.withLock { $0 = result }
            answered.signal()
        })
        _ = answered.wait(timeout: .now() + 60)
        return reply.withLock { $0 }
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

    @Test func unknownSceneFailsAtStart() throws {
        let (_, finish) = try start { $0.scene = "nope" }
        #expect(finish() as? DaemonCommandError == .unknownScene("nope"))
    }
}
