import Testing
@testable import ChakraConfig

/// TOML.parse: TOML 1.0 as the specification writes it (toml.io/en/v1.0.0);
/// every refusal with its line and column. The whole toml-test suite is
/// run against it by tests/toml/conformance.sh.
@Suite("TOML reader")
struct TOMLReaderTests {
    private func refusal(_ text: String) -> TOML.SyntaxError? {
        do {
            _ = try TOML.parse(text)
            return nil
        } catch {
            return error
        }
    }

    @Test func everyKindOfValue() throws {
        let table = try TOML.parse("""
            # a comment
            bare_key-1 = "basic \\"q\\" \\t \\u00E9 \\U0001F338"
            "quoted key" = 'literal \\no escape'
            '' = "an empty key is allowed"
            multi = \"\"\"
            first
            second \\
                  joined\"\"\"
            multiliteral = '''
            a\\b ''two quotes'''
            quotes = \"\"\"""five""\"\"\"
            int = [42, +17, -0, 1_000, 0xDEAD_beef, 0o755, 0b1101, -9_223_372_036_854_775_808]
            float = [3.14, -0.01, 5e+22, 6.626e-34, 1_000.5, 1E2, -0.0]
            special = [inf, -inf]
            bools = [true, false]
            dates = [1979-05-27T07:32:00Z, 1979-05-27 00:32:00.999-07:00, 1979-05-27T07:32:00, 1979-05-27, 07:32:00.5]
            mixed = [1, "two", [3.0], { four = 4 }]
            trailing = [
              1, # one
              2,
            ]
            point = { x = 1, y.z = 2 }
            """)
        #expect(table["bare_key-1"]?.string == "basic \"q\" \t é 🌸")
        #expect(table["quoted key"]?.string == #"literal \no escape"#)
        #expect(table[""]?.string == "an empty key is allowed")
        #expect(table["multi"]?.string == "first\nsecond joined")
        #expect(table["multiliteral"]?.string == "a\\b ''two quotes")
        #expect(table["quotes"]?.string == "\"\"five\"\"")
        #expect(table["int"] == .array([42, 17, 0, 1000, 0xDEADBEEF, 0o755, 0b1101, Int64.min].map(TOML.Value.integer)))
        #expect(table["float"] == .array([3.14, -0.01, 5e22, 6.626e-34, 1000.5, 100, -0.0].map(TOML.Value.float)))
        #expect(table["special"] == .array([.float(.infinity), .float(-.infinity)]))
        #expect(table["bools"] == .array([.boolean(true), .boolean(false)]))
        guard case .array(let dates)? = table["dates"] else { Issue.record("no dates"); return }
        let kinds: [TOML.DateTimeKind?] = dates.map { if case .dateTime(let kind, _) = $0 { kind } else { nil } }
        #expect(kinds == [.offsetDateTime, .offsetDateTime, .localDateTime, .localDate, .localTime])
        #expect(dates[1] == .dateTime(.offsetDateTime, "1979-05-27 00:32:00.999-07:00"))
        #expect(table["mixed"]?.arrayCount == 4)
        #expect(table["trailing"] == .array([.integer(1), .integer(2)]))
        #expect(table["point"]?.table?["y"]?.table?["z"] == .integer(2))
        #expect(table.keys.first == "bare_key-1" && table.keys.last == "point")
    }

    @Test func tablesAndArraysOfTables() throws {
        let table = try TOML.parse("""
            a.b.c = 1
            a.b.d = 2
            [x.y.z]        # x and x.y are implicit...
            w = 1
            [x]            # ...so x may still be defined, once
            v = 2
            [[fruit]]
            name = "apple"
            [fruit.physical]
            color = "red"
            [[fruit.variety]]
            name = "red delicious"
            [[fruit]]
            name = "banana"
            [ dog . "tater.man" ]
            type = "pug"
            """)
        #expect(table["a"]?.table?["b"]?.table?["d"] == .integer(2))
        #expect(table["x"]?.table?["v"] == .integer(2))
        #expect(table["x"]?.table?["y"]?.table?["z"]?.table?["w"] == .integer(1))
        guard case .array(let fruit)? = table["fruit"] else { Issue.record("no fruit"); return }
        #expect(fruit.count == 2)
        #expect(fruit[0].table?["physical"]?.table?["color"]?.string == "red")
        #expect(fruit[0].table?["variety"]?.arrayCount == 1)
        #expect(fruit[1].table?["name"]?.string == "banana")
        #expect(table["dog"]?.table?["tater.man"]?.table?["type"]?.string == "pug")
    }

    /// Each refused with the place a reader needs: line and column of the
    /// first character that cannot be right.
    @Test(arguments: [
        // Inputs that aborted or crashed TOMLKit's toml++ (found by libFuzzer).
        ("[[[\n", 1, 3, "expected a key"),
        ("[=]\n", 1, 2, "expected a key"),
        ("[\n", 1, 2, "expected a key"),
        ("a = \"x\\ü\"", 1, 7, "'\\' followed by 'ü' is no escape"),
        ("a = 1 ü\n", 1, 7, "expected the end of the line"),
        ("a = 'x\u{0}'", 1, 7, "the control character U+0000 in a literal string"),
        ("# \u{0}", 1, 3, "the control character U+0000 in a comment"),
        // Keys and tables defined twice or extended where TOML forbids it.
        ("a = 1\na = 2", 2, 1, "'a' is defined twice"),
        ("[a]\n[a]", 2, 1, "[a] is defined twice (already by an earlier [a])"),
        ("a.b = 1\n[a]", 2, 1, "[a] is defined twice (already by dotted keys)"),
        ("[a.b.c]\n[a]\nb.d = 1", 3, 1, "'b.d': the table 'b' is defined elsewhere"),
        ("a = {}\n[a.b]", 2, 1, "[a.b]: 'a' is an inline table"),
        ("a = { b = 1 }\na.c = 2", 2, 1, "'a.c': 'a' is an inline table"),
        ("a = [1]\n[[a]]", 2, 1, "[[a]]: 'a' already holds a value"),
        ("[[a]]\n[a]", 2, 1, "[a] is an array of tables"),
        ("a = 1\na.b = 2", 2, 1, "'a.b': 'a' already holds a value"),
        // Syntax.
        ("a = ", 1, 5, "expected a value"),
        ("a = 1 2", 1, 7, "expected the end of the line"),
        ("a = \"open", 1, 10, "expected the closing '\"'"),
        ("a = \"line\nb = 1", 1, 10, "expected the closing '\"' before the end of the line"),
        ("a = { b = 1, }", 1, 14, "expected a key"),
        ("a = { b = 1\n}", 1, 12, "expected ',' or '}'"),
        ("a = [1 2]", 1, 8, "expected ',' or ']'"),
        ("a = [1,", 1, 8, "expected ']'"),
        ("[a]]", 1, 4, "expected the end of the line"),
        ("[[a]", 1, 5, "expected ']]'"),
        ("a = \"\\uD800\"", 1, 6, "is not a Unicode scalar value"),
        ("a = \"\\u12\"", 1, 10, "expected 4 hexadecimal digits"),
        ("a = 1\r\n\rb = 2", 2, 1, "a carriage return (U+000D) without a line feed"),
        ("\"\"\"a\"\"\" = 1", 1, 1, "a multi-line string cannot be a key"),
        ("ключ = 1", 1, 1, "expected a key"),
        ("a = yes", 1, 5, "'yes' is not a TOML value"),
    ])
    func refusedWithItsPlace(text: String, line: Int, column: Int, message: String) throws {
        let refused = try #require(refusal(text), "\(text.debugDescription) was read")
        #expect(refused.line == line && refused.column == column, "\(refused)")
        #expect(refused.message.contains(message), "\(refused)")
    }

    /// The exact forms of numbers, dates and times: each of these looks
    /// almost right and is not TOML.
    @Test(arguments: [
        "01", "1__0", "_1", "1_", "+0x1", "0X1", "0x", "0b2", "0o8", "9223372036854775808", "-9223372036854775809",
        "1.", ".1", "1.e5", "1e", "1e_5", "01.5", "1._5", "+-1", "infinity", "NaN", "1e5.0",
        "1979-13-01", "1979-02-29", "1979-05-27T25:00:00", "1979-05-27T07:32", "07:60:00", "1979-05-27T07:32:00+24:00",
        "07:32:00.", "1979-5-27",
    ])
    func almostNumbersAreRefused(value: String) {
        #expect(refusal("a = \(value)") != nil, "\(value) was read")
    }

    @Test func leapDaysAndLeapSecondsAreDates() throws {
        let table = try TOML.parse("a = 2000-02-29\nb = 2024-02-29T23:59:60Z\nc = nan\nd = -nan")
        #expect(table["a"] == .dateTime(.localDate, "2000-02-29"))
        #expect(table["b"] == .dateTime(.offsetDateTime, "2024-02-29T23:59:60Z"))
        #expect(refusal("a = 1900-02-29") != nil)
        guard case .float(let nan)? = table["c"] else { Issue.record("c"); return }
        #expect(nan.isNaN)
    }

    /// A long run of `[` overflowed toml++'s stack; here nesting is bounded.
    @Test func nestingIsBounded() throws {
        let limit = TOMLReader.maximumNesting
        let deepest = "a = " + String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        #expect(refusal(deepest) == nil)
        let tooDeep = "x = 1\n\"     ) \"   =" + String(repeating: "[", count: 100_000)
        let refused = try #require(refusal(tooDeep))
        #expect(refused == .init(line: 2, column: 13 + limit + 1, message: "arrays and inline tables nested more than \(limit) deep"))
        #expect(refusal("a = " + String(repeating: "{b=", count: limit + 1))?.message.contains("nested") == true)
    }

    /// Non-ASCII text where TOML allows it (toml++ reached undefined
    /// behaviour on some of it: U+00A0-U+0499 after a line-ending backslash).
    @Test func nonASCIITextReads() throws {
        let table = try TOML.parse("""
            # Grüße, ✓
            basic = "für 🌸 Ёж"
            literal = 'C:\\Pfad\\ö "zitiert"'
            'schlüssel' = 1
            "ключ" = 2
            multi = \"\"\"x\\
              ü am Anfang\"\"\"
            """)
        #expect(table["basic"]?.string == "für 🌸 Ёж")
        #expect(table["literal"]?.string == #"C:\Pfad\ö "zitiert""#)
        #expect(table["schlüssel"] == .integer(1))
        #expect(table["ключ"] == .integer(2))
        #expect(table["multi"]?.string == "xü am Anfang")
        // Columns count characters: the 'x' after two Cyrillic letters is column 10.
        #expect(refusal("\"ёж\" = 1 x")?.column == 10)
    }

    /// Thousands of [[tables]] append in linear time (a hostile 1 MiB file
    /// must not stall the start).
    @Test func manyArrayTablesAreCheap() throws {
        let text = String(repeating: "[[a]]\nb = 1\n", count: 20_000)
        #expect(try TOML.parse(text)["a"]?.arrayCount == 20_000)
    }

    @Test func shippedFilesRead() throws {
        let root = String(#filePath.prefix(upTo: #filePath.firstRange(of: "/Tests/")!.lowerBound))
        for name in ["etc/chakra/chakra.toml", "etc/chakra/lang/en.toml", "etc/chakra/lang/de.toml"] {
            let text = String(decoding: try ConfigParser.readFile(root + "/" + name), as: UTF8.self)
            #expect(try !TOML.parse(text).keys.isEmpty, "\(name)")
        }
    }
}

extension TOML.Value {
    var arrayCount: Int? {
        if case .array(let values) = self { values.count } else { nil }
    }
}
