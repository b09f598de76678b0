# Dask: a LocalCluster of worker processes on loopback, each pinned to a different CVMRT_ISA
# level this CPU has, scores the same partitions; every worker's bytes equal a single-process
# run's, the hashes are the outputs', and each worker loads the model once.
import copy
import hashlib
import os

import dask
import dask.array as da
import numpy as np
import pytest
from distributed import Client, LocalCluster

import cvmrt
import cvmrt.dask

LEVELS = ["scalar", "avx2", "avx512", "amx"]


def cpu_levels():
    """The CVMRT_ISA levels this CPU has, lowest first (just "scalar" off x86)."""
    top = cvmrt.system_info()["cpu_level"]
    return LEVELS[:LEVELS.index(top) + 1] if top else ["scalar"]


@pytest.fixture(scope="module")
def isa_cluster():
    levels = cpu_levels()
    cluster = LocalCluster(n_workers=0, processes=True, threads_per_worker=1, host="127.0.0.1",
                           dashboard_address=None)
    for level in levels:
        spec = copy.deepcopy(cluster.new_spec)
        spec["options"]["env"] = {"CVMRT_ISA": level}
        cluster.worker_spec[f"isa-{level}"] = spec
    cluster.scale(len(levels))
    client = Client(cluster)
    client.wait_for_workers(len(levels), timeout=120)
    yield client, levels
    client.close()
    cluster.close()


def test_every_isa_level_gives_the_single_process_bytes(isa_cluster, fashion_path, images):
    client, levels = isa_cluster
    pinned = client.run(lambda: (os.environ["CVMRT_ISA"], cvmrt.system_info()["isa_level"]))
    assert sorted(level for level, _ in pinned.values()) == sorted(levels)
    assert all(env == used for env, used in pinned.values())  # each worker runs at its level

    x = images[:600]
    local = cvmrt.load_model(fashion_path).run({"data": x})["softmax"]
    local_hashes = [hashlib.sha256(local[i:i + 150].tobytes()).hexdigest()
                    for i in range(0, 600, 150)]
    for address, (level, _) in pinned.items():
        # An input of its own per worker: the same graph keys would let the scheduler hand back
        # the previous worker's results (still in memory) instead of computing here.
        chunks = da.from_array(x, chunks=(150, 1, 28, 28), name=f"images-{level}")
        out, hashes = cvmrt.dask.predict(fashion_path, chunks, verify=True)
        got, got_hashes = client.compute([out, hashes], workers=[address],
                                         allow_other_workers=False, sync=True)
        assert got.dtype == np.float32 and got.shape == (600, 10)
        assert got.tobytes() == local.tobytes(), pinned[address]
        assert list(got_hashes) == local_hashes
    loaded = client.run(cvmrt.dask.loaded_models)
    assert all(models == {str(fashion_path): 1} for models in loaded.values()), loaded


def test_predict_without_verify_and_from_numpy(isa_cluster, fashion_path, images):
    client, _ = isa_cluster
    x = images[:100]
    want = cvmrt.load_model(fashion_path).run({"data": x}, dequantize=False)["softmax"]
    got = cvmrt.dask.predict(fashion_path, x, dequantize=False).compute()
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, want)
    # N x the full input shape, chunked along other axes too: merged first.
    odd = da.from_array(x[:, None], chunks=(30, 1, 1, 14, 28))
    out, hashes = dask.compute(*cvmrt.dask.predict(fashion_path, odd, verify=True,
                                                   dequantize=False))
    np.testing.assert_array_equal(out, want)
    assert len(hashes) == 4


def test_predict_rejects_bad_input_on_the_client(fashion_path, tmp_path):
    with pytest.raises(cvmrt.LogicError, match=r"expected N inputs of \(1, 1, 28, 28\)"):
        cvmrt.dask.predict(fashion_path, da.zeros((10, 28, 28), chunks=5))
    with pytest.raises(cvmrt.LogicError, match="cannot open"):
        cvmrt.dask.predict(tmp_path / "missing.cvmrt", da.zeros((10, 1, 28, 28), chunks=5))
