// The spiral scene's chosen visual values, transcribed from
// docs/spiral-params.json (schema_version 1), where each is written down
// with its reason. The exercise's own values (geometry, line width, head
// size, colour lead, proximity, timings) come from ChakraConfig.Spiral.
// Lengths in design px (× u on screen), times in seconds.
// `SpiralParametersTests` checks this file against the JSON.

public enum SpiralParameters {
    /// An sRGB colour as 0-255 channels (the JSON's "#rrggbb").
    public typealias Color = (r: Double, g: Double, b: Double)

    /// linear-gradient(to bottom right): the calm scene's.
    public static let background: [(Double, Color)] = [(0.0, (0xff, 0xf7, 0xef)), (0.5, (0xfd, 0xea, 0xdc)), (1.0, (0xf8, 0xdb, 0xd4))]

    public enum Track {
        public static let color: Color = (0xd8, 0xb4, 0xa6)
        public static let opacity = 0.5
    }

    /// Colour by path length / total length.
    public static let progressStops: [(Double, Color)] = [(0.0, (0xf6, 0xb1, 0x7a)), (0.5, (0xee, 0x8c, 0x7c)), (1.0, (0xc9, 0x7a, 0xa8))]

    public enum Head {
        public static let highlightColor: Color = (0xff, 0xfa, 0xf4)
        public static let highlightRadiusFraction = 0.5
        public static let highlightOpacity = 0.85
        /// The highlight's blur relative to its radius.
        public static let highlightBlurFraction = 0.35
        public static let edgeBlur = 1.0
        public static let glowRadiusFactor = 1.6
        public static let glowBlur = 10.0
        public static let glowOpacity = 0.55
    }

    public enum IdleOrb {
        public static let pulseScale = 1.3
        public static let legDuration = 2.0
        public static let glowOpacity = (low: 0.35, high: 0.7)
        public static let reduceMotionGlowOpacity = 0.5
    }

    public enum HoldPulse {
        /// Glow opacity at scale 1 and 3 under reduce motion.
        public static let reduceMotionGlowOpacity = (low: 0.35, high: 0.85)
    }

    public enum Bar {
        public static let width = 220.0, height = 8.0, cornerRadius = 4.0
        public static let trackColor: Color = (0xec, 0xd3, 0xc6)
        public static let fillStops: [(Double, Color)] = [(0.0, (0xf6, 0xb1, 0x7a)), (1.0, (0xee, 0x8c, 0x7c))]
        public static let shimmerColor: Color = (0xff, 0xfa, 0xf4)
        public static let shimmerOpacity = 0.5
        public static let shimmerWidth = 60.0
        public static let shimmerPeriod = 1.8
    }

    public enum Text {
        public static let guidanceSize = 24.0, hintSize = 16.0, counterSize = 30.0
        public static let color: Color = (0x6b, 0x4a, 0x3f)
        public static let hintColor: Color = (0x8c, 0x6b, 0x5f)
        public static let lineHeight = 1.25
        public static let fadeIn = 0.3
    }

    public enum Layout {
        public static let guidanceOffset = 70.0, hintOffset = 45.0, barOffset = 85.0, counterOffset = 125.0
        public static let stackedHalfHeight = 316.0
        public static let sideMinColumn = 150.0
        public static let textMargin = 24.0
        public static let sideGap = 12.0, sideCounterDY = -24.0, sideBarDY = 20.0
        /// Below the outer edge, the stack needs the counter's offset, half its size and 5 px.
        public static let stackedBelowMargin = 5.0
    }

    public enum Celebration {
        public static let particles = 28
        public static let seed: UInt64 = 20251121
        public static let distance = 60.0...200.0
        public static let radius = 3.0...7.0
        /// Blur relative to each particle's radius.
        public static let blurFraction = 0.3
        public static let colors: [Color] = [(0xf6, 0xb1, 0x7a), (0xee, 0x8c, 0x7c), (0xc9, 0x7a, 0xa8), (0xfa, 0xd0, 0x89), (0xf4, 0xa7, 0xb9)]
        /// howruBouncy (docs/design.md, Motion).
        public static let springResponse = 0.4, springDampingFraction = 0.6
        public static let drift = 24.0
        public static let duration = 1.8
        public static let fadeStart = 0.5
    }
}
