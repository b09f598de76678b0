# Param dicts: save and load in both formats, from paths, bytes and buffers, and bad input.
import numpy as np
import pytest

import cvmrt


def make_params():
    rng = np.random.default_rng(3)
    return {
        "w": rng.integers(-127, 128, (4, 8), dtype=np.int8),
        "b": rng.integers(-2**31, 2**31, (4,), dtype=np.int64).astype(np.int32),
        "scale": rng.standard_normal((2, 3)).astype(np.float32),
        "mask": np.array([True, False, True]),
        "big": rng.integers(0, 2**63, (3,), dtype=np.uint64),
    }


def test_round_trip_keeps_names_order_dtypes_and_values(tmp_path):
    params = make_params()
    data = cvmrt.save_params(params, tmp_path / "p.params")
    assert (tmp_path / "p.params").read_bytes() == data
    assert cvmrt.save_params(params) == data  # the same dict, the same bytes
    for source in (tmp_path / "p.params", str(tmp_path / "p.params"), data, bytearray(data),
                   memoryview(data)):
        loaded = cvmrt.load_params(source)
        assert list(loaded) == list(params)
        for name, value in params.items():
            got = np.asarray(loaded[name])
            assert got.dtype == value.dtype
            np.testing.assert_array_equal(got, value)


def test_bytes_are_borrowed_without_copying():
    data = cvmrt.save_params({"w": np.arange(64, dtype=np.int32)})
    w = cvmrt.load_params(data)["w"]
    base = np.frombuffer(data, dtype=np.uint8).ctypes.data
    assert base <= w.data_ptr < base + len(data)  # points into the bytes object
    assert w.readonly


def test_legacy_format_round_trip():
    params = {"w": np.arange(6, dtype=np.int32).reshape(2, 3), "b": np.array([1, -1], np.int8)}
    data = cvmrt.save_params(params, format="legacy")
    assert data != cvmrt.save_params(params)
    loaded = cvmrt.load_params(data)
    for name, value in params.items():
        np.testing.assert_array_equal(np.asarray(loaded[name]), value)


def test_cvmrt_arrays_and_views_save_like_numpy():
    x = np.arange(24, dtype=np.int16).reshape(4, 6)
    a = cvmrt.save_params({"v": cvmrt.asarray(x).transpose()})
    b = cvmrt.save_params({"v": np.ascontiguousarray(x.T)})
    assert a == b


def test_bad_input(tmp_path):
    with pytest.raises(cvmrt.LogicError):
        cvmrt.load_params(b"not a params file at all")
    with pytest.raises(cvmrt.LogicError):
        cvmrt.load_params(cvmrt.save_params(make_params())[:-9])  # truncated
    with pytest.raises((cvmrt.LogicError, cvmrt.RuntimeError), match="missing.params"):
        cvmrt.load_params(tmp_path / "missing.params")
    with pytest.raises(cvmrt.LogicError, match="expected a dict"):
        cvmrt.save_params([np.zeros(2)])
    with pytest.raises(cvmrt.LogicError, match="every name must be a str"):
        cvmrt.save_params({1: np.zeros(2)})
    with pytest.raises(cvmrt.LogicError, match='"c": NumPy dtype complex64'):
        cvmrt.save_params({"c": np.zeros(2, np.complex64)})
    with pytest.raises(cvmrt.LogicError, match="unknown params format"):
        cvmrt.save_params({"w": np.zeros(2)}, format="zip")
    with pytest.raises(cvmrt.LogicError, match="names must not be empty"):
        cvmrt.save_params({"": np.zeros(2)})
