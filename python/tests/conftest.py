# Shared fixtures of the Python package's tests: the repository, the CLI, and a quantized
# Fashion-MNIST model with real test images (Debian's dataset-fashion-mnist).
import gzip
import os
from pathlib import Path

import numpy as np
import pytest

import cvmrt

REPO = Path(__file__).resolve().parents[2]
FASHION_DIR = Path("/usr/share/datasets/fashion-mnist")


def fashion_images(kind: str, count: int) -> np.ndarray:
    """The first `count` images of a Fashion-MNIST split, float32 [count, 1, 28, 28] in [0, 1]."""
    with gzip.open(FASHION_DIR / f"{kind}-images-idx3-ubyte.gz") as f:
        raw = np.frombuffer(f.read(), dtype=np.uint8, offset=16)
    return (raw.reshape(-1, 1, 28, 28)[:count] / np.float32(255)).astype(np.float32)


def fashion_labels(kind: str, count: int) -> np.ndarray:
    with gzip.open(FASHION_DIR / f"{kind}-labels-idx1-ubyte.gz") as f:
        return np.frombuffer(f.read(), dtype=np.uint8, offset=8)[:count].astype(np.int32)


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def cli() -> Path:
    """The C++ command-line tool of the same build (CVMRT_CLI, else build/tools/cvmrt)."""
    path = Path(os.environ.get("CVMRT_CLI", REPO / "build" / "tools" / "cvmrt"))
    if not path.is_file():
        pytest.fail(f"the cvmrt CLI is not at {path}: build it, or set CVMRT_CLI")
    return path


@pytest.fixture(scope="session")
def calibration() -> np.ndarray:
    return fashion_images("train", 256)


@pytest.fixture(scope="session")
def images() -> np.ndarray:
    return fashion_images("t10k", 1000)


@pytest.fixture(scope="session")
def labels() -> np.ndarray:
    return fashion_labels("t10k", 1000)


@pytest.fixture(scope="session")
def fashion_path(tmp_path_factory, calibration) -> Path:
    """The trained Fashion-MNIST CNN quantized by cvmrt.quantize, saved as a model file."""
    if not cvmrt._cvmrt._has_onnx:
        pytest.fail("this cvmrt has no ONNX importer; the tests need it (libonnx-dev)")
    path = tmp_path_factory.mktemp("models") / "fashion_int8.cvmrt"
    cvmrt.quantize(REPO / "examples" / "fashion_mnist" / "fashion_cnn.onnx", calibration).save(path)
    return path


@pytest.fixture(scope="session")
def fashion(fashion_path) -> cvmrt.Model:
    return cvmrt.load_model(fashion_path)


def pytest_sessionstart(session):
    """With CVMRT_EXPECT_PREFIX (the test command), the package under test must be the one
    installed there, not a source or build tree that happens to be on the path."""
    prefix = os.environ.get("CVMRT_EXPECT_PREFIX")
    if prefix and not Path(cvmrt.__file__).resolve().is_relative_to(Path(prefix).resolve()):
        pytest.exit(f"cvmrt was imported from {cvmrt.__file__}, not from {prefix}", returncode=3)
