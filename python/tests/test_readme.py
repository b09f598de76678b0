# The README's Python examples, run as scripts in order (a scratch folder that sees the
# repository's examples/), so the README never shows Python that does not work.
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import cvmrt
from conftest import REPO


def readme_blocks():
    text = (REPO / "README.md").read_text()
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def test_readme_has_python_examples():
    assert len(readme_blocks()) >= 2


def test_readme_examples_run(tmp_path):
    (tmp_path / "examples").symlink_to(REPO / "examples")
    # The scripts import the cvmrt under test, wherever it was imported from.
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(Path(cvmrt.__file__).resolve().parents[1])] + env.get("PYTHONPATH", "").split(os.pathsep))
    outputs = []
    for i, code in enumerate(readme_blocks()):
        script = tmp_path / f"readme_{i}.py"
        script.write_text(code)
        done = subprocess.run([sys.executable, script.name], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            pytest.fail(f"README Python example {i} failed:\n{code}\n{done.stdout}\n{done.stderr}")
        outputs.append(done.stdout)
    assert "[[ 0  2  4]\n [ 6  8 10]]" in outputs[0]
    assert "predicted classes:" in outputs[0]
    assert "(2000, 10)" in outputs[1]
