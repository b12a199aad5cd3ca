// Every number of the calm scene, transcribed from docs/calm-params.json
// (schema_version 1), where each value chosen for this scene is written
// down with its reason; the motion system gives the tokens (docs/design.md)
// (ambient 1.5-3 s linear, breathing ±1.5 px over 2.5-3.5 s). Lengths in
// design px (× u on screen), centres as fractions of the screen, times in
// seconds. `CalmParametersTests` checks this file against the JSON.

public enum CalmParameters {
    /// An sRGB colour as 0-255 channels (the JSON's "#rrggbb").
    public typealias Color = (r: Double, g: Double, b: Double)

    /// linear-gradient(to bottom right): t = (x/W + y/H)/2. Also the whole
    /// reduce-motion frame (StaticGradientBackground).
    public static let gradient: [(Double, Color)] = [(0.0, (0xff, 0xf7, 0xef)), (0.5, (0xfd, 0xea, 0xdc)), (1.0, (0xf8, 0xdb, 0xd4))]

    /// One axis of a blob's drift: linear from `from` to `to` and back
    /// (autoreverse), one leg per `duration`.
    public struct DriftLeg: Sendable {
        public var from: Double, to: Double
        public var duration: Double, delay: Double
    }

    /// The breathing float: y from 0 to `offset` and back, ease-in-out.
    public struct Breathe: Sendable {
        public var offset: Double
        public var duration: Double, delay: Double
    }

    public struct Blob: Sendable {
        public var name: String
        public var color: Color
        public var opacity: Double
        public var radius: Double
        public var centerFraction: (x: Double, y: Double)
        public var blur: Double
        public var driftX: DriftLeg, driftY: DriftLeg
        public var breathe: Breathe
    }

    public static let blobs: [Blob] = [
        Blob(name: "apricot", color: (0xfd, 0xba, 0x8c), opacity: 0.55, radius: 140, centerFraction: (0.22, 0.20), blur: 64,
             driftX: DriftLeg(from: -14, to: 14, duration: 2.8, delay: 0), driftY: DriftLeg(from: -10, to: 10, duration: 3.0, delay: -1.2),
             breathe: Breathe(offset: -1.2, duration: 2.9, delay: 0)),
        Blob(name: "rose", color: (0xf4, 0xa7, 0xb9), opacity: 0.45, radius: 120, centerFraction: (0.80, 0.36), blur: 64,
             driftX: DriftLeg(from: 12, to: -12, duration: 2.4, delay: -0.6), driftY: DriftLeg(from: -14, to: 14, duration: 2.9, delay: -2.0),
             breathe: Breathe(offset: 1.5, duration: 3.3, delay: -0.8)),
        Blob(name: "honey", color: (0xfa, 0xd0, 0x89), opacity: 0.5, radius: 130, centerFraction: (0.30, 0.64), blur: 64,
             driftX: DriftLeg(from: -12, to: 12, duration: 3.0, delay: -1.7), driftY: DriftLeg(from: 12, to: -12, duration: 2.6, delay: -0.3),
             breathe: Breathe(offset: -0.8, duration: 2.6, delay: -1.9)),
        Blob(name: "coral", color: (0xf5, 0xa3, 0x8b), opacity: 0.4, radius: 150, centerFraction: (0.74, 0.84), blur: 64,
             driftX: DriftLeg(from: 16, to: -16, duration: 2.7, delay: -2.3), driftY: DriftLeg(from: -10, to: 10, duration: 2.2, delay: -1.0),
             breathe: Breathe(offset: 1.1, duration: 3.1, delay: -2.6)),
    ]

    /// The ambient token's range for blob legs, and the breathing float's
    /// ranges (docs/design.md, Motion).
    public static let ambientDurations = 1.5...3.0
    public static let breatheOffsets = -1.5...1.5
    public static let breatheDurations = 2.5...3.5
}
