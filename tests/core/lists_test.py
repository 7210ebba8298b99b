#!/usr/bin/env python3
"""lists_test.py — every hand-written list names what its one source holds.

The sources: the importer registry (MCPP_IMPORT_FORMATS in
lib/include/mcpp_receipts/import.h), the dimension table
(lib/src/policy/dimension_table.h), the shipped policies (policy/*.lua), and
the metrics the library names itself (lib/src/receipt/metrics.c: the
well-known metrics and the derived ones).
Generated lists (the formats tables of docs/import.md and docs/guide/import.md,
docs/comparability.md, docs/fields.md, the well-known metrics table of
docs/schema-2.md) have their own tests; this one reads
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


def dimension_rows(root):
    """(name, role, applies) of each row of the dimension table, in its order."""
    text = read(root, "lib/src/policy/dimension_table.h")
    return re.findall(r"^\s*X\((\w+),\s*(MUST_MATCH|QUALIFY|IGNORE),\s*\w+,\s*(\w+)", text, re.M)


def dimensions(root):
    return [name for name, _, _ in dimension_rows(root)]


def well_known_metrics(root):
    """(name, unit, direction) of each row of mcpp_well_known_metrics[] (lib/src/receipt/metrics.c)."""
    text = read(root, "lib/src/receipt/metrics.c")
    body = text[text.index("mcpp_well_known_metrics[] = {"):]
    body = body[:body.index("};")]
    return [(n, u, d.lower()) for n, u, d in
            re.findall(r'\{"([^"]+)",\s*"([^"]+)",\s*MCPP_DIRECTION_(HIGHER|LOWER)', body)]


def derived_metrics(root):
    """The names of the metrics the library derives (DERIVED_NAMES in lib/src/receipt/metrics.c)."""
    m = re.search(r"DERIVED_NAMES\[\w*\]\s*=\s*\{([^}]*)\}", read(root, "lib/src/receipt/metrics.c"))
    return re.findall(r'"([^"]+)"', m.group(1)) if m else []


def covers(written, name):
    """Whether a metric name as a list writes it stands for `name`: the name itself, or a
    family: `goodput.badput_s.<cause>`, `goodput.*`, `per_family_ms.<A|M|E|R>`."""
    m = re.match(r"^(.*?\.)(?:\*|<([^>]*)>)$", written)
    if not m:
        return written == name
    rest = name[len(m.group(1)):]
    if not name.startswith(m.group(1)) or not rest:
        return False
    alternatives = m.group(2)
    return not alternatives or "|" not in alternatives or rest in alternatives.split("|")


def compare_metrics(where, written, names, subset=False):
    """Problems: the metric names `where` writes (families included) against `names`."""
    if written is None:
        return ["%s: the list was not found (moved? update tests/core/lists_test.py)" % where]
    problems = []
    extra = [w for w in written if not any(covers(w, n) for n in names)]
    missing = [] if subset else [n for n in names if not any(covers(w, n) for w in written)]
    if missing:
        problems.append("%s does not name %s" % (where, ", ".join(missing)))
    if extra:
        problems.append("%s names %s, which the library does not hold" % (where, ", ".join(extra)))
    return problems


# A metric name in a C comment or a docstring: a word with an underscore, and its dotted parts
# (step_time_s, goodput.badput_s.<cause>, per_family_ms.<A|M|E|R>, goodput.*); "metrics.named" and
# a path's "metrics." are not metric names.
C_METRIC = re.compile(r"(?<![\w.])(?!metrics\.)([a-z]+_[a-z_]*|goodput|per_family_ms)((?:\.(?:[a-z_]+|<[^>]*>|\*))*)")


def c_metric_names(text):
    return [a + b for a, b in C_METRIC.findall(text) if "_" in a + b or b]


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

    # The guide's model dimensions (those that do not apply between two benchmark-suite results)
    # are examples pointing at the generated table; each must be one.
    comparing = read(root, "docs/guide/comparing.md")
    m = re.search(r"the model dimensions \((.*?)\) do not apply", comparing.replace("\n", " "))
    model = [n for n, _, applies in dimension_rows(root) if applies in ("MODEL", "MODEL_OR_STATED")]
    problems += compare("docs/guide/comparing.md (the model dimensions, examples)",
                        re.findall(r"`([a-z_]+)`", m.group(1)) if m else None, model, subset=True)

    # The metrics the library names itself. The one whole list of the well-known ones, with their
    # units and directions, is docs/schema-2.md's table, written from the registry
    # (core_metrics_doc_matches_the_metric_registry); elsewhere they are named as examples (a
    # family such as goodput.* stands for its members), and an example must exist, so that a new
    # well-known metric is its registry row and no hand-written list. The derived ones are named
    # whole where their list is.
    well_known = well_known_metrics(root)
    names = [n for n, _, _ in well_known]
    derived = derived_metrics(root)
    if len(names) < 3 or len(derived) < 2:
        return problems + ["found %d well-known and %d derived metrics in lib/src/receipt/metrics.c: moved?"
                           % (len(names), len(derived))]
    metrics_md = read(root, "docs/metrics.md")
    doc = passage(metrics_md, r"^well-known ones at fixed paths", r"and any other under")
    problems += compare_metrics("docs/metrics.md (well-known metrics, examples)",
                                re.findall(r"`([^`]+)`", doc) if doc else None, names, subset=True)
    problems += compare_metrics("docs/metrics.md (derived metrics)",
                                sorted(set(re.findall(r"`((?:goodput\.)?\w+_fraction)`", metrics_md))), derived)
    guide = read(root, "docs/guide/receipts.md")
    doc = passage(guide, r"names the headline\.", r"are well-known metrics")
    problems += compare_metrics("docs/guide/receipts.md (well-known metrics, examples)",
                                re.findall(r"`([^`]+)`", doc[len("names the headline."):]) if doc else None, names,
                                subset=True)
    header = read(root, "lib/include/mcpp_receipts/receipt.h")
    doc = passage(header, r"Every number a receipt states, by name\.", r"\*/")
    problems += compare_metrics("lib/include/mcpp_receipts/receipt.h (named metrics, examples)",
                                c_metric_names(doc) if doc else None, names + derived, subset=True)
    docstring = read(root, "bindings/python/src/receipt_type.c")
    doc = passage(docstring, r"Well-known metrics \(", r"\)")
    problems += compare_metrics("bindings/python/src/receipt_type.c (metric docstring)",
                                c_metric_names(doc) if doc else None, names, subset=True)

    # The shipped policies: both tables list every file of policy/.
    shipped = policies(root)
    for rel in ("policy/README.md", "docs/guide/policies.md"):
        rows = re.findall(r"^\| `([a-z_0-9]+\.lua)` \|", read(root, rel), re.M)
        problems += compare("%s (shipped policies table)" % rel, sorted(rows) if rows else None, shipped)
    m = re.search(r"^## How the shipped policies chose their figures\n\n((?:\|.*\n)+)", read(root, "docs/statistics.md"),
                  re.M)
    rows = re.findall(r"^\| ([^|]*) \|", m.group(1), re.M) if m else []
    problems += compare("docs/statistics.md (the shipped policies' noise figures)",
                        sorted(set(n for r in rows for n in re.findall(r"`([a-z_0-9]+\.lua)`", r))) if m else None,
                        shipped)
    doc = passage(read(root, "bindings/python/mcpp_receipts/_policy.py"), r"def shipped\(", r"MCPP_POLICY_PATH")
    problems += compare("bindings/python/mcpp_receipts/_policy.py (Policy.shipped docstring, examples)",
                        [n + ".lua" for n in re.findall(r'"([a-z_0-9]+)"', doc)] if doc else None, shipped,
                        subset=True)
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
        write("lib/src/policy/dimension_table.h",
              "    X(pattern, MUST_MATCH, FIELDS, MODEL, x)\n    X(cache, QUALIFY, FIELDS, MODEL, y)\n"
              "    X(hardware, MUST_MATCH, FIELDS, ALL, z)\n")
        write("lib/src/receipt/metrics.c",
              'const mcpp_well_known_metric mcpp_well_known_metrics[] = {\n'
              '    {"tokens_per_s", "tokens/s", MCPP_DIRECTION_HIGHER, F1},\n'
              '    {"step_time_s", "s", MCPP_DIRECTION_LOWER, F2},\n'
              '    {"goodput.badput_s.idle", "s", MCPP_DIRECTION_LOWER, F3},\n'
              '    {"goodput.badput_s.eval", "s", MCPP_DIRECTION_LOWER, F4},\n};\n'
              'static const char *const DERIVED_NAMES[N_DERIVED] = {"goodput.useful_fraction", "waste_fraction"};\n')
        write("docs/metrics.md", "well-known ones at fixed paths (`tokens_per_s`, `step_time_s`, `goodput.*`) and any "
              "other under\n`goodput.useful_fraction` and `waste_fraction`\n")
        write("docs/guide/receipts.md", "names the headline. `tokens_per_s` and `goodput.*` "
              "are well-known metrics\n")
        write("docs/guide/comparing.md", "the model dimensions (`pattern`, `cache`) do not apply\n")
        write("lib/include/mcpp_receipts/receipt.h", "/* Every number a receipt states, by name. tokens_per_s, "
              "step_time_s, goodput.badput_s.<cause>;\n * derived: goodput.useful_fraction, waste_fraction. */\n")
        write("bindings/python/src/receipt_type.c", '"Well-known metrics (tokens_per_s, goodput.*) and"\n')
        write("bindings/python/mcpp_receipts/_policy.py",
              '    def shipped(cls, name):\n        """"default", "strict" or MCPP_POLICY_PATH"""\n')
        write("policy/default.lua", "")
        write("policy/strict.lua", "")
        write("README.md", "mcpp-receipts import alpha x --out y\n")
        write("bindings/python/mcpp_receipts/__init__.py",
              'def import_results(format):\n    """"alpha" or "beta". All or nothing."""\n')
        write("docs/guide/policies.md", "a default dimension (`pattern`, `cache`, ...)\n| `default.lua` | d |\n"
              "| `strict.lua` | s |\n")
        write("policy/README.md", "| `default.lua` | d |\n| `strict.lua` | s |\n")
        write("docs/statistics.md", "## How the shipped policies chose their figures\n\n| policy | x |\n|---|---|\n"
              "| `default.lua` | 3% |\n| `strict.lua` | 2% (`default.lua`'s) |\n\nA team\n")
        if check(tmp):
            print("FAIL: the planted tree with current lists was refused:", check(tmp))
            return 1
        write("README.md", "mcpp-receipts import csv x --out y\n")
        write("docs/guide/policies.md", "a default dimension (`pattern`, `gone`)\n| `default.lua` | d |\n")
        write("docs/guide/comparing.md", "the model dimensions (`pattern`, `hardware`) do not apply\n")
        write("docs/statistics.md", "## How the shipped policies chose their figures\n\n| policy | x |\n|---|---|\n"
              "| `default.lua` | 3% |\n\nA team names `strict.lua`\n")
        write("docs/metrics.md", "well-known ones at fixed paths (`tokens_per_s`, `per_family_ms.*`) and any "
              "other under\n`goodput.useful_fraction`\n")
        write("docs/guide/receipts.md", "names the headline. `tokens_per_s` and `peak_memory_gib` are well-known "
              "metrics\n")
        write("lib/include/mcpp_receipts/receipt.h", "/* Every number a receipt states, by name. tokens_per_s, "
              "goodput.badput_s.<cause>;\n * derived: goodput.waste_fraction. */\n")
        write("bindings/python/src/receipt_type.c", '"Well-known metrics (tokens_per_sec) and"\n')
        write("bindings/python/mcpp_receipts/_policy.py",
              '    def shipped(cls, name):\n        """"default", "gone" or MCPP_POLICY_PATH"""\n')
        found = check(tmp)
        expected = ["README.md (quick tour, import) names csv",
                    "names gone", "docs/guide/policies.md (shipped policies table) does not name strict.lua",
                    "docs/guide/comparing.md (the model dimensions, examples) names hardware",
                    "docs/metrics.md (well-known metrics, examples) names per_family_ms.*",
                    "docs/metrics.md (derived metrics) does not name waste_fraction",
                    "docs/guide/receipts.md (well-known metrics, examples) names peak_memory_gib",
                    "receipt.h (named metrics, examples) names goodput.waste_fraction",
                    "receipt_type.c (metric docstring) names tokens_per_sec",
                    "_policy.py (Policy.shipped docstring, examples) names gone.lua",
                    "docs/statistics.md (the shipped policies' noise figures) does not name strict.lua"]
        for e in expected:
            if not any(e in p for p in found):
                print("FAIL: a stale list was not reported (%s):" % e, found)
                return 1
    print("ok: the checks report a format that is not registered, a dimension the table does not hold, "
          "a shipped policy missing from a table or named but not shipped, a dimension named as a model "
          "one that is not, a metric named that the library does not hold, a derived one missing")
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
        root = sys.argv[1]
        print("ok: README and the Python docstring name only registered formats (%d); the guides name only "
              "default dimensions (%d), as model ones only model ones; policy/README.md, docs/guide/policies.md "
              "and docs/statistics.md the %d shipped policies; the metrics they name are among the %d well-known and %d derived ones "
              "(docs/metrics.md names every derived one)"
              % (len(formats(root)), len(dimensions(root)), len(policies(root)), len(well_known_metrics(root)),
                 len(derived_metrics(root))))
    sys.exit(1 if found else 0)
