// cvmrt eval: run a model over a batch of inputs; top-1 accuracy against labels, throughput and
// one hash of every output bit (equal hashes: equal results on another backend or machine).
#include <xxhash.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "cli_util.h"
#include "commands.h"
#include "cvm/model.h"
#include "cvm/registry.h"

namespace cvm {
namespace cli {
namespace {

// Argmax over the last dimension of each row of an int32 or float32 output (first maximum).
std::vector<int32_t> row_argmax(const NDArray& out) {
  const NDArray c = out.contiguous();
  const int64_t width = c.shape()[c.ndim() - 1];
  std::vector<int32_t> best;
  for (int64_t r = 0; r * width < c.numel(); ++r) {
    int64_t b = 0;
    for (int64_t j = 1; j < width; ++j) {
      const int64_t i = r * width;
      const bool greater = c.dtype() == DataType::Float(32)
                               ? c.data_as<float>()[i + j] > c.data_as<float>()[i + b]
                               : c.data_as<int32_t>()[i + j] > c.data_as<int32_t>()[i + b];
      if (greater) b = j;
    }
    best.push_back(static_cast<int32_t>(b));
  }
  return best;
}

int run_eval(const std::vector<std::string>& words) {
  Args args("eval", words,
            {{"params"}, {"inputs"}, {"labels"}, {"predictions"}, {"backend"}, {"device"}, {"limit"}},
            1, 1);
  if (!args.has("inputs")) throw UsageError("missing --inputs BATCH.npy");
  select_backend(args.get("backend"));
  const SessionOptions options = session_options(args.get("device"), args.get("backend"));
  std::shared_ptr<const Model> model = load_model(args.positional()[0], args.get("params"));
  const TensorInfo& in = model->inputs().at(0);
  const bool quantized = !model->metadata().quantization.empty();
  const std::string inputs_path = args.get("inputs");
  const NDArray batch = parse_npy(read_file(inputs_path), inputs_path).contiguous();
  const int64_t per = in.shape.numel();
  if (batch.ndim() < 1 || batch.numel() % per != 0 || batch.numel() == 0) {
    CVM_LOGIC_ERROR() << inputs_path << ": shape " << shape_str(batch.shape())
                      << " is not N inputs of " << shape_str(in.shape);
  }
  int64_t n = batch.numel() / per;
  if (batch.shape()[0] != n) {
    CVM_LOGIC_ERROR() << inputs_path << ": shape " << shape_str(batch.shape())
                      << ": the first dimension must count the inputs (" << n << " of "
                      << shape_str(in.shape) << ")";
  }
  n = std::min<int64_t>(n, args.get_int("limit", n, 1, n));
  const bool float_in = batch.dtype() == DataType::Float(32);
  if (float_in && in.dtype != DataType::Float(32) && !quantized) {
    CVM_LOGIC_ERROR() << inputs_path << ": float32 inputs need a float or a quantized model";
  }
  std::vector<int32_t> labels;
  if (args.has("labels")) {
    const NDArray l = parse_npy(read_file(args.get("labels")), args.get("labels")).contiguous();
    if (l.dtype() != DataType::Int(32) || l.numel() < n) {
      CVM_LOGIC_ERROR() << args.get("labels") << ": expected at least " << n
                        << " int32 labels, found " << l.numel() << " " << l.dtype().name();
    }
    labels.assign(l.data_as<int32_t>(), l.data_as<int32_t>() + n);
  }

  Session session(model, options);
  XXH64_state_t* hash = XXH64_createState();
  XXH64_reset(hash, 0);
  std::vector<int32_t> predictions;
  int64_t correct = 0;
  const size_t elem = batch.dtype().bytes();
  const auto start = std::chrono::steady_clock::now();
  for (int64_t i = 0; i < n; ++i) {
    const NDArray x =
        NDArray::from_bytes(static_cast<const char*>(batch.data()) + i * per * elem,
                            static_cast<size_t>(per) * elem, in.shape, batch.dtype());
    if (float_in && quantized) {
      session.set_input_float(in.name, x);
    } else {
      session.set_input(in.name, x);
    }
    session.run();
    const NDArray out = session.output(0);
    XXH64_update(hash, out.data(), out.nbytes());
    for (int32_t p : row_argmax(out)) predictions.push_back(p);
    if (!labels.empty() && predictions.back() == labels[i]) ++correct;
  }
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  const uint64_t digest = XXH64_digest(hash);
  XXH64_freeState(hash);
  if (args.has("predictions")) {
    NDArray p = NDArray::from_bytes(predictions.data(), predictions.size() * 4,
                                    Shape{static_cast<int64_t>(predictions.size())},
                                    DataType::Int(32));
    write_file(args.get("predictions"), to_npy(p));
  }
  char line[256];
  std::snprintf(line, sizeof line, "%lld inputs in %.3f s (%.1f inputs/s, backend %s on %s)\n",
                static_cast<long long>(n), took.count(), n / took.count(),
                session.backend().c_str(), session.device().name().c_str());
  std::cout << "model:    " << args.positional()[0] << " ("
            << (quantized ? "quantized CVM" : in.dtype == DataType::Float(32) ? "float" : "CVM")
            << ")\n";
  std::cout << "run:      " << line;
  if (!labels.empty()) {
    std::snprintf(line, sizeof line, "top-1:    %.2f %% (%lld of %lld)\n",
                  100.0 * static_cast<double>(correct) / static_cast<double>(n),
                  static_cast<long long>(correct), static_cast<long long>(n));
    std::cout << line;
  }
  std::snprintf(line, sizeof line, "%016llx", static_cast<unsigned long long>(digest));
  std::cout << "outputs:  xxh64 " << line << " (output 0 of every input, in order)\n";
  std::cout << "cost:     " << cost_str(model->cost()) << " per input\n";
  return 0;
}

}  // namespace

const Command kEvalCommand = {
    "eval", "run a model over a batch: top-1 accuracy, throughput and an output hash",
    "usage: cvmrt eval MODEL [--params P] --inputs BATCH.npy [--labels LABELS.npy]\n"
    "                  [--predictions OUT.npy] [--limit N] [--backend B | --device D]\n"
    "\n"
    "Runs MODEL once per input of BATCH and prints the throughput, the top-1 accuracy (the\n"
    "argmax of the last dimension of output 0, against LABELS) and an xxh64 hash of every\n"
    "output 0 in order: runs that print the same hash computed the same bits.\n"
    "\n"
    "  --inputs BATCH.npy   N inputs: N x the input shape, or N x the shape without its batch\n"
    "                       dimension of 1. float32 for float models and for quantized ones\n"
    "                       (quantized as the model's metadata says); int8/int32 for CVM models\n"
    "  --labels L.npy       int32 class ids, one per input\n"
    "  --predictions F.npy  write the argmax of each input (int32)\n"
    "  --limit N            only the first N inputs\n"
    "  --backend B          kernels to use: auto, scalar, simd, ... (see cvmrt info)\n"
    "  --device D           cpu (default), cuda or cuda:N: run on that GPU with the CUDA kernels\n",
    run_eval};

}  // namespace cli
}  // namespace cvm
