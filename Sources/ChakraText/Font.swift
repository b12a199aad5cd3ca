import CFreeType
import ChakraSystem
import Glibc

/// Why a font could not be used: the call that failed and its error code
/// (FreeType's, or errno for reading the file).
public struct FontError: Error, CustomStringConvertible, Equatable {
    public let call: String
    public let code: Int32
    public let path: String
    public var reason: String?

    public init(call: String, code: Int32, path: String, reason: String? = nil) {
        (self.call, self.code, self.path, self.reason) = (call, code, path, reason)
    }

    public var description: String {
        if let reason { return "font \(path): \(reason)" }
        return "font \(path): '\(call)' failed: FreeType error \(code)"
    }
}

/// One font file opened with FreeType, and its glyphs cached per size.
///
/// Glyphs are loaded unhinted (`CFreeType_loadFlags`): advances are the
/// font's advance widths scaled linearly and kerning is the font's `kern`
/// pairs scaled the same way, so a line's width is exactly
/// Σ advance·size/unitsPerEm + Σ kern·size/unitsPerEm at any size, and
/// text keeps its proportions when the screen scales it by u.
///
/// Ownership: owns the FreeType library and face from init to deinit (freed
/// in reverse order). Not thread-safe: a face has one current size, so one
/// thread uses a font (and its `GlyphSet`s) at a time; scenes touch it only
/// outside their parallel phases.
public final class Font: @unchecked Sendable {
    /// The font the daemon uses unless configured (Debian's fonts-dejavu-core).
    public static let defaultPath = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"

    public let path: String
    public let unitsPerEm: Int
    /// Typographic ascender and descender (descender negative), font units.
    public let ascender: Int, descender: Int
    public let familyName: String
    let library: FT_Library
    let face: FT_Face
    /// The font file's bytes, which the face reads from until it is done.
    let contents: UnsafeMutableRawBufferPointer
    let hasKerning: Bool
    /// Per size (in 1/64 px), its glyphs; a set is made on a size's first use.
    private var sets: [Int: GlyphSet] = [:]
    /// The size FreeType was last set to, in 1/64 px.
    private var currentSize = -1

    public init(path: String = Font.defaultPath) throws(FontError) {
        self.path = path
        // The whole file in memory, not mapped: FreeType maps a file it
        // opens itself, and a font file truncated while mapped (a package
        // upgrade writing it in place, a full disk) would end the daemon
        // with SIGBUS on the next glyph. A copy cannot change under us.
        let contents = try Self.read(path)
        var library: FT_Library?
        var status = FT_Init_FreeType(&library)
        guard status == 0, let library else {
            contents.deallocate()
            throw FontError(call: "FT_Init_FreeType", code: status, path: path)
        }
        var face: FT_Face?
        status = FT_New_Memory_Face(library, contents.baseAddress, FT_Long(contents.count), 0, &face)
        guard status == 0, let face else {
            FT_Done_FreeType(library)
            contents.deallocate()
            throw FontError(call: "FT_New_Memory_Face (not a font FreeType can read)", code: status, path: path)
        }
        self.contents = contents
        self.library = library
        self.face = face
        unitsPerEm = Int(face.pointee.units_per_EM)
        ascender = Int(face.pointee.ascender)
        descender = Int(face.pointee.descender)
        familyName = face.pointee.family_name.map { String(cString: $0) } ?? ""
        hasKerning = face.pointee.face_flags & CFreeType_faceFlagKerning != 0
        guard unitsPerEm > 0 else {
            FT_Done_Face(face)
            FT_Done_FreeType(library)
            contents.deallocate()
            throw FontError(call: "units_per_EM (not a scalable font)", code: 0, path: path)
        }
    }

    /// Font files past this are refused (DejaVuSans is 0.76 MB; the
    /// largest CJK fonts about 20 MB).
    static let maximumFileSize = 64 << 20

    /// The file's bytes, read with read(2) into a buffer the face owns.
    private static func read(_ path: String) throws(FontError) -> UnsafeMutableRawBufferPointer {
        // Looked at before it is opened: opening a FIFO waits for a writer
        // (the scene's rebuild with it), opening a device can act on it.
        let named: Glibc.stat
        do {
            named = try FileSystem.stat(path)
        } catch {
            throw FontError(call: "open", code: error.errno, path: path, reason: error.reason)
        }
        guard named.st_mode & S_IFMT == S_IFREG else {
            throw FontError(call: "open", code: 0, path: path, reason: "not a regular file")
        }
        let fd: Int32
        do {
            fd = try Descriptor.open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY)
        } catch {
            throw FontError(call: "open", code: error.errno, path: path, reason: error.reason)
        }
        defer { Descriptor.close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw FontError(call: "open", code: 0, path: path, reason: "not a regular file")
        }
        let size = Int(info.st_size)
        guard size > 0, size <= maximumFileSize else {
            throw FontError(call: "open", code: 0, path: path, reason: size == 0 ? "the file is empty" : "larger than \(maximumFileSize >> 20) MiB")
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        var filled = 0
        while filled < size {
            let count: Int
            do {
                count = try Descriptor.read(fd, into: buffer.baseAddress! + filled, count: size - filled)
            } catch {
                buffer.deallocate()
                throw FontError(call: "read", code: error.errno, path: path, reason: error.reason)
            }
            guard count > 0 else {
                buffer.deallocate()
                throw FontError(call: "read", code: 0, path: path, reason: "the file got shorter while it was read")
            }
            filled += count
        }
        return buffer
    }

    deinit {
        sets.removeAll()
        FT_Done_Face(face)
        FT_Done_FreeType(library)
        contents.deallocate()
    }

    /// The glyphs of this font at `size` pixels per em (fractional sizes are
    /// kept to 1/64 px). Allocates only on a size's first use.
    public func glyphs(size: Double) -> GlyphSet {
        let key = Self.sizeKey(size)
        if let set = sets[key] { return set }
        let set = GlyphSet(font: self, sizeKey: key)
        sets[key] = set
        return set
    }

    static func sizeKey(_ size: Double) -> Int { max(1, Int((size * 64).rounded())) }

    /// Makes `key` (1/64 px) FreeType's current size.
    func select(sizeKey key: Int) throws(FontError) {
        guard key != currentSize else { return }
        let status = FT_Set_Char_Size(face, 0, FT_F26Dot6(key), 72, 72)
        guard status == 0 else { throw FontError(call: "FT_Set_Char_Size", code: status, path: path) }
        currentSize = key
    }

    /// The glyph index of a character; 0 (the font's .notdef) when missing.
    func glyphIndex(_ scalar: Unicode.Scalar) -> UInt32 {
        UInt32(FT_Get_Char_Index(face, FT_ULong(scalar.value)))
    }

    /// Advance width of a glyph in font units (unhinted).
    func advanceUnits(_ index: UInt32) -> Int {
        guard FT_Load_Glyph(face, index, CFreeType_loadFlags | Int32(FT_LOAD_NO_SCALE)) == 0 else { return 0 }
        return Int(face.pointee.glyph.pointee.advance.x)
    }

    /// Kerning between two glyphs in font units (the `kern` table), 0 when none.
    func kerningUnits(_ left: UInt32, _ right: UInt32) -> Int {
        guard hasKerning, left != 0, right != 0 else { return 0 }
        var vector = FT_Vector()
        guard FT_Get_Kerning(face, left, right, CFreeType_kerningUnscaled, &vector) == 0 else { return 0 }
        return Int(vector.x)
    }
}
