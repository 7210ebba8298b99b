"""Exceptions: the class hierarchy, and locations (file, line, column, field)
carried from the C library's last error."""

from __future__ import annotations

import json

import pytest

import mcpp_receipts as mr
from conftest import variant


def test_exception_hierarchy():
    assert issubclass(mr.ParseError, mr.Error) and issubclass(mr.ParseError, ValueError)
    assert issubclass(mr.ValidationError, mr.Error) and issubclass(mr.ValidationError, ValueError)
    assert issubclass(mr.PolicyError, mr.Error)
    assert issubclass(mr.FileError, mr.Error) and issubclass(mr.FileError, OSError)
    assert not issubclass(mr.PolicyError, ValueError)


def test_syntax_error_is_a_parse_error_with_line_and_column():
    text = '{\n  "schema": "mcpp.receipt/1",\n  "lane": {"name": }\n}\n'
    with pytest.raises(mr.ParseError) as info:
        mr.loads(text, name="bad.json")
    e = info.value
    assert e.path == "bad.json"
    assert e.line == 3
    assert e.column is not None and e.column > 1
    assert e.kind == "syntax"
    assert "bad.json:3" in str(e)


def test_unknown_field_is_a_validation_error_naming_the_field_and_line():
    text = json.dumps(variant({"routing.top_kk": 2}), indent=2)
    with pytest.raises(mr.ValidationError) as info:
        mr.loads(text, name="typo.json")
    e = info.value
    assert e.field == "routing.top_kk"
    assert e.kind == "unknown_field"
    assert e.path == "typo.json"
    line = next(i for i, l in enumerate(text.splitlines(), 1) if '"top_kk"' in l)
    assert e.line == line


def test_wrong_type_names_the_field():
    with pytest.raises(mr.ValidationError) as info:
        mr.loads(json.dumps(variant({"routing.top_k": "six"})))
    assert info.value.field == "routing.top_k"
    assert info.value.kind == "type"


def test_invalid_enum_is_a_validation_error():
    with pytest.raises(mr.ValidationError) as info:
        mr.loads(json.dumps(variant({"compile.posture": "sometimes"})))
    assert info.value.field == "compile.posture"


def test_yaml_errors_carry_lines_too():
    yaml_text = "schema: mcpp.receipt/1\nlane:\n  depth: -3\n"
    with pytest.raises(mr.ValidationError) as info:
        mr.loads(yaml_text, format="yaml", name="r.yaml")
    assert info.value.path == "r.yaml"
    assert info.value.field == "lane.depth"
    assert info.value.line == 3


def test_duplicate_keys_are_refused_as_parse_errors():
    with pytest.raises(mr.ParseError) as info:
        mr.loads('{"schema": "mcpp.receipt/1", "schema": "mcpp.receipt/1"}')
    assert info.value.kind == "duplicate_key"


def test_missing_file_is_a_file_error_and_an_oserror(tmp_path):
    missing = tmp_path / "missing.json"
    with pytest.raises(OSError) as info:
        mr.load(missing)
    assert isinstance(info.value, mr.FileError)
    assert info.value.path == str(missing)


def test_an_empty_path_says_why_it_cannot_be_opened():
    # Once printed "[Errno None] None: None": OSError's str() shows its file
    # attributes as soon as filename is set, even to None.
    with pytest.raises(mr.FileError) as info:
        mr.import_results("pytest-benchmark", "")
    assert "cannot open" in str(info.value) and "None" not in str(info.value), str(info.value)


def test_errors_are_catchable_as_value_error(base_text):
    with pytest.raises(ValueError):
        mr.loads("[1, 2")


def test_bad_format_name_is_a_plain_value_error(base_text):
    with pytest.raises(ValueError, match="format"):
        mr.loads(base_text, format="xml")
