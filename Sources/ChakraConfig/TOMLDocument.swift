import TOMLKit

/// A TOML document read the one safe way: TOMLPreflight first (the inputs
/// TOMLKit's toml++ would abort on or misread), then TOMLKit. chakra.toml
/// and the string catalogs both come through here.
public enum TOMLDocument {
    /// Why a document cannot be read, with its place when known.
    public struct ReadError: Error, Sendable, Equatable, CustomStringConvertible {
        public let line: Int?
        public let column: Int?
        public let message: String

        public var description: String {
            guard let line else { return message }
            return "line \(line)" + (column.map { ", column \($0)" } ?? "") + ": \(message)"
        }
    }

    public static func parse(_ text: String) throws(ReadError) -> TOMLTable {
        let checked: String
        switch TOMLPreflight.check(text) {
        case .success(let text): checked = text
        case .failure(let refusal): throw ReadError(line: refusal.line, column: refusal.column, message: refusal.message)
        }
        do {
            return try TOMLTable(string: checked)
        } catch let error as TOMLParseError {
            throw ReadError(line: error.source.begin.line, column: error.source.begin.column, message: error.description)
        } catch {
            throw ReadError(line: nil, column: nil, message: "\(error)")
        }
    }
}
