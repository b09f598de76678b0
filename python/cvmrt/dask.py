"""cvmrt.dask: score a dask.array with a cvmrt model across a Dask cluster.

Each worker process loads the model once (tasks carry only its path) and runs its chunks through
sessions of that one model; every worker, whatever its CPU or ISA level, returns the same bits,
which verify=True lets you check from per-chunk SHA-256 hashes computed on the workers.

    import dask.array as da, cvmrt.dask
    x = da.from_array(images, chunks=(1000, 1, 28, 28))
    probs = cvmrt.dask.predict("fashion_int8.cvmrt", x).compute()
"""
from __future__ import annotations

import hashlib
import os
import threading
from typing import Any, Dict, Optional, Tuple, Union

import numpy as np

import cvmrt

__all__ = ["predict", "loaded_models"]

# This process's models, by (path, params, device, backend): loaded on a worker's first chunk.
_models: Dict[Tuple[Any, ...], cvmrt.Model] = {}
_models_lock = threading.Lock()


def _model(key: Tuple[Any, ...]) -> cvmrt.Model:
    with _models_lock:
        model = _models.get(key)
        if model is None:
            path, params, device, backend = key
            model = cvmrt.load_model(path, params=params, device=device, backend=backend)
            _models[key] = model
        return model


def loaded_models() -> Dict[str, int]:
    """The models this process has loaded, by path, with how many variants (params, device,
    backend) of each: what `client.run(cvmrt.dask.loaded_models)` shows per worker."""
    with _models_lock:
        counts: Dict[str, int] = {}
        for key in _models:
            counts[key[0]] = counts.get(key[0], 0) + 1
        return counts


def _score(block: np.ndarray, key: Tuple[Any, ...], output: str,
           dequantize: Optional[bool]) -> np.ndarray:
    model = _model(key)
    return model.run({model.inputs[0].name: block}, dequantize=dequantize)[output]


def _score_and_hash(block: np.ndarray, key: Tuple[Any, ...], output: str,
                    dequantize: Optional[bool]) -> Tuple[np.ndarray, np.ndarray]:
    out = _score(block, key, output, dequantize)
    digest = hashlib.sha256(np.ascontiguousarray(out).tobytes()).hexdigest()
    return out, np.array([digest], dtype="<U64")


def predict(model_path: Union[str, "os.PathLike[str]"], x: Any,
            params: Union[None, str, "os.PathLike[str]", bytes] = None, verify: bool = False, *,
            device: str = "cpu", backend: str = "auto", dequantize: Optional[bool] = None):
    """Scores `x`, a dask.array (or NumPy array) whose first axis indexes inputs, with the model
    at `model_path` (a cvmrt model file, or a CVM graph JSON with `params`: a path or bytes).

    Every worker must see model_path (a shared or identical file system). Chunks along the other
    axes are merged first. Returns a dask.array of the model's first output, the chunks' results
    stacked along the first axis; with verify=True, (outputs, hashes), where hashes is a
    dask.array of one hex SHA-256 of each chunk's output bytes, computed on the workers:
    dask.compute(outputs, hashes) runs every chunk once. device, backend and dequantize are
    those of cvmrt.load_model and Model.run.
    """
    import dask
    import dask.array as da

    path = os.path.abspath(os.fspath(model_path))
    if params is not None and not isinstance(params, bytes):
        params = os.path.abspath(os.fspath(params))
    key = (path, params, device, backend)
    # The client checks the model once (errors surface here, not in a worker) and learns the
    # output's shape and type.
    model = cvmrt.load_model(path, params=params, device=device, backend=backend)
    if not isinstance(x, da.Array):
        x = da.from_array(np.asarray(x), chunks=(max(1, min(1024, len(x))),) + np.shape(x)[1:])
    info = model.inputs[0]
    in_shape = tuple(info.shape)
    per_input = in_shape[1:] if in_shape and in_shape[0] == 1 else in_shape
    if x.ndim < 1 or (tuple(x.shape[1:]) != per_input and tuple(x.shape[1:]) != in_shape):
        raise cvmrt.LogicError(f"predict: x has shape {tuple(x.shape)}; expected N inputs of "
                               f"{in_shape}: N x {per_input}"
                               + (f" or N x {in_shape}" if per_input != in_shape else ""))
    x = x.rechunk({axis: -1 for axis in range(1, x.ndim)})
    float_in = np.dtype(x.dtype).kind == "f"
    if dequantize is None:
        dequantize = model.quantized and float_in
    head = model.outputs[0]
    out_dtype = np.dtype(np.float32 if dequantize else head.dtype)
    per_output = head.shape[1:] if head.shape[0] == 1 else head.shape

    run = _score_and_hash if verify else _score
    blocks = x.to_delayed().reshape(-1)
    outputs, hashes = [], []
    for block, rows in zip(blocks, x.chunks[0]):
        name = f"cvmrt-predict-{dask.base.tokenize(key, head.name, dequantize, block.key)}"
        result = dask.delayed(run, pure=True, nout=2 if verify else None)(
            block, key, head.name, dequantize, dask_key_name=name)
        out = result[0] if verify else result
        outputs.append(da.from_delayed(out, shape=(rows,) + tuple(per_output), dtype=out_dtype))
        if verify:
            hashes.append(da.from_delayed(result[1], shape=(1,), dtype="<U64"))
    stacked = da.concatenate(outputs, axis=0) if outputs else \
        da.zeros((0,) + tuple(per_output), dtype=out_dtype)
    if not verify:
        return stacked
    return stacked, (da.concatenate(hashes) if hashes else da.zeros((0,), dtype="<U64"))
