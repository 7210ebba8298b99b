"""The notebook HTML of every result type, rendered by a real browser
(headless Chromium, the Debian package `chromium`) to PNG under a dark theme
like JupyterLab's: the page must not be blank, and wherever a status colour is
painted as a background there must be dark text on it (light theme text on a
light badge would be invisible)."""

from __future__ import annotations

import json
import pathlib
import shutil
import subprocess

import numpy as np
import pytest

import mcpp_receipts as mr
from conftest import variant

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (scripts/install-deps.sh installs it)")

DARK_PAGE = """<!doctype html><html><head><meta charset="utf-8"></head>
<body style="background:#111111;color:#eeeeee;font-family:sans-serif;margin:8px">{body}</body></html>"""


def render_png(tmp_path: pathlib.Path, body: str, height: int = 3000) -> np.ndarray:
    page = tmp_path / "page.html"
    page.write_text(DARK_PAGE.format(body=body), encoding="utf-8")
    png = tmp_path / "page.png"
    subprocess.run([CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    f"--screenshot={png}", f"--window-size=1400,{height}", page.as_uri()],
                   check=True, capture_output=True, timeout=120)
    import matplotlib.image

    return (matplotlib.image.imread(png)[:, :, :3] * 255).round().astype(int)


def hex_rgb(colour: str) -> np.ndarray:
    return np.array([int(colour[i:i + 2], 16) for i in (1, 3, 5)])


def ink_on(image: np.ndarray, colour: str) -> tuple[int, int]:
    """(pixels painted `colour`, dark pixels inside the rows and columns they span)."""
    mask = (np.abs(image - hex_rgb(colour)).sum(axis=2) <= 3)
    if not mask.any():
        return 0, 0
    dark = image.sum(axis=2) < 3 * 90
    rows, cols = np.where(mask)
    count = 0
    for r in np.unique(rows):  # each painted row: dark pixels between its painted columns
        c = cols[rows == r]
        count += int(dark[r, c.min():c.max() + 1].sum())
    return int(mask.sum()), count


@pytest.fixture
def results(receipt_dir):
    rs = mr.load_dir(receipt_dir)
    (receipt_dir / "broken.json").write_text("{ not json")
    with_error = mr.load_dir(receipt_dir, errors="skip")
    fr = mr.frontier(rs)
    cmp = mr.compare(rs[0], rs[1])
    return {
        "receipt": rs[0], "set": with_error, "frontier": fr, "lane": fr.lanes[0],
        "comparison": cmp, "policy": mr.Policy.default(),
        "gate": mr.gate(rs[:2], rs[2:]),
    }


def test_every_html_repr_renders_legibly_in_a_dark_theme(tmp_path, results):
    body = "".join(f"<h3>{name}</h3>{obj._repr_html_()}" for name, obj in results.items())
    image = render_png(tmp_path, body)
    packed = (image[:, :, 0] << 16) | (image[:, :, 1] << 8) | image[:, :, 2]
    assert len(np.unique(packed)) > 50, "the page rendered blank"
    light_text = (image.min(axis=2) > 200).sum()
    assert light_text > 1000  # the dark theme's own text (headings) is there
    painted = 0
    for status in ("#e6f4ea", "#fff4d6", "#fde2e1"):
        pixels, ink = ink_on(image, status)
        painted += pixels
        if pixels:
            assert ink > 20, f"no dark text on the {status} background"
    assert painted > 5000, "no status colours were painted"


def test_receipt_set_preview_lists_rows_lanes_and_errors(results):
    text = results["set"]._repr_html_()
    assert "4 receipts in 2 lanes" in text
    assert "padded-run1" in text and ".json" in text
    assert "failed to load" in text and "broken.json" in text
    assert "moe=jagged" in text  # the lane column shows display labels
    big = mr.ReceiptSet([mr.loads(json.dumps(variant(id=f"r{i}"))) for i in range(15)])
    assert "… 5 more receipts" in big._repr_html_()


def test_receipt_table_groups_fields_by_section(results):
    text = results["receipt"]._repr_html_()
    assert text.count("<details") >= 10
    assert "<b>routing</b> (7 fields)" in text
    assert "<b>top level</b> (3 fields)" in text  # schema, id, created_at together


def test_policy_and_lane_render(results):
    policy = results["policy"]._repr_html_()
    assert "Policy default" in policy and "must_match" in policy and "workload.seq_len" in policy
    lane = results["lane"]._repr_html_()
    assert results["lane"].short_key in lane and "headline" in lane
