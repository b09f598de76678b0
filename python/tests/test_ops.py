# Operators from Python: attributes as Python values, hand-computed results, several outputs,
# and the errors for bad operators, attributes and inputs.
import numpy as np
import pytest

import cvmrt


def conv2d_reference(x, w, pad):
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    xp = np.pad(x.astype(np.int64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    out = np.zeros((n, o, h + 2 * pad - kh + 1, wd + 2 * pad - kw + 1), np.int64)
    for i in range(out.shape[2]):
        for j in range(out.shape[3]):
            patch = xp[:, :, i:i + kh, j:j + kw]
            out[:, :, i, j] = np.einsum("nchw,ochw->no", patch, w.astype(np.int64))
    return out


def test_registry_lists_every_operator():
    ops = cvmrt.ops()
    names = [o.name for o in ops]
    assert len(names) == len(set(names))
    assert sum(o.cvm for o in ops) == 37  # every CVM operator
    assert {"conv2d", "dense", "cvm_right_shift", "get_valid_counts"} <= set(names)


def test_conv2d_with_tuple_and_bool_attributes():
    rng = np.random.default_rng(1)
    x = rng.integers(-127, 128, (2, 3, 7, 6), dtype=np.int32)
    w = rng.integers(-127, 128, (4, 3, 3, 3), dtype=np.int32)
    got = cvmrt.op("conv2d", [x, w], channels=4, kernel_size=(3, 3), padding=(1, 1),
                   strides=(1, 1), dilation=[1, 1], groups=1, use_bias=False)
    np.testing.assert_array_equal(np.asarray(got), conv2d_reference(x, w, 1))
    text = cvmrt.op("conv2d", [x, w], channels="4", kernel_size="(3, 3)", padding="(1, 1)",
                    use_bias="False")  # CVM attribute text works too
    np.testing.assert_array_equal(np.asarray(text), np.asarray(got))


def test_cvm_right_shift_rounds_half_up_and_clips():
    x = np.array([-9, -6, -2, -1, 0, 1, 2, 5, 6, 1000], dtype=np.int32)
    got = np.asarray(cvmrt.op("cvm_right_shift", [x], shift_bit=2, precision=8))
    want = np.clip((x.astype(np.int64) + 2) >> 2, -127, 127)
    np.testing.assert_array_equal(got, want)


def test_operator_with_two_outputs_returns_a_tuple():
    boxes = np.array([[[0, 90, 1, 1, 5, 5], [1, -1, 0, 0, 2, 2], [0, 40, 2, 2, 6, 6]]],
                     dtype=np.int32)
    counts, valid = cvmrt.op("get_valid_counts", boxes, score_threshold=0)
    assert np.asarray(counts).tolist() == [2]
    assert np.asarray(valid)[0, :2, 1].tolist() == [90, 40]


def test_bad_operators_attributes_and_inputs():
    x = np.zeros((1, 1, 4, 4), np.int32)
    w = np.zeros((1, 1, 3, 3), np.int32)
    with pytest.raises(cvmrt.LogicError, match="nope"):
        cvmrt.op("nope", [x])
    with pytest.raises(cvmrt.LogicError, match=r'op "add": expected 2 input\(s\), got 1'):
        cvmrt.op("add", [x])
    with pytest.raises(cvmrt.LogicError, match="attribute kernel_size: expected an int, a bool"):
        cvmrt.op("conv2d", [x, w], kernel_size=1.5)
    with pytest.raises(cvmrt.LogicError, match="a tuple may hold only ints"):
        cvmrt.op("conv2d", [x, w], kernel_size=(3, "3"))
    with pytest.raises(cvmrt.LogicError, match="int32"):
        cvmrt.op("cvm_right_shift", [x.astype(np.int64)], shift_bit=1, precision=8)
    with pytest.raises(cvmrt.LogicError, match="shift_bit"):
        cvmrt.op("cvm_right_shift", [x], precision=8)
