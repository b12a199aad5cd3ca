import ChakraRaster
import Glibc

extension HeartLayers {
    // MARK: - Base: background, bands, mist

    /// The background never changes: a CSS radial-gradient(circle
    /// farthest-corner at 40% 45%) from the inner to the outer violet.
    func drawBackground() {
        let cx = 0.40 * layout.width, cy = 0.45 * layout.height
        let radius = [(0.0, 0.0), (layout.width, 0.0), (0.0, layout.height), (layout.width, layout.height)]
            .map { hypot($0.0 - cx, $0.1 - cy) }.max()!
        let stops = GradientStops([GradientStop(0, RGBA(premultiplied(P.Background.inner))),
                                   GradientStop(1, RGBA(premultiplied(P.Background.outer)))])
        let gradient = RadialGradient(center: Point(cx, cy), radiusX: radius, radiusY: radius, stops: stops)
        for j in 0..<backgroundCache.height {
            for i in 0..<backgroundCache.width {
                backgroundCache[i, j] = gradient.color(atX: backgroundCache.screenX(i), y: backgroundCache.screenY(j))
            }
        }
    }

    /// `time`: the scene time of `state`; `motion` gives the mist at other
    /// times (keyframes), unless `keyframed` is false (the still form).
    func drawBase(_ state: HeartState, time: Double, motion: HeartMotion, keyframed: Bool) {
        base.pixels.update(from: backgroundCache.pixels, count: base.width * base.height)
        drawBands(state)
        drawMist(state, time: time, motion: motion, keyframed: keyframed)
    }

    /// Each band is a full-width box with a transparent → colour →
    /// transparent horizontal gradient, blurred by 39u: its blur is the
    /// product of a blurred triangle in x and a blurred box in y, exact.
    private func drawBands(_ state: HeartState) {
        let w = base.width, h = base.height
        for (b, band) in P.Bands.items.enumerated() {
            let translate = state.bands[b].translate
            let top = band.topFraction * layout.height + translate.y * band.heightFraction * layout.height
            let left = translate.x * layout.width
            for i in 0..<w {
                bandX[b * w + i] = bandAcross.value(at: Double(base.screenX(i)) - left)
            }
            for j in 0..<h {
                bandY[b * h + j] = bandDown[b].value(at: Double(base.screenY(j)) - top)
            }
        }
        let count = P.Bands.items.count
        withUnsafeTemporaryAllocation(of: RGBA.self, capacity: count) { colors in
            withUnsafeTemporaryAllocation(of: Int.self, capacity: count) { shown in
                for b in 0..<count { colors[b] = RGBA(state.bands[b].color) }
                for j in 0..<h {
                    // A band is a horizontal strip: on most rows some bands'
                    // blurred edges have faded below a thousandth of a level.
                    var n = 0
                    for b in 0..<count where bandY[b * h + j] >= Self.bandFaded {
                        shown[n] = b
                        n += 1
                    }
                    guard n > 0 else { continue }
                    let row = base.row(j)
                    for i in 0..<w {
                        var pixel = row[i]
                        for m in 0..<n {
                            let b = shown[m]
                            pixel = Colors.over(colors[b] * (bandX[b * w + i] * bandY[b * h + j]), pixel)
                        }
                        row[i] = pixel
                    }
                }
            }
        }
    }

    /// A band's vertical profile below which its row is left out: times its
    /// alpha (0.28) under 3·10⁻⁶, a thousandth of an 8-bit level.
    static let bandFaded: Float = 1e-5

    /// Seconds between mist keyframes.
    static let mistKeyStep = 0.1

    /// The mist: an 80%×70% box centred at (40%, 70%) with a `to bottom
    /// right` gradient, rotating about its centre, blurred by 50u, at its
    /// animated opacity. Rasterized on the base grid (σ ≈ 3+ cells there).
    ///
    /// Its raster and Gaussian blur were a fixed cost of every frame at any
    /// screen size (1.6 M instructions), for a layer that turns once in 45 s
    /// and changes colour over 36 s. So it is drawn at fixed scene times
    /// `mistKeyStep` apart and a frame mixes the two keyframes around its
    /// time: still a pure function of time (the keyframes sit at multiples
    /// of the step whatever order frames come in), and 5 frames in 6 at
    /// 60 fps draw no mist. Between keyframes a point of the mist moves at
    /// most r·2π/45·0.1 s (14 px at the far corner of 1920x1080) under a
    /// blur of σ = 138 px there: the mix is off the exact mist by about
    /// (Δ/2)²/2·0.24/σ² of its amplitude, a hundredth of a level.
    private func drawMist(_ state: HeartState, time: Double, motion: HeartMotion, keyframed: Bool) {
        let opacity = Float(state.mistOpacity)
        guard keyframed else {
            drawMist(into: mistKeys.0, rotation: state.mistRotationDegrees, teal: state.mistTeal)
            mistKeyIndex = (nil, nil)
            return composite(mistKeys.0, mistKeys.0, fraction: 0, opacity: opacity)
        }
        let position = time / Self.mistKeyStep
        let index = Int(position.rounded(.down))
        let (first, second) = (mistKey(index, keeping: index + 1, motion), mistKey(index + 1, keeping: index, motion))
        composite(first, second, fraction: Float(position - Double(index)), opacity: opacity)
    }

    /// The keyframe surface for `index`, drawn into the slot not holding
    /// `keep` when neither holds it.
    private func mistKey(_ index: Int, keeping keep: Int, _ motion: HeartMotion) -> Surface {
        if mistKeyIndex.0 == index { return mistKeys.0 }
        if mistKeyIndex.1 == index { return mistKeys.1 }
        let t = Double(index) * Self.mistKeyStep
        let rotation = motion.mistRotation.value(at: t, base: 0), teal = motion.mistTeal.value(at: t, base: .zero)
        if mistKeyIndex.0 == keep {
            drawMist(into: mistKeys.1, rotation: rotation, teal: teal)
            mistKeyIndex.1 = index
            return mistKeys.1
        }
        drawMist(into: mistKeys.0, rotation: rotation, teal: teal)
        mistKeyIndex.0 = index
        return mistKeys.0
    }

    private func drawMist(into mist: Surface, rotation degrees: Double, teal: SIMD4<Double>) {
        mist.clear()
        let w = P.Mist.widthFraction * layout.width, h = P.Mist.heightFraction * layout.height
        let centre = Point(P.Mist.centerFraction.x * layout.width, P.Mist.centerFraction.y * layout.height)
        let rotation = Transform.rotation(degrees: degrees, about: centre)
        mistStops.setColor(RGBA(teal), at: 0)
        let box = (x: centre.x - w / 2, y: centre.y - h / 2)
        let paint = Paint.linear(.toBottomRight(boxX: box.x, y: box.y, width: w, height: h, stops: mistStops, transform: rotation))
        withUnsafeTemporaryAllocation(of: Point.self, capacity: 4) { corners in
            corners[0] = rotation.apply(Point(box.x, box.y))
            corners[1] = rotation.apply(Point(box.x + w, box.y))
            corners[2] = rotation.apply(Point(box.x + w, box.y + h))
            corners[3] = rotation.apply(Point(box.x, box.y + h))
            canvas.fillPolygon(UnsafeBufferPointer(corners), paint: paint, on: mist)
        }
        blur.blur(mist, sigma: GaussianBlur.sigma(forScreenSigma: P.Mist.blur * u, factor: mist.factor, boxSampled: true))
    }

    /// The mist `fraction` of the way from `first` to `second`, at
    /// `opacity`, over the base.
    private func composite(_ first: Surface, _ second: Surface, fraction: Float, opacity: Float) {
        let offsetX = (base.originX - first.originX) / base.factor, offsetY = (base.originY - first.originY) / base.factor
        let a = opacity * (1 - fraction), b = opacity * fraction
        for j in 0..<base.height {
            let target = base.row(j), p = first.row(j + offsetY) + offsetX, q = second.row(j + offsetY) + offsetX
            for i in 0..<base.width { target[i] = Colors.over(p[i] * a + q[i] * b, target[i]) }
        }
    }

    // MARK: - Overlays

    /// Places `surface` on a grid of `factor` over the screen rectangle
    /// centre ± half, clipped to the screen; false if nothing is on screen.
    func place(_ surface: Surface, centre: Point, halfX: Double, halfY: Double, factor: Int) -> Bool {
        let minX = max(0, Int((centre.x - halfX).rounded(.down))), maxX = min(width - 1, Int((centre.x + halfX).rounded(.up)))
        let minY = max(0, Int((centre.y - halfY).rounded(.down))), maxY = min(height - 1, Int((centre.y + halfY).rounded(.up)))
        guard minX <= maxX, minY <= maxY else {
            surface.place(width: 1, height: 1, originX: 0, originY: 0, factor: 1)
            surface.clear()
            surface.updateRowExtents()
            return false
        }
        surface.place(coveringMinX: minX, minY: minY, maxX: maxX, maxY: maxY, factor: factor)
        return true
    }

    func gridFactor(screenSigma: Double) -> Int {
        Surface.gridFactor(screenSigma: screenSigma, cellsPerSigma: cellsPerSigma)
    }

    func drawParticle(_ index: Int, _ particle: HeartState.Particle) {
        let item = P.Particles.items[index]
        let table = particleTables[index], surface = particles[index]
        let radius = item.size / 2 * u
        let centre = layout.center + Point(item.centerOffset.0 + particle.drift.x, item.centerOffset.1 + particle.drift.y) * u
        let half = table.reach * radius
        guard place(surface, centre: centre, halfX: half, halfY: half, factor: gridFactor(screenSigma: item.blur * u)) else { return }
        fills[index] = OverlayFill(surface: surface, table: table, centre: centre, a: radius, b: radius, shading: .tinted(RGBA(particle.color)),
                                   threshold: negligible / Float(max(particle.opacity, 1e-3)))
    }

    /// The ring on a grid of `factor` (its own, or the folded base's).
    func drawRing(_ state: HeartState, factor: Int) {
        ringVisible = state.ringOpacity * 0.9 > Double(negligible)
        guard ringVisible else { return }
        let s = state.ringScale
        let a = P.PulseEcho.semiAxes.x * u * s, b = P.PulseEcho.semiAxes.y * u * s
        ringVisible = place(ring, centre: layout.center, halfX: ringTable.reach * a, halfY: ringTable.reach * b, factor: factor)
        guard ringVisible else { return }
        fills[particles.count] = OverlayFill(surface: ring, table: ringTable, centre: layout.center, a: a, b: b, shading: .plain,
                                             threshold: negligible / Float(state.ringOpacity))
        fills[particles.count].folded = ringFolded && foldingEnabled
    }

    /// The glow (animated blur, brightness, opacity) on the folded base's grid.
    func drawGlow(_ state: HeartState) {
        glowTable.select(sigma: state.glowBlur)
        let centre = layout.center
        glow.place(coveringMinX: max(0, Int(centre.x) - glowHalf.x), minY: max(0, Int(centre.y) - glowHalf.y),
                   maxX: min(width - 1, Int(centre.x) + glowHalf.x), maxY: min(height - 1, Int(centre.y) + glowHalf.y), factor: foldFactor)
        fills[particles.count + 1].shading = .glow(brightness: Float(state.glowBrightness), opacity: Float(state.glowOpacity))
        fills[particles.count + 1].active = true
        fills[particles.count + 1].folded = foldingEnabled
    }

    func drawCenter(_ state: HeartState) {
        centerTable.select(sigma: state.centerBlur)
        let s = state.centerScale
        var fill = OverlayFill(surface: centerHalo, table: centerTable, centre: layout.center,
                               a: P.HeartCenter.semiAxes.x * u * s, b: P.HeartCenter.semiAxes.y * u * s,
                               shading: .brightened(Float(state.centerBrightness)), threshold: negligible)
        // The halo's grid first (every cell read may be, so none is stale),
        // then the centre's rows interpolate it (`fillRows`).
        centerHalo.clear()
        for j in 0..<centerHalo.height { fillRow(fill, j) }
        fill.surface = center
        fill.interpolatesHalo = true
        fills[particles.count + 2] = fill
    }

    /// Evaluates rows part, part + parts, ... of every active overlay fill;
    /// threads take different parts.
    /// Evaluates the active overlays' rows, a few rows per item taken from
    /// `counter`; several threads may call this at once.
    func fillRows(taking counter: WorkCounter) {
        let rowsPerItem = 4
        while true {
            var item = counter.take()
            var found = false
            for fill in fills where fill.active {
                let rows = fill.surface.height
                let items = (rows + rowsPerItem - 1) / rowsPerItem
                if item < items {
                    for j in (item * rowsPerItem)..<min((item + 1) * rowsPerItem, rows) { fillRow(fill, j) }
                    found = true
                    break
                }
                item -= items
            }
            if !found { return }
        }
    }

    private func fillRow(_ fill: OverlayFill, _ j: Int) {
        // Not retained: the layers own both for their lifetime (a retain and
        // a release per row were 2 % of the heart's frame).
        unowned(unsafe) let surface = fill.surface, table = fill.table
        let y = (surface.screenY(j) - fill.cy) * fill.ib
        let row = surface.row(j)
        let x0 = (surface.screenX(0) - fill.cx) * fill.ia, dx = Float(surface.factor) * fill.ia
        if fill.interpolatesHalo { return fillCenterRow(fill, j, y: y, x0: x0, dx: dx) }
        // Only cells between the table's clear radii are evaluated (a ring's
        // hole and the box's corners are most of its cells); the rest are
        // transparent.
        let (visible, hole) = Self.visibleCells(x0: x0, dx: dx, y: y, width: surface.width,
                                                clearInside: table.clearInside, clearOutside: table.clearOutside)
        // Cells outside `visible` and in the hole are clear. Only the ones
        // read later need zeroing: the hole (its extent is scanned) and one
        // cell either side of `visible` (the upsampling reads one column
        // past the content).
        if visible.lowerBound > 0 { row[visible.lowerBound - 1] = .zero }
        if visible.upperBound < surface.width { row[visible.upperBound] = .zero }
        let inside = hole.clamped(to: visible)
        if !inside.isEmpty { (row + inside.lowerBound).update(repeating: .zero, count: inside.count) }
        if hole.isEmpty {
            fillCells(fill, row: row, j: j, cells: visible, x0: x0, dx: dx, y: y)
        } else {
            // Left of the hole, then right of it (each clipped to `visible`).
            let leftEnd = max(min(hole.lowerBound, visible.upperBound), visible.lowerBound)
            let rightStart = min(max(hole.upperBound, visible.lowerBound), visible.upperBound)
            fillCells(fill, row: row, j: j, cells: visible.lowerBound..<leftEnd, x0: x0, dx: dx, y: y)
            fillCells(fill, row: row, j: j, cells: rightStart..<visible.upperBound, x0: x0, dx: dx, y: y)
        }
        // Only `visible` was drawn; the rest of the row is clear.
        if fill.folded {
            surface.setRowExtent(j, cells: visible, hole: inside)
        } else {
            surface.updateRowExtent(j, threshold: fill.threshold, within: visible)
        }
    }

    /// A row of the centre: cells within `haloRadius.outer` evaluated, the
    /// rest interpolated from the halo's grid, and between the two radii the
    /// one mixed into the other, so no edge shows where they meet. Beyond
    /// the inner radius the centre is its box-shadow blurred by σ 17.5u:
    /// its grid at two cells a σ is as good as any soft layer's, for a
    /// fifth of the cells evaluated.
    private func fillCenterRow(_ fill: OverlayFill, _ j: Int, y: Float, x0: Float, dx: Float) {
        // Not retained: the layers own both for their lifetime (a retain and
        // a release per row were 2 % of the heart's frame).
        unowned(unsafe) let surface = fill.surface, table = fill.table
        let row = surface.row(j)
        let (visible, _) = Self.visibleCells(x0: x0, dx: dx, y: y, width: surface.width, clearInside: 0, clearOutside: table.clearOutside)
        if visible.lowerBound > 0 { row[visible.lowerBound - 1] = .zero }
        if visible.upperBound < surface.width { row[visible.upperBound] = .zero }
        let (evaluated, _) = Self.visibleCells(x0: x0, dx: dx, y: y, width: surface.width, clearInside: 0,
                                               clearOutside: haloRadius.outer)
        let direct = evaluated.clamped(to: visible)
        interpolateHalo(into: row, j: j, cells: visible.lowerBound..<max(direct.lowerBound, visible.lowerBound))
        interpolateHalo(into: row, j: j, cells: min(direct.upperBound, visible.upperBound)..<visible.upperBound)
        if !direct.isEmpty {
            // The mix: from the evaluated value at the inner radius to the
            // interpolated one at the outer.
            let (inner, outer) = haloRadius
            let y2 = y * y, scale = 1 / (outer - inner)
            let halo = centerScratch.row(j)
            interpolateHalo(into: halo, j: j, cells: direct)
            fillCells(fill, row: row, j: j, cells: direct, x0: x0, dx: dx, y: y)
            for i in direct {
                let x = x0 + Float(i) * dx
                let r = (x * x + y2).squareRoot()
                guard r > inner else { continue }
                let w = min((r - inner) * scale, 1)
                row[i] = row[i] + (halo[i] - row[i]) * w
            }
        }
        surface.updateRowExtent(j, threshold: fill.threshold, within: visible)
    }

    /// Centre cells `cells` of grid row j, bilinear from the halo's grid:
    /// halo interval by halo interval (the halo's factor is a multiple of
    /// the centre's), each interval's ends mixed down once.
    private func interpolateHalo(into row: UnsafeMutablePointer<RGBA>, j: Int, cells: Range<Int>) {
        guard !cells.isEmpty else { return }
        let halo = centerHalo, f = halo.factor, steps = f / center.factor
        let yRelative = center.originY + j * center.factor - halo.originY
        let jh = yRelative / f
        let fy = Float(yRelative - jh * f) / Float(f)
        let upper = halo.row(jh), lower = halo.row(min(jh + 1, halo.height - 1))
        let first = (center.originX - halo.originX) / center.factor + cells.lowerBound   // in centre cells from the halo's origin
        @inline(__always) func column(_ i: Int) -> RGBA { upper[i] + (lower[i] - upper[i]) * fy }
        Self.interpolateIntervals(into: row, cells: cells, steps: steps, from: first, column: column)
    }

    /// The table's values for `cells` of grid row j (four a step), then the
    /// fill's shading.
    @inline(__always)
    private func fillCells(_ fill: OverlayFill, row: UnsafeMutablePointer<RGBA>, j: Int, cells: Range<Int>, x0: Float, dx: Float, y: Float) {
        unowned(unsafe) let table = fill.table
        table.evaluate(into: row, cells: cells, x0: x0, dx: dx, y: y)
        switch fill.shading {
        case .plain:
            break
        case .tinted(let color):
            for i in cells { row[i] = color * row[i].w }
        case .brightened(let k):
            for i in cells { row[i] = Colors.brightness(row[i], k) }
        case .glow(let k, let opacity):
            for i in cells { row[i] = Colors.brightness(row[i], k) * opacity }
        }
    }

    /// Cells of a grid row (normalised x = x0 + i·dx at normalised y) that
    /// may be visible: radius below `clearOutside`, minus the `hole` of
    /// cells with radius below `clearInside`. Each bound is widened by a
    /// cell, so float rounding can only make the evaluated set larger.
    static func visibleCells(x0: Float, dx: Float, y: Float, width: Int, clearInside: Float, clearOutside: Float) -> (visible: Range<Int>, hole: Range<Int>) {
        let all = 0..<width
        guard clearOutside.isFinite else { return (all, 0..<0) }
        let outer2 = clearOutside * clearOutside - y * y
        guard outer2 > 0 else { return (0..<0, 0..<0) }
        let w = outer2.squareRoot()
        func cell(_ x: Float) -> Int { Int(max(min((x - x0) / dx, Float(width + 1)), -2).rounded(.down)) }
        let visible = max(cell(-w) - 1, 0)..<min(cell(w) + 2, width)
        let inner2 = clearInside * clearInside - y * y
        guard inner2 > 0, !visible.isEmpty else { return (visible, 0..<0) }
        let h = inner2.squareRoot()
        let holeStart = cell(-h) + 2, holeEnd = cell(h)
        return (visible, holeStart < holeEnd ? holeStart..<holeEnd : 0..<0)
    }
}

/// One overlay to evaluate from an elliptical table this frame.
struct OverlayFill {
    enum Shading {
        case plain
        case tinted(RGBA)                       // colour × the table's alpha
        case brightened(Float)                  // CSS brightness(k)
        case glow(brightness: Float, opacity: Float)   // brightness(k), then the opacity
    }
    unowned(unsafe) var surface: Surface
    unowned(unsafe) var table: BlurredEllipse
    var cx: Float, cy: Float, ia: Float, ib: Float
    var shading: Shading
    var threshold: Float
    var active: Bool
    /// The centre: cells beyond the halo radius interpolated (`fillCenterRow`).
    var interpolatesHalo = false
    /// Folded into the base (`HeartLayers.fold`): its cells are blended at
    /// grid points, so its rows' extents are the cells drawn, not scanned.
    var folded = false

    init(surface: Surface, table: BlurredEllipse, centre: Point, a: Double, b: Double, shading: Shading, threshold: Float) {
        self.surface = surface
        self.table = table
        (cx, cy, ia, ib) = (Float(centre.x), Float(centre.y), Float(1 / a), Float(1 / b))
        self.shading = shading
        self.threshold = threshold
        active = true
    }
}
