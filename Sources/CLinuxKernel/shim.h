// Kernel interfaces Glibc's Swift module does not bring in: the legacy
// framebuffer (linux/fb.h), the console (linux/kd.h, linux/vt.h), HDMI-CEC
// adapters (linux/cec.h, which needs sys/ioctl.h before it), signalfd,
// timerfd, eventfd, kobject uevents, memfd and the ancillary data that
// carries descriptors over Unix sockets (SCM_RIGHTS). Header-only: nothing to link. Imported by
// ChakraSystem (signalfd, eventfd, thread names and ids) and ChakraDisplay.
#ifndef CHAKRA_CLINUXKERNEL_SHIM_H
#define CHAKRA_CLINUXKERNEL_SHIM_H
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/timerfd.h>
#include <linux/cec.h>
#include <linux/fb.h>
#include <linux/kd.h>
#include <linux/memfd.h>
#include <linux/netlink.h>
#include <linux/vt.h>

// ioctl is variadic in C, which Swift cannot call: one wrapper per
// argument kind.
static inline int CLinux_ioctl_pointer(int fd, unsigned long request, void *argument) {
    return ioctl(fd, request, argument);
}
static inline int CLinux_ioctl_value(int fd, unsigned long request, unsigned long argument) {
    return ioctl(fd, request, argument);
}

// TFD_TIMER_CANCEL_ON_SET is an enum value in glibc's header, defined as
// (1 << 1) without a type Swift can read.
static inline int CLinux_TFD_TIMER_CANCEL_ON_SET(void) { return TFD_TIMER_CANCEL_ON_SET; }

// _IOW(...) is a function-like macro and does not import: one function
// per request.
static inline unsigned long CLinux_FBIO_WAITFORVSYNC(void) { return FBIO_WAITFORVSYNC; }
static inline unsigned long CLinux_CEC_ADAP_G_CAPS(void) { return CEC_ADAP_G_CAPS; }
static inline unsigned long CLinux_CEC_ADAP_G_PHYS_ADDR(void) { return CEC_ADAP_G_PHYS_ADDR; }
static inline unsigned long CLinux_CEC_ADAP_G_LOG_ADDRS(void) { return CEC_ADAP_G_LOG_ADDRS; }
static inline unsigned long CLinux_CEC_ADAP_S_LOG_ADDRS(void) { return CEC_ADAP_S_LOG_ADDRS; }
static inline unsigned long CLinux_CEC_TRANSMIT(void) { return CEC_TRANSMIT; }
static inline unsigned long CLinux_CEC_S_MODE(void) { return CEC_S_MODE; }

// prctl is variadic too. PR_SET_NAME names the calling thread (15 bytes),
// which top -H, ps -L and crash reports show.
static inline int CLinux_set_thread_name(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long)name, 0UL, 0UL, 0UL);
}

// gettid() is not in Glibc's Swift module (glibc 2.30 declares it only
// with _GNU_SOURCE); setpriority needs it to lower one thread.
static inline pid_t CLinux_gettid(void) { return (pid_t)syscall(SYS_gettid); }

// memfd_create is declared by glibc only under _GNU_SOURCE, which the
// Glibc module does not set; the system call itself has been there since
// Linux 3.17. A memfd holds the state record chakrad leaves in systemd's
// file descriptor store (ChakraContinuity).
static inline int CLinux_memfd_create(const char *name, unsigned int flags) {
    return (int)syscall(SYS_memfd_create, name, flags);
}
static inline unsigned int CLinux_MFD_CLOEXEC(void) { return MFD_CLOEXEC; }

// The CMSG_* macros walk a message's ancillary data (cmsg(3)) and do not
// import: one function each. The alignment rules they encode (a header,
// then data padded to the size of a long) are the C library's, so they
// are not spelled out again in Swift. SOL_SOCKET and SCM_RIGHTS are set
// here too, so the Swift file that uses these (RightsMessage.swift) names
// no socket constant: a constant first looked up through this module is
// owned by it in a whole-module build, and files that import only Glibc
// (UnixSocket.swift) would no longer find it.
static inline size_t CLinux_CMSG_SPACE(size_t length) { return CMSG_SPACE(length); }
static inline size_t CLinux_CMSG_LEN(size_t length) { return CMSG_LEN(length); }
static inline struct cmsghdr *CLinux_CMSG_FIRSTHDR(struct msghdr *message) { return CMSG_FIRSTHDR(message); }
static inline struct cmsghdr *CLinux_CMSG_NXTHDR(struct msghdr *message, struct cmsghdr *header) {
    return CMSG_NXTHDR(message, header);
}
static inline unsigned char *CLinux_CMSG_DATA(struct cmsghdr *header) { return CMSG_DATA(header); }
static inline int CLinux_SCM_RIGHTS(void) { return SCM_RIGHTS; }
static inline int CLinux_is_rights(const struct cmsghdr *header) {
    return header->cmsg_level == SOL_SOCKET && header->cmsg_type == SCM_RIGHTS;
}
// Makes `header` an SCM_RIGHTS header for `count` descriptors.
static inline void CLinux_set_rights_header(struct cmsghdr *header, size_t count) {
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(count * sizeof(int));
}

// major()/minor() are macros in glibc.
static inline unsigned int CLinux_major(dev_t device) { return major(device); }
static inline unsigned int CLinux_minor(dev_t device) { return minor(device); }

// The console must leave graphics mode even when the process dies of a
// crash (a Swift trap is SIGILL/SIGTRAP, a bad pointer SIGSEGV): this handler
// makes one async-signal-safe ioctl and re-raises with the default action.
// The descriptor lives in a static of this header: only VirtualTerminal.swift
// (one module) uses it.
static volatile sig_atomic_t CLinux_crash_console_fd = -1;

static inline void CLinux_crash_handler(int signal_number) {
    int fd = CLinux_crash_console_fd;
    if (fd >= 0) ioctl(fd, KDSETMODE, KD_TEXT);
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = SIG_DFL;
    sigaction(signal_number, &action, NULL);
    raise(signal_number);
}

static inline void CLinux_restore_console_on_crash(int fd) {
    CLinux_crash_console_fd = fd;
    int signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT };
    for (unsigned i = 0; i < sizeof signals / sizeof signals[0]; i++) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_handler = fd >= 0 ? CLinux_crash_handler : SIG_DFL;
        sigemptyset(&action.sa_mask);
        action.sa_flags = SA_RESETHAND;
        sigaction(signals[i], &action, NULL);
    }
}
#endif
