#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Writes the expected pre-tokenizer splits for tst_tokenizer: each case's text cut by the
# split pattern of the Hugging Face tokenizer.json of the family, as Python's `regex` module
# (which knows \p{L} and \p{N}) finds its matches. Run from this folder:
#   python3 make_expected.py > expected.json
import json
import regex

PATTERNS = {
    # Llama 3 (tokenizer.ggml.pre "llama-bpe"): letters with one leading non-letter, digits in threes.
    "llama3": r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
    # Qwen 2 and 3 ("qwen2"): the same, one digit at a time.
    "qwen2": r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
}

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
]


def main():
    out = []
    for name, pattern in PATTERNS.items():
        compiled = regex.compile(pattern)
        for text in CASES:
            words = [m.group(0) for m in compiled.finditer(text)]
            assert "".join(words) == text, (name, text)
            out.append({"pretokenizer": name, "text": text, "words": words})
    print(json.dumps(out, ensure_ascii=False, indent=0))


if __name__ == "__main__":
    main()
