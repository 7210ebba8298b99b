"""The public surface: everything exported is documented and typed in the stubs."""

from __future__ import annotations

import ast
import inspect
import pathlib

import mcpp_receipts as mr


def test_every_public_name_has_a_docstring():
    missing = []
    for name in mr.__all__:
        obj = getattr(mr, name)
        if callable(obj) and not (inspect.getdoc(obj) or "").strip():
            missing.append(name)
        if inspect.isclass(obj):
            for attr, member in vars(obj).items():
                if attr.startswith("_") or not callable(member):
                    continue
                if not (inspect.getdoc(member) or "").strip():
                    missing.append(f"{name}.{attr}")
    assert missing == []


def test_stubs_declare_every_public_name():
    pkg = pathlib.Path(mr.__file__).parent
    stub = pkg / "__init__.pyi"
    assert (pkg / "py.typed").exists()
    tree = ast.parse(stub.read_text())
    declared = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            declared.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            declared.add(node.target.id)
        elif isinstance(node, ast.Assign):
            declared.update(t.id for t in node.targets if isinstance(t, ast.Name))
    assert set(mr.__all__) - declared == set()


def test_core_module_uses_multi_phase_init_and_heap_types():
    from mcpp_receipts import _core

    HEAPTYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE
    for t in (_core.Receipt, _core.Builder, _core.Policy):
        assert t.__flags__ & HEAPTYPE, t
    assert _core.Receipt.__module__ == "mcpp_receipts._core"
    assert mr.Receipt.__mro__[1] is _core.Receipt
    assert mr.library_version() == mr.__version__


def test_a_second_module_instance_has_its_own_types_and_state():
    """Multi-phase init with module state: executing the extension again gives
    independent heap types and exception classes that work on their own."""
    import importlib.util

    from mcpp_receipts import _core

    spec = importlib.util.find_spec("mcpp_receipts._core")
    other = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(other)
    assert other.Receipt is not _core.Receipt and other.Error is not _core.Error
    r = other.loads('{"schema": "mcpp.receipt/1", "lane": {"pattern": "AMMM", "depth": 4}}')
    assert type(r) is other.Receipt and r["lane.depth"] == 4
    try:
        other.loads("{")
    except other.ParseError as e:
        assert not isinstance(e, _core.Error)
    else:
        raise AssertionError("expected other.ParseError")
