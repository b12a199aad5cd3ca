import TOMLKit
import Testing
@testable import ChakraConfig

/// TOMLPreflight: what TOMLKit's toml++ would abort on or misread never
/// reaches it; valid TOML keeps its meaning and its lines.
@Suite("TOML preflight")
struct TOMLPreflightTests {
    private func refusal(_ text: String) -> TOMLPreflight.Refusal? {
        if case .failure(let refusal) = TOMLPreflight.check(text) { return refusal }
        return nil
    }

    /// toml++ asserts (SIGABRT) on these table headers; each is refused
    /// with the place of the character that is not a key.
    @Test(arguments: [
        ("[[[\n", 1, 3), ("[=]\n", 1, 2), ("[.a]\n", 1, 2), ("[#x\n", 1, 2), ("[ {\n", 1, 3), ("[\n", 1, 2),
        ("[\u{7F}a]\n", 1, 2), ("a = 1\n\n  [ [b]]\n", 3, 5), ("[[ =]]", 1, 4), ("[", 1, 2),
    ])
    func headersWithoutANameAreRefused(text: String, line: Int, column: Int) throws {
        let refused = try #require(refusal(text), "\(text.debugDescription) let through")
        #expect(refused.line == line && refused.column == column, "\(refused)")
        #expect(refused.message.hasPrefix("a table header starts with its name") || refused.message.hasPrefix("the table header ends"))
    }

    @Test func nonASCIIOutsideStringsNULAndFalseEscapesAreRefused() throws {
        #expect(refusal("a = 1 ü\n") == .init(line: 1, column: 7, message: "'ü' outside a string or comment; TOML allows only ASCII there"))
        #expect(refusal("ключ = 1")?.column == 1)
        #expect(refusal("a = \"x\\ü\"")?.message.hasPrefix("'\\ü' is no escape") == true)
        #expect(refusal("a = 1\nb = 2\u{0}c = 3")?.line == 2)
        #expect(refusal("a = 'x\u{0}'")?.message.hasPrefix("a NUL character") == true)
        #expect(refusal("# \u{0}")?.message.hasPrefix("a NUL character") == true)
    }

    /// toml++ reads nested arrays and inline tables by recursion: a long
    /// run of `[` (found by the fuzzer) overflowed its stack. Nesting up to
    /// the limit still reaches toml++; one more is refused where it opens.
    @Test func deepNestingIsRefusedWhereItPassesTheLimit() throws {
        let limit = TOMLPreflight.maximumNesting
        let deepest = "a = " + String(repeating: "[", count: limit) + String(repeating: "]", count: limit) + "\n"
        #expect(try TOMLPreflight.check(deepest).get() == deepest)
        _ = try TOMLTable(string: deepest)
        let tooDeep = "x = 1\n\"     ) \"   =" + String(repeating: "[", count: 100_000)
        let refused = try #require(refusal(tooDeep))
        #expect(refused == .init(line: 2, column: 13 + limit + 1, message: "arrays and inline tables nested more than \(limit) deep"))
        let mixed = "a = " + String(repeating: "[{b=", count: limit)
        #expect(refusal(mixed)?.column == 5 + 4 * (limit / 2))
    }

    /// Headers that are fine, brackets inside values, strings that look
    /// like headers: all let through unchanged.
    @Test(arguments: [
        "[a]\nb = 1\n", "[[a]]\n[a.b]\n", "[ \"quoted\" ]\n", "['lit']\n", "a = [\n  [1, 2],\n  [3],\n]\n",
        "a = \"\"\"\n[not a header\n\"\"\"\n", "a = '''\n[[[\n'''\n", "a = { b = [1] }\n[c]\n", "# [[[ \n[d]\n",
        "a = \"\\\"[\"\n[e]\n",
    ])
    func validDocumentsPassUnchanged(text: String) throws {
        #expect(try TOMLPreflight.check(text).get() == text)
        _ = try TOMLTable(string: text)
    }

    /// Non-ASCII text in strings reaches toml++ only as escapes: the
    /// values read are exactly the original ones, and lines stay put.
    @Test func nonASCIIStringsKeepTheirMeaning() throws {
        let text = """
        # Grüße, ✓
        basic = "für 🌸 Ёж"
        literal = 'C:\\Pfad\\ö "zitiert"'
        'schlüssel' = 1
        "ключ" = 2
        multi = \"\"\"
        erste Zeile ä
        zweite \\
              ü am Anfang\"\"\"
        multiliteral = '''
        a\\b ä "q" ''ende'''
        list = ["é", 'è']
        after = "line 12"
        """
        let checked = try TOMLPreflight.check(text).get()
        #expect(!checked.unicodeScalars.contains { $0.value > 0x7F })
        #expect(checked.split(separator: "\n", omittingEmptySubsequences: false).count
            == text.split(separator: "\n", omittingEmptySubsequences: false).count)
        let table = try TOMLDocument.parse(text)
        #expect(table["basic"]?.string == "für 🌸 Ёж")
        #expect(table["literal"]?.string == #"C:\Pfad\ö "zitiert""#)
        #expect(table["schlüssel"]?.int == 1)
        #expect(table["ключ"]?.int == 2)
        #expect(table["multi"]?.string == "erste Zeile ä\nzweite ü am Anfang")
        #expect(table["multiliteral"]?.string == "a\\b ä \"q\" ''ende")
        #expect(table["list"]?.array?.compactMap { $0.string } == ["é", "è"])
        #expect(table["after"]?.string == "line 12")
    }

    /// Inputs libFuzzer found (each aborted chakrad or reached undefined
    /// behaviour in toml++ before): now a clear error, no crash.
    @Test(arguments: [
        [0xCF, 0xBB], [0xC6, 0xA4], [0x5B, 0x00], [0x09, 0xEF, 0xBA, 0xBF, 0x27],
        Array("a = 1\"\\\"ü\"\"\"\n".utf8), Array("DDWD999=9'\"»9-99a".utf8), Array("a = \"\"\"x\\\n  ü\"\"\"".utf8),
    ] as [[UInt8]])
    func fuzzerFindingsAreErrorsNotCrashes(bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        do {
            let table = try TOMLDocument.parse(text)
            // Only the valid one (a continuation before ü) reads.
            #expect(table["a"]?.string == "xü", "\(bytes)")
        } catch {
            #expect(error.line != nil, "\(error)")
        }
    }

    /// The shipped configuration and catalogs read the same through the
    /// preflight as they are.
    @Test func shippedFilesAreUnchangedInMeaning() throws {
        let root = String(#filePath.prefix(upTo: #filePath.firstRange(of: "/Tests/")!.lowerBound))
        for name in ["etc/chakra/chakra.toml", "etc/chakra/lang/en.toml", "etc/chakra/lang/de.toml"] {
            let text = try readText(root + "/" + name)
            let table = try TOMLDocument.parse(text)
            #expect(!table.keys.isEmpty, "\(name)")
            if !text.unicodeScalars.contains(where: { $0.value > 0x7F }) {
                #expect(try TOMLPreflight.check(text).get() == text, "\(name)")
            }
        }
    }

    private func readText(_ path: String) throws -> String {
        String(decoding: try ConfigParser.readFile(path), as: UTF8.self)
    }
}
