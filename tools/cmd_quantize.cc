// cvmrt quantize: an ONNX (or float cvmrt) model and a calibration batch -> a CVM int8 model,
// optionally exported as CVM graph JSON + legacy params + quant.json for any CVM runtime.
#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_util.h"
#include "commands.h"
#include "cvm/model.h"
#include "cvm/onnx_import.h"
#include "cvm/quantize.h"

namespace cvm {
namespace cli {
namespace {

// The float model: an ONNX file is imported, anything else is read as a cvmrt model file.
std::shared_ptr<const Model> load_float_model(const std::string& path) {
  if (ends_with(path, ".onnx")) return onnx::import_onnx_file(path);
  return Model::load_file(path);
}

void make_dir(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST) {
    CVM_RUNTIME_ERROR() << "cannot create the folder \"" << dir << "\"";
  }
}

nlohmann::json shape_json(const Shape& s) { return s.to_vector(); }

// quant.json: how float inputs and outputs map to the CVM model's integers.
std::string quant_json(const Model& m) {
  const Quantization& q = m.metadata().quantization;
  nlohmann::json doc;
  doc["inputs"] = nlohmann::json::array();
  for (size_t i = 0; i < q.inputs.size(); ++i) {
    doc["inputs"].push_back({{"name", q.inputs[i].name},
                             {"shape", shape_json(m.inputs()[i].shape)},
                             {"precision", q.inputs[i].precision},
                             {"scale", q.inputs[i].scale}});
  }
  doc["outputs"] = nlohmann::json::array();
  for (size_t i = 0; i < q.outputs.size(); ++i) {
    nlohmann::json o = {{"name", q.outputs[i].name},
                        {"shape", shape_json(m.outputs()[i].shape)},
                        {"scale", q.outputs[i].scale}};
    if (!q.outputs[i].tail.empty()) {
      o["tail"] = q.outputs[i].tail;
      if (q.outputs[i].tail == "softmax") o["tail_axis"] = q.outputs[i].tail_axis;
    }
    doc["outputs"].push_back(o);
  }
  return doc.dump(1) + "\n";
}

int run_quantize(const std::vector<std::string>& words) {
  Args args("quantize", words,
            {{"calib"}, {"output", true, false, 'o'}, {"cvm"}, {"per-tensor", false},
             {"output-precision"}, {"percentile"}, {"split", false}, {"report", false}},
            1, 1);
  if (!args.has("calib")) throw UsageError("missing --calib CALIB.npy (a float32 batch)");
  if (!args.has("output") && !args.has("cvm")) {
    throw UsageError("missing -o OUT.cvmrt (and/or --cvm DIR): nothing would be written");
  }
  const std::string in = args.positional()[0];
  quant::QuantizeOptions options;
  options.per_channel = !args.has("per-tensor");
  options.split = args.has("split");
  options.output_precision = static_cast<int>(args.get_int("output-precision", 16, 8, 24));
  if (args.has("percentile")) {
    const std::string text = args.get("percentile");
    char* end = nullptr;
    options.percentile = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end != '\0' || !(options.percentile > 50) ||
        options.percentile > 100) {
      throw UsageError("--percentile expects a number in (50, 100], found \"" + text + "\"");
    }
  }
  std::shared_ptr<const Model> fm = load_float_model(in);
  const std::string calib_path = args.get("calib");
  const NDArray calib = parse_npy(read_file(calib_path), calib_path);
  quant::QuantizeReport report;
  std::shared_ptr<const Model> qm = quant::quantize(*fm, calib, options, &report);

  if (args.has("output")) qm->save_file(args.get("output"));
  if (args.has("cvm")) {
    const std::string dir = args.get("cvm");
    make_dir(dir);
    write_file(dir + "/model.json", qm->cvm_json());
    const std::vector<uint8_t> params = qm->params().save(ParamFormat::kLegacy);
    write_file(dir + "/model.params", std::string(params.begin(), params.end()));
    write_file(dir + "/quant.json", quant_json(*qm));
  }
  if (args.has("report")) {
    std::cout << "node                             op               max|x|     exponent  bits\n";
    for (const quant::TensorScale& t : report.tensors) {
      char line[160];
      std::snprintf(line, sizeof line, "%-32s %-16s %-10.4g %8d %5d\n", t.node.c_str(),
                    t.op.c_str(), t.max_abs, t.exponent, t.precision);
      std::cout << line;
    }
  }
  const Quantization& q = qm->metadata().quantization;
  std::cout << "quantized " << in << " (" << fm->nodes().size() << " float nodes) with "
            << report.calibration_samples << " calibration samples, "
            << (options.per_channel ? "per-channel" : "per-tensor") << " weight scales"
            << (options.split ? ", split 15-bit weights and activations" : "") << ": "
            << qm->nodes().size() << " CVM nodes, input scale 2^"
            << static_cast<int>(std::lround(std::log2(q.inputs[0].scale))) << ", cost "
            << cost_str(qm->cost()) << "\n";
  if (args.has("output")) std::cout << "wrote " << args.get("output") << "\n";
  if (args.has("cvm")) {
    std::cout << "wrote " << args.get("cvm") << "/{model.json, model.params, quant.json}\n";
  }
  return 0;
}

}  // namespace

const Command kQuantizeCommand = {
    "quantize", "quantize an ONNX float model to a CVM int8 model with a calibration batch",
    "usage: cvmrt quantize MODEL.onnx --calib CALIB.npy [-o OUT.cvmrt] [--cvm DIR]\n"
    "                      [--per-tensor] [--output-precision BITS] [--percentile P] [--split]\n"
    "                      [--report]\n"
    "\n"
    "Imports MODEL (an ONNX file, or a float cvmrt model file), runs it on every sample of\n"
    "CALIB to find each tensor's range, and writes a CVM model of the 37 CVM operators: int8\n"
    "weights with power-of-two scales, int32 biases, 8-bit activations (docs/quantization.md).\n"
    "Softmax and sigmoid at the model's end become the outputs' float tail.\n"
    "\n"
    "  --calib CALIB.npy    float32: N x the input shape without its batch dimension, or N x the\n"
    "                       full input shape\n"
    "  -o, --output FILE    the cvmrt model file to write (it keeps the float interface: `cvmrt\n"
    "                       run` takes float32 .npy inputs and --dequantize prints floats)\n"
    "  --cvm DIR            also write DIR/model.json + DIR/model.params (CVM graph JSON and the\n"
    "                       legacy CVM params, input \"data\", batch 1) and DIR/quant.json\n"
    "  --per-tensor         one weight scale per tensor instead of one per output channel\n"
    "  --output-precision BITS\n"
    "                       bits of the model outputs (8..24, default 16)\n"
    "  --percentile P       each activation's range is the P-th percentile of its |values|\n"
    "                       (default 100: the largest; e.g. 99.99 lets rare outliers saturate)\n"
    "  --split              split precision: 15-bit weights, activations and input, each fed to\n"
    "                       conv2d/dense as two int8 halves (three conv2d/dense per layer, about\n"
    "                       3x the cost; far closer to the float model)\n"
    "  --report             print each tensor's calibrated range, exponent and bits\n",
    run_quantize};

}  // namespace cli
}  // namespace cvm
