// libFuzzer target: bytes from a control client, as the server takes them:
// split into reads at arbitrary points, framed into lines, each line read
// as a request. Built and run by tests/fuzz/run.sh.
import ChakraControl

/// The server's line limit is configurable; a small one here reaches the
/// too-long paths with short inputs.
private let maxLine = 256

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzControl(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // The first byte chooses where reads end; the rest is the stream.
    let stride = Int(bytes[0] % 17) + 1
    let stream = bytes[1...]

    var whole = LineFramer(maxLine: maxLine)
    whole.append(stream)
    let expected = frames(&whole)

    var pieces = LineFramer(maxLine: maxLine)
    var got: [LineFramer.Frame] = []
    var offset = stream.startIndex
    reading: while offset < stream.endIndex {
        let end = min(offset + stride, stream.endIndex)
        pieces.append(stream[offset..<end])
        offset = end
        while let frame = pieces.next() {
            got.append(frame)
            // As the server does: a line too long ends the connection.
            if frame == .tooLong { break reading }
        }
        // A client that never sends a newline cannot grow the buffer.
        if pieces.pending > maxLine + 1 + stride { fatalError("\(pieces.pending) bytes buffered") }
    }
    if got.last != .tooLong, let last = pieces.finish() { got.append(last) }
    // How the bytes arrive changes nothing: the same lines, then the same
    // end (a line too long, or not).
    guard got == expected else { fatalError("framing depends on read boundaries: \(got) vs \(expected)") }
    for case .line(let line) in got {
        if line.count > maxLine || line.contains(UInt8(ascii: "\n")) { fatalError("bad frame") }
        check(line)
    }
    return 0
}

private func frames(_ framer: inout LineFramer) -> [LineFramer.Frame] {
    var out: [LineFramer.Frame] = []
    while let frame = framer.next() {
        out.append(frame)
        if frame == .tooLong { return out }
    }
    if let last = framer.finish() { out.append(last) }
    return out
}

/// One request line: a request that is read writes back as JSON that reads
/// as the same request; the reply to any line is one line of valid JSON.
private func check(_ line: [UInt8]) {
    let reply: ControlReply
    switch ControlRequest.parse(line) {
    case .success(let request):
        let encoded = Array(request.json.encoded.utf8)
        guard case .success(let again) = ControlRequest.parse(encoded), again == request else {
            fatalError("request does not round-trip: \(request)")
        }
        reply = .success(id: request.id, .object(["ok": .bool(true)]))
    case .failure(let failure):
        if failure.error.message.isEmpty { fatalError("refusal without a reason") }
        reply = .failure(id: failure.id, failure.error)
    }
    let text = reply.line
    guard text.last == "\n", !text.dropLast().contains("\n") else { fatalError("reply is not one line") }
    guard case .success = JSONValue.parse(Array(text.utf8.dropLast())) else { fatalError("reply is not JSON: \(text)") }
}
