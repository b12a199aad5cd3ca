import CLinuxKernel
import Glibc

/// One datagram with descriptors attached as SCM_RIGHTS ancillary data
/// (unix(7), cmsg(3)), laid out by the C library's CMSG_* macros.
///
/// The only file of ChakraSystem that imports CLinuxKernel for sockets,
/// and it names no socket constant (the flags come from the caller, the
/// header's level and type are set in C): in a whole-module build a
/// Glibc constant first looked up through CLinuxKernel (whose shim
/// includes sys/socket.h too) belongs to that module, and the files that
/// import only Glibc would no longer find it.
enum RightsMessage {
    /// Sends `bytes` to `address` on `socket` with `descriptors` attached
    /// (none: a plain datagram), through the funnel as `call`.
    static func send(_ socket: Int32, bytes: [UInt8], descriptors: [Int32], to address: UnsafeMutableRawPointer, length: socklen_t,
                     flags: Int32, call: String) throws(SystemError) {
        var bytes = bytes
        let payload = descriptors.count * MemoryLayout<Int32>.size
        let controlCapacity = descriptors.isEmpty ? 0 : CLinux_CMSG_SPACE(payload)
        // Aligned for a cmsghdr, zeroed (the kernel reads the padding too).
        let control = UnsafeMutableRawPointer.allocate(byteCount: max(controlCapacity, 1), alignment: MemoryLayout<cmsghdr>.alignment)
        defer { control.deallocate() }
        control.initializeMemory(as: UInt8.self, repeating: 0, count: max(controlCapacity, 1))
        let count = bytes.count
        // The closures return their error: through withUnsafe… a thrown
        // one would lose its type.
        let failure = bytes.withUnsafeMutableBytes { raw -> SystemError? in
            var vector = iovec(iov_base: raw.baseAddress, iov_len: count)
            return withUnsafeMutablePointer(to: &vector) { vectorPointer -> SystemError? in
                var message = msghdr()
                message.msg_name = address
                message.msg_namelen = length
                message.msg_iov = vectorPointer
                message.msg_iovlen = 1
                if !descriptors.isEmpty {
                    message.msg_control = control
                    message.msg_controllen = controlCapacity
                    guard let header = CLinux_CMSG_FIRSTHDR(&message), let data = CLinux_CMSG_DATA(header) else {
                        return SystemError(call: call, errno: EINVAL)
                    }
                    CLinux_set_rights_header(header, descriptors.count)
                    let slots = UnsafeMutableRawPointer(data)
                    for (index, fd) in descriptors.enumerated() {
                        slots.storeBytes(of: fd, toByteOffset: index * MemoryLayout<Int32>.size, as: Int32.self)
                    }
                }
                do throws(SystemError) {
                    try Syscall.check(call) { sendmsg(socket, &message, flags) }
                } catch {
                    return error
                }
                return nil
            }
        }
        if let failure { throw failure }
    }
}
