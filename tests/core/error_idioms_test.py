#!/usr/bin/env python3
"""error_idioms_test.py — lib/src fails one way (docs/ARCHITECTURE.md, Rules: Errors).

  - out of memory is returned through mcpp_error_nomem(), which sets the thread's
    last error, never as a bare MCPP_ENOMEM (a caller would read a stale message);
  - a heap copy of a string is util/alloc.h's mcpp_strdup / mcpp_strndup, never
    the C library's strdup / strndup (NULL-safe, and one place to change);
  - a cleanup label is `done:` (the release runs on every path) or `fail:` (success
    has returned before it), the only two a reader has to know;
  - the library never prints (it sets the last error; callers decide what to show).

util/ defines these helpers and is not checked. Comments are ignored.

usage: error_idioms_test.py SOURCE_ROOT
       error_idioms_test.py --self-test
"""
import os
import re
import sys
import tempfile

RULES = [
    (re.compile(r"(?<![=!]=\s)(?<!case\s)\bMCPP_ENOMEM\b(?!\s*[=!]=)"),
     "returns a bare MCPP_ENOMEM: use mcpp_error_nomem(), which sets the last error"),
    (re.compile(r"(?<![\w])strn?dup\("), "copies a string with the C library: use mcpp_strdup / mcpp_strndup (util/alloc.h)"),
    (re.compile(r"^\s*(?!done:|fail:|default:)([a-z_][a-z0-9_]*):\s*$", re.M),
     "has a cleanup label other than done: or fail:"),
    (re.compile(r"\b(printf|puts|perror)\(|\bfprintf\(std(err|out)\b"), "prints: set the last error instead"),
]


def strip_comments(text):
    """The text with comments and string literals blanked, lines kept."""
    out = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)
    out = re.sub(r"//[^\n]*", "", out)
    return re.sub(r'"(\\.|[^"\\\n])*"', '""', out)


def check(src):
    problems = []
    for root, _, files in os.walk(src):
        for name in sorted(files):
            if not name.endswith(".c"):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, src).replace(os.sep, "/")
            if rel.startswith("util/"):
                continue
            with open(path, encoding="utf-8", errors="replace") as f:
                code = strip_comments(f.read())
            for pattern, why in RULES:
                for m in pattern.finditer(code):
                    line = code.count("\n", 0, m.start()) + 1
                    problems.append("lib/src/%s:%d %s" % (rel, line, why))
    return problems


def self_test():
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "store"))
        with open(os.path.join(tmp, "store", "x.c"), "w") as f:
            f.write("/* MCPP_ENOMEM and strdup( in a comment are fine */\n"
                    "int a(void) { if (rc == MCPP_ENOMEM) return mcpp_error_nomem(); return MCPP_ENOMEM; }\n"
                    "char *b(const char *s) { return strdup(s); }\n"
                    "int c(void) {\ncleanup:\n    return 0;\ndone:\n    return 1;\n}\n"
                    "void d(void) { fprintf(stderr, \"x\"); }\n")
        found = check(tmp)
        want = ["x.c:2 returns a bare MCPP_ENOMEM", "x.c:3 copies a string", "x.c:5 has a cleanup label",
                "x.c:10 prints"]
        if len(found) != len(want) or not all(any(w in p for p in found) for w in want):
            print("FAIL: planted violations were not each reported once:", found)
            return 1
    print("ok: the checker reports a bare MCPP_ENOMEM, a raw strdup, a third cleanup label and a print, "
          "and ignores comments and comparisons")
    return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    if len(sys.argv) != 2:
        print(__doc__)
        sys.exit(2)
    found = check(os.path.join(sys.argv[1], "lib", "src"))
    for p in found:
        print("FAIL:", p)
    if not found:
        print("ok: lib/src returns out-of-memory with the error set, copies strings with util/alloc.h, "
              "cleans up at done: or fail: and never prints")
    sys.exit(1 if found else 0)
