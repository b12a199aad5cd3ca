import Testing
@testable import ChakraControl

/// Line framing, fed in one batch and one byte at a time (swift-nio's
/// ByteToMessageDecoderVerifier idea): the same lines either way.
@Suite("Line framing")
struct LineFramerTests {
    private func frames(_ input: String, maxLine: Int, pieces: Int) -> [LineFramer.Frame] {
        var framer = LineFramer(maxLine: maxLine)
        var out: [LineFramer.Frame] = []
        let bytes = Array(input.utf8)
        var index = 0
        while index < bytes.count {
            let end = min(bytes.count, index + pieces)
            framer.append(bytes[index..<end])
            index = end
            while let frame = framer.next() {
                out.append(frame)
                if frame == .tooLong { return out }
            }
        }
        if let last = framer.finish() { out.append(last) }
        return out
    }

    private func lines(_ texts: String...) -> [LineFramer.Frame] { texts.map { .line(Array($0.utf8)) } }

    @Test(arguments: [1, 2, 3, 7, 1000])
    func sameLinesWhateverThePieces(pieces: Int) {
        let input = "{\"cmd\":\"ping\"}\n{\"cmd\":\"status\"}\r\n\n   \n{\"id\":1,\"cmd\":\"scenes\"}\nlast"
        #expect(frames(input, maxLine: 64, pieces: pieces)
            == lines("{\"cmd\":\"ping\"}", "{\"cmd\":\"status\"}", "{\"id\":1,\"cmd\":\"scenes\"}", "last"))
    }

    @Test(arguments: [1, 5, 1000])
    func tooLongWithANewline(pieces: Int) {
        let exact = String(repeating: "a", count: 16)
        #expect(frames(exact + "\n" + exact + "\r\n", maxLine: 16, pieces: pieces) == lines(exact, exact))
        #expect(frames("ok\n" + exact + "b\nnever", maxLine: 16, pieces: pieces) == lines("ok") + [.tooLong])
    }

    /// No newline ever: refused once the limit is passed, not buffered on.
    @Test func tooLongWithoutANewlineIsSeenEarly() {
        var framer = LineFramer(maxLine: 100)
        framer.append(Array(repeating: UInt8(ascii: "x"), count: 101))
        #expect(framer.next() == nil)   // 101 could still be 100 and a "\r"
        framer.append([UInt8(ascii: "x")])
        #expect(framer.next() == .tooLong)
        #expect(framer.pending <= 102)
    }

    @Test func bufferDoesNotGrowWithHandledLines() {
        var framer = LineFramer(maxLine: 64)
        for _ in 0..<10_000 {
            framer.append(Array("{\"cmd\":\"ping\"}\n".utf8))
            #expect(framer.next() == .line(Array("{\"cmd\":\"ping\"}".utf8)))
        }
        #expect(framer.pending == 0)
        #expect(framer.finish() == nil)
    }
}
