#!/usr/bin/env python3
"""not_a_receipt_test.py — another tool's own results handed to a command that
reads receipts (`validate`, `gate`, `frontier`) are named: one error saying
which tool wrote the file and the import that makes receipts of it, never that
tool's keys listed as unknown receipt fields ("benchmarks: ... did you mean
'benchmark'?", what a first week met). The suggested command is run and its
receipts validate; a receipt that fails for its own reasons keeps its own
errors, even when it was imported from such a tool and carries its keys.
Several receipts in one file (what `store export` writes) are named as that.

usage: not_a_receipt_test.py MCPP_RECEIPTS DATA_DIR WORK_DIR"""
import json
import pathlib
import shutil
import subprocess
import sys

BIN, DATA, WORK = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
fails = 0
shutil.rmtree(WORK, ignore_errors=True)
WORK.mkdir(parents=True)


def check(name, cond, detail=""):
    global fails
    print(f"{'ok' if cond else 'not ok'} - {name}" + ("" if cond else f" {detail}"))
    fails += not cond


def run(*args):
    return subprocess.run([BIN, *map(str, args)], capture_output=True, text=True)


def first(pattern):
    return next(DATA.glob(pattern))


# (import format, the tool as the message names it, one of its real outputs in tests/data)
OUTPUTS = [
    ("google-benchmark", "Google Benchmark", DATA / "google-benchmark" / "base.json"),
    ("pytest-benchmark", "pytest-benchmark", DATA / "pytest-benchmark" / "base.json"),
    ("hyperfine", "hyperfine", DATA / "hyperfine" / "base.json"),
    ("pyperf", "pyperf", DATA / "pyperf" / "base.json"),
    ("asv", "asv", first("asv/base/results/vm/1dbf*.json")),
    ("go-bench", "go test -bench", DATA / "go" / "base.txt"),
    ("go-bench", "go test -json", DATA / "go" / "base.jsonl"),
    ("mlperf-inference", "MLPerf Inference", first("mlperf-inference/base/**/mlperf_log_detail.txt")),
    ("mlperf", "MLPerf Training", first("mlperf-v3.1/NVIDIA/results/*/*/result_0.txt")),
]

for fmt, tool, path in OUTPUTS:
    tag = fmt.replace("-", "_") + ("_json" if path.suffix == ".jsonl" else "")
    p = run("validate", path)
    said = f"{path}:1:1: not a receipt: this is {tool} output; import it first: `mcpp-receipts import {fmt} {path} --out DIR`"
    check(f"validate_names_{tag}_and_its_import", p.returncode == 3 and said in p.stdout + p.stderr,
          (p.stdout + p.stderr)[:400])
    check(f"validate_lists_no_unknown_field_of_{tag}", "unknown top-level field" not in p.stdout + p.stderr)
    out = WORK / f"imported-{tag}"
    p = run("import", fmt, path, "--out", out, "-q")
    v = run("validate", "-q", *sorted(out.glob("*.json"))) if p.returncode == 0 else p
    check(f"the_suggested_import_of_{tag}_makes_valid_receipts",
          p.returncode == 0 and any(out.glob("*.json")) and v.returncode == 0, (p.stderr + v.stdout)[:300])

gb = DATA / "google-benchmark" / "base.json"
p = run("gate", "--baseline", gb, "--candidate", gb, "--format", "json")
report = json.loads(p.stdout)
check("gate_names_the_tool_of_an_input_it_could_not_read",
      p.returncode == 3 and "this is Google Benchmark output" in json.dumps(report), p.stdout[:300])
p = run("frontier", gb)
check("frontier_names_it_too", "mcpp-receipts import google-benchmark" in p.stderr, p.stderr[:300])

# An imported Google Benchmark receipt carries the tool's "context" in `extra`; broken for
# its own reason (a second copy of the results at its top level), its own errors are listed.
receipt = json.loads(sorted((WORK / "imported-google_benchmark").glob("*.json"))[0].read_text())
receipt["benchmarks"] = [{"name": "BM_x"}]
receipt["context"] = receipt["extra"]["google_benchmark"]["context"]
broken = WORK / "broken_receipt.json"
broken.write_text(json.dumps(receipt, indent=2))
p = run("validate", broken)
check("a_receipt_broken_for_its_own_reason_keeps_its_own_errors",
      p.returncode == 3 and "not a receipt" not in p.stdout and "benchmarks: unknown top-level field" in p.stdout,
      p.stdout[:400])

# Several receipts in one file, as `store export` writes them, are named as that, not "got a list"
# or "trailing characters after the receipt"; a receipt whose own line starts with '{' is not.
examples = DATA.parent.parent / "examples" / "receipts"
db = WORK / "exported.db"
p = run("store", "add", db, examples)
check("store_add_of_the_examples_exits_0", p.returncode == 0, p.stderr[:300])
for fmt, said in (("json", "not a receipt but a list of receipts (as `mcpp-receipts store export --format json` writes)"),
                  ("jsonl", "not a receipt but receipts one a line (as `mcpp-receipts store export --format jsonl` writes)")):
    out = WORK / f"exported.{fmt}"
    out.write_text(run("store", "export", db, "--format", fmt).stdout)
    p = run("validate", out)
    check(f"validate_names_a_store_export_{fmt}_as_several_receipts",
          p.returncode == 3 and f"{out}:1:1: {said}: a receipt file holds one" in p.stdout, p.stdout[:400])
    p = run("frontier", out)
    check(f"frontier_names_it_too_{fmt}", "mcpp-receipts store add DB -" in p.stderr, p.stderr[:300])
own = WORK / "unindented.json"
own.write_text('{"schema": "mcpp.receipt/2", "extra": {"runs": [\n{"a": 1}]}, "lane": {"nmae": "x"}}\n')
p = run("validate", own)
check("a_receipt_with_a_line_starting_with_a_brace_keeps_its_own_errors",
      p.returncode == 3 and "not a receipt" not in p.stdout and "nmae" in p.stdout, p.stdout[:400])

print(f"# {fails} failed")
sys.exit(1 if fails else 0)
