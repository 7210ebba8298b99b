#!/usr/bin/env python3
"""doc_figures_test.py - the figures the docs quote from the build are the build's
(issue 47 item 16): every percentage the shipped-policy table of policy/README.md
and the README's demo quote for a policy's noise or gate, and every policy digest
the README's demo transcript prints, are read from the policies themselves
(`mcpp-receipts policy check --format json`, `frontier`/`claim --format json`).
The rules the reference quotes with examples are run as they are written:
docs/verdicts.md's goodput "never as seconds" (each seconds path it names is
refused naming a fraction, each fraction and badput path it names is a metric),
docs/metrics.md's derived goodput paths (each a metric the receipts list, the
list pandas' metric columns come from: tests/python/test_what_ran.py reads the
same paragraph for the columns), docs/comparability.md's "no family invented"
(mcpp-step run with each stack the paragraph names); the guides' receipt
excerpts (the kernels guide's precision spelling among them) validate.
A doc that drifts from the build fails here, naming the file, the phrase and the
value the build has.

A change of a shipped policy (a dimension, a requested/observed pair) changes its
digest: `--write-digests` rewrites the README's quoted digests to the build's
first, then checks as usual.

usage: doc_figures_test.py CLI SOURCE_DIR MCPP_STEP [--write-digests]
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

cli, src, step = sys.argv[1], sys.argv[2], sys.argv[3]
failures = []


def run_json(*args):
    out = subprocess.run([cli, *args], capture_output=True, text=True, cwd=src)
    return json.loads(out.stdout)


def policy(name):
    doc = run_json("policy", "check", "--format", "json", f"policy/{name}.lua")
    return doc["policies"][0]


def pct(x):
    return f"{round(x * 100):d}%"


def expect(where, phrase, want):
    if phrase != want:
        failures.append(f"{where}: says {phrase!r}, the build has {want!r}")


# policy/README.md: one table row per shipped policy
readme = open(f"{src}/policy/README.md", encoding="utf-8").read()
rows = 0
for line in readme.splitlines():
    m = re.match(r"\| `(\w+)\.lua` \| (.*) \|$", line)
    if not m:
        continue
    rows += 1
    name, text = m.group(1), m.group(2)
    p = policy(name)
    where = f"policy/README.md row {name}.lua"
    for said in re.findall(r"(\d+)% gate", text):
        expect(where, f"{said}% gate", pct(p["gate"][0]["max_regression"]) + " gate")
    for said in re.findall(r"(\d+)% (?:run-to-run )?spread", text):
        expect(where, f"{said}% spread", pct(p["noise"]["max_rel_spread"]) + " spread")
    for said in re.findall(r"(\d+)% floor", text):
        expect(where, f"{said}% floor", pct(p["noise"]["noise_floor"]) + " floor")
if rows < 6:
    failures.append(f"policy/README.md: found {rows} policy rows, expected the 6 shipped policies")

# README.md: the demo's spreads and digests
front = open(f"{src}/README.md", encoding="utf-8").read()
m = re.search(r"policy \((\d+)% spread", front)
if m:
    expect("README.md default policy spread", m.group(1) + "%", pct(policy("default")["noise"]["max_rel_spread"]))
else:
    failures.append("README.md: no 'policy (N% spread' phrase for the default policy")
m = re.search(r"`policy/shared_cpu\.lua` \((\d+)%\)", front)
if m:
    expect("README.md shared_cpu spread", m.group(1) + "%", pct(policy("shared_cpu")["noise"]["max_rel_spread"]))
else:
    failures.append("README.md: no '`policy/shared_cpu.lua` (N%)' phrase")
frontier = run_json("frontier", "examples/receipts", "--format", "json")
claim = run_json("claim", "--policy", "policy/shared_cpu.lua", "--metric", "metrics.tokens_per_s", "--lane", "pattern=A",
                 "--value", "1", "examples/receipts", "--format", "json")
if "--write-digests" in sys.argv[4:]:
    written = front
    for name, digest in (("default", frontier["policy_digest"]), ("shared_cpu", claim["policy_digest"])):
        written = re.sub(r"(policy\s+%s \(digest )[0-9a-f]{16}\)" % name, lambda m: m.group(1) + digest + ")", written)
    if written != front:
        with open(f"{src}/README.md", "w", encoding="utf-8") as f:
            f.write(written)
        print("README.md: the quoted policy digests rewritten")
        front = written
for said in re.findall(r"policy\s+default \(digest ([0-9a-f]{16})\)", front):
    expect("README.md default digest", said, frontier["policy_digest"])
for said in re.findall(r"policy\s+shared_cpu \(digest ([0-9a-f]{16})\)", front):
    expect("README.md shared_cpu claim digest", said, claim["policy_digest"])



def read_doc(rel):
    """The doc's text with its line breaks and runs of blanks read as one space."""
    return " ".join(open(f"{src}/{rel}", encoding="utf-8").read().split())


def sentence(rel, pattern, what):
    """The match of `pattern` in doc `rel`, or None with a failure saying which sentence is gone."""
    m = re.search(pattern, read_doc(rel))
    if not m:
        failures.append(f"{rel}: no {what} sentence")
    return m


def paths_in(text):
    """The backticked paths of a phrase, `.x` read as the previous path's section + x."""
    out, last = [], None
    for name in re.findall(r"`([\w.]+)`", text):
        if name.startswith(".") and last:
            name = last.rsplit(".", 1)[0] + name
        out.append(name)
        last = name
    return out


def metric_run(metric):
    """frontier --metric over the example receipts: (exit code, stderr)."""
    r = subprocess.run([cli, "frontier", "--metric", metric, "examples/receipts", "--format", "json"],
                       capture_output=True, text=True, cwd=src)
    return r.returncode, r.stderr


# docs/verdicts.md: goodput is gated as fractions, never as seconds
verdicts = read_doc("docs/verdicts.md")
m = sentence("docs/verdicts.md", r"never as seconds: naming (.*?) as the metric of an analysis is refused \(exit (\d)\)",
             "'never as seconds: naming ... is refused (exit N)'")
if m:
    refused = paths_in(m.group(1))
    if len(refused) < 3:
        failures.append(f"docs/verdicts.md: the seconds refused are {refused}, expected three paths")
    for name in refused:
        rc, err = metric_run(name)
        if rc != int(m.group(2)) or "_fraction" not in err:
            failures.append(f"docs/verdicts.md: --metric {name}: says refused (exit {m.group(2)}) naming a fraction, "
                            f"the build exits {rc}: {err.strip()[:160]}")
    start = verdicts.index("Goodput is gated as fractions")
    accepted = [n for n in paths_in(verdicts[start:m.start()]) if n.endswith("_fraction")]
    kept = re.search(r"the badput seconds, (`[\w.]+`) and the rest, stay metrics", verdicts)
    accepted += paths_in(kept.group(1)) if kept else []
    if len(accepted) < 4:
        failures.append(f"docs/verdicts.md: found {accepted} as the goodput metrics, expected 3 fractions and a badput path")
    for name in accepted:
        rc, err = metric_run(name)
        if rc != 0:
            failures.append(f"docs/verdicts.md: --metric {name}: says a metric, the build exits {rc}: {err.strip()[:160]}")

# docs/metrics.md: each derived goodput fraction at its own path, a metric the receipts list
m = sentence("docs/metrics.md", r"each at its own path \((.*?)\), so pandas has one column each",
             "'each at its own path (...), so pandas has one column each'")
if m:
    named = paths_in(m.group(1))
    if len(named) < 3 or not all(n.startswith("metrics.") for n in named):
        failures.append(f"docs/metrics.md: the paths are {named}, expected three metrics.* paths")
    for path in named:  # a name no receipt lists (mcpp_receipt_metric_at) is refused, exit 3
        rc, err = metric_run(path[len("metrics."):])
        if rc != 0:
            failures.append(f"docs/metrics.md: {path} is no metric the example receipts list: {err.strip()[:160]}")

# docs/comparability.md: mcpp-step invents no family
comp = read_doc("docs/comparability.md")
SMALL = ["--heads", "2", "--seq-len", "16", "--batch", "1", "--experts", "4", "--top-k", "2", "--steps", "1",
         "--warmup", "0", "--quiet"]


def step_lane(*args):
    """mcpp-step's exit code and lane section for a stack (SMALL sizes, the default width)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.json")
        r = subprocess.run([step, *args, *SMALL, "--out", out], capture_output=True, text=True)
        return r.returncode, (json.load(open(out))["lane"] if r.returncode == 0 else {})


m = sentence("docs/comparability.md", r"`--family NAME` naming a registered family the stack is not "
             r"\(`--family (\w+) --depth (\d+)`\) is bad input, exit (\d)", "'`--family NAME` naming ... exit N'")
if m:
    rc, _ = step_lane("--pattern", "AEMEAEMEAEMR", "--family", m.group(1), "--depth", m.group(2))
    expect(f"docs/comparability.md --family {m.group(1)} --depth {m.group(2)} exit", int(m.group(3)), rc)
for pattern, depth, family in re.findall(r"\(`([AMER]+)` at (\d+) is (\w+)\)", comp) + \
        re.findall(r"\(`([AMER]+)` x(\d+) is (\w+)\)", comp):
    rc, lane = step_lane("--pattern", pattern, "--depth", depth)
    expect(f"docs/comparability.md {pattern} x{depth} family", family, lane.get("family") if rc == 0 else f"exit {rc}")
m = sentence("docs/comparability.md", r"then no family, and a lane name without one \(`(([AMER]+) x(\d+) [^`]*?) \.\.\.`",
             "'then no family, and a lane name without one (`...`'")
if m:
    rc, lane = step_lane("--pattern", m.group(2), "--depth", m.group(3))
    expect(f"docs/comparability.md {m.group(2)} x{m.group(3)} family", None, lane.get("family"))
    if not str(lane.get("name", "")).startswith(m.group(1)):
        failures.append(f"docs/comparability.md: the lane name {lane.get('name')!r} does not start {m.group(1)!r}")

# receipt excerpts in the guides: every ```json block that reads as receipt sections must use
# the schema's spelling (no unknown field, no wrong type; an excerpt may leave fields out)
SECTIONS = {"lane", "workload", "backend", "hardware", "metrics", "routing", "compile", "topology", "launch"}
excerpts = 0
with tempfile.TemporaryDirectory() as tmp:
    for doc in sorted(glob.glob(f"{src}/docs/**/*.md", recursive=True)):
        text = open(doc, encoding="utf-8").read()
        for k, block in enumerate(re.findall(r"```json\n(.*?)```", text, re.S)):
            body = re.sub(r"\.\.\.\s*,?", "", re.sub(r",\s*\.\.\.", "", block)).strip().rstrip(",")
            try:
                data = json.loads(body if body.startswith("{") else "{" + body + "}")
            except ValueError:
                continue  # not a receipt excerpt (a shell session, a fragment of another format)
            if not isinstance(data, dict) or not SECTIONS & set(data):
                continue
            excerpts += 1
            data.setdefault("schema", "mcpp.receipt/2")
            path = os.path.join(tmp, f"excerpt{excerpts}.json")
            with open(path, "w", encoding="utf-8") as f:
                json.dump(data, f)
            report = subprocess.run([cli, "validate", "--format", "json", path], capture_output=True, text=True)
            for d in json.loads(report.stdout)["files"][0]["diagnostics"]:
                if d["kind"] in ("type", "unknown_field", "enum"):
                    failures.append(f"{os.path.relpath(doc, src)} json block {k + 1}: {d['field']}: {d['message']}")
if excerpts < 1:
    failures.append("no receipt excerpt found in docs/: the check would pass vacuously")

for f in failures:
    print("FAIL", f)
print(f"{'ok' if not failures else 'not ok'} - the figures the docs quote are the build's ({rows} policy rows, "
      f"{excerpts} receipt excerpts)")
sys.exit(1 if failures else 0)
