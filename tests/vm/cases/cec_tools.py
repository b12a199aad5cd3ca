#!/usr/bin/env python3
"""A TV on a CEC bus, for 66-cec-vivid (stdlib only, raw ioctls).

vivid gives each HDMI input a CEC adapter that plays the TV (physical
address 0.0.0.0) and each HDMI output one that plays a source on that
TV's bus (1.0.0.0 for the first). chakrad takes an output adapter; this
script is the TV, on the input adapter, in a second process.

  cec_tools.py info DEVICE...
      One line per adapter: driver, name, capabilities, physical address,
      logical addresses.

  cec_tools.py tv DEVICE [MODE] [TRANSITIONS] [hotplug]
      Claims logical address 0 (TV) on DEVICE as its exclusive follower,
      prints "tv: ready ..." and then one line per message it receives:
        rx 40:36 Standby from 4
      Its power starts "on"; Standby makes it "standby", Image View On and
      Text View On make it "on". MODE says how it answers Give Device
      Power Status:
        answer  Report Power Status with its power (default); the first
                TRANSITIONS questions after a change are answered with the
                transition (2 or 3) instead (default 0)
        silent  never: the question is acknowledged and left unanswered
        abort   Feature Abort (unrecognized opcode)
      Each answer is printed too ("tx 04:90:01 Report Power Status
      standby"). With "hotplug" it behaves like the many TVs that drop
      the hotplug line in standby: after Standby, vivid's first HDMI output
      loses its display ("Display Present" off), so the source's adapter
      loses its physical address; after Image View On the display is back
      and the EDID set again, which gives it back 1.0.0.0 ("tv: hotplug
      low" / "tv: hotplug high"). Runs until SIGTERM or SIGINT (then clears
      its logical address: a TV switched off the bus) or 600 s.

Structure layouts and ioctl numbers are those of linux/cec.h and
linux/videodev2.h on 64-bit, computed here with _IOC like the C macros.
"""

import ctypes
import errno
import glob
import fcntl
import os
import signal
import struct
import sys
import time

CEC_CAPS = struct.Struct("32s32sIII")  # driver, name, available_log_addrs, capabilities, version
# log_addr[4], log_addr_mask, cec_version, num_log_addrs, vendor_id, flags, osd_name[15],
# primary_device_type[4], log_addr_type[4], all_device_types[4], features[4][12], padding
CEC_LOG_ADDRS = struct.Struct("4sHBBII15s4s4s4s48sx")
# tx_ts, rx_ts, len, timeout, sequence, flags, msg[16], reply, rx_status, tx_status,
# tx_arb_lost_cnt, tx_nack_cnt, tx_low_drive_cnt, tx_error_cnt, padding
CEC_MSG = struct.Struct("QQIIII16sBBBBBBBx")


def _ioc(direction, number, size):
    return (direction << 30) | (size << 16) | (ord("a") << 8) | number


def _vioc(direction, number, size):
    return (direction << 30) | (size << 16) | (ord("V") << 8) | number


_IOW, _IOR, _IOWR = 1, 2, 3
CEC_ADAP_G_CAPS = _ioc(_IOWR, 0, CEC_CAPS.size)
CEC_ADAP_G_PHYS_ADDR = _ioc(_IOR, 1, 2)
CEC_ADAP_G_LOG_ADDRS = _ioc(_IOR, 3, CEC_LOG_ADDRS.size)
CEC_ADAP_S_LOG_ADDRS = _ioc(_IOWR, 4, CEC_LOG_ADDRS.size)
CEC_TRANSMIT = _ioc(_IOWR, 5, CEC_MSG.size)
CEC_RECEIVE = _ioc(_IOWR, 6, CEC_MSG.size)
CEC_S_MODE = _ioc(_IOW, 9, 4)

V4L2_EDID = struct.Struct("8IP")  # pad, start_block, blocks, reserved[5], edid pointer
VIDIOC_S_CTRL = _vioc(_IOWR, 28, 8)  # struct v4l2_control: id, value
VIDIOC_G_EDID = _vioc(_IOWR, 40, V4L2_EDID.size)
VIDIOC_S_EDID = _vioc(_IOWR, 41, V4L2_EDID.size)
VIDIOC_S_OUTPUT = _vioc(_IOWR, 47, 4)
VIVID_CID_DISPLAY_PRESENT = 0x00F0F000 + 44
# vivid's defaults: input_types 0xe4 makes input 3 the HDMI one,
# output_types 0x02 output 1.
VIVID_HDMI_INPUT, VIVID_HDMI_OUTPUT = 3, 1

CEC_MODE_INITIATOR, CEC_MODE_EXCL_FOLLOWER = 0x01, 0x20
CEC_LOG_ADDR_TYPE_TV, CEC_OP_PRIM_DEVTYPE_TV, CEC_OP_ALL_DEVTYPE_TV = 0, 0, 0x80
CEC_OP_CEC_VERSION_1_4 = 5
CEC_VENDOR_ID_NONE = 0xFFFFFFFF
CEC_TX_STATUS_OK = 0x01

NAMES = {
    0x00: "Feature Abort",
    0x04: "Image View On",
    0x0D: "Text View On",
    0x36: "Standby",
    0x82: "Active Source",
    0x83: "Give Physical Address",
    0x84: "Report Physical Address",
    0x8F: "Give Device Power Status",
    0x90: "Report Power Status",
}
POWER = {0: "on", 1: "standby", 2: "to-on", 3: "to-standby"}


def say(text):
    print(text, flush=True)


def hex_frame(data):
    return ":".join(f"{byte:02x}" for byte in data)


def text(raw):
    return raw.split(b"\0", 1)[0].decode(errors="replace")


def physical(raw):
    return "none" if raw == 0xFFFF else ".".join(f"{(raw >> shift) & 0xF:x}" for shift in (12, 8, 4, 0))


def phys_addr(fd):
    return struct.unpack("H", fcntl.ioctl(fd, CEC_ADAP_G_PHYS_ADDR, b"\0\0"))[0]


def log_addrs(fd):
    return CEC_LOG_ADDRS.unpack(fcntl.ioctl(fd, CEC_ADAP_G_LOG_ADDRS, bytes(CEC_LOG_ADDRS.size)))


def info(paths):
    for path in paths:
        fd = os.open(path, os.O_RDWR)
        try:
            driver, name, available, caps, _ = CEC_CAPS.unpack(fcntl.ioctl(fd, CEC_ADAP_G_CAPS, bytes(CEC_CAPS.size)))
            addrs = log_addrs(fd)
            claimed = [a for a in addrs[0][: addrs[3]] if a != 0xFF]
            say(f"{path}: driver={text(driver)} name={text(name)} available_log_addrs={available} "
                f"caps=0x{caps:x} phys={physical(phys_addr(fd))} log_addrs={claimed} mask=0x{addrs[1]:04x} "
                f"osd_name={text(addrs[6])!r}")
        finally:
            os.close(fd)


def set_log_addrs(fd, tv):
    fields = [bytes(4), 0, 0, 0, 0, 0, bytes(15), bytes(4), bytes(4), bytes(4), bytes(48)]
    if tv:
        fields[2:7] = [CEC_OP_CEC_VERSION_1_4, 1, CEC_VENDOR_ID_NONE, 0, b"vivid TV"]
        fields[7:10] = [bytes([CEC_OP_PRIM_DEVTYPE_TV]), bytes([CEC_LOG_ADDR_TYPE_TV]), bytes([CEC_OP_ALL_DEVTYPE_TV])]
    return CEC_LOG_ADDRS.unpack(fcntl.ioctl(fd, CEC_ADAP_S_LOG_ADDRS, CEC_LOG_ADDRS.pack(*fields)))


def transmit(fd, data):
    frame = CEC_MSG.pack(0, 0, len(data), 0, 0, 0, bytes(data), 0, 0, 0, 0, 0, 0, 0)
    status = CEC_MSG.unpack(fcntl.ioctl(fd, CEC_TRANSMIT, frame))[9]
    name = NAMES.get(data[1], f"opcode 0x{data[1]:02x}")
    detail = f" {POWER[data[2]]}" if data[1] == 0x90 else ""
    say(f"tx {hex_frame(data)} {name}{detail}" + ("" if status & CEC_TX_STATUS_OK else f" (tx_status 0x{status:02x})"))


def video_node(name):
    for entry in sorted(glob.glob("/sys/class/video4linux/video*")):
        with open(f"{entry}/name") as file:
            if file.read().strip() == name:
                return "/dev/" + os.path.basename(entry)
    sys.exit(f"no video node named {name}")


class Hotplug:
    """The hotplug line of vivid's first HDMI output, as its TV would
    drive it: the display absent (no physical address for the source), or
    present with the input's EDID."""

    def __init__(self):
        self.capture = os.open(video_node("vivid-000-vid-cap"), os.O_RDWR)
        self.output = os.open(video_node("vivid-000-vid-out"), os.O_RDWR)
        fcntl.ioctl(self.output, VIDIOC_S_OUTPUT, struct.pack("i", VIVID_HDMI_OUTPUT))
        count = V4L2_EDID.unpack(fcntl.ioctl(self.capture, VIDIOC_G_EDID, V4L2_EDID.pack(VIVID_HDMI_INPUT, 0, 0, 0, 0, 0, 0, 0, 0)))[2]
        self.edid = ctypes.create_string_buffer(count * 128)
        self.blocks = count
        fcntl.ioctl(self.capture, VIDIOC_G_EDID, self._edid_request())

    def _edid_request(self):
        return V4L2_EDID.pack(VIVID_HDMI_INPUT, 0, self.blocks, 0, 0, 0, 0, 0, ctypes.addressof(self.edid))

    def low(self):
        fcntl.ioctl(self.output, VIDIOC_S_CTRL, struct.pack("Ii", VIVID_CID_DISPLAY_PRESENT, 0))
        say("tv: hotplug low")

    def high(self):
        fcntl.ioctl(self.output, VIDIOC_S_CTRL, struct.pack("Ii", VIVID_CID_DISPLAY_PRESENT, 1))
        fcntl.ioctl(self.capture, VIDIOC_S_EDID, self._edid_request())
        say("tv: hotplug high")


def tv(path, mode, transitions, hotplug):
    fd = os.open(path, os.O_RDWR)
    fcntl.ioctl(fd, CEC_S_MODE, struct.pack("I", CEC_MODE_INITIATOR | CEC_MODE_EXCL_FOLLOWER))
    if log_addrs(fd)[3]:
        set_log_addrs(fd, tv=False)  # another run's TV: the kernel wants it cleared first (EBUSY)
    addrs = set_log_addrs(fd, tv=True)
    say(f"tv: ready on {path}, logical {addrs[0][0]}, physical {physical(phys_addr(fd))}, mode {mode}")

    stop = []
    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, lambda *_: stop.append(True))
    power, pending = 0, 0
    deadline = time.monotonic() + 600
    while not stop and time.monotonic() < deadline:
        try:
            frame = CEC_MSG.unpack(fcntl.ioctl(fd, CEC_RECEIVE, CEC_MSG.pack(0, 0, 0, 500, 0, 0, bytes(16), 0, 0, 0, 0, 0, 0, 0)))
        except OSError as error:
            if error.errno in (errno.ETIMEDOUT, errno.EINTR, errno.EAGAIN):
                continue
            raise
        length, sequence, data = frame[2], frame[4], frame[6][: frame[2]]
        if sequence or length < 1:
            continue  # the result of one of our own transmits
        if length < 2:
            say(f"rx {hex_frame(data)} poll from {data[0] >> 4}")
            continue
        initiator, opcode = data[0] >> 4, data[1]
        say(f"rx {hex_frame(data)} {NAMES.get(opcode, f'opcode 0x{opcode:02x}')} from {initiator}"
            + (f" physical {physical(data[2] << 8 | data[3])}" if opcode == 0x82 and length >= 4 else ""))
        if opcode == 0x36 and power != 1:
            power, pending = 1, transitions
            if hotplug:
                hotplug.low()
        elif opcode in (0x04, 0x0D) and power != 0:
            power, pending = 0, transitions
            if hotplug:
                hotplug.high()
        elif opcode == 0x8F and initiator != 0xF:
            if mode == "answer":
                status = power
                if pending:
                    status, pending = (3 if power == 1 else 2), pending - 1
                transmit(fd, [initiator, 0x90, status])
            elif mode == "abort":
                transmit(fd, [initiator, 0x00, 0x8F, 0x00])
    set_log_addrs(fd, tv=False)
    say("tv: stopped")
    os.close(fd)


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "info":
        info(sys.argv[2:])
    elif 3 <= len(sys.argv) <= 6 and sys.argv[1] == "tv":
        mode = sys.argv[3] if len(sys.argv) > 3 else "answer"
        if mode not in ("answer", "silent", "abort"):
            sys.exit(f"unknown mode {mode}")
        if len(sys.argv) > 5 and sys.argv[5] != "hotplug":
            sys.exit(f"unknown option {sys.argv[5]}")
        tv(sys.argv[2], mode, int(sys.argv[4]) if len(sys.argv) > 4 else 0, Hotplug() if len(sys.argv) > 5 else None)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
