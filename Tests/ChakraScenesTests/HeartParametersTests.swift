import ChakraScenes
import Foundation
import Testing

/// HeartParameters.swift was transcribed by hand from heart-params.json; a
/// copy of the JSON sits beside these tests and every value is checked
/// against it.
@Suite("Heart parameters match heart-params.json")
struct HeartParametersTests {
    typealias P = HeartParameters
    let json: [String: Any]

    init() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: TestFiles.resource("heart-params.json")))
        json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func object(_ key: String) -> [String: Any] { json[key] as? [String: Any] ?? [:] }
    func numbers(_ value: Any?) -> [Double] { (value as? [Any])?.compactMap { ($0 as? NSNumber)?.doubleValue } ?? [] }
    func color(_ c: HeartParameters.Color) -> [Double] { [c.r, c.g, c.b, c.a] }

    @Test func bands() {
        let bands = object("bands")
        let items = bands["items"] as? [[String: Any]] ?? []
        #expect(items.count == P.Bands.items.count)
        #expect((object("bands")["common"] as? [String: Any])?["blur_px"] as? Double == P.Bands.blur)
        for (item, band) in zip(items, P.Bands.items) {
            #expect(item["top_frac"] as? Double == band.topFraction)
            #expect(item["height_frac"] as? Double == band.heightFraction)
            #expect(item["drift_duration_s"] as? Double == band.driftDuration)
            #expect(item["drift_delay_s"] as? Double == band.driftDelay)
            #expect(item["color_duration_s"] as? Double == band.colorDuration)
            let keyframes = (item["drift_keyframes"] as? [[Any]] ?? []).map { [($0[0] as! NSNumber).doubleValue] + numbers($0[1]) }
            #expect(keyframes == band.driftKeyframes.map { [$0.0, $0.1.0, $0.1.1] })
            let palette = bands["palette"] as? [String: Any] ?? [:]
            let cycle = (item["color_cycle"] as? [String] ?? []).map { numbers(palette[$0]) }
            #expect(cycle == band.colorCycle.map(color))
            #expect(numbers(item["color"]) == color(band.colorCycle[0]))
        }
    }

    @Test func particles() {
        let items = object("particles")["items"] as? [[String: Any]] ?? []
        #expect(items.count == P.Particles.items.count)
        for (item, particle) in zip(items, P.Particles.items) {
            #expect(numbers(item["center_offset_px"]) == [particle.centerOffset.0, particle.centerOffset.1])
            #expect(numbers(item["drift_px"]) == [particle.drift.0, particle.drift.1])
            #expect(item["size_px"] as? Double == particle.size && item["blur_px"] as? Double == particle.blur)
            #expect(item["duration_s"] as? Double == particle.duration && item["delay_s"] as? Double == particle.delay)
            #expect(item["twinkle_duration_s"] as? Double == particle.twinkleDuration && item["twinkle_delay_s"] as? Double == particle.twinkleDelay)
            #expect(numbers(item["color"]) == color(particle.color))
            #expect(((item["color_cycle"] as? [[Any]]) ?? []).map(numbers) == (particle.colorCycle ?? []).map(color))
        }
    }

    @Test func focalElements() {
        let ring = object("pulse_echo")
        #expect((ring["stops"] as? [[Any]] ?? []).map { [($0[0] as! NSNumber).doubleValue] + numbers($0[1]) }
                == P.PulseEcho.stops.map { [$0.0] + color($0.1) })
        #expect((ring["opacity_keyframes"] as? [[Any]] ?? []).map(numbers) == P.PulseEcho.opacityKeyframes.map { [$0.0, $0.1] })
        #expect((ring["scale_keyframes"] as? [[Any]] ?? []).map(numbers) == P.PulseEcho.scaleKeyframes.map { [$0.0, $0.1] })
        let glow = object("heart_glow")
        #expect((glow["stops"] as? [[Any]] ?? []).map { [($0[0] as! NSNumber).doubleValue] + numbers($0[1]) }
                == P.HeartGlow.stops.map { [$0.0] + color($0.1) })
        let centre = object("heart_center")
        #expect(numbers((centre["box_shadow"] as? [String: Any])?["color"]) == color(P.HeartCenter.shadowColor))
        #expect((centre["box_shadow"] as? [String: Any])?["blur_px"] as? Double == P.HeartCenter.shadowBlur)
        let shape = object("heart_shape")
        #expect(shape["blur_px"] as? Double == P.HeartShape.blur)
        #expect(numbers((shape["box_shadow"] as? [String: Any])?["color"]) == color(P.HeartShape.shadowColor))
        #expect((shape["stops"] as? [[Any]] ?? []).map { [($0[0] as! NSNumber).doubleValue] + numbers($0[1]) }
                == P.HeartShape.stops.map { [$0.0] + color($0.1) })
        let mist = object("mist")
        #expect(mist["blur_px"] as? Double == P.Mist.blur)
        #expect(numbers(mist["center_frac"]) == [P.Mist.centerFraction.x, P.Mist.centerFraction.y])
        let background = object("background")
        #expect(numbers(background["center_frac"]) == [P.Background.centerFraction.x, P.Background.centerFraction.y])
    }
}
