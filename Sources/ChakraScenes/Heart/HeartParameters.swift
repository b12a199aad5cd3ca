// Every number of the heart scene, transcribed from heart-params.json
// (schema_version 1), which pins what the heart's design (docs/design.md)
// leaves open. Lengths in design px of the 390×844 phone, times in seconds, colours
// [r, g, b] 0-255 gamma-encoded sRGB with alpha 0-1. The JSON is kept beside
// the tests (Tests/ChakraScenesTests/Resources/heart-params.json) and
// `HeartParametersTests` checks this file against it.

public enum HeartParameters {
    public typealias Color = (r: Double, g: Double, b: Double, a: Double)

    public enum Background {
        public static let centerFraction = (x: 0.40, y: 0.45)
        public static let inner: Color = (35, 18, 55, 1)
        public static let outer: Color = (5, 2, 15, 1)
    }

    public struct Band: Sendable {
        public var topFraction: Double, heightFraction: Double
        public var driftDuration: Double, driftDelay: Double
        /// (key time, (fx, fy)): translate as fractions of the band's own size.
        public var driftKeyframes: [(Double, (Double, Double))]
        public var colorDuration: Double
        public var colorCycle: [Color]
    }

    public enum Bands {
        public static let blur = 39.0
        public static let alpha = 0.28
        public static let colorKeyTimes = [0.0, 0.25, 0.5, 0.75, 1.0]
        public static let teal: Color = (100, 220, 220, 0.28)
        public static let sky: Color = (60, 160, 240, 0.28)
        public static let rose: Color = (255, 100, 180, 0.28)
        public static let amber: Color = (255, 200, 120, 0.28)
        public static let items: [Band] = [
            Band(topFraction: 0.22, heightFraction: 0.16, driftDuration: 48, driftDelay: 2,
                 driftKeyframes: [(0, (-0.06, 0)), (0.25, (0, -0.18)), (0.5, (0.06, 0)), (0.75, (0, 0.18)), (1, (-0.06, 0))],
                 colorDuration: 192, colorCycle: [teal, sky, rose, amber, teal]),
            Band(topFraction: 0.38, heightFraction: 0.14, driftDuration: 36, driftDelay: 0,
                 driftKeyframes: [(0, (0.05, 0)), (0.25, (0, 0.16)), (0.5, (-0.05, 0)), (0.75, (0, -0.16)), (1, (0.05, 0))],
                 colorDuration: 144, colorCycle: [rose, amber, teal, sky, rose]),
            Band(topFraction: 0.55, heightFraction: 0.18, driftDuration: 60, driftDelay: 5,
                 driftKeyframes: [(0, (-0.04, 0)), (0.25, (0.02, -0.2)), (0.5, (0.04, 0)), (0.75, (-0.02, 0.2)), (1, (-0.04, 0))],
                 colorDuration: 240, colorCycle: [amber, teal, sky, rose, amber]),
            Band(topFraction: 0.72, heightFraction: 0.12, driftDuration: 42, driftDelay: 3.5,
                 driftKeyframes: [(0, (0.03, 0)), (0.25, (-0.01, 0.22)), (0.5, (-0.03, 0)), (0.75, (0.01, -0.22)), (1, (0.03, 0))],
                 colorDuration: 168, colorCycle: [sky, rose, amber, teal, sky]),
        ]
    }

    public enum Mist {
        public static let widthFraction = 0.80, heightFraction = 0.70
        public static let centerFraction = (x: 0.40, y: 0.70)
        public static let tealAlpha = 0.25
        public static let tealCycle: [Color] = [(100, 220, 220, 0.25), (60, 160, 240, 0.25), (80, 200, 220, 0.25), (100, 220, 220, 0.25)]
        public static let tealKeyTimes = [0.0, 0.3333333333, 0.6666666667, 1.0]
        public static let tealCycleDuration = 36.0
        public static let indigo: Color = (90, 70, 200, 0.2)
        /// Stop offsets: teal, indigo, transparent, transparent.
        public static let stopOffsets = [0.0, 0.6, 0.9, 1.0]
        public static let blur = 50.0
        public static let rotationDuration = 45.0
        public static let opacityFrom = 0.25, opacityTo = 0.35, opacityDuration = 28.0
    }

    public struct Particle: Sendable {
        public var centerOffset: (Double, Double)
        public var size: Double, blur: Double
        public var drift: (Double, Double)
        public var duration: Double, delay: Double
        public var twinkleDuration: Double, twinkleDelay: Double
        public var color: Color
        public var colorCycle: [Color]?
        public var colorCycleDuration: Double?
    }

    public enum Particles {
        public static let fadeValues = [0.2, 0.8, 0.7, 0.0]
        public static let fadeKeyTimes = [0.0, 0.3, 0.7, 1.0]
        public static let twinkleValues = [0.3, 0.9, 0.3]
        public static let twinkleKeyTimes = [0.0, 0.5, 1.0]
        public static let colorKeyTimes = [0.0, 0.3333333333, 0.6666666667, 1.0]
        public static let items: [Particle] = [
            Particle(centerOffset: (-80, 130), size: 14, blur: 2, drift: (40, -190), duration: 12, delay: 0,
                     twinkleDuration: 4.5, twinkleDelay: 0, color: (255, 230, 120, 1),
                     colorCycle: [(255, 230, 120, 1), (255, 100, 180, 1), (255, 250, 240, 1), (255, 230, 120, 1)], colorCycleDuration: 18),
            Particle(centerOffset: (95, 60), size: 10, blur: 1.5, drift: (-45, -170), duration: 13, delay: 3,
                     twinkleDuration: 5.0, twinkleDelay: 1.0, color: (255, 250, 240, 1), colorCycle: nil, colorCycleDuration: nil),
            Particle(centerOffset: (25, 230), size: 12, blur: 2, drift: (50, -210), duration: 14, delay: 6,
                     twinkleDuration: 5.5, twinkleDelay: 2.0, color: (255, 100, 180, 1),
                     colorCycle: [(255, 100, 180, 1), (100, 220, 220, 1), (255, 230, 120, 1), (255, 100, 180, 1)], colorCycleDuration: 21),
        ]
    }

    public enum PulseEcho {
        /// Width 0.28 dw, height 0.14 dh: semi-axes in design px.
        public static let semiAxes = (x: 0.14 * 390, y: 0.07 * 844)
        public static let stops: [(Double, Color)] = [
            (0, (0, 0, 0, 0)), (0.32, (0, 0, 0, 0)), (0.40, (230, 50, 140, 0.9)),
            (0.46, (210, 40, 130, 0.7)), (0.52, (0, 0, 0, 0)), (1, (0, 0, 0, 0)),
        ]
        public static let blur = 2.0
        public static let duration = 2.5
        public static let scaleKeyframes = [(0.0, 0.6), (1.0, 10.0)]
        public static let opacityKeyframes = [(0.0, 0.0), (0.12, 0.6), (1.0, 0.0)]
    }

    public enum HeartGlow {
        /// Width 0.40 dw, height 0.20 dh.
        public static let semiAxes = (x: 0.20 * 390, y: 0.10 * 844)
        public static let stops: [(Double, Color)] = [
            (0, (255, 230, 120, 0.6)), (0.6, (255, 100, 180, 0.4)), (0.9, (0, 0, 0, 0)), (1, (0, 0, 0, 0)),
        ]
        public static let duration = 2.5
        /// (key time, blur, brightness, opacity)
        public static let keyframes = [(0.0, 20.0, 1.0, 0.6), (0.1, 24.0, 1.2, 0.75), (1.0, 20.0, 1.0, 0.6)]
    }

    public enum HeartShape {
        /// Container 0.24 dw × 0.12 dh centred on the screen.
        public static let container = (width: 0.24 * 390, height: 0.12 * 844)
        /// Each lobe is 0.5 × 0.8 of the container.
        public static let lobeFraction = (width: 0.5, height: 0.8)
        public static let cornerRadius = 0.06 * 390
        public static let gradientRadius = 0.12 * 390
        /// Lobe A (drawn first, the heart's right lobe): box at (0, 0), +45°;
        /// lobe B (on top, the left lobe): box at (0.5 w, 0), −45°; both
        /// about the container point (0.5 w, 0.8 h).
        public static let lobes = [(boxOrigin: (0.0, 0.0), rotation: 45.0, gradientCenter: (0.30, 0.40)),
                                   (boxOrigin: (0.5, 0.0), rotation: -45.0, gradientCenter: (0.70, 0.40))]
        public static let stops: [(Double, Color)] = [
            (0, (255, 250, 240, 1)), (0.3333333333, (255, 230, 120, 1)), (0.6666666667, (255, 100, 180, 1)), (1, (220, 80, 160, 1)),
        ]
        public static let shadowBlur = 20.0
        public static let shadowColor: Color = (255, 100, 180, 0.9)
        public static let blur = 8.0
    }

    public enum HeartCenter {
        /// Width 0.12 dw, height 0.06 dh.
        public static let semiAxes = (x: 0.06 * 390, y: 0.03 * 844)
        public static let stops: [(Double, Color)] = [(0, (255, 255, 255, 1)), (0.5, (255, 250, 240, 1)), (1, (255, 230, 120, 1))]
        public static let shadowBlur = 35.0
        public static let shadowColor: Color = (255, 250, 240, 1)
        public static let duration = 2.5
        /// (key time, scale, blur, brightness)
        public static let keyframes = [(0.0, 1.0, 4.0, 1.0), (0.1, 1.08, 6.0, 1.3), (1.0, 1.0, 4.0, 1.0)]
    }
}
