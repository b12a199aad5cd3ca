import ChakraSystem
import Glibc

/// Text to a descriptor, unbuffered, every byte (EINTR and short writes
/// retried): messages on standard error and event lines into pipes.
func writeAll(_ text: String, to fd: Int32) {
    let bytes = Array(text.utf8)
    bytes.withUnsafeBytes { raw in _ = try? Descriptor.writeAll(fd, raw.baseAddress!, count: raw.count) }
}
