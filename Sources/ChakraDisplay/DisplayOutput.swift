import ChakraRaster

/// A frame on screen: when it became visible, if the output knows (a vblank
/// timestamp on the monotonic clock), else nil ("now, as scheduled").
public struct Presentation: Sendable, Equatable {
    public var timestamp: Double?
    public init(timestamp: Double?) { self.timestamp = timestamp }
}

/// One screen backend (DRM/KMS, fbdev, headless) behind the narrow
/// contract of Plymouth's renderer plugins: hand out memory to draw the next
/// frame into, present it, report when it is on screen, let go of the
/// screen on a VT switch, and put back what was there on close. The
/// renderer never knows which backend it draws for.
///
/// Every method is called from the frame loop's thread only.
public protocol DisplayOutput: AnyObject {
    /// For the log and status: "drm /dev/dri/card0 Virtual-1 1024x768@60 XRGB8888 atomic".
    var summary: String { get }
    /// The screen's memory size in pixels (before any rotation).
    var width: Int { get }
    var height: Int { get }
    var format: PixelFormat { get }
    /// Seconds per refresh of the display, when there is one.
    var refreshInterval: Double? { get }
    /// True when presentations carry real vblank timestamps to pace by.
    var isVBlankTimed: Bool { get }
    /// True for outputs on a console screen (DRM, fbdev): the daemon then
    /// takes the virtual terminal into graphics mode.
    var usesConsole: Bool { get }

    /// Descriptors the loop polls for readability (DRM events, uevents).
    var pollDescriptors: [Int32] { get }
    /// True when a frame can be drawn and presented now (active, connected,
    /// no flip outstanding).
    var isReady: Bool { get }
    /// True while the display is unplugged and the output waits for it.
    var isWaitingForDisplay: Bool { get }

    /// The memory to draw the next frame into; valid until `present()`.
    func drawBuffer() -> PixelBuffer
    /// Shows the frame drawn into `drawBuffer()`. Returns the presentation
    /// when the frame is on screen at once; nil when an event will tell
    /// (`handleReadable`). Failures are the output's to log and recover from.
    func present() -> Presentation?
    /// A polled descriptor is readable: returns a completed presentation.
    func handleReadable(descriptor: Int32, now: Double) -> Presentation?
    /// When `maintain` wants to run next (absolute monotonic time), or nil.
    var nextMaintenance: Double? { get }
    /// Periodic work: recovering a stalled or failed flip, hotplug checks.
    func maintain(now: Double)
    /// True once after the output lost its picture (reconnect, recovery,
    /// VT return): the loop must draw a frame even for a still scene.
    func takeRedrawRequest() -> Bool

    /// The VT was switched away: stop using the screen (drop DRM master).
    func suspend()
    /// The VT is back: take the screen again; the next present re-sets the mode.
    func resume()
    /// Powers the display down (`on: false`: no signal, the panel goes to
    /// standby; `isReady` stays false and nothing is presented until it is
    /// powered up) or up again (the mode set again, a redraw requested), and
    /// reads the state back. Idempotent.
    func setPower(on: Bool) -> DisplayPowerReport
    /// True between `setPower(on: false)` and `setPower(on: true)`.
    var isPoweredDown: Bool { get }
    /// The memory now on screen, for snapshots; nil before the first frame.
    func frontBuffer() -> PixelBuffer?
    /// Puts back what was on screen before (the previous CRTC, the fbdev
    /// panning); releases the device. Idempotent.
    func close()
    /// Before the first frame: copies the picture on screen (a splash, the
    /// console) into `frame`, an XRGB8888 frame of the scene's size, as the
    /// scene would see it turned by `rotation`, for the first frames to
    /// fade from (docs/seams.md, Boot). Says what was read, or why nothing.
    func copyPictureOnScreen(into frame: PixelBuffer, turnedBy rotation: Rotation) -> Result<String, PictureUnreadable>
    /// Why `copyPictureOnScreen` would read nothing, known without a frame
    /// to copy into (nil: it may read one).
    var pictureOnScreenUnreadable: PictureUnreadable? { get }
}

extension DisplayOutput {
    public var isWaitingForDisplay: Bool { false }

    public func copyPictureOnScreen(into frame: PixelBuffer, turnedBy rotation: Rotation) -> Result<String, PictureUnreadable> {
        .failure(pictureOnScreenUnreadable ?? .notOffered("this output does not read the screen"))
    }

    public var pictureOnScreenUnreadable: PictureUnreadable? { .notOffered("this output does not read the screen") }
}

/// How the outputs are opened: the user's choices (the configuration file,
/// with the command line over it).
public struct OutputOptions: Sendable {
    /// The DRM device a previous chakrad left in systemd's store (`drm`,
    /// docs/seams.md): used instead of opening one, its picture continued.
    public var handedOverDRM: Int32?
    /// The framebuffer a previous chakrad left in the store (`fb`): the
    /// fbdev output takes it over when it is the device it would open, with
    /// a descriptor of its own (the caller closes this one once the output
    /// is open), and keeps its picture when the screen info is unchanged.
    public var handedOverFramebuffer: Int32?
    public enum DRMInterface: String, Sendable, CaseIterable { case auto, atomic, legacy }
    /// Page flips where the driver has them (`auto`), or never (`off`):
    /// draw into the buffer on screen and report the damage.
    public enum PageFlips: String, Sendable, CaseIterable { case auto, off }

    public var device: String?
    public var connector: String?
    public var mode: ModeRequest?
    public var format: PixelFormat?
    public var drmInterface: DRMInterface = .auto
    public var pageFlips: PageFlips = .auto
    /// Whether the first frames fade in from the picture on screen when
    /// chakrad starts (`auto`: where it can be read), or cut in (`off`: the
    /// VM case's proof that its check can fail).
    public enum FadeIn: String, Sendable, CaseIterable { case auto, off }
    public var fadeIn: FadeIn = .auto
    public var headlessWidth = 1280
    public var headlessHeight = 720
    public var headlessPNGDirectory: String?
    public var headlessPNGEvery = 0

    public init() {}
}
