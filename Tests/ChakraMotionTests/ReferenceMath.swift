import Foundation

/// Reference computations written independently of ChakraMotion's code paths,
/// so a test compares two different methods rather than one method with itself.
enum ReferenceBezier {
    /// A dense table of points on the curve, from the Bernstein form
    /// B(s) = 3(1−s)²s·P1 + 3(1−s)s²·P2 + s³ (ChakraMotion uses the power
    /// basis and Newton's method instead).
    struct Table {
        let xs: [Double]
        let ys: [Double]

        init(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, samples: Int = 400_000) {
            var xs = [Double](), ys = [Double]()
            xs.reserveCapacity(samples + 1)
            ys.reserveCapacity(samples + 1)
            for i in 0...samples {
                let s = Double(i) / Double(samples)
                xs.append(bernstein(s, x1, x2))
                ys.append(bernstein(s, y1, y2))
            }
            self.xs = xs
            self.ys = ys
        }

        /// y at x: binary search for the bracketing samples, then a straight
        /// line between them (the samples are 2.5e-6 apart in s).
        func y(atX x: Double) -> Double {
            var low = 0, high = xs.count - 1
            while high - low > 1 {
                let middle = (low + high) / 2
                if xs[middle] <= x { low = middle } else { high = middle }
            }
            let span = xs[high] - xs[low]
            let fraction = span == 0 ? 0 : (x - xs[low]) / span
            return ys[low] + (ys[high] - ys[low]) * fraction
        }
    }

    static func bernstein(_ s: Double, _ p1: Double, _ p2: Double) -> Double {
        let u = 1 - s
        return 3 * u * u * s * p1 + 3 * u * s * s * p2 + s * s * s
    }

    /// y at x by plain bisection on s to full precision (no Newton).
    static func yByBisection(_ x: Double, _ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double) -> Double {
        var low = 0.0, high = 1.0
        for _ in 0..<200 {
            let middle = (low + high) / 2
            if bernstein(middle, x1, x2) < x { low = middle } else { high = middle }
        }
        return bernstein((low + high) / 2, y1, y2)
    }
}

/// The damped oscillator m·x'' + c·x' + k·x = 0, solved two more ways.
enum ReferenceOscillator {
    /// Closed form in amplitude–phase (under-damped) and hyperbolic
    /// (over-damped) shape, unlike ChakraMotion's sine/cosine and two-exponential
    /// forms.
    static func closedForm(t: Double, x0: Double, v0: Double,
                           mass: Double, stiffness: Double, damping: Double) -> (x: Double, v: Double) {
        let omega = (stiffness / mass).squareRoot()
        let zeta = damping / (2 * (stiffness * mass).squareRoot())
        let a = zeta * omega
        if zeta < 1 - 1e-12 {
            let omegaD = omega * (1 - zeta * zeta).squareRoot()
            let b = (v0 + a * x0) / omegaD
            let amplitude = (x0 * x0 + b * b).squareRoot()
            let phase = atan2(b, x0)
            let angle = omegaD * t - phase
            let envelope = amplitude * exp(-a * t)
            return (envelope * cos(angle), envelope * (-a * cos(angle) - omegaD * sin(angle)))
        } else if zeta > 1 + 1e-12 {
            let gamma = omega * (zeta * zeta - 1).squareRoot()
            let b = (v0 + a * x0) / gamma
            let e = exp(-a * t)
            let x = e * (x0 * cosh(gamma * t) + b * sinh(gamma * t))
            let dx = e * (x0 * gamma * sinh(gamma * t) + b * gamma * cosh(gamma * t))
            return (x, dx - a * x)
        } else {
            // x = e^(−ωt)·(x0(1 + ωt) + v0·t)
            let e = exp(-omega * t)
            let x = e * (x0 * (1 + omega * t) + v0 * t)
            let dx = e * (x0 * omega + v0)
            return (x, dx - omega * x)
        }
    }

    /// Classic fourth-order Runge–Kutta on (x, v) with a fixed small step.
    static func rk4(t: Double, x0: Double, v0: Double, mass: Double, stiffness: Double,
                    damping: Double, step: Double = 1e-4) -> (x: Double, v: Double) {
        func acceleration(_ x: Double, _ v: Double) -> Double { -(stiffness * x + damping * v) / mass }
        let steps = Int((t / step).rounded())
        let h = t / Double(max(steps, 1))
        var x = x0, v = v0
        for _ in 0..<steps {
            let k1x = v, k1v = acceleration(x, v)
            let k2x = v + h / 2 * k1v, k2v = acceleration(x + h / 2 * k1x, v + h / 2 * k1v)
            let k3x = v + h / 2 * k2v, k3v = acceleration(x + h / 2 * k2x, v + h / 2 * k2v)
            let k4x = v + h * k3v, k4v = acceleration(x + h * k3x, v + h * k3v)
            x += h / 6 * (k1x + 2 * k2x + 2 * k3x + k4x)
            v += h / 6 * (k1v + 2 * k2v + 2 * k3v + k4v)
        }
        return (x, v)
    }
}

func isClose(_ a: Double, _ b: Double, _ tolerance: Double) -> Bool {
    abs(a - b) <= tolerance
}
