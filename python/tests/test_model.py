# Models: loading (model files, CVM graph JSON + params), running single inputs and batches,
# float in/out of quantized models, every CPU backend's bits, threads, the CLI's quantizer and
# bad input.
import json
import pickle
import subprocess
import threading
from pathlib import Path

import numpy as np
import pytest

import cvmrt

MODELS = Path(__file__).resolve().parents[2] / "tests" / "models"
CASES = sorted(p for p in MODELS.glob("*.case.json"))


def case_array(spec):
    return np.array(spec["data"], dtype=spec["dtype"]).reshape(spec["shape"])


@pytest.mark.parametrize("case", CASES, ids=[p.name.split(".")[0] for p in CASES])
def test_cvm_graph_models_give_their_recorded_outputs_and_cost(case):
    spec = json.loads(case.read_text())
    graph = MODELS / case.name.replace(".case.json", ".json")
    params = {name: case_array(p) for name, p in spec["params"].items()}
    x = case_array(spec["input"])
    for given in (params, cvmrt.save_params(params), cvmrt.save_params(params, format="legacy")):
        model = cvmrt.load_model(graph, params=given)
        assert model.cost == tuple(spec["cost"][k] for k in ("ops", "mem", "total"))
        outs = model.run({"data": x})
        assert list(outs) == [t.name for t in model.outputs]
        for got, want in zip(outs.values(), spec["outputs"]):
            assert got.dtype == np.int32
            np.testing.assert_array_equal(got.reshape(-1), np.array(want).reshape(-1))


def test_fashion_model_matches_the_cli(fashion, fashion_path, images, labels, cli, tmp_path):
    probs = fashion.run({"data": images})["softmax"]
    assert probs.shape == (len(images), 10) and probs.dtype == np.float32
    np.testing.assert_allclose(probs.sum(axis=1), 1, rtol=1e-5)
    predictions = probs.argmax(axis=1)
    assert (predictions == labels).mean() > 0.85  # the trained CNN, quantized: ~90 %
    np.save(tmp_path / "images.npy", images)
    subprocess.run([cli, "eval", fashion_path, "--inputs", tmp_path / "images.npy",
                    "--predictions", tmp_path / "cli.npy"], check=True, capture_output=True)
    np.testing.assert_array_equal(np.load(tmp_path / "cli.npy"), predictions)


def test_quantize_is_the_clis_quantizer(repo, calibration, fashion_path, cli, tmp_path):
    np.save(tmp_path / "calib.npy", calibration)
    subprocess.run([cli, "quantize", repo / "examples/fashion_mnist/fashion_cnn.onnx", "--calib",
                    tmp_path / "calib.npy", "-o", tmp_path / "cli.cvmrt"], check=True,
                   capture_output=True)
    assert (tmp_path / "cli.cvmrt").read_bytes() == fashion_path.read_bytes()
    model, report = cvmrt.quantize(repo / "examples/fashion_mnist/fashion_cnn.onnx", calibration,
                                   return_report=True)
    assert report["calibration_samples"] == len(calibration)
    assert report["tensors"] and {"node", "op", "max_abs", "exponent", "precision"} <= set(
        report["tensors"][0])


def test_float_import_runs_the_onnx_model(repo, images, fashion):
    float_model = cvmrt.import_onnx(repo / "examples/fashion_mnist/fashion_cnn.onnx")
    assert float_model.inputs[0].dtype == "float32" and not float_model.quantized
    out = next(iter(float_model.run({"data": images[:50]}).values()))
    quantized = fashion.run({"data": images[:50]})["softmax"]
    assert out.shape == (50, 10)
    assert (out.argmax(axis=1) == quantized.argmax(axis=1)).mean() > 0.9


def test_batches_equal_single_runs(fashion, images):
    x = images[:7]
    singles = np.concatenate([fashion.run({"data": x[i:i + 1]})["softmax"] for i in range(7)])
    assert fashion.run({"data": x[:1]})["softmax"].shape == (1, 10)
    np.testing.assert_array_equal(fashion.run({"data": x})["softmax"], singles)
    np.testing.assert_array_equal(fashion.run(x[:, None])["softmax"], singles)  # N x (1,1,28,28)
    empty = fashion.run({"data": x[:0]})["softmax"]
    assert empty.shape == (0, 10)


def test_float_and_integer_interfaces(fashion, images):
    x = images[:5]
    ints = fashion.run({"data": x}, dequantize=False)["softmax"]
    assert ints.dtype == np.int32
    floats = fashion.run({"data": x})["softmax"]
    assert floats.dtype == np.float32
    assert (ints.argmax(axis=1) == floats.argmax(axis=1)).all()
    # The integer input the float input stands for gives the same integers.
    scale = fashion.metadata["quantization"]["inputs"][0]["scale"]
    q = np.clip(np.sign(x) * np.floor(np.abs(x.astype(np.float64) * scale) + 0.5), -127, 127)
    for dtype in (np.int8, np.int32, np.int64):
        np.testing.assert_array_equal(fashion.run({"data": q.astype(dtype)})["softmax"], ints)
    np.testing.assert_array_equal(fashion.run({"data": x.astype(np.float64)}, dequantize=False)
                                  ["softmax"], ints)
    assert fashion.run({"data": q.astype(np.int8)}, dequantize=True)["softmax"].dtype == np.float32


def test_every_cpu_backend_gives_the_same_bits(fashion_path, images):
    backends = [b for b in cvmrt.compiled_backends() if b != "cuda"]
    assert "scalar" in backends and len(backends) >= 2
    results = {}
    for backend in backends:
        model = cvmrt.load_model(fashion_path, backend=backend)
        assert model.backend == backend
        results[backend] = model.run({"data": images[:64]}, dequantize=False)["softmax"]
    for backend, out in results.items():
        np.testing.assert_array_equal(out, results["scalar"], err_msg=backend)


def test_cuda_device_runs_or_says_why(fashion_path, images):
    cpu = cvmrt.load_model(fashion_path).run({"data": images[:8]}, dequantize=False)["softmax"]
    try:
        model = cvmrt.load_model(fashion_path, device="cuda")
    except cvmrt.RuntimeError as e:  # built with CUDA, no usable GPU here
        assert "cuda" in cvmrt.compiled_backends() and "CUDA" in str(e)
        return
    except cvmrt.LogicError as e:  # built without CUDA
        assert "cuda" not in cvmrt.compiled_backends() and "cuda" in str(e)
        return
    assert model.device == "cuda:0"
    np.testing.assert_array_equal(model.run({"data": images[:8]}, dequantize=False)["softmax"], cpu)


def test_save_and_reload(fashion, images, tmp_path):
    data = fashion.save(tmp_path / "m.cvmrt")
    assert data == fashion.save() == (tmp_path / "m.cvmrt").read_bytes()
    want = fashion.run({"data": images[:10]}, dequantize=False)["softmax"]
    for source in (data, tmp_path / "m.cvmrt", str(tmp_path / "m.cvmrt")):
        np.testing.assert_array_equal(cvmrt.load_model(source).run(
            {"data": images[:10]}, dequantize=False)["softmax"], want)
    # As a CVM graph JSON with legacy params: what any CVM runtime loads; same cost, same bits.
    (tmp_path / "m.json").write_text(fashion.cvm_json())
    legacy = cvmrt.save_params(fashion.params(), tmp_path / "m.params", format="legacy")
    cvm = cvmrt.load_model(tmp_path / "m.json", params=tmp_path / "m.params")
    assert cvm.cost == fashion.cost and legacy
    x = fashion.run({"data": images[:10]}, dequantize=False)
    q = np.clip(np.sign(images[:10]) * np.floor(np.abs(images[:10].astype(np.float64) *
                fashion.metadata["quantization"]["inputs"][0]["scale"]) + 0.5), -127, 127)
    np.testing.assert_array_equal(cvm.run({"data": q.astype(np.int32)})[cvm.outputs[0].name],
                                  x["softmax"])


def test_models_pickle_as_their_file(fashion, images):
    again = pickle.loads(pickle.dumps(fashion))
    assert again.save() == fashion.save() and again.cost == fashion.cost
    np.testing.assert_array_equal(again.run({"data": images[:4]})["softmax"],
                                  fashion.run({"data": images[:4]})["softmax"])


def test_description(fashion):
    assert fashion.quantized and fashion.version.startswith("cvm_")
    (inp,) = fashion.inputs
    assert inp == cvmrt.TensorInfo("data", (1, 1, 28, 28), "int32", 8, "int8")
    assert fashion.outputs[0].name == "softmax" and fashion.outputs[0].shape == (1, 10)
    assert fashion.cost.total == fashion.cost.ops + fashion.cost.mem > 0
    assert fashion.metadata["quantization"]["outputs"][0]["tail"] == "softmax"
    assert fashion.memory["params"] > 0 and "quantized" in repr(fashion)


def test_threads_share_one_model_and_release_the_gil(fashion, images):
    want = fashion.run({"data": images[:200]})["softmax"]
    results = [None] * 4

    def work(i):
        results[i] = fashion.run({"data": images[:200]})["softmax"]

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for r in results:
        np.testing.assert_array_equal(r, want)
    # While a long run is in flight, this thread keeps running Python code: the GIL is free.
    big = np.repeat(images[:100], 20, axis=0)
    runner = threading.Thread(target=fashion.run, args=({"data": big},))
    counted = 0
    runner.start()
    while runner.is_alive():
        counted += 1
    runner.join()
    assert counted > 10000, f"only {counted} iterations while the model ran: the GIL was held"


def test_bad_input(fashion, fashion_path, images, tmp_path):
    with pytest.raises(cvmrt.LogicError, match=r"has shape \(3, 28, 28\); expected \(1, 1, 28, 28\)"):
        fashion.run({"data": images[:3, 0]})
    with pytest.raises(cvmrt.LogicError, match="unknown input 'x'"):
        fashion.run({"x": images[:1]})
    with pytest.raises(cvmrt.LogicError, match="input 'data' not given"):
        fashion.run({})
    with pytest.raises(cvmrt.LogicError, match="complex"):
        fashion.run({"data": images[:1].astype(np.complex64)})
    with pytest.raises(cvmrt.LogicError, match="beyond int32"):
        fashion.run({"data": np.full((1, 1, 28, 28), 2**40)})
    with pytest.raises(cvmrt.LogicError, match="cannot open"):
        cvmrt.load_model(tmp_path / "nope.cvmrt")
    (tmp_path / "junk.cvmrt").write_bytes(b"\x00junk" * 10)
    with pytest.raises(cvmrt.LogicError):
        cvmrt.load_model(tmp_path / "junk.cvmrt")
    with pytest.raises(cvmrt.LogicError, match="params= applies to a CVM graph JSON"):
        cvmrt.load_model(fashion_path, params=b"")
    with pytest.raises(cvmrt.LogicError, match="not compiled|unknown backend|backend"):
        cvmrt.load_model(fashion_path, backend="tpu")
    with pytest.raises(cvmrt.LogicError, match="unknown device"):
        cvmrt.load_model(fashion_path, device="gpu")
    graph = MODELS / "mlp.json"
    with pytest.raises(cvmrt.LogicError, match="no params given"):
        cvmrt.load_model(graph)
    spec = json.loads((MODELS / "mlp.case.json").read_text())
    mlp = cvmrt.load_model(graph, params={k: case_array(v) for k, v in spec["params"].items()})
    with pytest.raises(cvmrt.LogicError, match="float data needs a float model or a quantized"):
        mlp.run({"data": np.zeros(mlp.inputs[0].shape, np.float32)})
    with pytest.raises(cvmrt.LogicError, match="dequantize=True needs a quantized model"):
        mlp.run({"data": np.zeros(mlp.inputs[0].shape, np.int32)}, dequantize=True)
