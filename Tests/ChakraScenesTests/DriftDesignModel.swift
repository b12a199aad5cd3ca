import Foundation

/// An independent per-pixel model of the drift design, read straight from
/// drift-params.json (not from DriftParameters), with its own keyframe
/// evaluation (ease-in-out solved by bisection, `referenceEaseInOut`) and
/// brute-force blurs (each element's paint sampled on a grid and weighted
/// by the 2-D Gaussian). Slow, plain and separate from the renderer's
/// tables, grids and compositor: what a frame must agree with.
struct DriftDesignModel {
    let json: [String: Any]

    init() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: TestFiles.resource("drift-params.json")))
        json = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
    }

    struct Element {
        var centre: SIMD2<Double>
        var radius: Double
        var sigma: Double
        var color: SIMD3<Double>        // 0-1
        var opacity: Double
        /// Turn of the element (radians, clockwise on screen).
        var rotation: Double
        /// The paint's opacity at a point of the element's own box, given
        /// as fractions (0...1) of the box.
        var paint: (Double, Double) -> Double
    }

    static func hex(_ string: String) -> SIMD3<Double> {
        let value = Int(string.dropFirst(), radix: 16)!
        return SIMD3(Double(value >> 16 & 255), Double(value >> 8 & 255), Double(value & 255)) / 255
    }

    func object(_ key: String, in parent: [String: Any]? = nil) -> [String: Any] { (parent ?? json)[key] as! [String: Any] }
    func double(_ value: Any?) -> Double { (value as! NSNumber).doubleValue }
    func doubles(_ value: Any?) -> [Double] { (value as! [Any]).map(double) }

    /// Piecewise keyframes with ease-in-out on each segment.
    static func keyframes(_ keys: [(Double, [Double])], at progress: Double) -> [Double] {
        var index = 0
        while index + 2 < keys.count && progress >= keys[index + 1].0 { index += 1 }
        let (a, b) = (keys[index], keys[index + 1])
        let eased = referenceEaseInOut((progress - a.0) / (b.0 - a.0))
        return zip(a.1, b.1).map { $0 + ($1 - $0) * eased }
    }

    /// Progress of an infinite animation, nil before its delay (fill none).
    static func progress(at t: Double, duration: Double, delay: Double, reversed: Bool = false) -> Double? {
        guard t >= delay else { return nil }
        let p = (t - delay).truncatingRemainder(dividingBy: duration) / duration
        return reversed ? 1 - p : p
    }

    /// The element's centre in its anchored box (Tailwind classes).
    static func anchoredCentre(_ anchor: [String: Any], size: Double, width: Double, height: Double, u: Double) -> SIMD2<Double> {
        let s = size * u
        let x = anchor["left"].map { (($0 as! NSNumber).doubleValue) * u } ?? (width - (anchor["right"] as! NSNumber).doubleValue * u - s)
        let y = anchor["top"].map { (($0 as! NSNumber).doubleValue) * u } ?? (height - (anchor["bottom"] as! NSNumber).doubleValue * u - s)
        return SIMD2(x + s / 2, y + s / 2)
    }

    func elements(at t: Double, width: Double, height: Double) -> [Element] {
        let u = min(width, height) / 390
        let animations = object("animations")
        var result: [Element] = []
        let pulse = object("pulse-glow", in: animations)
        let pulseKeys = (pulse["keyframes_opacity"] as! [[Any]]).map { (double($0[0]), [double($0[1])]) }
        let opacity = Self.progress(at: t, duration: double(pulse["duration_s"]), delay: double(pulse["delay_s"]))
            .map { Self.keyframes(pulseKeys, at: $0)[0] } ?? pulseKeys[0].1[0]
        for item in json["floats"] as! [[String: Any]] {
            let size = double(item["size_px"])
            var centre = Self.anchoredCentre(item["anchor"] as! [String: Any], size: size, width: width, height: height, u: u)
            var scale = 1.0
            let animation = object(item["animation"] as! String, in: animations)
            if let p = Self.progress(at: t, duration: double(item["duration_s"]), delay: double(item["delay_s"])) {
                if let keys = animation["keyframes_translate_px"] as? [[Any]] {
                    let v = Self.keyframes(keys.map { (double($0[0]), doubles($0[1])) }, at: p)
                    centre += SIMD2(v[0], v[1]) * u
                } else {
                    let keys = (animation["keyframes_translate_px_scale"] as! [[Any]]).map { (double($0[0]), doubles($0[1]) + [double($0[2])]) }
                    let v = Self.keyframes(keys, at: p)
                    centre += SIMD2(v[0], v[1]) * u
                    scale = v[2]
                }
            }
            // filter: blur() before the transform: scale grows the blur too.
            result.append(Element(centre: centre, radius: size / 2 * u * scale, sigma: double(item["blur_px"]) * u * scale,
                                  color: Self.hex(item["color"] as! String), opacity: opacity, rotation: 0, paint: { _, _ in 1 }))
        }
        let rotateKeys = (object("rotate-move", in: animations)["keyframes"] as! [[Any]]).map { (double($0[0]), [double($0[1])] + doubles($0[2])) }
        for item in json["decos"] as! [[String: Any]] {
            let size = double(item["size_px"])
            let p = Self.progress(at: t, duration: double(item["duration_s"]), delay: double(item["delay_s"]),
                                  reversed: item["direction"] as! String == "reverse")!
            let v = Self.keyframes(rotateKeys, at: p)
            let a = v[0] * Double.pi / 180
            // rotate(a) translate(x, y): the translation turns with the element.
            let offset = SIMD2(cos(a) * v[1] - sin(a) * v[2], sin(a) * v[1] + cos(a) * v[2]) * size * u
            let centre = Self.anchoredCentre(item["anchor"] as! [String: Any], size: size, width: width, height: height, u: u) + offset
            let from = Self.hex((item["gradient"] as! [String])[0])
            // linear-gradient(to bottom right, C, transparent) in premultiplied
            // space: colour C at opacity 1 − t, t = (x/s + y/s)/2.
            result.append(Element(centre: centre, radius: size / 2 * u, sigma: double(item["blur_px"]) * u, color: from,
                                  opacity: double(item["opacity"]), rotation: a, paint: { x, y in 1 - (x + y) / 2 }))
        }
        return result
    }

    /// The element's blurred opacity at screen point q (brute force, grid
    /// step h screen px).
    static func blurredOpacity(_ e: Element, at q: SIMD2<Double>, step h: Double) -> Double {
        let n = Int((2 * e.radius / h).rounded(.up))
        let offsets = (0..<n).map { -e.radius + (Double($0) + 0.5) * h }
        let c = cos(e.rotation), s = sin(e.rotation)
        var total = 0.0
        for dy in offsets {
            for dx in offsets where dx * dx + dy * dy <= e.radius * e.radius {
                // Screen offset → the element's own (unturned) box fractions.
                let lx = c * dx + s * dy, ly = -s * dx + c * dy
                let paint = e.paint(lx / (2 * e.radius) + 0.5, ly / (2 * e.radius) + 0.5)
                let d = SIMD2(e.centre.x + dx, e.centre.y + dy) - q
                total += paint * exp(-(d * d).sum() / (2 * e.sigma * e.sigma))
            }
        }
        return total * h * h / (2 * Double.pi * e.sigma * e.sigma)
    }

    /// The colour (0-255) of pixel (x, y) of a width × height frame at t.
    func color(x: Int, y: Int, at t: Double, width: Int, height: Int) -> SIMD3<Double> {
        let (w, h) = (Double(width), Double(height))
        let u = min(w, h) / 390
        let q = SIMD2(Double(x) + 0.5, Double(y) + 0.5)
        // Background: t = (x/W + y/H)/2 through the stops.
        let stops = (object("background")["stops"] as! [[Any]]).map { (double($0[0]), Self.hex($0[1] as! String)) }
        let g = (q.x / w + q.y / h) / 2
        let k = g < stops[1].0 ? 0 : 1
        var pixel = stops[k].1 + (stops[k + 1].1 - stops[k].1) * ((g - stops[k].0) / (stops[k + 1].0 - stops[k].0))
        // Grid: the dot nearest the pixel, supersampled 32 × 32.
        let grid = object("grid")
        let tile = double(grid["tile_px"]) * u, radius = double(grid["dot_diameter_px"]) / 2 * u
        let offset = doubles(grid["dot_center_in_tile_px"]).map { $0 * u }
        let dot = SIMD2(((q.x - offset[0]) / tile).rounded() * tile + offset[0], ((q.y - offset[1]) / tile).rounded() * tile + offset[1])
        var covered = 0
        for sy in 0..<32 {
            for sx in 0..<32 {
                let d = SIMD2(Double(x) + (Double(sx) + 0.5) / 32, Double(y) + (Double(sy) + 0.5) / 32) - dot
                if (d * d).sum() <= radius * radius { covered += 1 }
            }
        }
        let gridAlpha = Double(covered) / 1024 * double(grid["layer_opacity"])
        pixel = Self.hex(grid["dot_color"] as! String) * gridAlpha + pixel * (1 - gridAlpha)
        // Floats, then circles, source-over.
        for element in elements(at: t, width: w, height: h) {
            let alpha = element.opacity * Self.blurredOpacity(element, at: q, step: u)
            pixel = element.color * alpha + pixel * (1 - alpha)
        }
        return pixel * 255
    }
}
