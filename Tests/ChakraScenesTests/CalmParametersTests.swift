import ChakraScenes
import Foundation
import Testing

/// CalmParameters.swift transcribes docs/calm-params.json, the scene's
/// written-down choices; every value is checked against the file, and the
/// choices against the ranges the motion design system allows (docs/design.md).
@Suite("Calm parameters match docs/calm-params.json")
struct CalmParametersTests {
    typealias P = CalmParameters
    static let path = TestFiles.resources.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/calm-params.json").path
    let json: [String: Any]

    init() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.path))
        json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func number(_ value: Any?) -> Double? { (value as? NSNumber)?.doubleValue }
    func numbers(_ value: Any?) -> [Double] { (value as? [Any])?.compactMap { ($0 as? NSNumber)?.doubleValue } ?? [] }
    func hex(_ c: P.Color) -> String { String(format: "#%02x%02x%02x", Int(c.r), Int(c.g), Int(c.b)) }
    func leg(_ value: Any?) -> [Double] {
        let leg = value as? [String: Any] ?? [:]
        return [number(leg["from_px"]), number(leg["to_px"]), number(leg["duration_s"]), number(leg["delay_s"])].map { $0 ?? .nan }
    }

    @Test func gradient() {
        let gradient = json["gradient"] as? [String: Any] ?? [:]
        #expect(gradient["kind"] as? String == "linear-gradient to bottom right")
        let stops = gradient["stops"] as? [[Any]] ?? []
        #expect(stops.map { number($0[0]) } == P.gradient.map(\.0))
        #expect(stops.map { $0[1] as? String } == P.gradient.map { hex($0.1) })
    }

    @Test func blobs() {
        let items = json["blobs"] as? [[String: Any]] ?? []
        #expect(items.count == P.blobs.count)
        #expect(json["layers_bottom_to_top"] as? [String] == ["gradient"] + P.blobs.indices.map { "blob\($0 + 1)" })
        for (item, blob) in zip(items, P.blobs) {
            #expect(item["name"] as? String == blob.name)
            #expect(item["color"] as? String == hex(blob.color))
            #expect(number(item["opacity"]) == blob.opacity)
            #expect(number(item["radius_px"]) == blob.radius && number(item["blur_px"]) == blob.blur)
            #expect(numbers(item["center_frac"]) == [blob.centerFraction.x, blob.centerFraction.y])
            let drift = item["drift"] as? [String: Any] ?? [:]
            #expect(leg(drift["x"]) == [blob.driftX.from, blob.driftX.to, blob.driftX.duration, blob.driftX.delay])
            #expect(leg(drift["y"]) == [blob.driftY.from, blob.driftY.to, blob.driftY.duration, blob.driftY.delay])
            let breathe = item["breathe"] as? [String: Any] ?? [:]
            #expect([number(breathe["offset_px"]), number(breathe["duration_s"]), number(breathe["delay_s"])]
                    == [blob.breathe.offset, blob.breathe.duration, blob.breathe.delay])
        }
    }

    @Test("the chosen values keep to the document's tokens")
    func withinTokens() {
        for blob in P.blobs {
            // Ambient: 1500-3000 ms, linear; breathing: ±1.5 px over 2.5-3.5 s.
            #expect(P.ambientDurations.contains(blob.driftX.duration) && P.ambientDurations.contains(blob.driftY.duration))
            #expect(P.breatheOffsets.contains(blob.breathe.offset) && P.breatheDurations.contains(blob.breathe.duration))
            // Slow: under 12 design px/s along each axis.
            #expect(abs(blob.driftX.to - blob.driftX.from) / blob.driftX.duration <= 12)
            #expect(abs(blob.driftY.to - blob.driftY.from) / blob.driftY.duration <= 12)
        }
        #expect(P.ambientDurations == 1.5...3.0 && P.breatheOffsets == -1.5...1.5 && P.breatheDurations == 2.5...3.5)
    }
}
