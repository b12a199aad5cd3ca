import Foundation

/// An independent per-pixel model of the calm scene, read straight from
/// docs/calm-params.json: its own triangle-wave timing (closed form, not
/// keyframes) and brute-force blurs (`DriftDesignModel.blurredOpacity`).
struct CalmDesignModel {
    let json: [String: Any]

    init() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: CalmParametersTests.path))
        json = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
    }

    func double(_ value: Any?) -> Double { (value as! NSNumber).doubleValue }

    /// An autoreversing animation's progress: up over one duration, down
    /// over the next; a negative delay starts it part-way.
    static func triangle(at t: Double, duration: Double, delay: Double) -> Double {
        let legs = (t - delay) / duration
        let leg = legs.rounded(.down)
        let within = legs - leg
        return leg.truncatingRemainder(dividingBy: 2) == 0 ? within : 1 - within
    }

    /// Blob centres in screen px at t.
    func centres(at t: Double, width: Double, height: Double) -> [SIMD2<Double>] {
        let u = min(width, height) / 390
        return (json["blobs"] as! [[String: Any]]).map { blob in
            let drift = blob["drift"] as! [String: Any]
            func axis(_ name: String) -> Double {
                let leg = drift[name] as! [String: Any]
                let p = Self.triangle(at: t, duration: double(leg["duration_s"]), delay: double(leg["delay_s"]))
                return double(leg["from_px"]) + (double(leg["to_px"]) - double(leg["from_px"])) * p
            }
            let breathe = blob["breathe"] as! [String: Any]
            let b = double(breathe["offset_px"]) * referenceEaseInOut(Self.triangle(at: t, duration: double(breathe["duration_s"]), delay: double(breathe["delay_s"])))
            let fraction = (blob["center_frac"] as! [Any]).map(double)
            return SIMD2(fraction[0] * width + axis("x") * u, fraction[1] * height + (axis("y") + b) * u)
        }
    }

    /// The gradient alone at pixel (x, y), 0-1.
    func gradient(x: Int, y: Int, width: Int, height: Int) -> SIMD3<Double> {
        let stops = ((json["gradient"] as! [String: Any])["stops"] as! [[Any]]).map { (double($0[0]), DriftDesignModel.hex($0[1] as! String)) }
        let g = ((Double(x) + 0.5) / Double(width) + (Double(y) + 0.5) / Double(height)) / 2
        let k = g < stops[1].0 ? 0 : 1
        return stops[k].1 + (stops[k + 1].1 - stops[k].1) * ((g - stops[k].0) / (stops[k + 1].0 - stops[k].0))
    }

    /// The colour (0-255) of pixel (x, y) of a width × height frame at t.
    func color(x: Int, y: Int, at t: Double, width: Int, height: Int) -> SIMD3<Double> {
        let (w, h) = (Double(width), Double(height))
        let u = min(w, h) / 390
        var pixel = gradient(x: x, y: y, width: width, height: height)
        let q = SIMD2(Double(x) + 0.5, Double(y) + 0.5)
        for (blob, centre) in zip(json["blobs"] as! [[String: Any]], centres(at: t, width: w, height: h)) {
            let element = DriftDesignModel.Element(centre: centre, radius: double(blob["radius_px"]) * u, sigma: double(blob["blur_px"]) * u,
                                                   color: DriftDesignModel.hex(blob["color"] as! String), opacity: double(blob["opacity"]),
                                                   rotation: 0, paint: { _, _ in 1 })
            let alpha = element.opacity * DriftDesignModel.blurredOpacity(element, at: q, step: u)
            pixel = element.color * alpha + pixel * (1 - alpha)
        }
        return pixel * 255
    }
}
