import ChakraDisplay
import ChakraPNG
import ChakraRaster
import ChakraScenes
import Glibc

/// Signals, commands and output events, handled between frames.
extension FrameLoop {
    /// Which signals the daemon reads: stop, reload, and the VT's
    /// release/acquire pair.
    static let signalsHandled: [Int32] = [SIGTERM, SIGINT, SIGHUP, releaseSignal, acquireSignal]
    static let releaseSignal = SIGUSR1
    static let acquireSignal = SIGUSR2

    func handleReadable() {
        if poller.isReadable(0) { signals.drain(handleSignal) }
        if poller.isReadable(1) { for command in control.takeCommands() { handle(command) } }
        for (index, descriptor) in outputDescriptors.enumerated() where poller.isReadable(2 + index) {
            if let presentation = output.handleReadable(descriptor: descriptor, now: MonotonicClock.now()) {
                presented(presentation)
            }
        }
    }

    func handleSignal(_ signal: Int32) {
        switch signal {
        case SIGTERM, SIGINT:
            logger.info("\(signal == SIGTERM ? "SIGTERM" : "SIGINT"): stopping")
            running = false
        case SIGHUP:
            logger.notice("SIGHUP: configuration reload arrives with the configuration file; nothing to reload yet")
        case Self.releaseSignal where terminal != nil:
            // Let go of the screen first, then let the switch happen.
            output.suspend()
            vtActive = false
            terminal!.allowRelease()
            logger.info("vt: switched away; drawing stopped")
            publishStatus(now: MonotonicClock.now())
        case Self.acquireSignal where terminal != nil:
            terminal!.acknowledgeAcquire()
            output.resume()
            vtActive = true
            redraw = true
            pacer.reset()
            logger.info("vt: back in front; redrawing")
            publishStatus(now: MonotonicClock.now())
        default:
            logger.debug("signal \(signal) ignored")
        }
    }

    func handle(_ command: DaemonCommand) {
        let now = MonotonicClock.now()
        switch command {
        case .switchScene(let name, let reply):
            guard SceneCatalog.names.contains(name) else { return reply(.failure(.unknownScene(name))) }
            sceneName = name
            do { try rebuildScene(reason: "switch") } catch { return reply(.failure(.unknownScene(name))) }
            clock.restart(at: now)
            reply(.success(()))
        case .pause:
            clock.pause(at: now)
            redraw = true   // show exactly the frozen time
        case .resume:
            clock.resume(at: now)
            pacer.reset()
        case .setSettings(let settings):
            guard settings != configuration.settings else { return }
            configuration.settings = settings
            try? rebuildScene(reason: "settings changed")
        case .snapshot(let reply):
            guard let front = output.frontBuffer() else { return reply(.failure(.noFrameYet)) }
            reply(.success(Self.rgb(of: front)))
        case .stop:
            running = false
        }
        publishStatus(now: now)
    }

    /// The memory as 8-bit RGB (a snapshot: allocates, on request only).
    static func rgb(of buffer: PixelBuffer) -> PNGImage.RGB {
        var bytes = [UInt8](repeating: 0, count: buffer.width * buffer.height * 3)
        for y in 0..<buffer.height {
            for x in 0..<buffer.width {
                let c = buffer.rgb(x: x, y: y)
                let i = (y * buffer.width + x) * 3
                (bytes[i], bytes[i + 1], bytes[i + 2]) = (c.x, c.y, c.z)
            }
        }
        return PNGImage.RGB(width: buffer.width, height: buffer.height, bytes: bytes)
    }
}
