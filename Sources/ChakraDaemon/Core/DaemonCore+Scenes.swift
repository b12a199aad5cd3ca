import ChakraDisplay
import ChakraRaster
import ChakraScenes
import ChakraSpiral
import ChakraText
import ChakraSystem

/// The scene director: which scene is shown, on which clock, and how one
/// scene gives way to another (a cut, or a crossfade whose frames the core
/// plans and the shell draws).
extension DaemonCore {
    static func makeScene(_ name: String, display: DisplayFacts, configuration: DaemonConfiguration, logger: Logger) throws -> Scene {
        // The scene draws the frame as seen: a panel turned 90° shows a
        // frame of swapped width and height.
        let (w, h) = sceneSize(display: display, configuration: configuration)
        guard let scene = try DaemonScenes.make(name, width: w, height: h, configuration: configuration) else {
            throw DaemonCommandError.unknownScene(name)
        }
        if let problem = (scene as? SpiralScene)?.fontProblem {
            logger.warning("text: \(problem); the texts are in \(Font.defaultPath)")
        }
        return scene
    }

    static func sceneSize(display: DisplayFacts, configuration: DaemonConfiguration) -> (Int, Int) {
        configuration.rotation.swapsAxes ? (display.height, display.width) : (display.width, display.height)
    }

    /// The scene shown when the one asked for cannot be made (the spiral
    /// with no readable font at all): the picture goes on.
    static let fallbackScene = "heart"

    /// `name`, or the fallback scene with the error logged. A name that is
    /// no scene is still an error (a typo should not look like a choice).
    static func makeSceneOrFallback(_ name: String, display: DisplayFacts, configuration: DaemonConfiguration,
                                    logger: Logger) throws(DaemonCommandError) -> (scene: Scene, name: String) {
        do {
            return (try makeScene(name, display: display, configuration: configuration, logger: logger), name)
        } catch DaemonCommandError.unknownScene(let name) {
            throw .unknownScene(name)
        } catch {
            logger.error("scene: cannot show \(name): \(error); showing \(fallbackScene) instead")
            let (w, h) = sceneSize(display: display, configuration: configuration)
            let scene = SceneCatalog.make(fallbackScene, width: w, height: h, settings: configuration.settings, threads: configuration.threads)!
            return (scene, fallbackScene)
        }
    }

    static func makePacer(display: DisplayFacts, configuration: DaemonConfiguration) -> FramePacer {
        FramePacer(fpsCap: configuration.effectiveFPSCap, refreshInterval: display.refreshInterval, vblankTimed: display.vblankTimed)
    }

    func sceneFits() -> Bool {
        let (w, h) = Self.sceneSize(display: display, configuration: configuration)
        return scene.width == w && scene.height == h
    }

    /// The scene made again for new settings or a new size. The crossfade,
    /// if any, ends at once, and a kept scene no longer fits. False (and
    /// nothing changed) when it cannot be made.
    @discardableResult
    func rebuildScene(reason: String) -> Bool {
        guard let made = try? Self.makeSceneOrFallback(sceneName, display: display, configuration: configuration, logger: logger) else {
            errors[.scene] += 1
            logger.error("scene: \(sceneName) could not be rebuilt (\(reason)); it stays as it was")
            return false
        }
        // The fallback in its place is an error too, as at start.
        if made.name != sceneName { errors[.scene] += 1 }
        cancelCrossfade()
        parkedScene = nil
        (scene, sceneName) = made
        scene.renderThreads = renderThreads
        pacer = Self.makePacer(display: display, configuration: configuration)
        redraw = true
        logger.info("scene: \(sceneName) rebuilt at \(scene.width)x\(scene.height) (\(reason))")
        return true
    }

    func switchScene(to name: String, transition: SceneTransition) -> Result<Void, DaemonCommandError> {
        guard DaemonScenes.names.contains(name) else { return .failure(.unknownScene(name)) }
        let previous = sceneName
        defer {
            // Chosen by hand, or gone back: the spiral no longer goes back by itself.
            if name != SpiralScene.name { (spiralReturnScene, parkedScene) = (nil, nil) }
        }
        let incoming: Scene
        if let parked = parkedScene, name == spiralReturnScene, scene is SpiralScene {
            incoming = parked
        } else {
            do {
                incoming = try Self.makeScene(name, display: display, configuration: configuration, logger: logger)
                incoming.renderThreads = renderThreads
            } catch {
                errors[.scene] += 1
                logger.error("scene: cannot show \(name): \(error)")
                return .failure(error as? DaemonCommandError ?? .notSupported("cannot show \(name): \(error)"))
            }
        }
        // A crossfade needs a picture on screen to fade from.
        if transition.kind == .crossfade, firstFrameShown, vtActive, screen.power != .off {
            crossfade(to: incoming, named: name, transition: transition)
            logger.info("scene: crossfade from \(previous) to \(name)")
        } else {
            cancelCrossfade()
            scene = incoming
            sceneName = name
            clock = newSceneClock()
            logger.info("scene: cut to \(name) at \(scene.width)x\(scene.height)")
        }
        redraw = true
        pacer.reset()
        emit(.sceneChanged(scene: name, previous: previous, transition: transition))
        return .success(())
    }

    /// Changes to scene `name` (already built as `incoming`) with a
    /// crossfade from what is on screen now.
    private func crossfade(to incoming: Scene, named name: String, transition: SceneTransition) {
        let fade = Crossfade(at: now, duration: transition.duration > 0 ? transition.duration : nil,
                             reduceMotion: configuration.settings.reduceMotion)
        if let change = sceneChange {
            if name == change.outgoingName, change.outgoing != nil {
                // Back to the scene being left: the same two scenes, the
                // fade turned around from where it is.
                swap(&scene, &change.outgoing!)
                swap(&clock, &change.outgoingClock)
                change.outgoingName = sceneName
                sceneName = name
                change.fade = change.fade.swapped(at: now)
                return
            }
            // A third scene: the picture now on screen becomes the still
            // starting point, so nothing jumps.
            let frames = change.frames
            frames.mixer.mix(frames.from.pixels, frames.to.pixels, amount: Float(change.fade.amount(at: now)), into: frames.from.pixels)
            sceneChange = SceneChange(outgoing: nil, name: sceneName, clock: clock, fade: fade, frames: frames)
        } else {
            let frames = TransitionFrames(width: incoming.width, height: incoming.height)
            sceneChange = SceneChange(outgoing: scene, name: sceneName, clock: clock, fade: fade, frames: frames)
        }
        scene = incoming
        sceneName = name
        clock = newSceneClock()
    }

    /// The clock of a scene switched to: from 0 now, or frozen (at the
    /// pinned time with --pin-time, at 0 when paused).
    func newSceneClock() -> SceneClock {
        if let pinned = configuration.pinnedTime { return SceneClock(start: now, pinnedAt: pinned) }
        return SceneClock(start: now, pinnedAt: clock.isFrozen ? 0 : nil)
    }

    /// Ends any crossfade at once (a rebuild for new settings or a new
    /// screen size, a cut).
    func cancelCrossfade() {
        sceneChange = nil
    }

    func setPaused(_ paused: Bool) {
        guard paused != clock.isFrozen else { return }
        if paused {
            clock.pause(at: now)
            redraw = true   // show exactly the frozen time
        } else {
            clock.resume(at: now)
            pacer.reset()
        }
        emit(.playbackChanged(paused: paused))
    }
}
