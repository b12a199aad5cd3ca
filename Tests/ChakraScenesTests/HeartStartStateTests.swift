import ChakraScenes
import Foundation
import Testing

/// The heart's first frame (issue 31, item 2). The scene at t = 0 must show
/// the design's start state, read here from heart-params.json rather than
/// from HeartParameters: every animation at its 0% keyframe, the delayed
/// ones (band drifts, particle drift/fade/twinkle) by fill-mode backwards,
/// the colour cycles at their first colour. And t = 0 must be the limit of
/// the frames after it: no value may jump between t = 0 and 10 µs later.
/// (The 1.1–1.5-level gap the issue measured at t = 0 was Chromium's, not
/// ours: at currentTime exactly 0 it rasterizes the paused mist rotation on
/// another path; see tools/reference/README.md.)
@Suite("Heart start state at t = 0")
struct HeartStartStateTests {
    let motion = HeartMotion()
    let json: [String: Any]

    init() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: TestFiles.resource("heart-params.json")))
        json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func object(_ key: String, in dictionary: [String: Any]? = nil) -> [String: Any] { (dictionary ?? json)[key] as? [String: Any] ?? [:] }
    func numbers(_ value: Any?) -> [Double] { (value as? [Any])?.compactMap { ($0 as? NSNumber)?.doubleValue } ?? [] }
    func premultiplied(_ c: [Double]) -> SIMD4<Double> { SIMD4(c[0] / 255 * c[3], c[1] / 255 * c[3], c[2] / 255 * c[3], c[3]) }
    func close(_ a: SIMD4<Double>, _ b: SIMD4<Double>, _ tolerance: Double = 1e-9) -> Bool { ((a - b) * (a - b)).sum().squareRoot() < tolerance }
    /// The value of the first keyframe of a [[time, value], ...] list.
    func first(_ keyframes: Any?) -> [String: Any] { ((keyframes as? [[Any]])?.first?[1] as? [String: Any]) ?? [:] }

    @Test("t = 0 is every animation's 0% keyframe, delayed ones included")
    func designStartState() {
        let state = motion.state(at: 0)
        let bands = object("bands"), palette = object("palette", in: bands)
        let bandItems = bands["items"] as? [[String: Any]] ?? []
        #expect(bandItems.count == state.bands.count)
        for (item, band) in zip(bandItems, state.bands) {
            // drift_keyframes[0] = [0.0, [fx, fy]]; shown before drift_delay_s by backwards fill.
            let start = numbers((item["drift_keyframes"] as? [[Any]])?.first?[1])
            #expect(band.translate == SIMD2(start[0], start[1]), "band \(item["id"] ?? "?")")
            let firstColour = (item["color_cycle"] as? [String])?.first ?? ""
            #expect(close(band.color, premultiplied(numbers(palette[firstColour]))), "band \(item["id"] ?? "?")")
        }
        let mist = object("mist")
        let teal = numbers((mist["teal_cycle"] as? [Any])?.first) + [mist["teal_alpha"] as? Double ?? .nan]
        #expect(close(state.mistTeal, premultiplied(teal)))
        #expect(state.mistRotationDegrees == object("rotation", in: mist)["from_deg"] as? Double)
        #expect(state.mistOpacity == object("opacity", in: mist)["from"] as? Double)
        let particles = object("particles"), common = object("common", in: particles)
        let particleItems = particles["items"] as? [[String: Any]] ?? []
        #expect(particleItems.count == state.particles.count)
        for (item, particle) in zip(particleItems, state.particles) {
            #expect(particle.drift == .zero)
            #expect(abs(particle.opacity - numbers(common["fade_values"])[0] * numbers(common["twinkle_values"])[0]) < 1e-12)
            let colour = (item["color_cycle"] as? [Any])?.first ?? item["color"]
            #expect(close(particle.color, premultiplied(numbers(colour))), "particle \(item["id"] ?? "?")")
            #expect(particle.visible)
        }
        let ring = object("pulse_echo")
        #expect(state.ringScale == numbers((ring["scale_keyframes"] as? [Any])?.first)[1])
        #expect(state.ringOpacity == numbers((ring["opacity_keyframes"] as? [Any])?.first)[1])
        let glow = first(object("heart_glow")["keyframes"])
        #expect(state.glowBlur == (glow["blur_px"] as? Double) && state.glowBrightness == (glow["brightness"] as? Double)
                && state.glowOpacity == (glow["opacity"] as? Double))
        let centre = first(object("heart_center")["keyframes"])
        #expect(state.centerScale == (centre["scale"] as? Double) && state.centerBlur == (centre["blur_px"] as? Double)
                && state.centerBrightness == (centre["brightness"] as? Double))
    }

    @Test("t = 0 is the limit of the frames after it; the check can fail")
    func continuousAtZero() {
        func largest<V: SIMD>(_ v: V) -> Double where V.Scalar == Double { v.indices.map { abs(v[$0]) }.max() ?? 0 }
        func largestChange(_ a: HeartState, _ b: HeartState) -> Double {
            var values: [Double] = [abs(a.mistRotationDegrees - b.mistRotationDegrees), abs(a.mistOpacity - b.mistOpacity),
                                    abs(a.ringScale - b.ringScale), abs(a.ringOpacity - b.ringOpacity),
                                    abs(a.glowBlur - b.glowBlur), abs(a.glowBrightness - b.glowBrightness), abs(a.glowOpacity - b.glowOpacity),
                                    abs(a.centerScale - b.centerScale), abs(a.centerBlur - b.centerBlur), abs(a.centerBrightness - b.centerBrightness),
                                    largest(a.mistTeal - b.mistTeal)]
            for (x, y) in zip(a.bands, b.bands) { values += [largest(x.translate - y.translate), largest(x.color - y.color)] }
            for (x, y) in zip(a.particles, b.particles) {
                values += [largest(x.drift - y.drift), abs(x.opacity - y.opacity), largest(x.color - y.color)]
            }
            return values.max() ?? 0
        }
        let zero = motion.state(at: 0)
        // 10 µs: the glow's blur moves 3e-4 design px, the mist turns 8e-5°, the ring grows 7e-5.
        #expect(largestChange(zero, motion.state(at: 1e-5)) < 1e-3)
        // A twentieth of a second later the pulse ring has visibly grown: the comparison sees it.
        #expect(largestChange(zero, motion.state(at: 0.05)) > 0.1)
    }
}
