// libevdev, and the few evdev and epoll interfaces it does not wrap. Only
// ChakraInput imports this module (the OS boundary, docs/architecture.md).
#ifndef CHAKRA_CEVDEV_SHIM_H
#define CHAKRA_CEVDEV_SHIM_H
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <linux/input.h>
#include <libevdev/libevdev.h>

// input_event's time is `struct timeval time` on 64-bit kernels' ABI and
// `__sec`/`__usec` where userspace has a 64-bit time_t on a 32-bit ABI;
// linux/input.h hides the difference behind the input_event_sec/usec
// macros, which do not import into Swift.
static inline long long CEvdev_event_seconds(const struct input_event *event) {
    return (long long)event->input_event_sec;
}
static inline long CEvdev_event_microseconds(const struct input_event *event) {
    return (long)event->input_event_usec;
}

// Force feedback: EVIOCSFF, EVIOCRMFF and EVIOCGEFFECTS are function-like
// macros (_IOW/_IOR), and struct ff_effect holds a union; libevdev has no
// force-feedback calls. Each returns 0 or more, or -errno.

// Uploads a rumble effect: `id` -1 for a new one (the kernel picks the id,
// returned), or an existing id to change it. Magnitudes 0...0xffff,
// durations in milliseconds.
static inline int CEvdev_upload_rumble(int fd, int id, uint16_t strong, uint16_t weak,
                                       uint16_t length_ms, uint16_t delay_ms) {
    struct ff_effect effect;
    memset(&effect, 0, sizeof effect);
    effect.type = FF_RUMBLE;
    effect.id = (int16_t)id;
    effect.u.rumble.strong_magnitude = strong;
    effect.u.rumble.weak_magnitude = weak;
    effect.replay.length = length_ms;
    effect.replay.delay = delay_ms;
    if (ioctl(fd, EVIOCSFF, &effect) < 0) return -errno;
    return effect.id;
}

static inline int CEvdev_remove_effect(int fd, int id) {
    return ioctl(fd, EVIOCRMFF, (long)id) < 0 ? -errno : 0;
}

// How many effects the device holds at once.
static inline int CEvdev_effect_count(int fd) {
    int count = 0;
    if (ioctl(fd, EVIOCGEFFECTS, &count) < 0) return -errno;
    return count;
}
#endif
