import Testing
@testable import ChakraControl

/// JSONParser: what RFC 8259 allows reads as it should, everything else is
/// a failure with a reason (never a trap).
@Suite("JSON parser")
struct JSONParserTests {
    private func parse(_ text: String) -> Result<JSONValue, JSONParseFailure> {
        JSONValue.parse(Array(text.utf8))
    }

    private func value(_ text: String) throws -> JSONValue {
        try parse(text).get()
    }

    @Test func readsEveryKindOfValue() throws {
        #expect(try value("null") == .null)
        #expect(try value(" true ") == true)
        #expect(try value("\tfalse\r\n") == false)
        #expect(try value("0") == 0)
        #expect(try value("-0") == 0)
        #expect(try value("42") == 42)
        #expect(try value("-17") == -17)
        #expect(try value("0.5") == 0.5)
        #expect(try value("-2.5e-3") == .double(-0.0025))
        #expect(try value("1E2") == 100)
        #expect(try value("20.0") == 20)
        #expect(try value("9223372036854775807") == .int(Int.max))
        #expect(try value("9223372036854775808") == .double(9223372036854775808))
        #expect(try value(#""""#) == "")
        #expect(try value(#"[]"#) == [])
        #expect(try value(#"{}"#) == [:])
        #expect(try value(#"[1, [2, [3]], {"a": {"b": null}}]"#) == [1, [2, [3]], ["a": ["b": nil]]])
        #expect(try value(#"{"cmd": "switch", "scene": "heart", "duration": 1.5}"#) == ["cmd": "switch", "scene": "heart", "duration": 1.5])
        // A repeated key: the last one counts.
        #expect(try value(#"{"a": 1, "a": 2}"#) == ["a": 2])
    }

    @Test func decodesEscapesAndUTF8() throws {
        #expect(try value(#""\" \\ \/ \b \f \n \r \t""#) == "\" \\ / \u{08} \u{0C} \n \r \t")
        #expect(try value(#""\u00fc\u00DC \u2028""#) == "üÜ \u{2028}")
        #expect(try value(#""\ud83c\udf38""#) == "🌸")
        #expect(try value("\"ü 🌸 日本\"") == "ü 🌸 日本")
        #expect(try value(#""\u0000""#) == "\u{0}")
    }

    /// What the encoder writes, the parser reads back the same.
    @Test func readsBackWhatIsEncoded() throws {
        let original: JSONValue = [
            "text": "line\nbreak \"quoted\" back\\slash \u{1} tab\t ü 🌸 \u{2028}",
            "list": [1, -2, 0.25, 1e-7, true, false, nil, [:], []],
            "nested": ["deeper": ["deepest": "x"]],
        ]
        #expect(try value(original.encoded) == original)
    }

    @Test(arguments: [
        "", " ", "nul", "True", "[1,]", "[1 2]", "{\"a\":1,}", "{'a':1}", "{a:1}", "{\"a\" 1}", "{\"a\":}", "[", "{", "\"abc",
        "01", "-", "1.", ".5", "1e", "1e+", "+1", "0x10", "NaN", "Infinity", "1e999", "-1e999", "[1]x", "1 2", "\"\\x\"",
        "\"\\u12\"", "\"\\u12G4\"", "\"\\ud83c\"", "\"\\udf38\"", "\"\\ud83c\\u0041\"", "\"tab\there\"", "\"line\nbreak\"",
        "// comment\n1", "/* c */ 1", "[1] // c",
    ])
    func refusesWhatIsNotJSON(text: String) {
        guard case .failure(let failure) = parse(text) else {
            Issue.record("accepted \(text.debugDescription)")
            return
        }
        #expect(failure.reason.contains("(at byte") || failure.reason.contains("out of range"), "\(failure.reason)")
    }

    @Test func refusesInvalidUTF8() {
        let cases: [[UInt8]] = [
            [0xFF], [0xC0, 0x80], [0xC3], [0xE2, 0x82], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xF8, 0x88, 0x80, 0x80, 0x80],
            [0x80], [0xC3, 0x28], [0xE0, 0x80, 0xAF],
        ]
        for bytes in cases {
            let text = Array("\"a".utf8) + bytes + Array("b\"".utf8)
            if case .success = JSONValue.parse(text) { Issue.record("accepted \(bytes)") }
        }
        // Outside strings, too.
        if case .success = JSONValue.parse([0xEF, 0xBB, 0xBF] + Array("1".utf8)) { Issue.record("accepted a byte order mark") }
    }

    @Test func refusesDeepNestingWithoutRecursingFurther() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        guard case .failure(let failure) = parse(deep) else {
            Issue.record("accepted 100000 levels")
            return
        }
        #expect(failure.reason.hasPrefix("nested deeper than \(JSONParser.maxDepth) levels"))
        let allowed = String(repeating: "[", count: JSONParser.maxDepth) + String(repeating: "]", count: JSONParser.maxDepth)
        #expect((try? parse(allowed).get()) != nil)
        let oneTooMany = "{\"a\":" + allowed + "}"
        #expect((try? parse(oneTooMany).get()) == nil)
    }

    @Test func reasonsSayWhatAndWhere() {
        #expect(parse("[1,]").failureReason == "unexpected ']' where a value should be (at byte 3)")
        #expect(parse(#"{"a" 1}"#).failureReason == "expected ':' after the key \"a\" (at byte 5)")
        #expect(parse("\"a\u{1}\"").failureReason == "a control character (byte 0x01) inside a string must be escaped (at byte 2)")
        #expect(parse("[1] x").failureReason == "unexpected 'x' after the value (at byte 4)")
    }

    /// A long string (a snapshot's base64) reads in one piece.
    @Test func readsLongStrings() throws {
        let long = String(repeating: "QUJD", count: 250_000)
        #expect(try value("{\"png\":\"\(long)\"}")["png"] == .string(long))
    }
}

private extension Result where Failure == JSONParseFailure {
    var failureReason: String? {
        if case .failure(let failure) = self { return failure.reason }
        return nil
    }
}
