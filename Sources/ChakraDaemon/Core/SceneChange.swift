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
public final class TransitionFrames {
    public let from: FrameBuffer
    public let to: FrameBuffer
    public let mixer: FrameMixer

    init(width: Int, height: Int) {
        from = FrameBuffer(width: width, height: height, format: .xrgb8888)
        to = FrameBuffer(width: width, height: height, format: .xrgb8888)
        mixer = FrameMixer(maxWidth: width)
    }

    /// Frames that fade from `picture` (an XRGB8888 still), which becomes
    /// `from` itself: the picture read at start is not copied again.
    init(from picture: FrameBuffer) {
        let (width, height) = (picture.pixels.width, picture.pixels.height)
        from = picture
        to = FrameBuffer(width: width, height: height, format: .xrgb8888)
        mixer = FrameMixer(maxWidth: width)
    }

    var width: Int { from.pixels.width }
    var height: Int { from.pixels.height }
}
