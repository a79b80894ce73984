#!/usr/bin/env python3
"""The functions of src/ longer than N lines, longest first: one line each, `LINES  FILE:LINE  NAME`.

A function's length counts its lines from the line of its `fn` keyword to the line of the brace
that closes its body, both included (doc comments and attributes above it are not counted). The
last lines give how many functions exceed N lines and how many exceed 150.

How it finds them: a scan of each .rs file under src/ (tests/, benches/ and examples/ are not
read) that blanks out comments, string and character literals, then for every `fn NAME` item
matches the first `{` after it (or stops at a `;`: a declaration without a body, as in a trait)
with its closing `}` by counting braces. Nested functions and closures inside a long function are
counted in it; a nested `fn` is also listed on its own. Limits: no macro expansion (functions
written by `macro_rules!` are seen as they are written, and a `fn` in a macro's pattern may be
miscounted); raw strings with `#` delimiters holding a quote are read as plain strings, and a
lifetime such as `'a` is told from a character literal only by the absence of a closing quote
within a few characters; `#[cfg(test)]` modules are included (test functions count too unless
--no-tests is given, which skips everything from a line `#[cfg(test)]` to the end of the file:
the house puts unit tests at the bottom of the file).

Python 3 standard library only; it writes nothing.

Usage:
  python3 scripts/long-functions.py [--min 80] [--no-tests] [ROOT]   (ROOT defaults to src/)
"""

import argparse
import os
import re
import signal
import sys

FN = re.compile(r"\bfn\s+([A-Za-z_][A-Za-z0-9_]*)")


def blank(text):
    """The text with comments and string/char literals replaced by spaces (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:i + 8]) and (i == 0 or not text[i - 1].isalnum() and text[i - 1] != "_"):
            hashes = re.match(r'r(#*)"', text[i:]).group(1)
            end = text.find('"' + hashes, i + 2 + len(hashes))
            j = n if end < 0 else end + 1 + len(hashes)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "'":
            # A character literal closes within a few characters ('x', '\n', '\u{1F600}');
            # a lifetime ('a) does not.
            m = re.match(r"'(\\u\{[0-9a-fA-F]+\}|\\.|[^\\'])'", text[i:i + 12])
            if m:
                out.append(" " * len(m.group(0)))
                i += len(m.group(0))
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(path, no_tests):
    """(name, first line, length in lines) of every `fn` with a body in the file."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if no_tests:
        cut = re.search(r"^\s*#\[cfg\(test\)\]", text, re.M)
        if cut:
            text = text[: cut.start()]
    code = blank(text)
    found = []
    for m in FN.finditer(code):
        i = m.end()
        while i < len(code) and code[i] not in "{;":
            i += 1
        if i >= len(code) or code[i] == ";":
            continue
        depth, j = 0, i
        while j < len(code):
            if code[j] == "{":
                depth += 1
            elif code[j] == "}":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        first = code.count("\n", 0, m.start()) + 1
        last = code.count("\n", 0, j) + 1
        found.append((m.group(1), first, last - first + 1))
    return found


def main():
    # Piped into `head`: end quietly when the reader stops reading.
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--min", type=int, default=80, help="list functions longer than this (80)")
    parser.add_argument("--no-tests", action="store_true", help="skip #[cfg(test)] modules")
    parser.add_argument("root", nargs="?", default="src")
    args = parser.parse_args()
    if not os.path.isdir(args.root):
        print(f"long-functions: {args.root} is not a folder", file=sys.stderr)
        return 2
    rows = []
    for folder, dirs, files in os.walk(args.root):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(".rs"):
                path = os.path.join(folder, name)
                for fn, line, length in functions(path, args.no_tests):
                    if length > args.min:
                        rows.append((length, path, line, fn))
    rows.sort(key=lambda r: (-r[0], r[1], r[2]))
    for length, path, line, fn in rows:
        print(f"{length:5}  {path}:{line}  {fn}")
    print(f"{len(rows)} functions longer than {args.min} lines, "
          f"{sum(1 for r in rows if r[0] > 150)} longer than 150")
    return 0


if __name__ == "__main__":
    sys.exit(main())
