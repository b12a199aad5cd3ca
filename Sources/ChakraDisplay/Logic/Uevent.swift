/// A kernel uevent as read from a NETLINK_KOBJECT_UEVENT socket:
/// "ACTION@DEVPATH" then NUL-separated KEY=VALUE pairs (the kernel's
/// lib/kobject_uevent.c). A DRM connector change is SUBSYSTEM=drm with
/// HOTPLUG=1.
public struct Uevent: Equatable, Sendable {
    public var action: String
    public var devicePath: String
    public var properties: [String: String]

    /// nil for messages that are not kernel uevents (udevd's "libudev"
    /// messages on the other multicast group, junk).
    public init?(datagram: some Collection<UInt8>) {
        let fields = datagram.split(separator: 0, omittingEmptySubsequences: true).map { String(decoding: $0, as: UTF8.self) }
        guard let header = fields.first, let at = header.firstIndex(of: "@") else { return nil }
        action = String(header[..<at])
        devicePath = String(header[header.index(after: at)...])
        var properties: [String: String] = [:]
        for field in fields.dropFirst() {
            guard let equals = field.firstIndex(of: "=") else { continue }
            properties[String(field[..<equals])] = String(field[field.index(after: equals)...])
        }
        self.properties = properties
    }

    /// A display was plugged, unplugged or changed on a DRM device.
    public var isDRMHotplug: Bool {
        properties["SUBSYSTEM"] == "drm" && properties["HOTPLUG"] == "1"
    }
}
