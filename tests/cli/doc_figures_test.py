#!/usr/bin/env python3
"""doc_figures_test.py - the figures the docs quote from the build are the build's
(issue 47 item 16): every percentage the shipped-policy table of policy/README.md
and the README's demo quote for a policy's noise or gate, and every policy digest
the README's demo transcript prints, are read from the policies themselves
(`mcpp-receipts policy check --format json`, `frontier`/`claim --format json`).
A doc that drifts from the build fails here, naming the file, the phrase and the
value the build has.

usage: doc_figures_test.py CLI SOURCE_DIR
"""
import json
import re
import subprocess
import sys

cli, src = sys.argv[1], sys.argv[2]
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
for said in re.findall(r"policy\s+default \(digest ([0-9a-f]{16})\)", front):
    expect("README.md default digest", said, frontier["policy_digest"])
claim = run_json("claim", "--policy", "policy/shared_cpu.lua", "--metric", "metrics.tokens_per_s", "--lane", "pattern=A",
                 "--value", "1", "examples/receipts", "--format", "json")
for said in re.findall(r"policy\s+shared_cpu \(digest ([0-9a-f]{16})\)", front):
    expect("README.md shared_cpu claim digest", said, claim["policy_digest"])

# receipt excerpts in the guides: every ```json block that reads as receipt sections must use
# the schema's spelling (no unknown field, no wrong type; an excerpt may leave fields out)
import glob
import os
import tempfile

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
