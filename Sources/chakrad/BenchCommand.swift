import ArgumentParser
import ChakraControl
import ChakraDisplay
import ChakraRaster
import ChakraScenes
import ChakraSpiral
import Dispatch
import Glibc

/// `chakrad bench`: how long a frame takes. A benchmark, not a test: these
/// machines are shared, so it reports medians and p99 and puts each figure
/// next to a floor that the same noise affects, one memcpy of the frame.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "bench", abstract: "Measure frame render times per scene and size.")

    @Option(help: "Scenes to measure (repeatable; default: all).")
    var scene: [OfflineSceneName] = []

    @OptionGroup var spiral: SpiralOptions

    @Option(help: "Frame sizes WIDTHxHEIGHT (repeatable; default 800x480, 1280x720, 1920x1080).")
    var size: [ScreenSize] = []

    @Option(help: "Thread counts to measure (repeatable; default 1 and all cores).")
    var threads: [Int] = []

    @Option(help: "Frames per measurement (at least 300 for a stable p99).")
    var frames = 300

    @OptionGroup var options: SceneSettingsOptions

    @Option(help: "Pixel format of the frame.")
    var format = "XRGB8888"

    @Flag(help: "One JSON object a line per scene, size and thread count (for tools: make bench-report).")
    var json = false

    @Flag(help: "Start frames 1/60 s apart and sleep between them, as the daemon does, instead of back to back: the difference is what waking from idle costs a frame (cold caches, clocks), apart from the drawing.")
    var paced = false

    func validate() throws {
        // The times of every frame are kept (for the p99): a bound, not a huge allocation.
        guard (10...Self.maximumFrames).contains(frames) else { throw ValidationError("--frames must be 10...\(Self.maximumFrames)") }
        guard PixelFormat(rawValue: format.uppercased()) != nil else {
            throw ValidationError("unknown --format '\(format)'; one of \(PixelFormat.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard threads.allSatisfy({ $0 >= 1 && $0 <= 256 }) else { throw ValidationError("--threads must be between 1 and 256") }
    }

    /// A million frames: over four hours of 60 fps.
    static let maximumFrames = 1_000_000

    func run() throws {
        let scenes = scene.isEmpty ? OfflineSceneName.names : scene.map(\.name)
        let sizes = size.isEmpty ? [ScreenSize(width: 800, height: 480), ScreenSize(width: 1280, height: 720), ScreenSize(width: 1920, height: 1080)] : size
        let cores = WorkerPool.coreCount
        let threadCounts = threads.isEmpty ? Array(Set([1, cores])).sorted() : threads
        let pixelFormat = PixelFormat(rawValue: format.uppercased())!
        let mode = [options.reduceMotion ? "reduce-motion" : nil, options.lowPower ? "low-power" : nil].compactMap { $0 }
        if !json {
            print("chakrad bench: \(frames) frames each, \(pixelFormat.rawValue), \(cores) cores\(mode.isEmpty ? "" : ", " + mode.joined(separator: ", "))")
            print(BenchReport.header)
        }
        for name in scenes {
            for screen in sizes {
                let floor = BenchReport.memcpyMilliseconds(bytes: screen.width * screen.height * pixelFormat.bytesPerPixel)
                for count in threadCounts {
                    let renderer: Scene
                    var start = 1.0
                    if name == SpiralScene.name {
                        // The state chosen with --spiral-state (hold by default here: pulse, bar, shimmer, countdown).
                        var chosen = spiral
                        if chosen.spiralState == .idle && !CommandLine.arguments.contains("--spiral-state") { chosen.spiralState = .hold }
                        let (made, reached) = try chosen.makeScene(width: screen.width, height: screen.height, settings: options.settings, threads: count)
                        (renderer, start) = (made, reached)
                    } else {
                        guard let made = SceneCatalog.make(name, width: screen.width, height: screen.height, settings: options.settings, threads: count) else { continue }
                        renderer = made
                    }
                    let frame = FrameBuffer(width: screen.width, height: screen.height, format: pixelFormat)
                    let times = BenchReport.measure(frames: frames, period: paced ? 1.0 / 60 : nil) { index in
                        // Advancing scene times at 60 fps, starting a little in so every layer is moving.
                        renderer.render(time: start + Double(index) / 60, into: frame.pixels)
                    }
                    if json {
                        print(BenchReport.object(scene: name, size: screen, threads: count, times: times, floor: floor,
                                                 format: pixelFormat, cores: cores, mode: mode).encoded)
                    } else {
                        print(BenchReport.row(scene: name, size: screen.description, threads: count, times: times, floor: floor))
                    }
                }
            }
        }
    }
}

enum BenchReport {
    static let header = "scene   size        threads  median ms   p99 ms   memcpy ms   median/memcpy   cpu ms/frame"

    struct Times {
        var wall: [Double]
        var cpuPerFrame: Double
    }

    /// `period`: frames start that many seconds apart, sleeping in between.
    static func measure(frames: Int, period: Double? = nil, _ body: (Int) -> Void) -> Times {
        for index in 0..<10 { body(index) }   // warm caches and tables
        var wall = [Double](repeating: 0, count: frames)
        let cpuStart = cpuSeconds()
        let first = DispatchTime.now().uptimeNanoseconds
        for index in 0..<frames {
            if let period {
                let due = first + UInt64(Double(index) * period * 1e9)
                let now = DispatchTime.now().uptimeNanoseconds
                if due > now { usleep(UInt32((due - now) / 1000)) }
            }
            let start = DispatchTime.now().uptimeNanoseconds
            body(index)
            wall[index] = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        }
        let cpu = (cpuSeconds() - cpuStart) * 1000 / Double(frames)
        return Times(wall: wall.sorted(), cpuPerFrame: cpu)
    }

    static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
    }

    /// Median of 50 copies of a frame-sized buffer: the floor a renderer
    /// that writes every pixel cannot beat.
    static func memcpyMilliseconds(bytes: Int) -> Double {
        let source = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
        let target = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
        defer { source.deallocate(); target.deallocate() }
        memset(source, 1, bytes)
        memset(target, 0, bytes)
        var times: [Double] = []
        for _ in 0..<50 {
            let start = DispatchTime.now().uptimeNanoseconds
            memcpy(target, source, bytes)
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        return percentile(times.sorted(), 0.5)
    }

    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// The same figures for tools: milliseconds rounded to 0.1 µs.
    static func object(scene: String, size: ScreenSize, threads: Int, times: Times, floor: Double,
                       format: PixelFormat, cores: Int, mode: [String]) -> JSONValue {
        func ms(_ value: Double) -> JSONValue { .double((value * 10_000).rounded() / 10_000) }
        return [
            "scene": .string(scene), "width": .int(size.width), "height": .int(size.height), "threads": .int(threads),
            "frames": .int(times.wall.count), "median_ms": ms(percentile(times.wall, 0.5)), "p99_ms": ms(percentile(times.wall, 0.99)),
            "cpu_ms_per_frame": ms(times.cpuPerFrame), "memcpy_ms": ms(floor), "format": .string(format.rawValue),
            "cores": .int(cores), "mode": .array(mode.map { .string($0) }),
        ]
    }

    static func row(scene: String, size: String, threads: Int, times: Times, floor: Double) -> String {
        let median = percentile(times.wall, 0.5), p99 = percentile(times.wall, 0.99)
        func pad(_ s: String, _ n: Int) -> String { s + String(repeating: " ", count: max(0, n - s.count)) }
        return pad(scene, 8) + pad(size, 12) + pad("\(threads)", 9) + pad(String(median, decimals: 2), 12)
            + pad(String(p99, decimals: 2), 9) + pad(String(floor, decimals: 3), 12)
            + pad(String(median / floor, decimals: 1), 16) + String(times.cpuPerFrame, decimals: 2)
    }
}
