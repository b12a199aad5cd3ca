import ChakraDisplay
import ChakraRaster
import ChakraScenes
import Glibc

/// One frame as the core decided it: what to draw and for which time. The
/// shell draws it into the output's memory (`render(into:)`) and presents
/// it. Holds references only: making one allocates nothing.
public struct FramePlan {
    public enum Content {
        /// Black (the last frame before the display powers down).
        case black
        /// Nothing drawn: the buffer is presented as it is (`--present-only`).
        case unchanged
        case scene(Scene, time: Double)
        /// The mix of two scenes, `amount` of the incoming one; `from` nil:
        /// the still picture already in `frames.from`.
        case crossfade(from: Scene?, fromTime: Double, to: Scene, toTime: Double, frames: TransitionFrames, amount: Float)
    }

    public let content: Content
    /// Monotonic time the frame will be on screen.
    public let shownAt: Double
    /// How the frame is turned into the output's memory.
    public let rotation: Rotation

    /// Draws the frame into `memory` (the output's draw buffer).
    public func render(into memory: PixelBuffer) {
        switch content {
        case .black:
            Self.clear(memory)
        case .unchanged:
            break
        case .scene(let scene, let time):
            scene.render(time: time, into: memory.rotated(rotation))
        case .crossfade(let from, let fromTime, let to, let toTime, let frames, let amount):
            from?.render(time: fromTime, into: frames.from.pixels)
            to.render(time: toTime, into: frames.to.pixels)
            frames.mixer.mix(frames.from.pixels, frames.to.pixels, amount: amount, into: memory.rotated(rotation))
        }
    }

    /// Black in any format (opaque where there is alpha).
    static func clear(_ buffer: PixelBuffer) {
        let rowBytes = buffer.width * buffer.format.bytesPerPixel
        for y in 0..<buffer.height {
            let row = buffer.base + y * buffer.stride
            memset(row, 0, rowBytes)
            if buffer.format == .argb8888 {
                for x in 0..<buffer.width { row.storeBytes(of: 0xFF, toByteOffset: x * 4 + 3, as: UInt8.self) }
            }
        }
    }
}
