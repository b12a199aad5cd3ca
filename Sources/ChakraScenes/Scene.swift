import ChakraRaster

/// How a scene should render: the user's accessibility and power settings.
public struct RenderSettings: Sendable, Equatable {
    /// Non-essential motion stops; the scene shows a still, composed frame
    /// (docs/design.md, Reduce motion).
    public var reduceMotion: Bool
    /// Fewer effects, coarser blurred layers (docs/design.md, Low power).
    public var lowPower: Bool

    public init(reduceMotion: Bool = false, lowPower: Bool = false) {
        self.reduceMotion = reduceMotion
        self.lowPower = lowPower
    }
}

/// A scene renders frames as a pure function of time: it takes the scene
/// time, never reads a clock, and gives the same pixels for the same time,
/// size and settings.
///
/// Ownership: a scene is built for one screen size and settings; it owns
/// every buffer its frames need (allocated in init) and allocates nothing
/// in `render`. Not thread-safe: one caller renders at a time (it may use
/// a `WorkerPool` internally).
public protocol Scene: AnyObject {
    static var name: String { get }
    var width: Int { get }
    var height: Int { get }
    var settings: RenderSettings { get }
    /// True when every frame is the same (reduce motion): the caller may
    /// show one frame and stop rendering.
    var isStill: Bool { get }
    /// Draws the frame at scene time `time` (seconds) into `output`.
    func render(time: Double, into output: PixelBuffer)
    /// The scene's threads (made with the `threads` it was given).
    var pool: WorkerPool { get }
}

extension Scene {
    /// The threads a frame is spread over: up to the `threads` the scene was
    /// made with; fewer cost less CPU, more finish sooner.
    public var renderThreads: Int {
        get { pool.activeThreads }
        set { pool.activeThreads = newValue }
    }
}

/// Where the 390×844 design lands on a W×H screen (docs/design.md, Layout): focal elements
/// scale with u = min(W, H)/390 around the screen centre; full-screen
/// layers use fractions of the real screen.
public struct DesignLayout: Sendable, Equatable {
    public static let designWidth = 390.0, designHeight = 844.0
    public let width: Double, height: Double
    /// Screen pixels per design pixel.
    public let u: Double
    public init(width: Int, height: Int) {
        self.width = Double(width)
        self.height = Double(height)
        u = Double(min(width, height)) / Self.designWidth
    }
    /// The design phone's width and height in screen pixels.
    public var dw: Double { Self.designWidth * u }
    public var dh: Double { Self.designHeight * u }
    public var center: Point { Point(width / 2, height / 2) }
}

/// The ambient scenes by name. The spiral needs the daemon's text and
/// session settings, so `DaemonScenes` adds it to these.
public enum SceneCatalog {
    public static let names = ["heart", "drift", "calm"]

    public static func make(_ name: String, width: Int, height: Int, settings: RenderSettings, threads: Int = 1) -> Scene? {
        switch name {
        case HeartScene.name: HeartScene(width: width, height: height, settings: settings, threads: threads)
        case DriftScene.name: DriftScene(width: width, height: height, settings: settings, threads: threads)
        case CalmScene.name: CalmScene(width: width, height: height, settings: settings, threads: threads)
        default: nil
        }
    }
}
