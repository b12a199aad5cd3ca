import ChakraDisplay
import ChakraRaster
import ChakraSystem

/// The shell's half of a fresh start's fade (docs/seams.md, Boot): before
/// the first frame, the picture on screen (Plymouth's splash after
/// `plymouth deactivate`, or the console) is copied once into a frame made
/// for it, and the core fades the scene in from it. That frame is the
/// crossfade's `from` and goes when the fade ends; nothing is made per
/// frame. Whatever cannot be read leaves the start as it always was (a
/// cut), with a line in the log saying why.
enum StartPicture {
    static func fadeIn(from output: DisplayOutput, into core: DaemonCore, vtActive: Bool, logger: Logger) {
        let configuration = core.configuration
        let why: String
        if configuration.outputOptions.fadeIn == .off {
            why = "--fade-in off"
        } else if configuration.presentOnly {
            why = "frames are not drawn (--debug-present-only)"
        } else if !vtActive {
            why = "the VT is not in front (the picture there is not the one chakrad will replace)"
        } else if let unreadable = output.pictureOnScreenUnreadable {
            why = "\(unreadable)"
        } else {
            let picture = FrameBuffer(width: core.scene.width, height: core.scene.height, format: .xrgb8888)
            switch output.copyPictureOnScreen(into: picture.pixels, turnedBy: configuration.rotation) {
            case .success(let what) where core.fadeInFromScreen(picture):
                logger.info("start: fading in from the picture on screen (\(what))")
                return
            case .success:
                why = "the first frame is not the scene's (the screen is off)"
            case .failure(let unreadable):
                why = "\(unreadable)"
            }
        }
        logger.info("start: no fade from the picture on screen: \(why)")
    }
}
