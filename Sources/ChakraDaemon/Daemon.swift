import ChakraDisplay
import Foundation
import Logging

/// `chakrad run`: opens the output, takes the VT, runs the frame loop, and
/// on the way out (SIGTERM, SIGINT, an error) puts the screen and the
/// console back, in reverse order of taking them.
public final class Daemon: Sendable {
    public let configuration: DaemonConfiguration
    public let control: DaemonControl
    private let logger: Logger

    public init(configuration: DaemonConfiguration, logger: Logger) throws {
        (self.configuration, self.logger) = (configuration, logger)
        control = try DaemonControl()
    }

    /// Runs until stopped. Throws when the daemon cannot start (bad device,
    /// unknown connector) or the loop fails; the screen is restored either way.
    public func run() throws {
        let start = MonotonicClock.now()
        // Before any thread exists (the scene's workers): see SignalSource.
        let signals = try SignalSource(signals: FrameLoop.signalsHandled)
        if let file = configuration.configFile {
            logger.info("config: '\(file)' accepted; the configuration file is read from the next release on (options come from the command line)")
        }
        let output = try OutputFactory.open(configuration.output, options: configuration.outputOptions, logger: logger)
        var terminal: VirtualTerminal?
        defer {
            // The CRTC first (while the console still keeps off the screen),
            // then the console back in text mode.
            output.close()
            terminal?.restore()
        }
        if output.usesConsole, let vt = try VirtualTerminal.open(configuration.terminal, logger: logger) {
            try vt.enterGraphics(releaseSignal: FrameLoop.releaseSignal, acquireSignal: FrameLoop.acquireSignal)
            terminal = vt
        }
        let notifier = SystemdNotifier(environment: ProcessInfo.processInfo.environment, logger: logger)
        let loop = try FrameLoop(output: output, terminal: terminal, signals: signals, control: control, notifier: notifier,
                                 configuration: configuration, startTime: start, logger: logger)
        logger.info("scene: \(configuration.scene) at \(loop.scene.width)x\(loop.scene.height), rotation \(configuration.rotation.rawValue)°, \(describe(loop.pacer))")
        defer {
            // STOPPING=1 first: systemd learns at once that the exit is wanted.
            notifier?.send(.stopping)
            let now = MonotonicClock.now()
            loop.publishStatus(now: now, notify: false)
            logger.info("stopped: \(loop.meter.totalFrames) frames presented in \(String(format: "%.1f", now - start)) s")
        }
        try loop.run()
    }

    private func describe(_ pacer: FramePacer) -> String {
        let fps = 1 / pacer.frameInterval
        return "up to \(String(format: "%.1f", fps)) fps" + (pacer.lead > 0 ? ", paced by vblank" : ", paced by timer")
    }
}
