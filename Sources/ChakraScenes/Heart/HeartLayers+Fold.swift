import ChakraRaster

extension HeartLayers {
    /// Places this frame's folded base over the screen (serial, after
    /// `prepare`).
    func placeFolded() {
        folded.place(coveringMinX: 0, minY: 0, maxX: width - 1, maxY: height - 1, factor: foldFactor)
    }

    /// Rows of the folded base, a few per item taken from `counter` (after
    /// `drawBase` and `fillRows`); several threads may call this at once.
    func fold(taking counter: WorkCounter, ringOpacity: Float) {
        let rowsPerItem = 4
        while true {
            let start = counter.take() * rowsPerItem
            guard start < folded.height else { return }
            for j in start..<min(start + rowsPerItem, folded.height) { foldRow(j, ringOpacity: ringOpacity) }
        }
    }

    /// Row j of the folded base: the base resampled at its grid points (the
    /// same bilinear surface: the lattice holds the base's), then the ring
    /// (when folded) and the glow blended over them in order.
    private func foldRow(_ j: Int, ringOpacity: Float) {
        let row = folded.row(j)
        resampleBase(into: row, y: folded.originY + j * folded.factor)
        if ringFolded && ringVisible { blend(ring, opacity: ringOpacity, row: j, into: row) }
        blend(glow, opacity: 1, row: j, into: row)
    }

    /// The base's bilinear surface at screen row y, at every grid point of
    /// the folded base's row: the base's two grid rows around y mixed once
    /// per base column, then each base interval split into factor/fold
    /// factor steps.
    private func resampleBase(into row: UnsafeMutablePointer<RGBA>, y: Int) {
        let b = base.factor, d = folded.factor, steps = b / d
        precondition(b % d == 0 && (folded.originX - base.originX) % d == 0 && (y - base.originY) >= 0,
                     "the folded base's lattice must hold the base's")
        let relative = y - base.originY
        let jb = relative / b
        let fy = Float(relative - jb * b) / Float(b)
        let upper = base.row(jb), lower = base.row(min(jb + 1, base.height - 1))
        let lastColumn = base.width - 1
        @inline(__always) func column(_ i: Int) -> RGBA {
            let c = min(i, lastColumn)
            return upper[c] + (lower[c] - upper[c]) * fy
        }
        Self.interpolateIntervals(into: row, cells: 0..<folded.width, steps: steps, from: (folded.originX - base.originX) / d, column: column)
    }

    /// `cells` of a row on a lattice `steps` times finer than a coarse one,
    /// linear between the coarse columns `column(i)` (already mixed
    /// vertically); `start`: the first cell's index from the coarse
    /// lattice's column 0, in fine cells. Coarse interval by interval, each
    /// column computed once, and within an interval a running sum: one add
    /// a cell (the sum of at most `steps` float steps is off by a few
    /// units in the last place, far under an 8-bit level).
    @inline(__always)
    static func interpolateIntervals(into row: UnsafeMutablePointer<RGBA>, cells: Range<Int>, steps: Int, from start: Int,
                                     column: (Int) -> RGBA) {
        guard !cells.isEmpty else { return }
        var coarse = start / steps, k = start - coarse * steps
        var i = cells.lowerBound
        let inverse = 1 / Float(steps)
        var left = column(coarse)
        while i < cells.upperBound {
            let right = column(coarse + 1), difference = right - left
            let n = min(steps - k, cells.upperBound - i)
            let step = difference * inverse
            var value = left + difference * (Float(k) * inverse)
            for m in 0..<n {
                row[i &+ m] = value
                value += step
            }
            i += n
            k = 0
            coarse += 1
            left = right
        }
    }

    /// `surface` (on the folded base's lattice) at `opacity` over row j of
    /// the folded base, where its row has content: its extent less its hole.
    private func blend(_ surface: Surface, opacity: Float, row j: Int, into row: UnsafeMutablePointer<RGBA>) {
        let d = folded.factor
        precondition(surface.factor == d && (surface.originX - folded.originX) % d == 0 && (surface.originY - folded.originY) % d == 0,
                     "a folded surface must be on the folded base's lattice")
        let js = j - (surface.originY - folded.originY) / d
        guard js >= 0 && js < surface.height else { return }
        let first = Int(surface.rowFirst[js]), last = Int(surface.rowLast[js])
        guard first <= last else { return }
        let offset = (surface.originX - folded.originX) / d
        let source = surface.row(js)
        let holeFirst = Int(surface.holeFirst[js]), holeLast = Int(surface.holeLast[js])
        @inline(__always) func run(_ cells: ClosedRange<Int>) {
            let target = row + offset
            if opacity == 1 {
                for i in cells { target[i] = Colors.over(source[i], target[i]) }
            } else {
                for i in cells { target[i] = Colors.over(source[i] * opacity, target[i]) }
            }
        }
        let lastOnRow = min(last, folded.width - 1 - offset)
        if holeFirst <= holeLast && holeFirst > first && holeLast < lastOnRow {
            run(first...(holeFirst - 1))
            run((holeLast + 1)...lastOnRow)
        } else if first <= lastOnRow {
            run(first...lastOnRow)
        }
    }
}
