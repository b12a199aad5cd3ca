import ChakraSystem

/// The names chakrad's descriptors carry in systemd's store, and come back
/// under in $LISTEN_FDNAMES (docs/seams.md). One place, so the storing and
/// the taking back cannot drift apart.
public enum StoredDescriptors {
    /// The memory file holding the continuation record.
    public static let state = name("state")
    /// The DRM device, still DRM master: the picture stays on screen.
    public static let drm = name("drm")
    /// The fbdev framebuffer device.
    public static let framebuffer = name("fb")
    /// The control socket, listening: clients connect through a restart.
    public static let control = name("control")

    public static let all = [state, drm, framebuffer, control]

    private static func name(_ text: String) -> DescriptorName {
        // Constants checked by the tests; a bad one is a programming error.
        try! DescriptorName(text)
    }
}
