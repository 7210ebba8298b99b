#!/usr/bin/env python3
"""site_test.py — `mcpp-receipts site`, the history site of a store, end to end.

The store: report_set.py's two history lanes (24 daily runs; "step" drops 6% at
run 12, "flat" does not; hostile names and commits) and six lanes of three runs.

  pages     every lane has its page and the index links each; every page
            forbids fetches (Content-Security-Policy), has no src= and no link
            off the site, and only the index has a script; every hostile string
            comes back as the same text through an HTML parser and never as
            markup; the step lane's plot has a dot per run, each a link to its
            run's row, and one change point at run 12; the gate page gates the
            newest commit of both history lanes. Incremental: a second run
            writes nothing, and the digests file records what the gate page
            was made from (so it is not made again); a gate page edited by
            hand is written again as it was; one new run of the flat lane rewrites exactly the
            index, that lane, the frontier and the gate (other pages keep their
            inode and mtime); a lane whose receipts are all removed loses its
            page. --commit-url links commits percent-encoded; an --out that is
            a file is refused (exit 3) naming it.
  chromium  headless Chromium opens the index with ?q=flat (the filter script
            leaves one row), follows that row's link to the lane page, finds its
            SVG with a dot per run and, in a screenshot, the plot's accent
            colour (against the same page without its SVG); no page of the site
            logs anything to the console. A page with a script error and a
            remote image is shown to be caught the same way (the check can
            fail). Skips (exit 77, with the reason) only when Chromium or PIL
            cannot run.

usage: site_test.py pages|chromium CLI EXAMPLE_RECEIPT WORK_DIR
"""

from __future__ import annotations

import html.parser
import json
import pathlib
import re
import shutil
import subprocess
import sys
import urllib.parse

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from report_html_test import SKIP, browser_or_skip, check, failures  # noqa: E402
from report_set import HISTORY_RUNS, HISTORY_STEP_AT, HOSTILE, history_commit, write_history, write_set  # noqa: E402

SMALL_LANES = 6


def run(cli: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([cli, *args], capture_output=True, text=True)


class Page(html.parser.HTMLParser):
    """Text, scripts, links, the Content-Security-Policy, dots and rows of a page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.text: list[str] = []
        self.scripts = 0
        self.hrefs: list[str] = []
        self.srcs: list[str] = []
        self.csp = ""
        self.dots: list[str | None] = []  # each run dot: the href of the link around it
        self.changes = 0
        self.ids: set[str] = set()
        self.row_classes: dict[str, str] = {}
        self._link: str | None = None

    def handle_starttag(self, tag, attrs):
        d = dict(attrs)
        if tag == "script":
            self.scripts += 1
        if "href" in d:
            self.hrefs.append(d["href"] or "")
        if "src" in d:
            self.srcs.append(d["src"] or "")
        if "id" in d:
            self.ids.add(d["id"] or "")
        if tag == "meta" and (d.get("http-equiv") or "").lower() == "content-security-policy":
            self.csp = d.get("content") or ""
        if tag == "a":
            self._link = d.get("href")
        if tag == "circle" and d.get("class") == "run":
            self.dots.append(self._link)
        if tag == "g" and d.get("class") == "change":
            self.changes += 1
        if tag == "tr" and d.get("id"):
            self.row_classes[d["id"]] = d.get("class") or ""

    def handle_endtag(self, tag):
        if tag == "a":
            self._link = None

    def handle_data(self, data):
        self.text.append(data)


def parse(path: pathlib.Path) -> Page:
    p = Page()
    p.feed(path.read_text(encoding="utf-8"))
    return p


def make_store(cli: str, example: str, work: pathlib.Path) -> pathlib.Path:
    shutil.rmtree(work, ignore_errors=True)
    inputs, db = work / "receipts", work / "store.db"
    write_history(pathlib.Path(example), inputs / "history")
    write_set(pathlib.Path(example), inputs / "small", SMALL_LANES)
    for args in (["store", "init", str(db)], ["store", "add", str(db), str(inputs)]):
        proc = run(cli, *args)
        check(proc.returncode == 0, f"{' '.join(args[:2])} exits 0 ({proc.returncode}: {proc.stderr.strip()})")
    return db


def lane_keys(cli: str, db: pathlib.Path) -> dict[str, dict]:
    """The store's lanes by short key, as `history --format json` gives them."""
    proc = run(cli, "history", "--store", str(db), "--format", "json")
    check(proc.returncode == 0, f"history --format json exits 0 ({proc.stderr.strip()})")
    return {lane["short_key"]: lane for lane in json.loads(proc.stdout)["lanes"]} if proc.returncode == 0 else {}


def write_site(cli: str, db: pathlib.Path, out: pathlib.Path, *extra: str) -> dict[str, int]:
    proc = run(cli, "site", "--store", str(db), "--out", str(out), *extra)
    check(proc.returncode == 0, f"site exits 0 ({proc.returncode}: {proc.stderr.strip()})")
    m = re.search(r"(\d+) pages, (\d+) written, (\d+) unchanged, (\d+) removed", proc.stdout)
    check(bool(m), f"site says what it wrote ({proc.stdout.strip()})")
    return dict(zip(("pages", "written", "unchanged", "removed"), map(int, m.groups()))) if m else {}


def stamps(site: pathlib.Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(site)): (p.stat().st_ino, p.stat().st_mtime_ns) for p in site.rglob("*.html")}


def step_lane(lanes: dict[str, dict]) -> str:
    return next(k for k, lane in lanes.items() if lane["runs"] and lane["runs"][0]["id"].startswith("history-step"))


def pages(cli: str, example: str, work: pathlib.Path) -> None:
    db = make_store(cli, example, work)
    lanes = lane_keys(cli, db)
    site = work / "site"
    got = write_site(cli, db, site)
    n_pages = len(lanes) + 3
    check(got.get("pages") == n_pages and got.get("written") == n_pages,
          f"the first run writes {n_pages} pages: the index, the frontier, the gate and {len(lanes)} lanes ({got})")
    for short in lanes:
        check((site / "lanes" / f"{short}.html").is_file(), f"lane {short} has its page")
    index = parse(site / "index.html")
    lane_links = sorted(h for h in index.hrefs if h.startswith("lanes/"))
    check(lane_links == sorted(f"lanes/{k}.html" for k in lanes), f"the index links every lane page ({len(lane_links)})")

    for page in sorted(site.rglob("*.html")):
        name = str(page.relative_to(site))
        raw = page.read_text(encoding="utf-8")
        p = parse(page)
        check("default-src 'none'" in p.csp, f"{name} forbids itself every fetch ({p.csp!r})")
        check(not p.srcs, f"{name} loads nothing (src= {p.srcs[:3]})")
        off_site = [h for h in p.hrefs if re.match(r"^[a-z]+:|^//", h)]
        check(not off_site, f"{name} links nothing off the site ({off_site[:3]})")
        check(p.scripts == (1 if name == "index.html" else 0), f"{name} has {p.scripts} script(s)")
        check("<script>alert" not in raw and "<b>c0mmit" not in raw, f"{name} has no hostile string as markup")
        broken = [h for h in p.hrefs if h and not h.startswith("#") and not (page.parent / h.split("#")[0]).is_file()]
        check(not broken, f"{name}: every link leads to a page of the site ({broken[:3]})")
    check(HOSTILE in "".join(index.text), "the hostile label comes back as text on the index")

    step = step_lane(lanes)
    lane_page = parse(site / "lanes" / f"{step}.html")
    text = "".join(lane_page.text)
    check(len(lane_page.dots) == HISTORY_RUNS, f"the step lane's plot has a dot per run ({len(lane_page.dots)})")
    check(lane_page.dots == [f"#run-{i}" for i in range(HISTORY_RUNS)], "each dot links to its run's row")
    check(all(f"run-{i}" in lane_page.ids for i in range(HISTORY_RUNS)), "each run has its row (id run-N)")
    check(lane_page.changes == 1, f"one change point is marked ({lane_page.changes})")
    check("change-start" in lane_page.row_classes.get(f"run-{HISTORY_STEP_AT}", ""),
          f"the change starts at run {HISTORY_STEP_AT}")
    check(history_commit(HISTORY_STEP_AT) in text and f"history-step-{HISTORY_STEP_AT:03d}" in text,
          "the run after the change names its receipt and its (hostile) commit as text")
    gate = "".join(parse(site / "gate.html").text)
    check("history-step-023" in gate and "history-flat-023" in gate and "passed" in gate,
          "the gate page gates each history lane's newest commit")
    frontier = "".join(parse(site / "frontier.html").text)
    check("stable" in frontier and "unstable" in frontier, "the frontier page names stable and unstable lanes")

    incremental(cli, example, db, site, lanes)

    linked = work / "linked"
    write_site(cli, db, linked, "--commit-url", "https://example.org/commit/{commit}")
    want = "https://example.org/commit/" + urllib.parse.quote(history_commit(0), safe="-._~")
    check(want in parse(linked / "lanes" / f"{step}.html").hrefs, f"--commit-url links each commit ({want})")

    blocker = work / "a-file"
    blocker.write_text("x")
    proc = run(cli, "site", "--store", str(db), "--out", str(blocker))
    check(proc.returncode == 3 and "a-file" in proc.stderr, f"an --out that is a file exits 3 naming it ({proc.stderr.strip()})")
    proc = run(cli, "site", "--store", str(db))
    check(proc.returncode == 3 and "--out" in proc.stderr, "site without --out exits 3 with its usage")


def incremental(cli: str, example: str, db: pathlib.Path, site: pathlib.Path, lanes: dict[str, dict]) -> None:
    before = stamps(site)
    got = write_site(cli, db, site)
    check(got.get("written") == 0 and got.get("unchanged") == len(before), f"a second run writes nothing ({got})")
    check(stamps(site) == before, "and leaves every file as it was")
    # The gate page is not made again while what it reads is unchanged: the
    # digests file keeps what it was made from beside its digest.
    gate_line = next((line.split() for line in (site / "site-digests.txt").read_text().splitlines()
                      if line.endswith(" gate.html") or " gate.html " in line), [])
    check(len(gate_line) == 3 and re.fullmatch(r"[0-9a-f]{16}", gate_line[2] if len(gate_line) == 3 else ""),
          f"site-digests.txt records what the gate page was made from ({gate_line})")
    # ... but a gate page changed on disk is made and written again all the same.
    gate_html = site / "gate.html"
    good = gate_html.read_bytes()
    gate_html.write_bytes(good.replace(b"</body>", b"<!-- edited --></body>"))
    got = write_site(cli, db, site)
    check(got.get("written") == 1 and gate_html.read_bytes() == good,
          f"a gate page edited by hand is written again as it was ({got})")
    before = stamps(site)

    flat = next(k for k, lane in lanes.items() if lane["runs"] and lane["runs"][0]["id"].startswith("history-flat"))
    last = json.loads((db.parent / "receipts" / "history" / "history-flat-023.json").read_text(encoding="utf-8"))
    last["id"] = "history-flat-024"
    last["created_at"] = "2026-04-25T12:00:00Z"
    last["metrics"]["tokens_per_s"] = round(last["metrics"]["tokens_per_s"] * 1.001, 1)
    new = db.parent / "new-run.json"
    new.write_text(json.dumps(last), encoding="utf-8")
    proc = run(cli, "store", "add", str(db), str(new))
    check(proc.returncode == 0, f"a new run of the flat lane is added ({proc.stderr.strip()})")
    got = write_site(cli, db, site)
    after = stamps(site)
    changed = sorted(k for k in after if after[k] != before.get(k))
    want = sorted(["index.html", "frontier.html", "gate.html", f"lanes/{flat}.html"])
    check(changed == want and got.get("written") == 4, f"one new run rewrites {want} only (rewrote {changed}, {got})")

    small = next(k for k, lane in lanes.items() if lane["runs"] and lane["runs"][0]["id"].startswith("lane05"))
    for r in lanes[small]["runs"]:
        proc = run(cli, "store", "rm", str(db), r["id"], "--reason", "site test")
        check(proc.returncode == 0, f"store rm {r['id']} ({proc.stderr.strip()})")
    got = write_site(cli, db, site)
    check(got.get("removed") == 1 and not (site / "lanes" / f"{small}.html").exists(),
          f"a lane whose runs were all removed loses its page ({got})")
    check(f"lanes/{small}.html" not in parse(site / "index.html").hrefs, "and the index no longer links it")


# ---- chromium ----------------------------------------------------------------------------

def browse(browser: str, url: str, *, shot: pathlib.Path | None = None) -> tuple[str, list[str], str]:
    """Opens url headless: (the DOM after scripts ran, console messages, error)."""
    cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
           "--enable-logging=stderr", "--v=0", "--window-size=1280,1400"]
    cmd += [f"--screenshot={shot}"] if shot else ["--dump-dom"]
    proc = subprocess.run(cmd + [url], capture_output=True, text=True, timeout=120)
    console = [line for line in proc.stderr.splitlines() if ":CONSOLE" in line]
    err = "" if proc.returncode == 0 and (proc.stdout.strip() or shot) else f"exit {proc.returncode}: {proc.stderr[-300:]}"
    return proc.stdout, console, err


def accent_share(png: pathlib.Path) -> float:
    from PIL import Image
    img = Image.open(png).convert("RGB")
    data = img.getdata()
    return sum(1 for p in data if all(abs(p[i] - c) <= 30 for i, c in enumerate((0x0B, 0x5C, 0xAD)))) / len(data)


def chromium(cli: str, example: str, work: pathlib.Path) -> int:
    browser = browser_or_skip()
    if not browser:
        return SKIP
    db = make_store(cli, example, work)
    site = work / "site"
    write_site(cli, db, site)
    index_url = (site / "index.html").as_uri()
    dom, console, err = browse(browser, index_url + "?q=flat")
    if err:
        print(f"SKIP: chromium cannot run here: {err}")
        return SKIP
    check(not console, f"the index logs nothing to the console ({console[:2]})")
    index = Page()
    index.feed(dom)
    shown = re.search(r'id="shown"[^>]*>([^<]*)<', dom)
    rows = re.findall(r'<tr class="lane"[^>]*>', dom)
    visible = [r for r in rows if " hidden" not in r]
    check(len(rows) == SMALL_LANES + 2 and len(visible) == 1,
          f"the filter ?q=flat leaves one of {len(rows)} rows ({len(visible)} shown)")
    check(bool(shown) and shown.group(1).startswith(f"1 of {SMALL_LANES + 2}"),
          f"and says so ({shown.group(1) if shown else 'nothing'})")
    row_start = dom.find(visible[0]) if visible else -1
    link = re.search(r'href="(lanes/[^"]+)"', dom[row_start:]) if row_start >= 0 else None
    check(bool(link), "the row shown links to its lane page")
    if not link:
        return 0
    lane_url = urllib.parse.urljoin(index_url, link.group(1))
    dom, console, err = browse(browser, lane_url)
    check(not err and not console, f"the lane page opens and logs nothing ({err or console[:2]})")
    check(len(re.findall(r'<circle class="run"', dom)) == HISTORY_RUNS and "<svg" in dom,
          f"the followed lane page has its plot with {HISTORY_RUNS} dots")
    lane_file = pathlib.Path(urllib.parse.urlparse(lane_url).path)
    bare = work / "lane-without-plot.html"
    bare.write_text(re.sub(r"<svg.*?</svg>", "", lane_file.read_text(encoding="utf-8"), flags=re.S), encoding="utf-8")
    shares = {}
    for name, page in (("plot", lane_file), ("bare", bare)):
        png = work / f"{name}.png"
        _, console, err = browse(browser, page.as_uri(), shot=png)
        check(not err and png.is_file(), f"chromium screenshots the {name} lane page ({err or 'ok'})")
        shares[name] = accent_share(png) if png.is_file() else 0.0
    check(shares["plot"] > shares["bare"] + 0.001,
          f"the plot is drawn: accent pixels {shares['bare']:.4%} without it, {shares['plot']:.4%} with it")
    for name in ("frontier.html", "gate.html"):
        _, console, err = browse(browser, (site / name).as_uri())
        check(not err and not console, f"{name} opens and logs nothing ({err or console[:2]})")
    bad = work / "broken.html"
    bad.write_text((site / "index.html").read_text(encoding="utf-8").replace(
        "</body>", '<script>noSuchFunction();</script><img src="https://example.org/x.png"></body>'), encoding="utf-8")
    _, console, _ = browse(browser, bad.as_uri())
    check(any("noSuchFunction" in c for c in console) and any("Content Security Policy" in c for c in console),
          f"a script error and a remote fetch are caught the same way ({len(console)} console lines)")
    return 0


def main() -> int:
    if len(sys.argv) != 5 or sys.argv[1] not in ("pages", "chromium"):
        sys.exit(__doc__)
    mode, cli, example, work = sys.argv[1], sys.argv[2], sys.argv[3], pathlib.Path(sys.argv[4])
    if mode == "pages":
        pages(cli, example, work)
    elif chromium(cli, example, work) == SKIP:
        return SKIP
    print(f"{len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
