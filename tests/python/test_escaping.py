"""Text from a receipt, a policy or an error reaches a terminal or a notebook
escaped exactly as the CLI escapes it (lib/src/util/escape.c, through
mcpp_output_escape): no repr, str, exception message or HTML view of the
binding carries a raw control character, C1 control or bidi override
(issue 28: repr(Receipt), PolicyError and the HTML views sent 12-16 raw
ESC/BEL bytes)."""

from __future__ import annotations

import json
import re

import pytest

import mcpp_receipts as mr
from conftest import variant

HOSTILE = "run\x1b]0;pwned\x07\x1b[31mred\x9b\u202eevil"
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f\x80-\x9f\u202a-\u202e\u2066-\u2069]")


def hostile_receipt() -> mr.Receipt:
    return mr.loads(json.dumps(variant({"id": HOSTILE, "lane.name": HOSTILE})))


def test_escape_text_is_the_cli_escaper():
    assert mr._core.escape_text("a\x1bb") == "a\\x1Bb"
    assert mr._core.escape_text("a\x07\u202eb") == "a\\x07\\u202Eb"
    assert mr._core.escape_text("tab\there\nnext") == "tab\\x09here\\x0Anext"
    assert mr._core.escape_text("plain ünïcode") == "plain ünïcode"
    assert mr._core.escape_text("nul\x00byte") == "nul\\x00byte"


def test_repr_of_a_receipt_shows_escapes_not_control_bytes():
    r = hostile_receipt()
    text = repr(r)
    assert not RAW.search(text), text
    assert "\\x1B]0;pwned\\x07" in text
    assert mr._core.escape_text(HOSTILE) in text


def test_html_views_of_receipts_carry_no_control_bytes():
    r = hostile_receipt()
    for page in (r._repr_html_(), mr.ReceiptSet([r])._repr_html_()):
        assert not RAW.search(page), page
        assert "\\x1B[31mred" in page


def test_error_messages_are_escaped_as_the_cli_prints_them(tmp_path):
    doc = variant({})
    doc["routing"]["top\x1b[2Jk"] = 2
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(mr.ValidationError) as info:
        mr.load(str(path))
    message = str(info.value)
    assert not RAW.search(message), message
    assert "top\\x1B[2Jk" in message


def test_policy_errors_and_repr_are_escaped(tmp_path):
    bad = tmp_path / "bad.lua"
    bad.write_text('return { name = "p", version = 1, dimensions = { ["x\\27[31m"] = { role = "bogus" } } }\n')
    with pytest.raises(mr.PolicyError) as info:
        mr.Policy.from_file(str(bad))
    assert not RAW.search(str(info.value)), str(info.value)
    assert "unknown key 'x\\x1B[31m'" in str(info.value)
    good = tmp_path / "named.lua"
    good.write_text('return { include = { "default.lua" }, name = "p\\27]0;x\\7", version = 1 }\n')
    try:
        policy = mr.Policy.from_file(str(good))
    except mr.PolicyError as e:  # a policy name may be refused outright: then the message is checked
        assert not RAW.search(str(e)), str(e)
        return
    assert not RAW.search(repr(policy)), repr(policy)
    assert not RAW.search(policy._repr_html_())
