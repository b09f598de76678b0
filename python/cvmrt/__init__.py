"""cvmrt: a deterministic tensor runtime for quantized integer models.

Every backend and machine returns the same bits for the same model and input. Arrays move to and
from NumPy without copying (the buffer protocol and DLPack), models run with the GIL released,
and cvmrt.dask scores a dask.array on a cluster.

    import numpy as np, cvmrt
    model = cvmrt.load_model("fashion_int8.cvmrt")
    probs = model.run({"data": images})["softmax"]      # float in, float out
"""
from __future__ import annotations

import os
from typing import Any, Dict, Iterable, List, Mapping, NamedTuple, Optional, Tuple, Union

import numpy as np

from . import _cvmrt
from ._cvmrt import (  # noqa: F401  (re-exported)
    Array,
    LogicError,
    RuntimeError,
    asarray,
    compiled_backends,
    empty,
    from_dlpack,
    load_params,
    num_threads,
    set_num_threads,
    system_info,
    zeros,
)

__version__: str = _cvmrt.__version__

__all__ = [
    "Array", "LogicError", "RuntimeError", "asarray", "from_dlpack", "empty", "zeros",
    "load_params", "save_params", "load_model", "Model", "TensorInfo", "Cost", "op", "ops",
    "OpInfo", "import_onnx", "quantize", "system_info", "set_num_threads", "num_threads",
    "compiled_backends", "__version__",
]

PathLike = Union[str, "os.PathLike[str]"]


class TensorInfo(NamedTuple):
    """One model input or output."""

    name: str
    shape: Tuple[int, ...]
    dtype: str       # what run() takes and returns without dequantizing: "int32" or "float32"
    precision: int   # bit width of the integer values (0 in float models)
    io_dtype: str    # the byte layout of CVM's inference API: "int8" when precision <= 8


class Cost(NamedTuple):
    """A model's cost per inference (CVM's "ops", the basis of gas), known at load time."""

    ops: int
    mem: int
    total: int


class OpInfo(NamedTuple):
    """One registered operator."""

    name: str
    num_inputs: int   # -1: any number >= 1
    num_outputs: int
    cvm: bool         # a CVM model operator (int32 data, precision and cost rules)
    inplace: bool


def _write_file(path: PathLike, data: bytes) -> None:
    """Writes data to path through a temporary file next to it and a rename, so a reader never
    sees a half-written file."""
    target = os.fspath(path)
    tmp = f"{target}.tmp{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, target)


def save_params(params: Mapping[str, Any], path: Optional[PathLike] = None,
                format: str = "cvmrt") -> bytes:
    """Serializes a dict of name -> array (NumPy, cvmrt or DLPack arrays) and returns the bytes.

    format is "cvmrt" (checksummed, 64-byte aligned payloads) or "legacy" (the CVM param list).
    With a path, the bytes are also written there, through a temporary file and a rename, so a
    reader never sees a half-written file. The same dict always gives the same bytes.
    """
    data = _cvmrt._save_params_bytes(params, format)
    if path is not None:
        _write_file(path, data)
    return data


class Model:
    """A loaded, verified model. Immutable; run() may be called from many threads at once.

    Each concurrent run uses a session of its own from a pool, and releases the GIL while the
    model runs, so Python threads scale.
    """

    def __init__(self, core: "_cvmrt._Model", backend: str = "auto") -> None:
        self._core = core
        self._backend_choice = backend
        self._inputs = [TensorInfo(*t) for t in core.inputs]
        self._outputs = [TensorInfo(*t) for t in core.outputs]

    # ---- description ----
    @property
    def inputs(self) -> List[TensorInfo]:
        return list(self._inputs)

    @property
    def outputs(self) -> List[TensorInfo]:
        return list(self._outputs)

    @property
    def cost(self) -> Cost:
        return Cost(*self._core.cost)

    @property
    def quantized(self) -> bool:
        """True for a model written by the quantizer: it takes and gives floats."""
        return self._core.metadata["quantization"] is not None

    @property
    def metadata(self) -> Dict[str, Any]:
        """name, description, labels and (quantized models) the float interface's scales."""
        return self._core.metadata

    @property
    def version(self) -> str:
        return self._core.version

    @property
    def postprocess(self) -> str:
        return self._core.postprocess

    @property
    def backend(self) -> str:
        return self._core.backend

    @property
    def device(self) -> str:
        return self._core.device

    @property
    def memory(self) -> Dict[str, int]:
        """Bytes: planned (params + one session), params, activations, prepacked weights."""
        return self._core.memory

    def params(self) -> Dict[str, Array]:
        return self._core.params()

    def save(self, path: Optional[PathLike] = None) -> bytes:
        """The cvmrt model file's bytes (the same model always gives the same bytes); also
        written to path when given."""
        data = self._core.save()
        if path is not None:
            _write_file(path, data)
        return data

    def __reduce__(self):
        # Pickling carries the model file's bytes (params included); unpickling loads them again.
        return (_load_model_bytes, (self.save(), self.device, self._backend_choice))

    def cvm_json(self) -> str:
        """The CVM graph JSON (with params saved in the legacy format, any CVM runtime runs it)."""
        return self._core.cvm_json()

    def __repr__(self) -> str:
        ins = ", ".join(f"{t.name}{t.shape}" for t in self._inputs)
        outs = ", ".join(f"{t.name}{t.shape}" for t in self._outputs)
        kind = "quantized" if self.quantized else "float" if self._inputs[0].dtype == "float32" \
            else "CVM"
        return f"<cvmrt.Model {kind}: {ins} -> {outs}; cost {self.cost.total}>"

    # ---- running ----
    def run(self, inputs: Union[Mapping[str, Any], Any], *,
            dequantize: Optional[bool] = None) -> Dict[str, np.ndarray]:
        """Runs the model; returns {output name: NumPy array}.

        inputs: {"data": x} (or x alone). x has the input's shape, or is a batch of N inputs:
        N x the input shape, or N x the shape without its batch dimension of 1. A batch runs N
        times (with the GIL released throughout); each output's leading dimension of 1 becomes
        N (an output without one gets a new first axis of N). Integer models take int8/int16/int32 values (any
        integer dtype whose values fit int32); quantized models also take float32 (float64 is
        rounded to float32 first), fed as round(x * scale) clipped to the precision.

        dequantize: None gives float outputs (q / scale, then the model's softmax/sigmoid tail)
        when a quantized model was given floats, else the integers; True or False forces it.
        """
        x = self._single_input(inputs)
        info = self._inputs[0]
        arr = _cvmrt.asarray(x) if not isinstance(x, Array) else x
        float_in = arr.dtype in ("float16", "float32", "float64")
        if dequantize is None:
            dequantize = self.quantized and float_in
        if dequantize and not self.quantized:
            raise LogicError("run: dequantize=True needs a quantized model (one written by the "
                             "quantizer); this model's outputs are its integers")
        x_np = self._input_array(arr, info, float_in)
        n, batched = self._batch_of(x_np.shape, info)
        outs = [np.empty(self._output_shape(t.shape, n, batched),
                         dtype=np.float32 if dequantize else np.dtype(t.dtype))
                for t in self._outputs]
        feed_float = float_in and info.dtype != "float32"
        self._core.run_batch(_cvmrt.asarray(x_np), n, feed_float, bool(dequantize), outs)
        return {t.name: o for t, o in zip(self._outputs, outs)}

    @staticmethod
    def _output_shape(shape: Tuple[int, ...], n: int, batched: bool) -> Tuple[int, ...]:
        """One run: the output's shape. A batch: a leading dimension of 1 counts the runs, else
        the runs stack along a new first axis."""
        if not batched:
            return tuple(shape)
        return (n,) + tuple(shape[1:]) if shape[0] == 1 else (n,) + tuple(shape)

    def _single_input(self, inputs: Any) -> Any:
        if isinstance(inputs, Mapping):
            names = [t.name for t in self._inputs]
            unknown = [k for k in inputs if k not in names]
            if unknown:
                raise LogicError(f"run: unknown input {unknown[0]!r}; the model's inputs: "
                                 f"{', '.join(names)}")
            missing = [k for k in names if k not in inputs]
            if missing:
                raise LogicError(f"run: input {missing[0]!r} not given")
            return inputs[names[0]]
        return inputs

    def _input_array(self, arr: Array, info: TensorInfo, float_in: bool) -> np.ndarray:
        if arr.dtype == "bfloat16" or arr.dtype == "bool":
            raise LogicError(f"run: input {info.name!r}: {arr.dtype} data is not a model input")
        x = np.asarray(arr)
        if float_in:
            if info.dtype != "float32" and not self.quantized:
                raise LogicError(f"run: input {info.name!r} is {info.dtype}; float data needs a "
                                 "float model or a quantized one")
            return np.ascontiguousarray(x, dtype=np.float32)
        if info.dtype == "float32":
            raise LogicError(f"run: input {info.name!r} of this float model takes float32 "
                             f"data, found {x.dtype}")
        if x.dtype in (np.int8, np.int32):
            return np.ascontiguousarray(x)
        if x.size and (x.min() < -2**31 or x.max() > 2**31 - 1):
            raise LogicError(f"run: input {info.name!r}: {x.dtype} values beyond int32")
        return np.ascontiguousarray(x, dtype=np.int32)

    @staticmethod
    def _batch_of(shape: Tuple[int, ...], info: TensorInfo) -> Tuple[int, bool]:
        """(number of runs, whether x is a batch: its first dimension counts the runs)."""
        want = tuple(info.shape)
        if tuple(shape) == want:
            return 1, False
        if len(want) and want[0] == 1 and len(shape) == len(want) and tuple(shape[1:]) == want[1:]:
            return shape[0], True
        if len(shape) == len(want) + 1 and tuple(shape[1:]) == want:
            return shape[0], True
        raise LogicError(f"run: input {info.name!r} has shape {tuple(shape)}; expected "
                         f"{want} or a batch of them (N x {want}"
                         + (f" or N x {want[1:]}" if len(want) and want[0] == 1 else "") + ")")


def load_model(path: Union[PathLike, bytes], params: Union[None, PathLike, bytes,
               Mapping[str, Any]] = None, device: str = "cpu", backend: str = "auto") -> Model:
    """Loads and verifies a model: a cvmrt model file (path or its bytes), or a CVM graph JSON
    with its params (a path, the bytes, or a dict of arrays).

    device: "cpu", "cuda" or "cuda:N". backend: the CPU backend heading every kernel chain
    ("simd", "portable", "scalar", ...) or "auto"; results are the same bits on every one.
    """
    return Model(_cvmrt._Model.load(path, params, device, backend), backend)


def _load_model_bytes(data: bytes, device: str, backend: str) -> Model:
    return load_model(data, device=device, backend=backend)


def op(name: str, inputs: Union[Iterable[Any], Any], **attrs: Any) -> Union[Array, Tuple[Array, ...]]:
    """Runs operator `name` on `inputs` (a list of arrays, or one array) with attributes given as
    Python values (int, bool, None, a tuple of ints, or CVM text such as "(3, 3)").

    Returns the output Array, or a tuple of them for operators with several. CVM operators take
    int32 arrays (docs/operators.md lists every operator and its attributes).
    """
    outs = _cvmrt._op(name, inputs, **attrs)
    return outs[0] if len(outs) == 1 else tuple(outs)


def ops() -> List[OpInfo]:
    """Every registered operator, in a fixed order."""
    return [OpInfo(*o) for o in _cvmrt._ops()]


def _require_onnx() -> None:
    if not _cvmrt._has_onnx:
        raise RuntimeError("this cvmrt was built without the ONNX importer (libonnx-dev, "
                           "libprotobuf-dev)")


def import_onnx(path: PathLike, batch: int = 1, device: str = "cpu",
                backend: str = "auto") -> Model:
    """Imports an ONNX float model (static shapes; batch fixes a symbolic first dimension)."""
    _require_onnx()
    return Model(_cvmrt._import_onnx(os.fspath(path), batch, device, backend), backend)


def quantize(onnx_path: PathLike, calibration: Any, *, per_channel: bool = True,
             output_precision: int = 16, percentile: float = 100.0, split: bool = False,
             max_channel_spread: int = 11, device: str = "cpu", backend: str = "auto",
             return_report: bool = False) -> Union[Model, Tuple[Model, Dict[str, Any]]]:
    """Quantizes an ONNX float model to a CVM int8 model with a calibration batch (float32,
    N x the input shape without its batch dimension of 1, or N x the full input shape): the same
    code as `cvmrt quantize` (docs/quantization.md). The model takes and gives floats.

    return_report=True also returns what calibration found per tensor.
    """
    _require_onnx()
    calib = np.ascontiguousarray(np.asarray(calibration), dtype=np.float32)
    core, report = _cvmrt._quantize(os.fspath(onnx_path), calib, per_channel, output_precision,
                                    percentile, split, max_channel_spread, device, backend)
    model = Model(core, backend)
    return (model, report) if return_report else model


# The names the native module gives its error types, for pickling across Dask workers.
LogicError.__module__ = "cvmrt"
RuntimeError.__module__ = "cvmrt"
