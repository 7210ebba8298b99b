#!/usr/bin/env python3
"""layering_test.py — the modules of lib/src depend only downward.

docs/ARCHITECTURE.md orders the modules of lib/src in layers. A module may use
its own layer and the layers below it, never one above it. This test checks
both ways a module can reach another:

  includes   every `#include "MODULE/..."` in lib/src (a private header)
  calls      every symbol an object file of the library leaves undefined and
             another object defines (`nm -P`), which also catches a call made
             through a public header or a prototype declared elsewhere

and that the receipt's private layout and each third-party header stay in the
modules that own them (CONTAINED).

A back-edge that is too large to remove now is listed in EXCEPTIONS, with the
reason, and in docs/ARCHITECTURE.md ("Known back-edges"); an exception that no
longer occurs fails too, so the list stays true. The layer order and every
exception must also appear in docs/ARCHITECTURE.md.

usage: layering_test.py SOURCE_ROOT NM 'OBJ;OBJ;...'
       layering_test.py --self-test     (the checker finds a planted back-edge)
"""
import os
import re
import subprocess
import sys
import tempfile

# Lowest first. The same order is written in docs/ARCHITECTURE.md.
LAYERS = ["util", "receipt", "io", "policy", "analysis", "import", "store", "render"]
LAYER_LINE = " → ".join("`%s`" % m for m in LAYERS)

# (file under lib/src, module it reaches above its own layer): why it is allowed.
EXCEPTIONS = {}

INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/[^"]+"', re.M)

# Headers that stay inside the modules (or files) named, so that a change to them
# touches those only: the receipt's layout, and each third-party library behind
# its adapter. Files outside that still include one are listed as known; one that
# stops including it is only noted (whoever cleans up need not edit this list
# in the same change), a new one fails.
CONTAINED = {
    '"receipt/layout.h"': (("receipt/", "io/"), {}),
    '"receipt/schema.h"': (("receipt/", "io/"), {}),
    '"receipt/load_ctx.h"': (("receipt/", "io/"), {}),
    '"receipt/cjson_inline.h"': (("receipt/", "io/"), {}),
    "<cjson/cJSON.h>": (("io/", "receipt/", "import/import_internal.h"), {
        "analysis/lane_summary_io.c": "parses serialized lane summaries",
        "analysis/policy_test_file.c": "reads policy case files",
        "render/receipt_text.c": "reads list-valued fields from the canonical JSON",
    }),
    "<yaml.h>": (("io/yaml_read.c",), {}),
    "<sqlite3.h>": (("store/",), {}),
    "<zstd.h>": (("store/store_codec.c",), {}),
    "<lua.h>": (("policy/lua/",), {}),
}


def layer_of(module):
    return LAYERS.index(module) if module in LAYERS else None


def module_of(rel):
    """'receipt/bind.c' -> 'receipt'; 'policy/lua/x.c' -> 'policy'."""
    return rel.split("/", 1)[0]


def include_edges(src):
    """(file, included module) for every module-qualified include in src."""
    for root, _, files in os.walk(src):
        for name in sorted(files):
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, src).replace(os.sep, "/")
            with open(path, encoding="utf-8", errors="replace") as f:
                for target in INCLUDE_RE.findall(f.read()):
                    if target in LAYERS:
                        yield rel, target, "includes a private header of"


def object_source(obj):
    """.../src/receipt/bind.c.o -> receipt/bind.c (CMake's object naming)."""
    m = re.search(r"[/\\]src[/\\](.+?)\.(o|obj)$", obj)
    return m.group(1).replace("\\", "/") if m else None


def symbol_edges(nm, objects):
    defined, undefined = {}, {}
    for obj in objects:
        rel = object_source(obj)
        if rel is None or layer_of(module_of(rel)) is None:
            continue
        out = subprocess.run([nm, "-P", obj], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            fields = line.split()
            if len(fields) < 2:
                continue
            sym, kind = fields[0], fields[1]
            if kind == "U":
                undefined.setdefault(rel, set()).add(sym)
            elif kind in "TDBRVWC":
                defined[sym] = rel
    for rel, syms in sorted(undefined.items()):
        for sym in sorted(syms):
            if sym in defined:
                yield rel, module_of(defined[sym]), "calls %s in %s, module" % (sym, defined[sym])


def violations(edges):
    """Back-edges not excused, and the set of exceptions that occurred."""
    bad, used = [], set()
    for rel, target, how in edges:
        own = module_of(rel)
        if own == target or layer_of(own) is None or layer_of(target) <= layer_of(own):
            continue
        if (rel, target) in EXCEPTIONS:
            used.add((rel, target))
            continue
        bad.append("lib/src/%s %s %s/, which is above %s/ (layers, lowest first: %s)"
                   % (rel, how, target, own, ", ".join(LAYERS)))
    return bad, used


def containment(src, notes=True):
    """Problems: a contained header included outside its home and not listed."""
    problems = []
    for root, _, files in os.walk(src):
        for name in sorted(files):
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, src).replace(os.sep, "/")
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
            for header, (homes, known) in CONTAINED.items():
                if not re.search(r"^\s*#\s*include\s+%s" % re.escape(header), text, re.M):
                    continue
                if rel.startswith(homes) or rel in homes or rel in known:
                    continue
                problems.append("lib/src/%s includes %s, which stays in %s (docs/ARCHITECTURE.md, Rules)"
                                % (rel, header, ", ".join(homes)))
    for header, (_, known) in CONTAINED.items() if notes else ():
        for rel in known:
            path = os.path.join(src, rel)
            if not os.path.exists(path) or header not in open(path, encoding="utf-8").read():
                print("note: lib/src/%s no longer includes %s: it can leave the known list" % (rel, header))
    return problems


def check_document(doc_path):
    with open(doc_path, encoding="utf-8") as f:
        doc = f.read()
    problems = []
    if LAYER_LINE not in doc:
        problems.append("%s does not state the layers as this test does: %s" % (doc_path, LAYER_LINE))
    for rel, target in EXCEPTIONS:
        if "`%s`" % rel not in doc:
            problems.append("%s does not list the allowed back-edge `%s` -> %s/" % (doc_path, rel, target))
    return problems


def run(root, nm, objects):
    src = os.path.join(root, "lib", "src")
    edges = list(include_edges(src))
    n_includes = len(edges)
    if objects:
        edges += list(symbol_edges(nm, objects))
    if n_includes == 0 or (objects and len(edges) == n_includes):
        print("FAIL: found no cross-module includes or no cross-module calls to check; "
              "is %s the source root and are the objects built?" % root)
        return 1
    bad, used = violations(edges)
    bad += containment(src)
    for key in sorted(set(EXCEPTIONS) - used):
        bad.append("allowed back-edge %s -> %s/ no longer occurs: remove it from EXCEPTIONS "
                   "and from docs/ARCHITECTURE.md" % key)
    bad += check_document(os.path.join(root, "docs", "ARCHITECTURE.md"))
    for line in bad:
        print("FAIL:", line)
    if bad:
        return 1
    print("ok: %d cross-module includes and %d cross-module calls go down the layers "
          "(%s); %d allowed back-edges" % (n_includes, len(edges) - n_includes,
                                          " < ".join(LAYERS), len(used)))
    return 0


def self_test():
    """A planted include from receipt/ into render/ and an unknown exception fail."""
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "lib", "src", "receipt"))
        os.makedirs(os.path.join(tmp, "docs"))
        with open(os.path.join(tmp, "lib", "src", "receipt", "x.c"), "w") as f:
            f.write('#include "render/render.h"\n#include "util/strbuf.h"\n')
        with open(os.path.join(tmp, "docs", "ARCHITECTURE.md"), "w") as f:
            f.write(LAYER_LINE + "\n")
        bad, _ = violations(include_edges(os.path.join(tmp, "lib", "src")))
        if len(bad) != 1 or "receipt/x.c includes a private header of render/" not in bad[0]:
            print("FAIL: the planted back-edge receipt -> render was not reported:", bad)
            return 1
        EXCEPTIONS[("receipt/x.c", "render")] = "planted" # the list is empty today
        try:
            missed = not any("does not list the allowed back-edge" in p
                             for p in check_document(os.path.join(tmp, "docs", "ARCHITECTURE.md")))
        finally:
            del EXCEPTIONS[("receipt/x.c", "render")]
        if missed:
            print("FAIL: a document without the exceptions was accepted")
            return 1
        os.makedirs(os.path.join(tmp, "lib", "src", "analysis"))
        with open(os.path.join(tmp, "lib", "src", "analysis", "y.c"), "w") as f:
            f.write("#include <sqlite3.h>\n")
        found = containment(os.path.join(tmp, "lib", "src"), notes=False)
        if not any("analysis/y.c includes <sqlite3.h>" in p for p in found):
            print("FAIL: SQLite included outside store/ was not reported:", found)
            return 1
    print("ok: the checker reports a planted back-edge, a document that omits an exception "
          "and a third-party header outside its adapter")
    return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    if len(sys.argv) != 4:
        print(__doc__)
        sys.exit(2)
    objs = [o for o in sys.argv[3].split(";") if o]
    sys.exit(run(sys.argv[1], sys.argv[2], objs))
