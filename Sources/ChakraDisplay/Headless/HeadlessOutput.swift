import ChakraPNG
import ChakraRaster
import ChakraSystem

/// No screen: frames are drawn into memory, optionally every Nth written as a
/// PNG (machines with no display, tests, benchmarks). A frame is "shown"
/// when handed over; the loop paces it by timer.
///
/// Owns its frame memory. Writing a PNG allocates and takes milliseconds:
/// only every Nth frame, and only when asked.
public final class HeadlessOutput: DisplayOutput {
    private let frame: FrameBuffer
    private let pngDirectory: String?
    private let pngEvery: Int
    private let logger: Logger
    private var presented = 0
    private var pngFailures = 0

    public init(width: Int, height: Int, format: PixelFormat, pngDirectory: String?, pngEvery: Int, logger: Logger) {
        frame = FrameBuffer(width: width, height: height, format: format)
        self.pngDirectory = pngDirectory
        self.pngEvery = pngDirectory == nil ? 0 : max(pngEvery, 1)
        self.logger = logger
    }

    public var summary: String {
        "headless \(width)x\(height) \(format.rawValue)" + (pngDirectory.map { ", every \(pngEvery) frame(s) to \($0)" } ?? "")
    }
    public var width: Int { frame.pixels.width }
    public var height: Int { frame.pixels.height }
    public var format: PixelFormat { frame.pixels.format }
    public var refreshInterval: Double? { nil }
    public var isVBlankTimed: Bool { false }
    public var usesConsole: Bool { false }
    public var pollDescriptors: [Int32] { [] }
    public var isReady: Bool { !isPoweredDown }
    public var nextMaintenance: Double? { nil }

    public func drawBuffer() -> PixelBuffer { frame.pixels }

    public func present() -> Presentation? {
        presented += 1
        if let pngDirectory, presented % pngEvery == 0 { writePNG(directory: pngDirectory) }
        return Presentation(timestamp: nil)
    }

    private func writePNG(directory: String) {
        let number = String(presented)
        let path = "\(directory)/frame-\(String(repeating: "0", count: max(0, 6 - number.count)))\(number).png"
        do {
            // Through OutputFile, not libpng's file writer: a FIFO or device
            // there would block the frame loop or be written, and a failed
            // write would remove the path.
            try OutputFile.write(PNGImage.encode(PNGImage.RGB(width: width, height: height, bytes: frame.rgbBytes())), to: path)
        } catch {
            pngFailures += 1
            if pngFailures == 1 || pngFailures % 100 == 0 { logger.warning("headless: \(error) (\(pngFailures) failures)") }
        }
    }

    public func handleReadable(descriptor: Int32, now: Double) -> Presentation? { nil }
    public func maintain(now: Double) {}
    public func takeRedrawRequest() -> Bool { false }
    public func suspend() {}
    public func resume() {}

    /// No screen to power: the state is kept so the loop draws nothing
    /// while "off", as on a real display.
    public func setPower(on: Bool) -> DisplayPowerReport {
        isPoweredDown = !on
        return DisplayPowerReport(part: "headless", on: on, method: "none", check: .unchecked("no display to power"))
    }
    public private(set) var isPoweredDown = false
    public func frontBuffer() -> PixelBuffer? { presented > 0 ? frame.pixels : nil }
    public func close() {}
}
