#!/usr/bin/env python3
"""lists_test.py — every hand-written list names what its one source holds.

The sources: the importer registry (MCPP_IMPORT_FORMATS in
lib/include/mcpp_receipts/import.h), the dimension table
(lib/src/policy/dimension_table.h) and the shipped policies (policy/*.lua).
Generated lists (the formats tables of docs/import.md and docs/guide/import.md,
docs/comparability.md, docs/fields.md) have their own tests; this one reads
the lists people write by hand, where a reader meets them first, and fails
while one has gone stale (a shipped policy missing, or a name that no longer
exists: a format or dimension named as an example included).

It also holds the rule that keeps an "unknown format" test honest: a format's
name is lowercase letters, digits and '-', so a test that needs a name no
importer will ever take uses one with '_' (no_such_format), never a real-looking
one such as "csv", which the next importer may well register.

usage: lists_test.py SOURCE_ROOT
       lists_test.py --self-test     (the checks catch a stale list)
"""
import os
import re
import sys
import tempfile

FORMAT_NAME = re.compile(r"^[a-z][a-z0-9-]*$")


def read(root, rel):
    with open(os.path.join(root, rel), encoding="utf-8") as f:
        return f.read()


def formats(root):
    text = read(root, "lib/include/mcpp_receipts/import.h")
    body = text[text.index("#define MCPP_IMPORT_FORMATS(X)"):]
    body = body[:body.index("\n\n")]
    return re.findall(r'X\(\s*\w+\s*,\s*\d+\s*,\s*"([^"]+)"', body)


def dimensions(root):
    text = read(root, "lib/src/policy/dimension_table.h")
    return re.findall(r"^\s*X\((\w+),\s*(?:MUST_MATCH|QUALIFY|IGNORE)\b", text, re.M)


def policies(root):
    return sorted(n for n in os.listdir(os.path.join(root, "policy")) if n.endswith(".lua"))


def passage(text, start, end):
    """The text from the first line matching `start` up to the first match of `end` after it."""
    m = re.search(start, text, re.M)
    if not m:
        return None
    rest = text[m.start():]
    e = re.search(end, rest[len(m.group(0)):], re.M)
    return rest[: len(m.group(0)) + (e.start() if e else len(rest))]


def compare(where, found, expected, ordered=False, subset=False):
    """Problems: what `where` lists against what the source holds (with `subset`, names
    only some of it: examples)."""
    if found is None:
        return ["%s: the list was not found (moved? update tests/core/lists_test.py)" % where]
    problems = []
    missing = [] if subset else [n for n in expected if n not in found]
    extra = [n for n in found if n not in expected]
    if missing:
        problems.append("%s does not name %s" % (where, ", ".join(missing)))
    if extra:
        problems.append("%s names %s, which the source does not hold" % (where, ", ".join(extra)))
    if ordered and not missing and not extra and list(found) != list(expected):
        problems.append("%s is not in the source's order: %s" % (where, ", ".join(expected)))
    return problems


def check(root):
    problems = []
    fmts = formats(root)
    if len(fmts) < 2:
        return ["found %d formats in MCPP_IMPORT_FORMATS: is %s the source root?" % (len(fmts), root)]
    for name in fmts:
        if not FORMAT_NAME.match(name):
            problems.append("format name %r: a name is lowercase letters, digits and '-' (tests rely on "
                            "'_' never naming a format)" % name)

    # The formats tables (docs/import.md, docs/guide/import.md) are written from the registry
    # (import_formats_table_in_docs_matches_the_registry); elsewhere a format is only named as an
    # example, and an example must exist.
    readme = read(root, "README.md")
    m = re.search(r"^mcpp-receipts import (\S+) ", readme, re.M)
    problems += compare("README.md (quick tour, import)", [m.group(1)] if m else None, fmts, subset=True)
    py = read(root, "bindings/python/mcpp_receipts/__init__.py")
    doc = passage(py, r"^def import_results\(", r"All or nothing")
    problems += compare("bindings/python/mcpp_receipts/__init__.py (import_results docstring)",
                        re.findall(r'"([a-z][a-z0-9-]*)"', doc) if doc else None, fmts, subset=True)

    # The default dimensions are listed by docs/comparability.md's generated table only; a
    # dimension the guide names as an example must exist.
    dims = dimensions(root)
    policies_md = read(root, "docs/guide/policies.md")
    m = re.search(r"a default dimension \(([^)]*)\)", policies_md)
    problems += compare("docs/guide/policies.md (default dimensions, examples)",
                        re.findall(r"`([a-z_]+)`", m.group(1)) if m else None, dims, subset=True)

    # The shipped policies: both tables list every file of policy/.
    shipped = policies(root)
    for rel in ("policy/README.md", "docs/guide/policies.md"):
        rows = re.findall(r"^\| `([a-z_0-9]+\.lua)` \|", read(root, rel), re.M)
        problems += compare("%s (shipped policies table)" % rel, sorted(rows) if rows else None, shipped)
    return problems


def self_test():
    """A list missing a format, one naming a gone dimension and a missing policy row all fail."""
    with tempfile.TemporaryDirectory() as tmp:
        def write(rel, text):
            os.makedirs(os.path.dirname(os.path.join(tmp, rel)), exist_ok=True)
            with open(os.path.join(tmp, rel), "w", encoding="utf-8") as f:
                f.write(text)
        write("lib/include/mcpp_receipts/import.h", '#define MCPP_IMPORT_FORMATS(X) \\\n'
              '    X(A, 1, "alpha", a, "") \\\n    X(B, 2, "beta", b, "")\n\n')
        write("lib/src/policy/dimension_table.h", "    X(pattern, MUST_MATCH, x)\n    X(cache, QUALIFY, y)\n")
        write("policy/default.lua", "")
        write("policy/strict.lua", "")
        write("README.md", "mcpp-receipts import alpha x --out y\n")
        write("bindings/python/mcpp_receipts/__init__.py",
              'def import_results(format):\n    """"alpha" or "beta". All or nothing."""\n')
        write("docs/guide/policies.md", "a default dimension (`pattern`, `cache`, ...)\n| `default.lua` | d |\n"
              "| `strict.lua` | s |\n")
        write("policy/README.md", "| `default.lua` | d |\n| `strict.lua` | s |\n")
        if check(tmp):
            print("FAIL: the planted tree with current lists was refused:", check(tmp))
            return 1
        write("README.md", "mcpp-receipts import csv x --out y\n")
        write("docs/guide/policies.md", "a default dimension (`pattern`, `gone`)\n| `default.lua` | d |\n")
        found = check(tmp)
        expected = ["README.md (quick tour, import) names csv",
                    "names gone", "docs/guide/policies.md (shipped policies table) does not name strict.lua"]
        for e in expected:
            if not any(e in p for p in found):
                print("FAIL: a stale list was not reported (%s):" % e, found)
                return 1
    print("ok: the checks report a format that is not registered, a dimension the table does not hold "
          "and a shipped policy missing from a table")
    return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    if len(sys.argv) != 2:
        print(__doc__)
        sys.exit(2)
    found = check(sys.argv[1])
    for p in found:
        print("FAIL:", p)
    if not found:
        print("ok: README and the Python docstring name only registered formats (%d); "
              "docs/guide/policies.md names only default dimensions (%d); policy/README.md and docs/guide/policies.md "
              "the %d shipped policies" % (len(formats(sys.argv[1])), len(dimensions(sys.argv[1])),
                                          len(policies(sys.argv[1]))))
    sys.exit(1 if found else 0)
