// libdrm (xf86drm.h, xf86drmMode.h) and the fourcc codes. Only
// ChakraDisplay imports this module (the OS boundary, docs/architecture.md).
#ifndef CHAKRA_CDRM_SHIM_H
#define CHAKRA_CDRM_SHIM_H
#include <stdint.h>
#include <errno.h>
#include <string.h>
#include <xf86drm.h>
#include <xf86drmMode.h>
#include <drm_fourcc.h>

// An atomic page flip of one plane to another framebuffer: one object, one
// property. libdrm's drmModeAtomicCommit copies and sorts the request into
// malloc'd arrays on every call; a flip happens every frame and the frame
// loop must not allocate, so the request is built on the stack here.
// Returns 0 or -errno, as the drmModeAtomic* functions do.
static inline int CDRM_atomic_flip(int fd, uint32_t plane_id, uint32_t fb_id_property,
                                   uint32_t fb_id, uint32_t flags, void *user_data) {
    uint32_t objects[1] = { plane_id };
    uint32_t property_counts[1] = { 1 };
    uint32_t properties[1] = { fb_id_property };
    uint64_t values[1] = { fb_id };
    struct drm_mode_atomic request;
    memset(&request, 0, sizeof request);
    request.flags = flags;
    request.count_objs = 1;
    request.objs_ptr = (uint64_t)(uintptr_t)objects;
    request.count_props_ptr = (uint64_t)(uintptr_t)property_counts;
    request.props_ptr = (uint64_t)(uintptr_t)properties;
    request.prop_values_ptr = (uint64_t)(uintptr_t)values;
    request.user_data = (uint64_t)(uintptr_t)user_data;
    return drmIoctl(fd, DRM_IOCTL_MODE_ATOMIC, &request) ? -errno : 0;
}
#endif
