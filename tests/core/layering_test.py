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

usage: layering_test.py SOURCE_ROOT NM 'OBJ;OBJ;...' COMPILE_COMMANDS_JSON GENERATED_DIR
                         GENERATED_INCLUDE_DIR
       layering_test.py --self-test     (the checker finds a planted back-edge)
"""
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

# Lowest first. The same order is written in docs/ARCHITECTURE.md.
LAYERS = ["util", "receipt", "io", "policy", "analysis", "import", "store", "render"]
LAYER_LINE = " → ".join("`%s`" % m for m in LAYERS)

# (file under lib/src, module it reaches above its own layer): why it is allowed.
EXCEPTIONS = {}

# Any #include, quoted or angled, with what it names.
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]', re.M)

# Trees outside the library whose code uses only the public headers
# (docs/ARCHITECTURE.md, Layers: "Callers ... use only the public headers"), and the one
# shared header directory the Lua module and the policy engine both include.
FRONT_ENDS = ("bindings/", "kernels/", "scripts/", "lib/include/", "lib/shared/")
# Build-time generators that read a private table of lib/src on purpose (file: why).
GENERATORS = {
    "tools/gen_dimensions_doc.c": "writes docs/comparability.md from policy/dimension_table.h",
    "tools/gen_metrics_doc.c": "writes docs/schema-2.md's well-known metrics from receipt/metrics.c",
}
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
    "<lz4.h>": (("store/store_codec.c",), {}),
    "<libpq-fe.h>": (("store/store_pg_conn.c",), {}),
    "<lua.h>": (("policy/lua/",), {}),
}


def layer_of(module):
    return LAYERS.index(module) if module in LAYERS else None


def module_of(rel):
    """'receipt/bind.c' -> 'receipt'; 'policy/lua/x.c' -> 'policy'."""
    return rel.split("/", 1)[0]


class Tree:
    """Where a path lies: lib/src (or the build's generated private headers, which the
    library includes as if they were in lib/src) gives ("src", "receipt/x.h"); anything
    else in the repository gives ("repo", "bindings/lua/module/x.c"); outside both, None."""

    def __init__(self, root, generated=()):
        self.root = os.path.realpath(root)
        self.src = os.path.join(self.root, "lib", "src")
        self.generated = [os.path.realpath(g) for g in generated]

    def where(self, path):
        path = os.path.realpath(path)
        for base in [self.src] + self.generated:
            if path.startswith(base + os.sep):
                return "src", os.path.relpath(path, base).replace(os.sep, "/")
        if path.startswith(self.root + os.sep):
            return "repo", os.path.relpath(path, self.root).replace(os.sep, "/")
        return None


def search_dirs(args, directory):
    """The quote and angle search lists of one compile command, in gcc's order:
    -iquote, then -I, then -isystem (a quoted include tries its own directory first)."""
    quote, plain, system = [], [], []
    i = 0
    while i < len(args):
        a = args[i]
        for flag, dest in (("-iquote", quote), ("-I", plain), ("-isystem", system)):
            if a == flag and i + 1 < len(args):
                dest.append(args[i + 1])
                i += 1
                break
            if a.startswith(flag) and len(a) > len(flag):
                dest.append(a[len(flag):])
                break
        i += 1
    absolute = lambda ds: [os.path.normpath(os.path.join(directory, d)) for d in ds]
    plain, system = absolute(plain), absolute(system)
    return absolute(quote) + plain + system, plain + system


def compile_commands(db_path):
    """(source, quote dirs, angle dirs) of every C/C++/CUDA file the build compiles."""
    with open(db_path, encoding="utf-8") as f:
        entries = json.load(f)
    for e in entries:
        args = e.get("arguments") or shlex.split(e["command"])
        source = os.path.normpath(os.path.join(e["directory"], e["file"]))
        yield (source,) + search_dirs(args, e["directory"])


def resolve(includer, kind, name, quote_dirs, angle_dirs):
    """The file the compiler opens for `#include <kind>name`, or None (a system header)."""
    dirs = ([os.path.dirname(includer)] + quote_dirs) if kind == '"' else angle_dirs
    for d in dirs:
        candidate = os.path.join(d, name)
        if os.path.isfile(candidate):
            return os.path.normpath(candidate)
    return None


def include_graph(tree, commands, fallback_dirs, scan_roots):
    """(includer, spelled include, resolved file) for every include the build follows.

    Each compiled file is walked with its own command's search path, and every header
    it reaches with the same path, as the compiler does. A file under scan_roots that
    no command reaches (a binding this build leaves out, a header nobody includes) is
    resolved against fallback_dirs, so it is checked too."""
    edges, seen = set(), set()

    def walk(path, quote_dirs, angle_dirs):
        key = (path, tuple(quote_dirs), tuple(angle_dirs))
        if key in seen or tree.where(path) is None:
            return
        seen.add(key)
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
        except OSError:
            return
        for kind, name in INCLUDE_RE.findall(text):
            target = resolve(path, kind, name, quote_dirs, angle_dirs)
            if target is None:
                continue
            spelled = '"%s"' % name if kind == '"' else "<%s>" % name
            edges.add((os.path.realpath(path), spelled, os.path.realpath(target)))
            walk(target, quote_dirs, angle_dirs)

    for source, quote_dirs, angle_dirs in commands:
        walk(source, quote_dirs, angle_dirs)
    walked = {os.path.realpath(k[0]) for k in seen}
    for scan in scan_roots:
        for root, _, files in os.walk(os.path.join(tree.root, scan)):
            for name in sorted(files):
                path = os.path.realpath(os.path.join(root, name))
                if name.endswith((".c", ".h", ".cu", ".cuh")) and path not in walked:
                    walk(path, fallback_dirs, fallback_dirs)
    return edges


def include_edges(tree, graph):
    """(file, module) for every include of lib/src that lands in another module's file,
    however it is spelled (`"render/render.h"`, `"../render/render.h"`)."""
    for includer, _, target in sorted(graph):
        a, b = tree.where(includer), tree.where(target)
        if a and b and a[0] == "src" and b[0] == "src":
            yield a[1], module_of(b[1]), "includes a private header of"


def front_end_problems(tree, graph, commands):
    """A front end that includes a file of lib/src, or has lib/src on its include path."""
    problems = set()
    for includer, spelled, target in graph:
        a, b = tree.where(includer), tree.where(target)
        if a and b and a[0] == "repo" and b[0] == "src" and a[1] not in GENERATORS \
                and a[1].startswith(FRONT_ENDS):
            problems.add("%s includes %s, the library's private lib/src/%s: callers use only the "
                         "public headers (docs/ARCHITECTURE.md, Layers)" % (a[1], spelled, b[1]))
    for source, quote_dirs, _ in commands:
        a = tree.where(source)
        if not a or a[0] != "repo" or a[1] in GENERATORS or not a[1].startswith(FRONT_ENDS):
            continue
        for d in quote_dirs:
            if os.path.realpath(d) in [tree.src] + tree.generated:
                problems.add("%s is compiled with the private %s on its include path"
                             % (a[1], os.path.relpath(d, tree.root)))
    return sorted(problems)


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


def containment(tree, graph, notes=True):
    """Problems: a contained header included outside its home and not listed. A header
    of lib/src counts however its include is spelled (the file it resolves to); a
    third-party header by its spelling."""
    includes = {}
    for includer, spelled, target in graph:
        a, b = tree.where(includer), tree.where(target)
        if a and a[0] == "src":
            includes.setdefault(a[1], set()).add('"%s"' % b[1] if b and b[0] == "src" else spelled)
    for root, _, files in os.walk(tree.src):
        for name in sorted(files):
            if name.endswith((".c", ".h")):
                path = os.path.join(root, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    angled = {"<%s>" % n for k, n in INCLUDE_RE.findall(f.read()) if k == "<"}
                includes.setdefault(tree.where(path)[1], set()).update(angled)
    problems = []
    for rel in sorted(includes):
        for header, (homes, known) in CONTAINED.items():
            if header not in includes[rel] or rel.startswith(homes) or rel in homes or rel in known:
                continue
            problems.append("lib/src/%s includes %s, which stays in %s (docs/ARCHITECTURE.md, Rules)"
                            % (rel, header, ", ".join(homes)))
    for header, (_, known) in CONTAINED.items() if notes else ():
        for rel in known:
            if header not in includes.get(rel, ()):
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


def run(root, nm, objects, db_path, generated, generated_include):
    if not os.path.isfile(db_path):
        print("FAIL: no compile database at %s (CMAKE_EXPORT_COMPILE_COMMANDS, set in the top "
              "CMakeLists.txt, writes it; the Makefile and Ninja generators support it)" % db_path)
        return 1
    tree = Tree(root, [generated])
    commands = list(compile_commands(db_path))
    fallback = [os.path.join(tree.root, "lib", "include"), generated_include,
                os.path.join(tree.root, "lib", "shared"), tree.src, generated]
    graph = include_graph(tree, commands, fallback, ("lib", "bindings", "kernels", "scripts", "tools"))
    edges = list(include_edges(tree, graph))
    n_includes = len(edges)
    if objects:
        edges += list(symbol_edges(nm, objects))
    if n_includes == 0 or (objects and len(edges) == n_includes):
        print("FAIL: found no cross-module includes or no cross-module calls to check; "
              "is %s the source root and are the objects built?" % root)
        return 1
    bad, used = violations(edges)
    bad += containment(tree, graph)
    bad += front_end_problems(tree, graph, commands)
    for key in sorted(set(EXCEPTIONS) - used):
        bad.append("allowed back-edge %s -> %s/ no longer occurs: remove it from EXCEPTIONS "
                   "and from docs/ARCHITECTURE.md" % key)
    bad += check_document(os.path.join(root, "docs", "ARCHITECTURE.md"))
    for line in bad:
        print("FAIL:", line)
    if bad:
        return 1
    fronts = sum(1 for i, _, _ in graph if (tree.where(i) or ("", ""))[1].startswith(FRONT_ENDS))
    print("ok: %d includes within lib/src and %d cross-module calls go down the layers "
          "(%s); %d allowed back-edges; %d includes of bindings/, kernels/, scripts/ and the "
          "public headers stay out of lib/src (%d compile commands)"
          % (n_includes, len(edges) - n_includes, " < ".join(LAYERS), len(used), fronts, len(commands)))
    return 0


def self_test():
    """Planted back-edges, spelled both ways, a front end reaching lib/src, an unknown
    exception and a third-party header outside its adapter all fail."""
    with tempfile.TemporaryDirectory() as tmp:
        def write(rel, text):
            os.makedirs(os.path.dirname(os.path.join(tmp, rel)), exist_ok=True)
            with open(os.path.join(tmp, rel), "w") as f:
                f.write(text)
        write("lib/src/receipt/x.c", '#include "render/render.h"\n#include "util/strbuf.h"\n')
        write("lib/src/receipt/z.c", '#include "../render/render.h"\n')
        write("lib/src/render/render.h", "\n")
        write("lib/src/util/strbuf.h", "\n")
        write("lib/src/policy/lua/lua_values.h", "\n")
        write("bindings/lua/module/m.c", '#include "policy/lua/lua_values.h"\n')
        write("docs/ARCHITECTURE.md", LAYER_LINE + "\n")
        tree = Tree(tmp)
        src = os.path.join(tmp, "lib", "src")
        lib_cmd = [(os.path.join(src, "receipt", f), [src], [src]) for f in ("x.c", "z.c")]
        module = os.path.join(tmp, "bindings", "lua", "module", "m.c")
        graph = include_graph(tree, lib_cmd + [(module, [src], [src])], [], ())
        bad, _ = violations(include_edges(tree, graph))
        for planted in ("receipt/x.c", "receipt/z.c"):
            if not any("%s includes a private header of render/" % planted in p for p in bad):
                print("FAIL: the planted back-edge %s -> render was not reported:" % planted, bad)
                return 1
        front = front_end_problems(tree, graph, [(module, [src], [src])])
        if len(front) != 2 or not any("includes \"policy/lua/lua_values.h\"" in p for p in front) \
                or not any("on its include path" in p for p in front):
            print("FAIL: the Lua module reaching lib/src was not reported twice:", front)
            return 1
        # Not compiled by any command: resolved against the fallback path, still caught.
        uncompiled = include_graph(tree, [], [src], ("bindings",))
        if not front_end_problems(tree, uncompiled, []):
            print("FAIL: a front end this build does not compile escaped the check")
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
        write("lib/src/analysis/y.c", "#include <sqlite3.h>\n")
        found = containment(tree, set(), notes=False)
        if not any("analysis/y.c includes <sqlite3.h>" in p for p in found):
            print("FAIL: SQLite included outside store/ was not reported:", found)
            return 1
    print("ok: the checker reports planted back-edges (\"render/render.h\" and "
          "\"../render/render.h\"), a front end that includes lib/src or has it on its path "
          "(compiled or not), a document that omits an exception and a third-party header "
          "outside its adapter")
    return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    if len(sys.argv) != 7:
        print(__doc__)
        sys.exit(2)
    objs = [o for o in sys.argv[3].split(";") if o]
    sys.exit(run(sys.argv[1], sys.argv[2], objs, *sys.argv[4:7]))
