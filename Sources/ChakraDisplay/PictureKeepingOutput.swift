/// An output whose open device can go into systemd's file descriptor store
/// (docs/seams.md): the DRM device (`drm`) or the framebuffer (`fb`). At
/// exit it then leaves its last frame on screen, for the next process to
/// take over, instead of putting back the console's picture.
public protocol PictureKeepingOutput: DisplayOutput {
    /// The open device to store.
    var deviceDescriptor: Int32 { get }
    /// Lets go of the device without `close()`'s putting back: the frame on
    /// screen stays there. Idempotent, and `close()` does nothing after it.
    func leavePictureForNextProcess()
}

extension DRMOutput: PictureKeepingOutput {}

extension FBDevOutput: PictureKeepingOutput {
    public var deviceDescriptor: Int32 { fd }
}
