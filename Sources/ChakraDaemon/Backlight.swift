import ChakraConfig
import ChakraDisplay
import ChakraSystem
import FoundationEssentials
import Glibc

/// A panel backlight under /sys/class/backlight: `brightness` (0 to
/// `max_brightness`) is written to dim and blank, `bl_power` to switch it
/// off with the display; nothing else is touched. Writing needs
/// permission: chakrad.service's user is in group video, and
/// etc/udev/rules.d/90-chakra-backlight.rules gives that group the files.
/// Owned by the frame loop; used on its thread.
public final class Backlight {
    public let name: String
    public let maxBrightness: Int
    private let brightnessPath: String
    private let powerPath: String

    /// The configured backlight: the named one, the first there is, or
    /// none (`.disabled`, or a machine without one). The reason when a
    /// named one cannot be used.
    public static func open(_ choice: BacklightChoice, root: String = "/sys/class/backlight") -> Result<Backlight?, BacklightError> {
        let name: String
        switch choice {
        case .disabled:
            return .success(nil)
        case .named(let wanted):
            name = wanted
        case .auto:
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
            guard let first = entries.sorted().first(where: { Backlight(root: root, name: $0) != nil }) else { return .success(nil) }
            name = first
        }
        guard let backlight = Backlight(root: root, name: name) else {
            return .failure(BacklightError("backlight '\(name)': no readable \(root)/\(name)/max_brightness"))
        }
        return .success(backlight)
    }

    init?(root: String, name: String) {
        guard let maximum = Self.readInt(root + "/" + name + "/max_brightness"), maximum > 0 else { return nil }
        self.name = name
        maxBrightness = maximum
        brightnessPath = root + "/" + name + "/brightness"
        powerPath = root + "/" + name + "/bl_power"
    }

    /// The level now, in percent.
    public var percent: Int? {
        Self.readInt(brightnessPath).map { BrightnessScale.percent(raw: $0, max: maxBrightness) }
    }

    public func set(percent: Int) throws(BacklightError) {
        try write("\(BrightnessScale.raw(percent: percent, max: maxBrightness))\n", to: brightnessPath)
    }

    /// Switches the backlight off with the display (`bl_power` 4,
    /// FB_BLANK_POWERDOWN; the level in `brightness` is kept for when it
    /// comes back) or on (0, FB_BLANK_UNBLANK), and reads `bl_power` back:
    /// the driver may refuse a value or keep its own.
    public func setPower(on: Bool) -> DisplayPowerReport {
        let value = on ? 0 : 4
        let check: DisplayPowerCheck
        if access(powerPath, F_OK) != 0 {
            check = .unchecked("\(powerPath) does not exist")
        } else {
            do {
                try write("\(value)\n", to: powerPath)
                if let now = Self.readInt(powerPath) {
                    check = now == value ? .confirmed("bl_power=\(now)") : .failed("bl_power reads \(now) after writing \(value)")
                } else {
                    check = .failed("cannot read \(powerPath) back")
                }
            } catch {
                check = .failed(error.description)
            }
        }
        return DisplayPowerReport(part: "backlight", on: on, method: "bl_power", check: check)
    }

    private func write(_ text: String, to path: String) throws(BacklightError) {
        let fd: Int32
        do {
            fd = try Descriptor.open(path, O_WRONLY | O_TRUNC | O_NOFOLLOW)
        } catch {
            throw BacklightError("cannot open \(path): \(error.reason)")
        }
        defer { Descriptor.close(fd) }
        let bytes = Array(text.utf8)
        do {
            try Descriptor.writeAll(fd, bytes, count: bytes.count)
        } catch {
            throw BacklightError("cannot write \(path): \(error.reason)")
        }
    }

    private static func readInt(_ path: String) -> Int? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return Int(text.filter { !$0.isWhitespace })
    }
}

public struct BacklightError: Error, Equatable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
