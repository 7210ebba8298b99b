"""Output does not depend on the host's locale (docs/output-safety.md): a
notebook that calls locale.setlocale(locale.LC_ALL, "de_DE.UTF-8") — a comma
decimal point for C's printf and strtod — gets the same numbers and the same
bytes from the library as under "C"."""

from __future__ import annotations

import locale
import pathlib
from typing import Iterator

import pytest

import mcpp_receipts as mr

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples" / "receipts"
COMMA = "de_DE.UTF-8"


@pytest.fixture
def comma_locale() -> Iterator[None]:
    saved = locale.setlocale(locale.LC_ALL)
    try:
        locale.setlocale(locale.LC_ALL, COMMA)
    except locale.Error:
        pytest.skip(f"locale {COMMA} is not installed (scripts/install-deps.sh generates it)")
    try:
        assert locale.localeconv()["decimal_point"] == ","
        yield
    finally:
        locale.setlocale(locale.LC_ALL, saved)


def written() -> str:
    a = mr.load(EXAMPLES / "nam56r_padded.yaml")
    b = mr.load(EXAMPLES / "nam56r_padded_run2.json")
    c = mr.compare(a, b)
    f = mr.frontier([a, b])
    return "\n".join([a.to_json(), a.to_yaml(), a.render(), c.to_text(), c.to_json(), c.to_markdown(),
                      f.to_text(), f.to_json(), f.to_markdown()])


def test_yaml_numbers_read_exactly_under_a_comma_locale(comma_locale: None) -> None:
    r = mr.load(EXAMPLES / "nam56r_padded.yaml")
    assert r["routing.capacity_factor"] == 1.25
    assert r["hardware.observed.memory_gib"] == 79.65
    assert '"capacity_factor": 1.25' in r.to_json()


def test_every_written_byte_is_as_under_c(comma_locale: None) -> None:
    in_comma = written()
    locale.setlocale(locale.LC_ALL, "C")
    in_c = written()
    assert "1.25" in in_c
    assert in_comma == in_c
