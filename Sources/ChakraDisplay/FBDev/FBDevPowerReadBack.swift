import CDRM
import CLinuxKernel
import ChakraSystem
import Glibc

/// What FBIOBLANK really did, where the framebuffer is DRM's fbdev
/// emulation (/sys/class/graphics/fbN/device/drm/cardM exists): the
/// CRTCs' ACTIVE read through that DRM device. The ioctl alone proves
/// little there: the emulation answers 0 even when it changed nothing (a
/// display server holding DRM master). fbdev itself has no read-back: the
/// sysfs `blank` file reads empty on Linux 6.1.
///
/// The device is opened once and kept open, without DRM master: opening a
/// DRM device nobody is master of makes the opener master, and closing the
/// last descriptor of a device makes the kernel restore the fbdev mode,
/// lit (drm_lastclose), undoing the power-down it was meant to check.
final class FBDevPowerReadBack {
    let device: DRMDevice
    private let atomic: Bool

    /// The DRM device behind the framebuffer at `path`, or nil (not DRM's
    /// emulation, or the device cannot be opened).
    static func open(framebuffer path: String) -> FBDevPowerReadBack? {
        guard let info = try? FileSystem.stat(path), info.st_mode & S_IFMT == S_IFCHR else { return nil }
        let directory = "/sys/class/graphics/fb\(CLinux_minor(info.st_rdev))/device/drm"
        guard let card = (0..<16).first(where: { access("\(directory)/card\($0)", F_OK) == 0 }),
              let device = try? DRMDevice(path: "/dev/dri/card\(card)") else { return nil }
        device.dropMaster()
        return FBDevPowerReadBack(device: device)
    }

    private init(device: DRMDevice) {
        self.device = device
        // ACTIVE is visible to atomic clients only; legacy drivers get DPMS.
        atomic = device.enable(DRM_CLIENT_CAP_ATOMIC)
    }

    /// The emulation powers every CRTC it lit: all inactive when down, one
    /// active when up.
    func check(wanted on: Bool) -> DisplayPowerCheck {
        let probe: KMSProbe
        do { probe = try KMSProbe(device: device, force: false, planes: false) } catch {
            return .failed("cannot read the state back through \(device.path): \(error)")
        }
        var readings: [KMSPowerReading] = []
        if atomic {
            for crtc in probe.topology.crtcIDs {
                guard let active = KMSProbe.properties(fd: device.fd, object: crtc, type: UInt32(DRM_MODE_OBJECT_CRTC))["ACTIVE"] else { continue }
                readings.append(.active(crtc: crtc, value: active.value))
            }
        } else {
            for connector in probe.topology.connectors where connector.currentEncoderID != 0 {
                guard let dpms = KMSProbe.properties(fd: device.fd, object: connector.id, type: UInt32(DRM_MODE_OBJECT_CONNECTOR))["DPMS"] else { continue }
                readings.append(.dpms(connector: connector.id, value: dpms.value))
            }
        }
        return KMSPowerReading.check(readings, wanted: on, through: device.path)
    }
}
