// Every number of the drift scene, transcribed from drift-params.json
// (schema_version 1), which pins what the login background's design
// (docs/design.md) leaves open. Lengths in design px (multiplied by u = min(W, H)/390 on screen),
// times in seconds, colours as the JSON's hex. The JSON is kept beside the
// tests (Tests/ChakraScenesTests/Resources/drift-params.json) and
// `DriftParametersTests` checks this file against it.

public enum DriftParameters {
    /// An sRGB colour as 0-255 channels (the JSON's "#rrggbb").
    public typealias Color = (r: Double, g: Double, b: Double)

    /// Which screen edges an element's Tailwind classes measure from.
    public enum Horizontal: Sendable, Equatable { case left(Double), right(Double) }
    public enum Vertical: Sendable, Equatable { case top(Double), bottom(Double) }

    public enum Background {
        /// linear-gradient(to bottom right): t = (x/W + y/H)/2.
        public static let stops: [(Double, Color)] = [(0.0, (0xef, 0xf6, 0xff)), (0.5, (0xff, 0xff, 0xff)), (1.0, (0xee, 0xf2, 0xff))]
    }

    public enum Grid {
        public static let tile = 50.0
        public static let dotDiameter = 1.5
        public static let dotCenterInTile = (x: 0.75, y: 0.75)
        public static let dotColor: Color = (0xc7, 0xd2, 0xfe)
        public static let layerOpacity = 0.4
    }

    public enum FloatAnimation: Sendable { case float, floatSlow }

    public struct FloatingCircle: Sendable {
        public var size: Double
        public var color: Color
        public var horizontal: Horizontal, vertical: Vertical
        /// Shown only without animation (reduce motion): pulse-glow replaces it.
        public var staticOpacity: Double
        public var blur: Double
        public var animation: FloatAnimation
        public var duration: Double, delay: Double
    }

    public static let floats: [FloatingCircle] = [
        FloatingCircle(size: 128, color: (0x60, 0xa5, 0xfa), horizontal: .left(40), vertical: .top(80),
                       staticOpacity: 0.3, blur: 40, animation: .float, duration: 8, delay: 0),
        FloatingCircle(size: 96, color: (0x81, 0x8c, 0xf8), horizontal: .right(80), vertical: .top(160),
                       staticOpacity: 0.4, blur: 40, animation: .float, duration: 10, delay: 1),
        FloatingCircle(size: 80, color: (0xa7, 0x8b, 0xfa), horizontal: .left(80), vertical: .bottom(128),
                       staticOpacity: 0.35, blur: 40, animation: .float, duration: 12, delay: 2),
        FloatingCircle(size: 144, color: (0x3b, 0x82, 0xf6), horizontal: .right(128), vertical: .bottom(80),
                       staticOpacity: 0.3, blur: 40, animation: .floatSlow, duration: 15, delay: 0.5),
    ]

    /// The CSS `float` animation (named so as not to shadow Swift's Float).
    public enum FloatKeyframes {
        /// (key time, (translate x, translate y)) in design px.
        public static let keyframes: [(Double, (Double, Double))] = [
            (0.0, (0, 0)), (0.25, (10, -20)), (0.5, (-10, -10)), (0.75, (5, -15)), (1.0, (0, 0)),
        ]
    }

    /// The CSS `float-slow` animation.
    public enum FloatSlowKeyframes {
        /// (key time, (translate x, translate y), scale).
        public static let keyframes: [(Double, (Double, Double), Double)] = [
            (0.0, (0, 0), 1.0), (0.5, (-20, -30), 1.1), (1.0, (0, 0), 1.0),
        ]
    }

    public enum PulseGlow {
        public static let duration = 3.0, delay = 0.0
        public static let keyframes: [(Double, Double)] = [(0.0, 0.3), (0.5, 0.5), (1.0, 0.3)]
    }

    public enum RotateMove {
        /// (key time, rotation in degrees, (translate x, translate y) as
        /// fractions of the circle's own size).
        public static let keyframes: [(Double, Double, (Double, Double))] = [
            (0.0, 0, (-0.5, -0.5)), (0.25, 90, (-0.3, -0.7)), (0.5, 180, (-0.5, -0.5)),
            (0.75, 270, (-0.7, -0.3)), (1.0, 360, (-0.5, -0.5)),
        ]
    }

    public struct DecorativeCircle: Sendable {
        public var size: Double
        /// linear-gradient(to bottom right, color, transparent) in its own box.
        public var color: Color
        public var horizontal: Horizontal, vertical: Vertical
        public var opacity: Double
        public var blur: Double
        public var duration: Double
        public var reversed: Bool
        public var delay: Double
    }

    public static let decos: [DecorativeCircle] = [
        DecorativeCircle(size: 500, color: (0xbf, 0xdb, 0xfe), horizontal: .right(0), vertical: .top(0),
                         opacity: 0.4, blur: 64, duration: 30, reversed: false, delay: 0),
        DecorativeCircle(size: 400, color: (0xc7, 0xd2, 0xfe), horizontal: .left(0), vertical: .bottom(0),
                         opacity: 0.35, blur: 64, duration: 25, reversed: true, delay: 0),
    ]
}
