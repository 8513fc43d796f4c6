"""The package is typed (issue 68): `py.typed` and the extension's stubs, so mypy sees a user's
script as the package means it; and every name the stubs declare is one the module has."""

import ast
import pathlib
import textwrap

import tessera
from mypy import api

STUBS = pathlib.Path(tessera.__file__).with_name("_tessera.pyi")


def test_the_stubs_and_py_typed_are_installed_and_name_what_the_module_has():
    assert STUBS.with_name("py.typed").exists()
    tree = ast.parse(STUBS.read_text())
    extension = tessera._tessera
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            assert hasattr(extension, node.name), node.name
        if isinstance(node, ast.ClassDef):
            cls = getattr(extension, node.name)
            for item in node.body:
                name = getattr(item, "name", None) or getattr(getattr(item, "target", None), "id", None)
                if name:
                    assert hasattr(cls, name), f"{node.name}.{name}"


def test_mypy_sees_a_scripts_types_and_its_mistakes(tmp_path):
    script = tmp_path / "user.py"
    script.write_text(textwrap.dedent("""
        import numpy as np
        import tessera

        m = tessera.compile("@launch(32) kernel k(Y: tensor<f32>[N]) {}")
        out = m.run("k", grid=(1,), Y=np.zeros(4, np.float32))
        reveal_type(m)
        reveal_type(out.gpu_seconds)
        reveal_type(m.profile("k", grid=(1,)).roofline())
        m.run("k", grid="many")
        m.ptx(arch=90)
    """))
    report, _, status = api.run([str(script), "--no-error-summary", "--hide-error-context"])
    lines = report.splitlines()
    assert any('Revealed type is "tessera._tessera.Module"' in line for line in lines), report
    assert any(line.endswith('Revealed type is "float | None"') for line in lines), report
    assert any('Revealed type is "tessera._tessera.Chart"' in line for line in lines), report
    errors = [line for line in lines if ": error:" in line]
    assert len(errors) == 2 and status == 1, report
    assert ':10: error: Argument "grid"' in errors[0], report
    assert ':11: error: Argument "arch"' in errors[1], report
