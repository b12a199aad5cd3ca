import ChakraDisplay
import ChakraInput
import ChakraRaster
import ChakraSpiral
import Logging

/// Touches in the loop: any touch is activity (a dimmed or blank screen
/// comes back); the spiral follows one finger, the first down. Touches
/// reach the session at their kernel time on the scene clock, so the
/// exercise sees when the finger really moved, not when the loop woke.
extension FrameLoop {
    static func openTouch(configuration: DaemonConfiguration, output: DisplayOutput, logger: Logger) -> (TouchInput?, Haptics?) {
        var settings = TouchInput.Settings(config: configuration.config.input, displayRotation: configuration.rotation,
                                           panelWidth: output.width, panelHeight: output.height)
        settings.directory = configuration.inputDirectory
        let touch: TouchInput?
        do { touch = try TouchInput(settings: settings, logger: logger) } catch {
            logger.warning("input: no touch input (\(error))")
            touch = nil
        }
        let haptics = DeviceChoice.haptics(configuration.config.input.haptics).map {
            Haptics(choice: $0, directory: configuration.inputDirectory, logger: logger)
        }
        // One watch on the input directory serves both: a rumble device
        // plugged in later is found too.
        if let haptics { touch?.onNodeChange = { [weak haptics] in haptics?.nodeChanged($0) } }
        return (touch, haptics)
    }

    /// The rotation touches turn with: the picture's, unless [input] says.
    var touchRotation: Rotation {
        configuration.config.input.rotation.flatMap(Rotation.init(rawValue:)) ?? configuration.rotation
    }

    func handleTouch(_ event: TouchContactEvent) {
        let now = MonotonicClock.now()
        if event.phase == .down { noteActivity(now: now) }
        guard let session = spiralScene?.session else { return }
        if event.phase == .down, followedContact == nil { followedContact = event.id }
        guard event.id == followedContact else { return }
        // Kernel time on the monotonic clock, as the scene clock counts it;
        // never ahead of now (a clock step must not move the session ahead).
        let t = clock.time(at: min(event.time, now))
        let point = Point(event.x, event.y)
        switch event.phase {
        case .down: session.touchDown(at: point, time: t)
        case .move: session.touchMoved(to: point, time: t)
        case .up, .cancel:
            session.touchUp(time: t)
            followedContact = nil
        }
        if unshownTouchTime == nil { unshownTouchTime = min(event.time, now) }
        redraw = true
    }

    /// A frame is being drawn: it shows the touches applied so far.
    func touchesDrawn() {
        if unshownTouchTime != nil { (drawnTouchTime, unshownTouchTime) = (unshownTouchTime, nil) }
    }

    /// That frame is on screen at `time`: its touches took this long.
    func touchesShown(at time: Double) {
        guard let touched = drawnTouchTime else { return }
        touchLatencies.record((time - touched) * 1000)
        drawnTouchTime = nil
    }
}
