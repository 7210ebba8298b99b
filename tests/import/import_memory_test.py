#!/usr/bin/env python3
"""import_memory_test.py — `mcpp-receipts import` stays within 4x its input in
peak memory (issue 28) for the importers that read JSON or a whole log:
pytest-benchmark, Google Benchmark and MLPerf Training. Each input is a real
tool output from tests/data replicated to ~8 MB in the same format: the
pytest-benchmark suite repeated (every benchmark with 2,000 round times, the
file indented as the plugin writes it), the Google Benchmark rows repeated
under new run names (its 3 repetitions and 4 aggregate rows each), an MLPerf
log with its own tracked_stats lines repeated. The bound is on the growth:
peak(big) - peak(the real file) <= 4 x size(big), each peak read by GNU time
(`/usr/bin/time -f %M`: Linux carries a parent's peak RSS into a child it
starts, so measuring from this interpreter would count the interpreter).
Also checks the big imports give as many receipts as the replicated inputs
hold, so a bound met by importing nothing cannot pass.

usage: import_memory_test.py MCPP_RECEIPTS DATA_DIR WORK_DIR GBENCH_SOURCE CXX
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys

BIN, DATA, WORK = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
GBENCH_SOURCE, CXX = sys.argv[4], sys.argv[5]
GNU_TIME = "/usr/bin/time"
TARGET = 8_000_000
shutil.rmtree(WORK, ignore_errors=True)
WORK.mkdir(parents=True)
fails = 0


def check(name, ok, detail=""):
    global fails
    print(("ok - " if ok else "not ok - ") + name)
    if not ok:
        fails += 1
        if detail:
            print("#", detail)


def peak_kib(fmt, path, out):
    """(exit status, peak RSS KiB, receipts written) of one import under GNU time."""
    p = subprocess.run([GNU_TIME, "-f", "@@peak %M", BIN, "import", fmt, str(path), "--out", str(out), "-q"],
                       capture_output=True, text=True)
    err, _, peak = p.stderr.rpartition("@@peak ")
    written = len(os.listdir(out)) if os.path.isdir(out) else 0
    shutil.rmtree(out, ignore_errors=True)
    if p.returncode:
        print("#", err.strip()[:300])
    return p.returncode, int(peak), written


def replicate(items, renamed, indent):
    """The items repeated under new names (renamed(item, k) for copy k) to ~TARGET bytes of JSON."""
    one = len(json.dumps([renamed(i, 0) for i in items], indent=indent))
    return [renamed(i, k) for k in range(TARGET // one + 1) for i in items]


def pytest_big(path):
    doc = json.loads((DATA / "pytest-benchmark" / "base.json").read_text())

    def renamed(b, k):
        b = json.loads(json.dumps(b))
        b["stats"]["data"] = (b["stats"]["data"] * 2000)[:2000]
        b["stats"]["rounds"] = 2000
        b["name"], b["fullname"] = (b[key].replace("test_", f"test_{k}_", 1) for key in ("name", "fullname"))
        return b

    doc["benchmarks"] = replicate(doc["benchmarks"], renamed, 4)
    path.write_text(json.dumps(doc, indent=4))
    return len(doc["benchmarks"])


def gbench_big(path):
    doc = json.loads((DATA / "google-benchmark" / "base.json").read_text())
    rows = doc["benchmarks"]

    def renamed(r, k):
        return {key: v.replace("BM_", f"BM_{k}_", 1) if key in ("name", "run_name") else v for key, v in r.items()}

    doc["benchmarks"] = replicate(rows, renamed, 2)
    path.write_text(json.dumps(doc, indent=2))
    return len({r.get("run_name", r["name"]) for r in doc["benchmarks"]})


def mlperf_big(folder):
    log = DATA / "mlperf-v3.1" / "Dell" / "results" / "2xXE8640x4H100-SXM-80GB" / "dlrm_dcnv2" / "result_0.txt"
    shutil.copytree(DATA / "mlperf-v3.1" / "Dell", folder / "Dell")
    lines = log.read_text().splitlines(keepends=True)
    tracked = [line for line in lines if '"key": "tracked_stats"' in line] or lines[-1:]
    at = max(i for i, line in enumerate(lines) if '"key": "tracked_stats"' in line)
    pad = "".join(tracked)
    big = folder / log.relative_to(DATA / "mlperf-v3.1")
    big.write_text("".join(lines[:at]) + pad * (TARGET // len(pad) + 1) + "".join(lines[at:]))
    return big, 1


if not os.access(GNU_TIME, os.X_OK):
    print(f"# skip import_memory: no GNU time at {GNU_TIME} (scripts/install-deps.sh installs the package time)")
    sys.exit(0)

small_inputs = {"pytest-benchmark": DATA / "pytest-benchmark" / "base.json",
                "google-benchmark": DATA / "google-benchmark" / "base.json",
                "mlperf": DATA / "mlperf-v3.1" / "Dell" / "results" / "2xXE8640x4H100-SXM-80GB" / "dlrm_dcnv2" /
                "result_0.txt"}
(WORK / "mlperf").mkdir()
expected = {"pytest-benchmark": pytest_big(WORK / "pytest.json"),
            "google-benchmark": gbench_big(WORK / "gbench.json")}
mlperf_path, expected["mlperf"] = mlperf_big(WORK / "mlperf")
paths = {"pytest-benchmark": WORK / "pytest.json", "google-benchmark": WORK / "gbench.json", "mlperf": mlperf_path}

for fmt, big in paths.items():
    rc0, small, _ = peak_kib(fmt, small_inputs[fmt], WORK / "out-small")
    rc, peak, written = peak_kib(fmt, big, WORK / "out-big")
    size_kib = big.stat().st_size / 1024
    ratio = (peak - small) / size_kib
    check(f"{fmt}_import_peak_memory_within_4x_its_input ({size_kib / 1024:.1f} MiB in, peak {peak / 1024:.1f} MiB, "
          f"{small / 1024:.1f} MiB for the real file: {ratio:.2f}x; {written} receipts)",
          rc0 == 0 and rc == 0 and ratio <= 4.0 and written == expected[fmt],
          f"exit {rc0}/{rc}, {written} receipts written, {expected[fmt]} expected")
    big.unlink()

# Issue 48 item 4: many short samples in one benchmark. 990,000 round times
# of one pytest-benchmark test (as short numbers: ~8 MB) peaked at 65x and a
# larger file wrote a receipt over validate's 16 MiB. The samples are kept as
# 1,001 quantiles, said in extra.samples_summarized_<metric>; the bound is the
# issue's, on the whole peak: <= 4 x the input + 64 MiB.
#
# Google Benchmark: 150,000 repetitions of one run written by the real
# library (tests/import/gbench_sort.cc, Debian's libbenchmark-dev, ~71 MB in
# about 2 s). The importer held one run's rows as cJSON trees (~2.4 KB a row
# for ~470 bytes of text): 404 MiB here, over the bound's 336 MiB; it keeps
# their numbers now (issue 48, part 2). Below ~70,000 repetitions the old
# importer also met the bound, so the size is what makes this case a test.
def pytest_rounds(path, n):
    doc = json.loads((DATA / "pytest-benchmark" / "base.json").read_text())
    b = doc["benchmarks"][0]
    b["stats"]["data"] = [round(0.001 + (k % 997) * 1e-6, 6) for k in range(n)]
    b["stats"]["rounds"] = n
    b["stats"]["median"] = sorted(b["stats"]["data"])[n // 2]
    doc["benchmarks"] = [b]
    path.write_text(json.dumps(doc, separators=(",", ":")))


def gbench_repetitions(path, n):
    program = WORK / "gbench"
    build = subprocess.run([CXX, "-O2", "-o", str(program), GBENCH_SOURCE, "-lbenchmark", "-lpthread"],
                           capture_output=True, text=True)
    if build.returncode:
        raise SystemExit(f"not ok - google_benchmark_program_builds (libbenchmark-dev)\n# {build.stderr[-600:]}")
    subprocess.run([str(program), "--benchmark_filter=BM_Sort/256$", f"--benchmark_repetitions={n}",
                    "--benchmark_min_time=0.000001", f"--benchmark_out={path}", "--benchmark_out_format=json"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    rows = json.loads(path.read_text())["benchmarks"]
    reps = [r["real_time"] * 1e-9 for r in rows if r["run_type"] == "iteration"]
    return sorted(reps)[len(reps) // 2] if len(reps) % 2 else sum(sorted(reps)[len(reps) // 2 - 1:][:2]) / 2


for fmt, make, n, metric in (("pytest-benchmark", pytest_rounds, 990_000, "time_s"),
                             ("google-benchmark", gbench_repetitions, 150_000, "real_time_s")):
    big = WORK / f"{fmt}-samples.json"
    median = make(big, n)
    out = WORK / "out-samples"
    p = subprocess.run([GNU_TIME, "-f", "@@peak %M", BIN, "import", fmt, str(big), "--out", str(out), "-q"],
                       capture_output=True, text=True)
    peak = int(p.stderr.rpartition("@@peak ")[2])
    files = sorted(out.glob("*.json")) if out.is_dir() else []
    valid = files and subprocess.run([BIN, "validate", *map(str, files)], capture_output=True).returncode == 0
    receipts = [json.loads(f.read_text()) for f in files]
    said = [r.get("extra", {}).get(f"samples_summarized_{metric}") for r in receipts]
    # the value is the median of every repetition, read by Python from the tool's file
    value = [m["value"] for r in receipts for m in r["metrics"]["named"] if m["name"] == metric]
    size = big.stat().st_size
    check(f"{fmt}_{n}_samples_import_within_4x_plus_64_MiB_into_a_receipt_that_validates "
          f"({size / 2**20:.1f} MiB in, peak {peak / 1024:.1f} MiB, bound {(4 * size + 2**26) / 2**20:.1f} MiB, "
          f"receipt {max((f.stat().st_size for f in files), default=0) / 2**20:.2f} MiB)",
          p.returncode == 0 and len(files) == 1 and valid and peak * 1024 <= 4 * size + 2**26
          and said[0] is not None and said[0].get("samples") == n and said[0].get("kept") == 1001
          and (median is None or value == [median]),
          f"exit {p.returncode}, {len(files)} receipts, valid {valid}, said {said[:1]}, value {value} "
          f"(the rows' median {median}), {p.stderr[-300:]}")
    shutil.rmtree(out, ignore_errors=True)
    big.unlink()

print(f"# {fails} failed")
sys.exit(1 if fails else 0)
