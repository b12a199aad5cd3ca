import ChakraControl
import ChakraRaster
import ChakraScenes
import ChakraSystem

/// Which scene is shown, on which clock, and how one scene gives way to
/// another: a cut, or a crossfade whose frames it plans (the shell draws
/// them). While the exercise runs, the ambient scene it came from is kept
/// parked, so going back is instant. Scenes come from the shell's
/// `SceneFactory`; the director never makes one itself.
final class SceneDirector {
    let factory: SceneFactory
    private let logger: Logger
    private let tallies: Tallies
    private let outbox: CoreOutbox

    private(set) var scene: Scene {
        didSet {
            interactive = scene as? InteractiveScene
            exercise = scene as? ExerciseScene
            revision += 1
            if oldValue !== scene { replaced(oldValue) }
        }
    }
    private(set) var name: String
    /// `scene` when it is interactive, or runs the exercise (looked up once
    /// per scene, not per turn).
    private(set) var interactive: InteractiveScene?
    private(set) var exercise: ExerciseScene?
    private(set) var clock: SceneClock
    /// The crossfade in progress, with its frames.
    private(set) var change: SceneChange?
    /// The picture on screen at start, until the first frame fades from it.
    private var startPicture: StartPicture?
    private struct StartPicture {
        let frames: TransitionFrames
        let transition: SceneTransition
        let reduceMotion: Bool
    }
    /// The ambient scene the exercise was started from, to go back to when
    /// it ends or is cancelled.
    private(set) var returnScene: String?
    /// That scene, kept while the exercise runs (building a scene takes a
    /// moment on a slow board).
    private var parked: Scene?
    /// Threads the scene draws with (the core adapts them to drawing times).
    private(set) var renderThreads: Int
    /// Counts changes to the picture that time does not make (a scene
    /// switched or rebuilt, a pause): the scene's share of `FrameDemand`.
    private(set) var revision = 0
    /// Told of a scene no longer shown (the core ends its exercise there
    /// and lets go of the finger it followed).
    var replaced: (_ old: Scene) -> Void = { _ in }

    /// The director at `start`, showing `configuration.scene` (or the
    /// fallback scene, when it cannot be made: counted as an error).
    init(factory: SceneFactory, configuration: DaemonConfiguration, display: DisplayFacts, start: Double,
         tallies: Tallies, outbox: CoreOutbox, logger: Logger) throws(DaemonCommandError) {
        (self.factory, self.tallies, self.outbox, self.logger) = (factory, tallies, outbox, logger)
        renderThreads = configuration.adaptiveThreads ? 1 : configuration.threads
        (scene, name) = try Self.makeOrFallback(configuration.scene, factory: factory, display: display,
                                                configuration: configuration, logger: logger)
        scene.renderThreads = renderThreads
        if name != configuration.scene { tallies.errors[.scene] += 1 }
        interactive = scene as? InteractiveScene
        exercise = scene as? ExerciseScene
        clock = SceneClock(start: start, pinnedAt: configuration.pinnedTime)
    }

    // MARK: making scenes

    /// The frame as the scene draws it: a panel turned 90° shows a frame of
    /// swapped width and height.
    static func sceneSize(display: DisplayFacts, configuration: DaemonConfiguration) -> (Int, Int) {
        configuration.rotation.swapsAxes ? (display.height, display.width) : (display.width, display.height)
    }

    static func make(_ name: String, factory: SceneFactory, display: DisplayFacts, configuration: DaemonConfiguration) throws -> Scene {
        let (w, h) = sceneSize(display: display, configuration: configuration)
        return try factory.make(name, width: w, height: h, configuration: configuration)
    }

    /// `name`, or the fallback scene with the error logged. A name that is
    /// no scene is still an error (a typo should not look like a choice).
    static func makeOrFallback(_ name: String, factory: SceneFactory, display: DisplayFacts, configuration: DaemonConfiguration,
                               logger: Logger) throws(DaemonCommandError) -> (scene: Scene, name: String) {
        do {
            return (try make(name, factory: factory, display: display, configuration: configuration), name)
        } catch DaemonCommandError.unknownScene(let name) {
            throw .unknownScene(name)
        } catch {
            let fallback = factory.fallbackSceneName
            logger.error("scene: cannot show \(name): \(error); showing \(fallback) instead")
            do {
                return (try make(fallback, factory: factory, display: display, configuration: configuration), fallback)
            } catch {
                throw .notSupported("cannot show \(name), nor \(fallback): \(error)")
            }
        }
    }

    func fits(display: DisplayFacts, configuration: DaemonConfiguration) -> Bool {
        let (w, h) = Self.sceneSize(display: display, configuration: configuration)
        return scene.width == w && scene.height == h
    }

    // MARK: changing scenes

    /// The scene made again for new settings or a new size. The crossfade,
    /// if any, ends at once, and a parked scene no longer fits. False (and
    /// nothing changed) when it cannot be made.
    func rebuild(display: DisplayFacts, configuration: DaemonConfiguration, reason: String) -> Bool {
        guard let made = try? Self.makeOrFallback(name, factory: factory, display: display, configuration: configuration, logger: logger) else {
            tallies.errors[.scene] += 1
            logger.error("scene: \(name) could not be rebuilt (\(reason)); it stays as it was")
            return false
        }
        // The fallback in its place is an error too, as at start.
        if made.name != name { tallies.errors[.scene] += 1 }
        change = nil
        startPicture = nil   // made for the old size
        parked = nil
        (scene, name) = made
        scene.renderThreads = renderThreads
        logger.info("scene: \(name) rebuilt at \(scene.width)x\(scene.height) (\(reason))")
        return true
    }

    /// Shows scene `target`: with a crossfade from what is on screen when
    /// `transition` asks for one and `canFade` (a picture is up to fade
    /// from), else a cut.
    func show(_ target: String, transition: SceneTransition, canFade: Bool, now: Double,
              display: DisplayFacts, configuration: DaemonConfiguration) -> Result<Void, DaemonCommandError> {
        guard factory.names.contains(target) else { return .failure(.unknownScene(target)) }
        let previous = name
        defer {
            // Chosen by hand, or gone back: the exercise no longer goes back by itself.
            if target != factory.exerciseSceneName { (returnScene, parked) = (nil, nil) }
        }
        let incoming: Scene
        if let parked, target == returnScene, exercise != nil {
            incoming = parked
        } else {
            do {
                incoming = try Self.make(target, factory: factory, display: display, configuration: configuration)
                incoming.renderThreads = renderThreads
            } catch {
                tallies.errors[.scene] += 1
                logger.error("scene: cannot show \(target): \(error)")
                return .failure(error as? DaemonCommandError ?? .notSupported("cannot show \(target): \(error)"))
            }
        }
        if transition.kind == .crossfade, canFade {
            crossfade(to: incoming, named: target, transition: transition, now: now, configuration: configuration)
            logger.info("scene: crossfade from \(previous) to \(target)")
        } else {
            change = nil
            scene = incoming
            name = target
            clock = newClock(now: now, configuration: configuration)
            logger.info("scene: cut to \(target) at \(scene.width)x\(scene.height)")
        }
        outbox.emit(.sceneChanged(scene: target, previous: previous, transition: transition))
        return .success(())
    }

    /// The exercise's scene, from the ambient one shown now, which is kept
    /// to go back to. Nothing changes when the exercise is already shown.
    func showExercise(transition: SceneTransition, canFade: Bool, now: Double,
                      display: DisplayFacts, configuration: DaemonConfiguration) -> Result<Void, DaemonCommandError> {
        guard exercise == nil else { return .success(()) }
        let (from, kept) = (name, scene)
        if case .failure(let error) = show(factory.exerciseSceneName, transition: transition, canFade: canFade, now: now,
                                           display: display, configuration: configuration) {
            return .failure(error)
        }
        (returnScene, parked) = (from, kept)
        return .success(())
    }

    /// While the exercise runs, its end leads to `target` (a schedule's
    /// window began meanwhile); false when no exercise will go back anywhere.
    func returnLater(to target: String) -> Bool {
        guard returnScene != nil, exercise != nil else { return false }
        (returnScene, parked) = (target, nil)
        return true
    }

    /// Changes to scene `target` (already built as `incoming`) with a
    /// crossfade from what is on screen now.
    private func crossfade(to incoming: Scene, named target: String, transition: SceneTransition, now: Double,
                           configuration: DaemonConfiguration) {
        let fade = Crossfade(at: now, duration: transition.duration > 0 ? transition.duration : nil,
                             reduceMotion: configuration.settings.reduceMotion)
        if let change {
            if target == change.outgoingName, change.outgoing != nil {
                // Back to the scene being left: the same two scenes, the
                // fade turned around from where it is.
                swap(&scene, &change.outgoing!)
                swap(&clock, &change.outgoingClock)
                change.outgoingName = name
                name = target
                change.fade = change.fade.swapped(at: now)
                return
            }
            // A third scene: the picture now on screen becomes the still
            // starting point, so nothing jumps.
            let frames = change.frames
            frames.mixer.mix(frames.from.pixels, frames.to.pixels, amount: Float(change.fade.amount(at: now)), into: frames.from.pixels)
            self.change = SceneChange(outgoing: nil, name: name, clock: clock, fade: fade, frames: frames)
        } else {
            let frames = TransitionFrames(width: incoming.width, height: incoming.height)
            change = SceneChange(outgoing: scene, name: name, clock: clock, fade: fade, frames: frames)
        }
        scene = incoming
        name = target
        clock = newClock(now: now, configuration: configuration)
    }

    /// The scene comes back from black (the screen powered up) as a
    /// crossfade from a black still picture (the frames are made now and
    /// freed when it ends).
    func fadeInFromBlack(now: Double, transition: SceneTransition, reduceMotion: Bool) {
        let frames = change?.frames ?? TransitionFrames(width: scene.width, height: scene.height)
        FramePlan.clear(frames.from.pixels)
        let fade = Crossfade(at: now, duration: transition.duration > 0 ? transition.duration : nil, reduceMotion: reduceMotion)
        change = SceneChange(outgoing: nil, name: name, clock: clock, fade: fade, frames: frames)
    }

    /// The scene comes up from the picture that was on screen when chakrad
    /// started (a splash, the console; docs/seams.md, Boot): the first
    /// frame is that picture, a crossfade's first step, so nothing black
    /// comes between them. The fade starts with the first frame, not now:
    /// a scene made slowly must not eat its beginning. False (nothing
    /// kept) when the picture is not the scene's size.
    func fadeInFromScreen(_ picture: FrameBuffer, transition: SceneTransition, reduceMotion: Bool) -> Bool {
        guard picture.pixels.width == scene.width, picture.pixels.height == scene.height, picture.pixels.format == .xrgb8888 else { return false }
        startPicture = StartPicture(frames: TransitionFrames(from: picture), transition: transition, reduceMotion: reduceMotion)
        return true
    }

    /// Ends any crossfade at once (the screen going dark); a picture kept
    /// to fade in from is let go of (the screen comes back from black).
    func cancelCrossfade() {
        change = nil
        startPicture = nil
    }

    /// The clock of a scene switched to: from 0 now, or frozen (at the
    /// pinned time with --pin-time, at 0 when paused).
    private func newClock(now: Double, configuration: DaemonConfiguration) -> SceneClock {
        if let pinned = configuration.pinnedTime { return SceneClock(start: now, pinnedAt: pinned) }
        return SceneClock(start: now, pinnedAt: clock.isFrozen ? 0 : nil)
    }

    // MARK: time

    /// Scene time at monotonic `now`.
    func time(at now: Double) -> Double { clock.time(at: now) }

    /// Frames change over time: a crossfade runs, or the scene moves on an
    /// unfrozen clock.
    var animating: Bool { change != nil || startPicture != nil || !scene.isStill && !clock.isFrozen }

    /// A restarted daemon's clock: at scene time `sceneTime` now, frozen
    /// there when `paused` (docs/seams.md).
    func continueClock(at sceneTime: Double, paused: Bool, now: Double) {
        clock = SceneClock(start: now - sceneTime, pinnedAt: paused ? sceneTime : nil)
    }

    /// Pauses or resumes scene time; false when it already was. A pause
    /// asks for one frame, to show exactly the frozen time.
    func setPaused(_ paused: Bool, now: Double) -> Bool {
        guard paused != clock.isFrozen else { return false }
        if paused {
            clock.pause(at: now)
            revision += 1
        } else {
            clock.resume(at: now)
        }
        outbox.emit(.playbackChanged(paused: paused))
        return true
    }

    /// What the next frame shows at `shownAt`; a crossfade whose end this
    /// frame is ends here, and the frame is the scene drawn straight (the
    /// spring settled within a thousandth: it looks the same). Not the
    /// mix: a still scene draws no frame after it, and a mix at 0.999
    /// would stay on screen a level off the scene in places.
    func content(shownAt: Double) -> FramePlan.Content {
        if let start = startPicture {
            startPicture = nil
            let fade = Crossfade(at: shownAt, duration: start.transition.duration > 0 ? start.transition.duration : nil,
                                 reduceMotion: start.reduceMotion)
            change = SceneChange(outgoing: nil, name: "the picture on screen", clock: clock, fade: fade, frames: start.frames)
        }
        guard let change else { return .scene(scene, time: clock.time(at: shownAt)) }
        if change.fade.isFinished(at: shownAt) {
            self.change = nil
            logger.info("scene: crossfade to \(name) done")
            return .scene(scene, time: clock.time(at: shownAt))
        }
        let amount = change.fade.amount(at: shownAt)
        return .crossfade(from: change.outgoing, fromTime: change.outgoingClock.time(at: shownAt), to: scene,
                          toTime: clock.time(at: shownAt), frames: change.frames, amount: Float(amount))
    }

    /// The scene draws with `threads` threads from now on.
    func useThreads(_ threads: Int) {
        renderThreads = threads
        scene.renderThreads = threads
    }
}
