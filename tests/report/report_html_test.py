#!/usr/bin/env python3
"""report_html_test.py — `mcpp-receipts report` end to end.

  structure  the page of 24 generated lanes (one with hostile strings) plus one
             unreadable file: exit 3 and the file named in the page; without
             it exit 0; the lane table has a row per lane, the SVG forest plot
             a row per lane with a headline; every hostile string comes back
             as the same text through an HTML parser and never as markup; no
             script, stylesheet link, external source or URL.
  history    `report --store DB` over the same lanes plus two lanes with 24 daily
             runs each (one steps down 6% at run 12, one is flat; their names and
             commits are hostile strings): the history section has a plot per
             lane with a dot per run, one change point marked at run 12 with the
             commits on either side (escaped), "no change point" for the flat
             lane; --lane keeps one lane's history; bad argument mixes exit 3.
  chromium   renders the page in headless Chromium at 1280 and 420 pixels wide
             (and 1280 in dark mode) to PNG and checks that each is not blank,
             has the status colours of the light or dark palette, and that the
             dark page is darker than the light one; then the history page of
             the two history lanes, whose plots must add accent-coloured pixels
             over the same receipts' page without history. Skips (exit 77, with the
             reason) only when Chromium or PIL cannot run.

usage: report_html_test.py structure|history|chromium CLI EXAMPLE_RECEIPT WORK_DIR
"""

from __future__ import annotations

import html.parser
import pathlib
import shutil
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from report_set import HISTORY_RUNS, HISTORY_STEP_AT, HOSTILE, history_commit, write_history, write_set  # noqa: E402

LANES = 24
SKIP = 77
failures: list[str] = []


def check(cond: bool, what: str) -> None:
    print(("ok - " if cond else "not ok - ") + what)
    if not cond:
        failures.append(what)


class Page(html.parser.HTMLParser):
    """Collects the text, the tags and the rows of the lane table and plot."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.text: list[str] = []
        self.tags: set[str] = set()
        self.attrs: list[tuple[str, str | None]] = []
        self.table_rows = 0
        self.plot_rows = 0
        self._in: list[str] = []

    def handle_starttag(self, tag, attrs):
        d = dict(attrs)
        self.tags.add(tag)
        self.attrs.extend(attrs)
        if d.get("id") in ("lane-table", "forest-plot"):
            self._in.append(d["id"])
        if tag == "tr" and self._in[-1:] == ["lane-table"] and "tbody" in self.tags:
            self.table_rows += 1
        if tag == "g" and self._in[-1:] == ["forest-plot"] and "row" in (d.get("class") or "").split():
            self.plot_rows += 1

    def handle_endtag(self, tag):
        if self._in and tag in ("table", "svg") and {"table": "lane-table", "svg": "forest-plot"}[tag] == self._in[-1]:
            self._in.pop()

    def handle_data(self, data):
        self.text.append(data)


def make_report(cli: str, example: str, work: pathlib.Path) -> pathlib.Path:
    inputs = work / "receipts"
    shutil.rmtree(work, ignore_errors=True)
    write_set(pathlib.Path(example), inputs, LANES)
    out = work / "report.html"
    proc = subprocess.run([cli, "report", str(inputs), "--out", str(out)], capture_output=True, text=True)
    check(proc.returncode == 0, f"report over {LANES} lanes exits 0 (got {proc.returncode}: {proc.stderr.strip()})")
    return out


def make_store(cli: str, inputs: pathlib.Path, db: pathlib.Path) -> None:
    for args in (["store", "init", str(db)], ["store", "add", str(db), str(inputs)]):
        proc = subprocess.run([cli, *args], capture_output=True, text=True)
        check(proc.returncode == 0, f"{' '.join(args[:2])} exits 0 ({proc.returncode}: {proc.stderr.strip()})")


def run_report(cli: str, args: list[str], out: pathlib.Path) -> str:
    proc = subprocess.run([cli, "report", *args, "--out", str(out)], capture_output=True, text=True)
    check(proc.returncode == 0, f"report {' '.join(args)} exits 0 ({proc.returncode}: {proc.stderr.strip()})")
    return out.read_text(encoding="utf-8") if out.is_file() else ""


class History(html.parser.HTMLParser):
    """Per history lane (by its div id): dots, change markers, and the text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lanes: dict[str, dict[str, int]] = {}
        self.lane: str | None = None
        self.text: list[str] = []
        self.tags: set[str] = set()

    def handle_starttag(self, tag, attrs):
        d = dict(attrs)
        self.tags.add(tag)
        if tag == "div" and d.get("class") == "history-lane":
            self.lane = d.get("id")
            self.lanes[self.lane] = {"dots": 0, "changes": 0, "svg": 0}
        elif self.lane and tag == "circle" and d.get("class") == "run":
            self.lanes[self.lane]["dots"] += 1
        elif self.lane and tag == "g" and d.get("class") == "change":
            self.lanes[self.lane]["changes"] += 1
        elif self.lane and tag == "svg":
            self.lanes[self.lane]["svg"] += 1

    def handle_data(self, data):
        self.text.append(data)


def history(cli: str, example: str, work: pathlib.Path) -> None:
    shutil.rmtree(work, ignore_errors=True)
    inputs, db = work / "receipts", work / "store.db"
    write_set(pathlib.Path(example), inputs, LANES)
    write_history(pathlib.Path(example), inputs)
    make_store(cli, inputs, db)
    page_text = run_report(cli, ["--store", str(db)], work / "history.html")
    page = History()
    page.feed(page_text)
    check('<section id="history">' in page_text, "report --store has a history section")
    check(len(page.lanes) == LANES + 2, f"a history plot per lane ({len(page.lanes)} of {LANES + 2})")
    check(all(v["svg"] == 1 or v["dots"] == 0 for v in page.lanes.values()), "each lane with runs has one SVG plot")
    long_lanes = [v for v in page.lanes.values() if v["dots"] == HISTORY_RUNS]
    check(len(long_lanes) == 2, f"the two history lanes plot a dot per run ({[v['dots'] for v in page.lanes.values()]})")
    check(sorted(v["changes"] for v in long_lanes) == [0, 1], "the stepped lane has one change point, the flat none")
    text = "".join(page.text)
    before, after = history_commit(HISTORY_STEP_AT - 1), history_commit(HISTORY_STEP_AT)
    check(f"change point at run {HISTORY_STEP_AT}: {before} \u2192 {after}" in text,
          "the change marker names the commits on either side")
    check(f"history-step-{HISTORY_STEP_AT:03d}" in text and before in text and after in text,
          "the change table names the first run after and both commits")
    check("No change point beyond noise." in text, "the flat lane says it has no change point")
    check(HOSTILE + " history step" in text, "the hostile lane name reads back as text")
    check("<b>c0mmit" not in page_text and "<script" not in page_text, "no hostile string appears as markup")
    check(not ({"script", "link", "img", "iframe", "object"} & page.tags), "no script, link, img, iframe or object tag")

    one = History()
    one.feed(run_report(cli, ["--store", str(db), "--lane", "seq_len=1024,top_k=8"], work / "one.html"))
    check(len(one.lanes) == 1 and next(iter(one.lanes.values()))["changes"] == 1,
          f"--lane keeps the selected lane's history ({len(one.lanes)} lanes)")
    for args, what in ((["--lane", "seq_len=1024", str(inputs)], "--lane without --store"),
                       (["--store", str(db), str(inputs), str(inputs)], "--store with paths")):
        proc = subprocess.run([cli, "report", *args, "--out", str(work / "bad.html")], capture_output=True, text=True)
        check(proc.returncode == 3 and not (work / "bad.html").exists(), f"{what} exits 3 and writes nothing")


def structure(cli: str, example: str, work: pathlib.Path) -> None:
    out = make_report(cli, example, work)
    page_text = out.read_text(encoding="utf-8")
    page = Page()
    page.feed(page_text)
    check(page.table_rows == LANES, f"lane table has one row per lane ({page.table_rows} of {LANES})")
    check(LANES - 2 <= page.plot_rows <= LANES, f"forest plot has a row per lane with a headline ({page.plot_rows})")
    check("svg" in page.tags and "circle" in page.tags and "line" in page.tags, "plot is inline SVG with dots and bars")
    text = "".join(page.text)
    check(HOSTILE in text, "the hostile lane name and caveat read back as the same text")
    check("a second caveat & <b>not bold</b>" in text, "a caveat with markup reads back as text")
    check("<script" not in page_text and "<b>" not in page_text, "no hostile string appears as markup")
    check("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;q&#39;" in page_text,
          "markup, quotes and ampersands are escaped")
    check("\u00fcn\u00efc\u00f8d\u00e9 \u2713" in page_text, "non-ASCII text is kept as UTF-8")
    check(not ({"script", "link", "img", "iframe", "object"} & page.tags), "no script, link, img, iframe or object tag")
    external = [v for k, v in page.attrs if k in ("src", "href") and v and not v.startswith("#")]
    check(not external, f"every link stays in the page ({external[:3]})")
    check("http:" not in page_text and "https:" not in page_text and "url(" not in page_text, "no URL at all")
    check("prefers-color-scheme:dark" in page_text, "a dark palette for prefers-color-scheme")

    bad = work / "receipts" / "zz-broken.json"
    bad.write_text('{"schema": "mcpp.receipt/2", "id": ', encoding="utf-8")
    out2 = work / "with_bad.html"
    proc = subprocess.run([cli, "report", str(work / "receipts"), "--out", str(out2)], capture_output=True, text=True)
    check(proc.returncode == 3, f"an unreadable input makes the exit code 3 (got {proc.returncode})")
    check(out2.is_file() and "zz-broken.json" in out2.read_text(encoding="utf-8")
          and 'id="skipped"' in out2.read_text(encoding="utf-8"), "the page still lists the rest and names the file")
    out3 = work / "kept.html"
    out3.write_text("earlier report", encoding="utf-8")
    proc = subprocess.run([cli, "report", str(work / "missing-dir"), "--out", str(out3), "--policy",
                           str(work / "no-such-policy.lua")], capture_output=True, text=True)
    check(proc.returncode == 3 and out3.read_text(encoding="utf-8") == "earlier report",
          f"a policy that cannot be read exits 3 and leaves the old page ({proc.returncode})")
    proc = subprocess.run([cli, "report", str(work / "receipts")], capture_output=True, text=True)
    check(proc.returncode == 3 and "--out" in proc.stderr, "report without --out exits 3 with its usage")


def chromium_binary() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    return None


def browser_or_skip() -> str | None:
    """Chromium's path, or None after printing why the browser tests skip here."""
    try:
        import PIL  # noqa: F401
    except ImportError as e:
        print(f"SKIP: PIL is not importable ({e}); scripts/install-deps.sh installs python3-pil")
        return None
    browser = chromium_binary()
    if not browser:
        print("SKIP: no chromium on PATH; scripts/install-deps.sh installs Debian's chromium")
    return browser


def screenshot(browser: str, page: pathlib.Path, png: pathlib.Path, width: int, dark: bool) -> str:
    cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
           f"--window-size={width},1800", f"--screenshot={png}", page.as_uri()]
    if dark:
        cmd.insert(1, "--force-dark-mode")
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=90)
    if proc.returncode != 0 or not png.is_file():
        return f"exit {proc.returncode}: {proc.stderr.strip()[-400:]}"
    return ""


def colour_share(img, rgb: tuple[int, int, int], tol: int = 40) -> float:
    """Fraction of pixels within `tol` of `rgb` in every channel."""
    data = img.getdata()
    near = sum(1 for p in data if all(abs(p[i] - rgb[i]) <= tol for i in range(3)))
    return near / len(data)


def chromium(cli: str, example: str, work: pathlib.Path) -> int:
    try:
        from PIL import Image, ImageStat
    except ImportError as e:
        print(f"SKIP: PIL is not importable ({e}); scripts/install-deps.sh installs python3-pil")
        return SKIP
    browser = chromium_binary()
    if not browser:
        print("SKIP: no chromium on PATH; scripts/install-deps.sh installs Debian's chromium")
        return SKIP
    out = make_report(cli, example, work)
    shots = {}
    for name, width, dark in (("light-1280", 1280, False), ("light-420", 420, False), ("dark-1280", 1280, True)):
        png = work / f"{name}.png"
        err = screenshot(browser, out, png, width, dark)
        if err and name == "light-1280":
            print(f"SKIP: chromium cannot render here: {err}")
            return SKIP
        check(not err, f"chromium renders {name} ({err or 'ok'})")
        if err:
            continue
        img = Image.open(png).convert("RGB")
        shots[name] = img
        stat = ImageStat.Stat(img.convert("L"))
        colours = len(img.getcolors(1 << 24) or [])
        check(img.size[0] == width, f"{name} is {width} pixels wide ({img.size})")
        check(stat.stddev[0] > 20 and colours > 50,
              f"{name} is not blank (luminance stddev {stat.stddev[0]:.1f}, {colours} colours)")
    if "light-1280" in shots:
        green = colour_share(shots["light-1280"], (0x1A, 0x7F, 0x37))
        check(green > 0.0005, f"light page shows the stable colour ({green:.4%} of pixels)")
    if "dark-1280" in shots and "light-1280" in shots:
        light = ImageStat.Stat(shots["light-1280"].convert("L")).mean[0]
        dark = ImageStat.Stat(shots["dark-1280"].convert("L")).mean[0]
        check(dark < light - 80, f"dark mode is dark (mean luminance {dark:.0f} vs light {light:.0f})")
        green = colour_share(shots["dark-1280"], (0x4A, 0xC2, 0x6B))
        check(green > 0.0005, f"dark page shows the dark palette's stable colour ({green:.4%} of pixels)")
    return chromium_history(cli, browser, example, work / "history")


def chromium_history(cli: str, browser: str, example: str, work: pathlib.Path) -> int:
    """The history plots render: the page of the two history lanes from a store
    shows far more of the accent colour (lines, dots) than the same receipts'
    page without history (accent only in links)."""
    from PIL import Image

    shutil.rmtree(work, ignore_errors=True)
    inputs, db = work / "receipts", work / "store.db"
    write_history(pathlib.Path(example), inputs)
    make_store(cli, inputs, db)
    pages = {"files": run_report(cli, [str(inputs)], work / "files.html") and work / "files.html",
             "store": run_report(cli, ["--store", str(db)], work / "store.html") and work / "store.html"}
    share = {}
    for name, page in pages.items():
        png = work / f"{name}.png"
        err = screenshot(browser, page, png, 1280, False) if page else "no page"
        check(not err, f"chromium renders the {name} page ({err or 'ok'})")
        if not err:
            share[name] = colour_share(Image.open(png).convert("RGB"), (0x0B, 0x5C, 0xAD), tol=30)
    if len(share) == 2:
        check(share["store"] > share["files"] + 0.001,
              f"the history plots add accent-coloured pixels ({share['files']:.4%} -> {share['store']:.4%})")
    return 0


def main() -> int:
    if len(sys.argv) != 5 or sys.argv[1] not in ("structure", "history", "chromium"):
        sys.exit(__doc__)
    mode, cli, example, work = sys.argv[1], sys.argv[2], sys.argv[3], pathlib.Path(sys.argv[4])
    if mode == "structure":
        structure(cli, example, work)
    elif mode == "history":
        history(cli, example, work)
    elif chromium(cli, example, work) == SKIP:
        return SKIP
    print(f"{len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
