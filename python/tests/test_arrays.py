# Arrays: zero-copy NumPy interop both ways (buffer protocol, DLPack), every dtype, views,
# read-only memory, lifetimes and bad input.
import gc
import pickle
import sys

import numpy as np
import pytest

import cvmrt

NUMPY_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                "float16", "float32", "float64", "bool"]


def sample(dtype: str, shape=(3, 5), seed=7) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.startswith("float"):
        return rng.standard_normal(shape).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)


@pytest.mark.parametrize("dtype", NUMPY_DTYPES)
def test_asarray_wraps_numpy_memory_and_back(dtype):
    x = sample(dtype)
    a = cvmrt.asarray(x)
    assert a.dtype == dtype and a.shape == x.shape and a.strides == (5, 1)
    assert a.data_ptr == x.ctypes.data  # the same memory
    y = np.asarray(a)
    assert y.dtype == x.dtype and y.ctypes.data == x.ctypes.data
    np.testing.assert_array_equal(y, x)
    x[0, 0] = x[1, 1]  # writes through NumPy are seen by the cvmrt array
    assert np.asarray(a)[0, 0] == x[1, 1]


@pytest.mark.parametrize("dtype", NUMPY_DTYPES)
def test_dlpack_round_trips_with_numpy(dtype):
    x = sample(dtype, (4, 3, 2))
    if dtype == "bool":  # NumPy 1.24's DLPack has no bool: cvmrt to cvmrt only
        a = cvmrt.from_dlpack(cvmrt.asarray(x))
        assert a.dtype == "bool" and a.data_ptr == x.ctypes.data
        return
    a = cvmrt.from_dlpack(x)  # NumPy -> cvmrt through DLPack
    assert a.data_ptr == x.ctypes.data and a.dtype == dtype
    y = np.from_dlpack(a)  # cvmrt -> NumPy through DLPack
    assert y.ctypes.data == x.ctypes.data
    np.testing.assert_array_equal(y, x)
    assert a.__dlpack_device__() == (1, 0)


def test_dlpack_capsule_is_consumed_once():
    a = cvmrt.zeros((2, 2))
    capsule = a.__dlpack__()
    b = cvmrt.from_dlpack(capsule)
    assert b.data_ptr == a.data_ptr
    with pytest.raises(cvmrt.LogicError, match="each one may be consumed once"):
        cvmrt.from_dlpack(capsule)


def test_bfloat16_through_its_bits():
    bits = np.array([0x3F80, 0xC000, 0x7F80], dtype=np.uint16)  # 1.0, -2.0, inf
    b = cvmrt.asarray(bits, dtype="bfloat16")
    assert b.dtype == "bfloat16" and b.data_ptr == bits.ctypes.data
    doubled = cvmrt.op("add", [b, b])
    assert doubled.dtype == "bfloat16"
    np.testing.assert_array_equal(np.asarray(doubled.view("uint16")), [0x4000, 0xC080, 0x7F80])
    with pytest.raises(cvmrt.LogicError, match="NumPy has no bfloat16 type"):
        np.asarray(b)
    with pytest.raises(BufferError, match="NumPy has no bfloat16 type"):
        memoryview(b)
    # DLPack carries bfloat16 itself.
    c = cvmrt.from_dlpack(b)
    assert c.dtype == "bfloat16" and c.data_ptr == b.data_ptr


def test_numpy_views_are_wrapped_with_their_strides():
    base = np.arange(60, dtype=np.int32).reshape(6, 10)
    for view in (base[::2, 1::3], base.T, base[::-1, ::-2], base[2:3, :], base[:, 4]):
        a = cvmrt.asarray(view)
        assert a.data_ptr == view.ctypes.data
        assert a.strides == tuple(s // 4 for s in view.strides)
        np.testing.assert_array_equal(np.asarray(a), view)
        np.testing.assert_array_equal(np.asarray(cvmrt.op("add", [a, a])), view * 2)


def test_buffer_protocol_honours_the_consumers_request():
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    a = cvmrt.asarray(x)
    m = memoryview(a)
    assert m.format == "i" and m.shape == (3, 4) and m.strides == (16, 4) and not m.readonly
    t = a.transpose()
    assert memoryview(t).strides == (4, 16)
    with pytest.raises(BufferError, match="contiguous"):
        np.frombuffer(t, dtype=np.int32)  # a flat buffer of a strided array
    assert bytes(t) == bytes(t.contiguous()) == x.T.tobytes() == t.tobytes()


def test_cvmrt_views_share_memory_with_numpy():
    x = np.arange(24, dtype=np.int16).reshape(2, 3, 4)
    a = cvmrt.asarray(x)
    for view, expect in ((a.reshape(6, 4), x.reshape(6, 4)), (a.transpose(), x.T),
                         (a.transpose(1, 0, 2), x.transpose(1, 0, 2)),
                         (a.slice(2, None, None, -2), x[:, :, ::-2]), (a.T, x.T)):
        y = np.asarray(view)
        np.testing.assert_array_equal(y, expect)
        assert np.shares_memory(y, x)


def test_byte_offset_strides_and_foreign_byte_order_are_copied():
    rec = np.zeros(4, dtype=[("a", np.int8), ("b", np.int32)])
    rec["b"] = [1, 2, 3, 4]
    a = cvmrt.asarray(rec["b"])  # 5-byte strides: not whole int32 elements
    np.testing.assert_array_equal(np.asarray(a), [1, 2, 3, 4])
    big = np.array([1, 256, -2], dtype=">i4")
    b = cvmrt.asarray(big)
    assert b.dtype == "int32"
    np.testing.assert_array_equal(np.asarray(b), [1, 256, -2])


def test_read_only_numpy_stays_read_only_and_copies_on_write():
    x = np.arange(6, dtype=np.int32)
    x.flags.writeable = False
    a = cvmrt.asarray(x)
    assert a.readonly and a.data_ptr == x.ctypes.data
    y = np.asarray(a)
    assert not y.flags.writeable
    with pytest.raises(ValueError):
        y[0] = 5
    # DLPack consumers may write, so they get a private copy: never the read-only memory.
    z = cvmrt.from_dlpack(a)
    assert not z.readonly and z.data_ptr != x.ctypes.data
    np.asarray(z)[0] = 42
    assert x[0] == 0


def test_lists_scalars_and_empty_arrays():
    np.testing.assert_array_equal(np.asarray(cvmrt.asarray([[1, 2], [3, 4]])), [[1, 2], [3, 4]])
    s = cvmrt.asarray(np.int32(7))
    assert s.shape == () and s.size == 1 and np.asarray(s) == 7
    e = cvmrt.asarray(np.zeros((0, 3), dtype=np.float32))
    assert e.shape == (0, 3) and np.asarray(e).shape == (0, 3)
    assert cvmrt.empty((2, 0), "uint8").size == 0
    z = cvmrt.zeros(5, np.float64)
    assert z.dtype == "float64" and not np.asarray(z).any()


def test_lifetime_is_held_by_references():
    x = np.arange(1000, dtype=np.int64)
    before = sys.getrefcount(x)
    a = cvmrt.asarray(x)
    assert sys.getrefcount(x) == before + 1  # the cvmrt array holds the NumPy one
    del x
    gc.collect()
    np.testing.assert_array_equal(np.asarray(a), np.arange(1000))  # still alive through a
    y = np.asarray(cvmrt.zeros((3,), "int32"))  # the NumPy view holds the cvmrt array
    gc.collect()
    y[:] = 9
    assert y.sum() == 27
    d = np.from_dlpack(cvmrt.asarray(np.ones(4, np.float32)))  # DLPack holds it too
    gc.collect()
    assert d.sum() == 4


@pytest.mark.parametrize("dtype", NUMPY_DTYPES)
def test_arrays_pickle_by_value(dtype):
    a = cvmrt.asarray(sample(dtype, (3, 4))).transpose()
    b = pickle.loads(pickle.dumps(a))
    assert b.dtype == dtype and b.shape == (4, 3) and b.data_ptr != a.data_ptr
    np.testing.assert_array_equal(np.asarray(b), np.asarray(a))
    bf = pickle.loads(pickle.dumps(cvmrt.asarray(np.array([0x3F80], np.uint16), dtype="bfloat16")))
    assert bf.dtype == "bfloat16" and bf.tobytes() == b"\x80\x3f"


def test_bad_input_raises_logic_errors():
    with pytest.raises(cvmrt.LogicError, match="complex128 has no cvmrt type"):
        cvmrt.asarray(np.zeros(3, dtype=np.complex128))
    with pytest.raises(cvmrt.LogicError, match="has no cvmrt type"):
        cvmrt.asarray(np.array(["a", "b"]))
    with pytest.raises(cvmrt.LogicError, match="unknown"):
        cvmrt.zeros((2,), "int7")
    with pytest.raises(cvmrt.LogicError, match="has no __dlpack__"):
        cvmrt.from_dlpack(object())
    with pytest.raises(cvmrt.LogicError, match="differ in size"):
        cvmrt.zeros((2,), "int32").view("int8")
    with pytest.raises(cvmrt.LogicError, match="not float32"):
        cvmrt.asarray(np.zeros(2, np.int32), dtype="float32")
    with pytest.raises(cvmrt.LogicError, match="elements"):
        cvmrt.zeros((2, 3)).reshape(4, 2)
    with pytest.raises(cvmrt.LogicError, match="unknown device"):
        cvmrt.zeros((2,)).to("tpu")
    assert issubclass(cvmrt.LogicError, ValueError)
    assert issubclass(cvmrt.RuntimeError, RuntimeError)
