#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Writes the expected pre-tokenizer splits for tst_tokenizer: each case's text cut by the
# split patterns of the family's Hugging Face tokenizer.json, as Python's `regex` module (which
# knows \p{L}, \p{N} and \p{P}) finds their matches. A list of patterns is applied one after
# another, each cutting the pieces the previous ones left at the edges of its matches, as
# llama.cpp applies them; the names are the files' tokenizer.ggml.pre. Run from this folder:
#   python3 make_expected.py > expected.json
import json
import regex

# DeepSeek's explicit classes, as code point ranges (typed as characters, some of them would
# not survive Unicode normalisation of this file).
DEEPSEEK_LETTERS = [
    (0x41, 0x5A), (0x61, 0x7A), (0xB5, 0xB5), (0xC0, 0xD6), (0xD8, 0xF6), (0xF8, 0x1BA),
    (0x1BC, 0x1BF), (0x1C4, 0x293), (0x295, 0x2AF), (0x370, 0x373), (0x376, 0x376), (0x377, 0x377),
    (0x37B, 0x37D), (0x37F, 0x37F), (0x386, 0x386), (0x388, 0x38A), (0x38C, 0x38C), (0x38E, 0x3A1),
    (0x3A3, 0x3F5), (0x3F7, 0x481), (0x48A, 0x52F), (0x531, 0x556), (0x10A0, 0x10C5), (0x13A0, 0x13F5),
    (0x13F8, 0x13FD), (0x1C90, 0x1CBA), (0x1CBD, 0x1CBF), (0x1D00, 0x1D2B), (0x1D6B, 0x1D77), (0x1D79, 0x1D9A),
    (0x1E00, 0x1F15), (0x1F18, 0x1F1D), (0x1F20, 0x1F45), (0x1F48, 0x1F4D), (0x1F50, 0x1F57), (0x1F59, 0x1F59),
    (0x1F5B, 0x1F5B), (0x1F5D, 0x1F5D), (0x1F5F, 0x1F7D), (0x1F80, 0x1FB4), (0x1FB6, 0x1FBC), (0x1FBE, 0x1FBE),
    (0x1FC2, 0x1FC4), (0x1FC6, 0x1FCC), (0x1FD0, 0x1FD3), (0x1FD6, 0x1FDB), (0x1FE0, 0x1FEC), (0x1FF2, 0x1FF4),
    (0x1FF6, 0x1FFC), (0x2102, 0x2102), (0x2107, 0x2107), (0x210A, 0x2113), (0x2115, 0x2115), (0x2119, 0x211D),
    (0x2124, 0x2124), (0x2126, 0x2126), (0x2128, 0x2128), (0x212A, 0x212D), (0x212F, 0x2134), (0x2139, 0x2139),
    (0x213C, 0x213F), (0x2145, 0x2149), (0x214E, 0x214E), (0x2183, 0x2183), (0x2184, 0x2184), (0x2C00, 0x2C7B),
    (0x2C7E, 0x2CE4), (0x2CEB, 0x2CEE), (0x2CF2, 0x2CF2), (0x2CF3, 0x2CF3), (0xA640, 0xA66D), (0xA680, 0xA69B),
    (0xA722, 0xA76F), (0xA771, 0xA787), (0xA78B, 0xA78E), (0xAB70, 0xABBF), (0xFB00, 0xFB06), (0xFB13, 0xFB17),
    (0xFF21, 0xFF3A), (0xFF41, 0xFF5A), (0x10400, 0x1044F), (0x104B0, 0x104D3), (0x104D8, 0x104FB), (0x10C80, 0x10CB2),
    (0x10CC0, 0x10CF2), (0x118A0, 0x118DF), (0x1E900, 0x1E943),
]
# [!-/:-~！-／：-～‘-‟　-。]
DEEPSEEK_SYMBOLS = [(0x21, 0x2F), (0x3A, 0x7E), (0xFF01, 0xFF0F), (0xFF1A, 0xFF5E), (0x2018, 0x201F), (0x3000, 0x3002)]
# [一-龥ࠀ-一가-퟿]
DEEPSEEK_CJK = [(0x4E00, 0x9FA5), (0x0800, 0x4E00), (0xAC00, 0xD7FF)]


def char_class(ranges):
    return "".join("\\U%08X-\\U%08X" % r for r in ranges)


PATTERNS = {
    # Llama 3: letters with one leading non-letter, digits in threes.
    "llama-bpe": [r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"],
    # Qwen 2 and 3: the same, one digit at a time.
    "qwen2": [r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"],
    # Mistral's Tekken, in the form llama.cpp runs it: the file's \p{Lu}/\p{Ll} classes become
    # "a letter but not a-z" and "a letter but not A-Z", and \p{M} is left out.
    "tekken": [r"[^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))*((?=[\p{L}])([^A-Z]))+|[^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))+((?=[\p{L}])([^A-Z]))*|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"],
    # o200k (gpt-oss, Phi-4-mini), as llama.cpp runs it: Tekken's words, each with a contraction
    # after it, and digits in threes.
    "gpt-4o": [r"[^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))*((?=[\p{L}])([^A-Z]))+(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|[^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))+((?=[\p{L}])([^A-Z]))*(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"],
    # DeepSeek LLM.
    "deepseek-llm": [
        r"[\r\n]",
        r"\s?[" + char_class(DEEPSEEK_LETTERS) + "]+",
        r"\s?[" + char_class(DEEPSEEK_SYMBOLS) + "]+",
        r"\s+$",
        "[" + char_class(DEEPSEEK_CJK) + "]+",
        r"\p{N}+",
    ],
    # SmolLM (and StarCoder, Refact, Command-R, CodeShell): single digits, then GPT-2's words.
    "smollm": [r"\p{N}", r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)"],
    # DeepSeek Coder.
    "deepseek-coder": [r"[\r\n]", r"\s?\p{L}+", r"\s?\p{P}+", "[" + char_class(DEEPSEEK_CJK) + "]+", r"\p{N}"],
}

# llama.cpp matches the patterns against text whose non-ASCII whitespace became U+000B (so \s
# finds it and the explicit classes do not); the same is done here, one code point for one.
def llama_cpp_text(text):
    return "".join("\x0b" if ord(c) > 0x7F and c.isspace() and regex.match(r"\s", c) else c for c in text)


def split(patterns, text):
    shown = llama_cpp_text(text)
    pieces = [(0, len(text))]
    for pattern in patterns:
        compiled = regex.compile(pattern)
        cut = []
        for begin, end in pieces:
            last = begin
            for m in compiled.finditer(shown, begin, end):
                if m.start() == m.end():
                    continue
                if m.start() > last:
                    cut.append((last, m.start()))
                cut.append((m.start(), m.end()))
                last = m.end()
            if end > last:
                cut.append((last, end))
        pieces = cut
    return [text[b:e] for b, e in pieces]

CASES = [
    "Hello world", " Hello world", "Hello World!", "Hello, world!", "  leading spaces",
    "trailing spaces   ", "tabs\tand\t\ttabs", "new\nline", "two\n\nlines", " \n \n x", "a\r\nb",
    "end with newline\n", "\n", "   ", "\t", "\n\n\n", "\t\n",
    "I'm sure it's fine, we'll see, they've been, you're right, I'd go",
    "IT'S LOUD, WE'LL, THEY'VE, YOU'RE, I'D", "don't 'tis 'TWAS",
    "1 12 123 1234 12345 1234567", "3.14159 and 2,718", "w048 7tuijk dsdfhu", "x1y22z333",
    "version v1.2.3-rc4", "½ and ¾ and ² and ٣٤٥", "price: $100.00!", "(parentheses) [brackets] {braces}",
    "a...b!!!c???", "!!!\n\n", "?!\r\n", "--flag=value", "path/to/file.txt", "email@example.com",
    "нещо на Български", "Führer straße", "ελληνικά γράμματα", "עברית", "العربية",
    "中文测试，句号。", "日本語のテキスト", "한국어 텍스트", "this is 🦙.cpp", "emoji 😀😃 test 👍🏽",
    "mixed中文English混合", "  \u00a0non-breaking\u00a0space", "zero\u200bwidth", "combining e\u0301 accent",
    "def main():\n    print('hi')\n    return 0\n", "if (a<b) { c = d*e; }", "<html><body></body></html>",
    "   Hello\n\n\n   World   ", "\u3000ideographic space", "a\u2028b\u2029c",
    "ied 4 ½ months", "3333333333333333", "\"quoted\" 'single'",
    "HELLOworld helloWorld CamelCaseWord HTTPServer iPhone", "MIXED ΕΛΛΗΝΙΚΆ aΑ ÄÖü", "a+\n/b //x",
    "\u3000\uff01！ full-width: ＡＢＣ ｘｙｚ", "‘quotes’ “double”", "trailing \u3000", "x²³ ①② Ⅻ",
]


def main():
    out = []
    for name, patterns in PATTERNS.items():
        for text in CASES:
            words = split(patterns, text)
            assert "".join(words) == text, (name, text)
            out.append({"pretokenizer": name, "text": text, "words": words})
    print(json.dumps(out, ensure_ascii=False, indent=0))


if __name__ == "__main__":
    main()
