# The native module's type stubs name exactly what the module has, so they cannot drift.
import ast
from pathlib import Path

import cvmrt
from cvmrt import _cvmrt

STUB = Path(__file__).resolve().parents[1] / "cvmrt" / "_cvmrt.pyi"


def stub_names():
    tree = ast.parse(STUB.read_text())
    top, array = set(), set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            top.add(node.name)
        elif isinstance(node, ast.AnnAssign):
            top.add(node.target.id)
        if isinstance(node, ast.ClassDef) and node.name == "Array":
            array = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
    return top - {"_DType"}, array


def test_stub_names_match_the_module():
    top, array = stub_names()
    module = {n for n in dir(_cvmrt) if not n.startswith("__") or n == "__version__"}
    assert top == module
    methods = {n for n in dir(cvmrt.Array) if not n.startswith("_")} | {
        "__len__", "__dlpack__", "__dlpack_device__", "__array__", "__getstate__", "__setstate__"}
    assert array == methods


def test_package_exports_exist():
    for name in cvmrt.__all__:
        assert hasattr(cvmrt, name), name
