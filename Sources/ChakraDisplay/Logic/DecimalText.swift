import Glibc

extension String {
    /// `value` with `decimals` digits after the point, as C's "%.*f" writes
    /// it ("12.35", "inf", "nan"): for logs, status lines and bench tables.
    /// (Foundation's String(format:) would link its locale machinery, tens
    /// of megabytes, into a static binary.)
    public init(_ value: Double, decimals: Int) {
        var buffer = [CChar](repeating: 0, count: 64)
        let count = withVaList([Int32(Swift.max(0, Swift.min(decimals, 17))), value]) { arguments in
            buffer.withUnsafeMutableBufferPointer { vsnprintf($0.baseAddress, $0.count, "%.*f", arguments) }
        }
        if count >= 0, count < buffer.count {
            self = String(decoding: buffer[0..<Int(count)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        } else {
            self = "\(value)"
        }
    }
}
