import ChakraRaster
import ChakraScenes

/// A crossfade between two scenes in progress: the scene being left keeps
/// running on its own clock (or is a still picture, after a switch to a
/// third scene mid-fade), both are drawn into frames of their own and
/// mixed into the output.
///
/// The two frames and the mixer are made when a crossfade starts (not per
/// frame) and freed when it ends: kept for the next one, they were 16.6 MB
/// at 1920x1080, a third of the daemon's memory, for something that runs a
/// second now and then. Making them costs the fade's first frame about as
/// much as one memset of the two frames.
final class SceneChange {
    /// The scene being left; nil when `from` holds a still picture.
    var outgoing: Scene?
    var outgoingName: String
    var outgoingClock: SceneClock
    var fade: Crossfade
    let frames: TransitionFrames

    init(outgoing: Scene?, name: String, clock: SceneClock, fade: Crossfade, frames: TransitionFrames) {
        (self.outgoing, outgoingName, outgoingClock, self.fade, self.frames) = (outgoing, name, clock, fade, frames)
    }
}

/// Memory for crossfades at one frame size.
final class TransitionFrames {
    let from: FrameBuffer
    let to: FrameBuffer
    let mixer: FrameMixer

    init(width: Int, height: Int) {
        from = FrameBuffer(width: width, height: height, format: .xrgb8888)
        to = FrameBuffer(width: width, height: height, format: .xrgb8888)
        mixer = FrameMixer(maxWidth: width)
    }

    var width: Int { from.pixels.width }
    var height: Int { from.pixels.height }
}

extension FrameLoop {
    /// Changes to scene `name` (already built as `incoming`) with a
    /// crossfade from what is on screen now.
    func crossfade(to incoming: Scene, named name: String, transition: SceneTransition, now: Double) {
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
        clock = newSceneClock(now: now)
    }

    /// The clock of a scene switched to: from 0 now, or frozen (at the
    /// pinned time with --pin-time, at 0 when paused).
    func newSceneClock(now: Double) -> SceneClock {
        if let pinned = configuration.pinnedTime { return SceneClock(start: now, pinnedAt: pinned) }
        return SceneClock(start: now, pinnedAt: clock.isFrozen ? 0 : nil)
    }

    /// Draws the crossfade's frame at `shownAt` into `view`; ends the
    /// change once the fade has settled.
    func drawCrossfade(_ change: SceneChange, at shownAt: Double, into view: PixelBuffer) {
        let frames = change.frames
        if let outgoing = change.outgoing {
            outgoing.render(time: change.outgoingClock.time(at: shownAt), into: frames.from.pixels)
        }
        scene.render(time: clock.time(at: shownAt), into: frames.to.pixels)
        frames.mixer.mix(frames.from.pixels, frames.to.pixels, amount: Float(change.fade.amount(at: shownAt)), into: view)
        if change.fade.isFinished(at: shownAt) {
            sceneChange = nil
            redraw = true   // the next frame, drawn straight, equals the fade's end
            logger.info("scene: crossfade to \(sceneName) done")
        }
    }

    /// Ends any crossfade at once (a rebuild for new settings or a new
    /// screen size, a cut).
    func cancelCrossfade() {
        sceneChange = nil
    }
}
