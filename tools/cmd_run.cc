// cvmrt run: run a model on one input and print (or save) its outputs and its cost.
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli_util.h"
#include "commands.h"
#include "cvm/error.h"
#include "cvm/model.h"
#include "cvm/registry.h"

namespace cvm {
namespace cli {
namespace {

// Values shown per output in the text format (json and npy hold every value).
constexpr size_t kTextValues = 256;

// The section 7 output (what CVMAPIInference returns), decoded.
struct Section7 {
  bool available = false;
  std::string error;
  size_t type_size = 0;
  std::vector<int64_t> values;
};

Section7 section7(Session& session, const Model& model, const NDArray& input) {
  Section7 r;
  const std::string in = input_bytes(model, input);
  std::string out(model.output_length(), '\0');
  try {
    session.infer_bytes(in.data(), in.size(), &out[0], out.size());
  } catch (const LogicError& e) {
    r.error = e.what();
    return r;
  }
  r.available = true;
  r.type_size = model.output_type_size();
  for (size_t i = 0; i + r.type_size <= out.size(); i += r.type_size) {
    if (r.type_size == 1) {
      r.values.push_back(static_cast<int8_t>(out[i]));
    } else {
      uint32_t u = 0;
      for (int b = 3; b >= 0; --b) u = (u << 8) | static_cast<uint8_t>(out[i + b]);
      r.values.push_back(static_cast<int32_t>(u));
    }
  }
  return r;
}

// "precision 8" for a CVM model's tensors, "float32" for a float model's.
std::string type_str(const TensorInfo& t) {
  return t.precision > 0 ? "precision " + std::to_string(t.precision) : t.dtype.name();
}

// A scale as the shortest text that reads back as the same double ("64", "0.1").
std::string scale_str(double v) {
  char buf[40];
  for (int digits = 6; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

// How --dequantize made output k's floats: "q / 32, then softmax (axis 1)".
std::string dequantized_str(const QuantizedTensor& t) {
  std::string s = "q / " + scale_str(t.scale);
  if (t.tail == "softmax") s += ", then softmax (axis " + std::to_string(t.tail_axis) + ")";
  if (t.tail == "sigmoid") s += ", then sigmoid";
  return s;
}

std::string npy_path(const std::string& base, size_t k) {
  if (k == 0 || base == "-") return base;
  const std::string stem = ends_with(base, ".npy") ? base.substr(0, base.size() - 4) : base;
  return stem + "_" + std::to_string(k) + ".npy";
}

nlohmann::json to_json(const NDArray& a) {
  const NDArray c = a.contiguous();
  nlohmann::json data = nlohmann::json::array();
  for (int64_t i = 0; i < c.numel(); ++i) {
    if (c.dtype() == DataType::Float(32)) {
      const float v = c.data_as<float>()[i];
      // JSON has no NaN or infinities: those are written as strings.
      if (std::isfinite(v)) {
        data.push_back(v);
      } else {
        data.push_back(std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
      }
    } else {
      data.push_back(c.data_as<int32_t>()[i]);
    }
  }
  return data;
}

int run_run(const std::vector<std::string>& words) {
  Args args("run", words,
            {{"params"},
             {"input", true, false, 'i'},
             {"output", true, false, 'o'},
             {"format", true, false, 'f'},
             {"backend"},
             {"device"},
             {"dequantize", false}},
            1, 1);
  const std::string model_path = args.positional()[0];
  const std::string output = args.get("output");
  std::string format = args.get("format");
  if (format.empty()) {
    format = ends_with(output, ".npy") ? "npy" : ends_with(output, ".json") ? "json" : "text";
  }
  if (format != "npy" && format != "json" && format != "text") {
    throw UsageError("--format must be npy, json or text, found \"" + format + "\"");
  }
  if (format == "npy" && output.empty()) {
    throw UsageError("--format npy needs --output FILE.npy (or - for stdout)");
  }
  if (!args.has("input")) {
    throw UsageError(
        "missing --input data=FILE (a .npy array, or raw bytes in the CVM input "
        "layout)");
  }
  select_backend(args.get("backend"));
  const SessionOptions options = session_options(args.get("device"), args.get("backend"));

  std::shared_ptr<const Model> model = load_model(model_path, args.get("params"));
  const bool dequantize = args.has("dequantize");
  if (dequantize && !is_quantized(*model)) {
    CVM_LOGIC_ERROR() << "--dequantize: " << model_path
                      << " is not a quantized model (it has no quantization metadata)";
  }
  const TensorInfo& in_info = model->inputs().at(0);
  const NDArray input = read_model_input(*model, args.get("input"));
  // A float32 array for a quantized model: quantized by the session (set_input_float).
  const bool quantized_input = is_quantized(*model) && input.dtype() == DataType::Float(32);
  Session session(model, options);
  if (quantized_input) {
    session.set_input_float(in_info.name, input);
  } else {
    session.set_input(in_info.name, input);
  }
  const auto start = std::chrono::steady_clock::now();
  session.run();
  const std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;
  std::vector<NDArray> outputs;
  for (size_t k = 0; k < session.num_outputs(); ++k) {
    outputs.push_back(dequantize ? session.output_float(k) : session.output(k));
  }
  Section7 result;
  if (!model->postprocess().empty()) {
    // The section 7 input is the integers, whatever the file held.
    const Shape& shape = model->inputs()[0].shape;
    result = section7(session, *model,
                      quantized_input ? model->quantize_input(input.reshape(shape)) : input);
  }
  const Quantization& quant = model->metadata().quantization;

  const ModelCost cost = model->cost();
  // Data to stdout as npy: the summary goes to stderr so the bytes stay clean.
  std::ostream& summary = (format == "npy" && output == "-") ? std::cerr : std::cout;
  if (format == "npy") {
    for (size_t k = 0; k < outputs.size(); ++k) write_file(npy_path(output, k), to_npy(outputs[k]));
  } else if (format == "json") {
    nlohmann::json doc;
    doc["model"] = model_path;
    doc["backend"] = session.backend();
    doc["device"] = session.device().name();
    doc["postprocess"] = model->postprocess();
    doc["outputs"] = nlohmann::json::array();
    for (size_t k = 0; k < outputs.size(); ++k) {
      const TensorInfo& o = model->outputs()[k];
      nlohmann::json out = {{"name", o.name},
                            {"shape", o.shape.to_vector()},
                            {"precision", o.precision},
                            {"dtype", outputs[k].dtype().name()}};
      if (dequantize) {
        const QuantizedTensor& t = quant.outputs.at(k);
        out["dequantized"] = {{"scale", t.scale}, {"tail", t.tail}};
        if (t.tail == "softmax") out["dequantized"]["tail_axis"] = t.tail_axis;
      }
      out["data"] = to_json(outputs[k]);
      doc["outputs"].push_back(std::move(out));
    }
    if (result.available) {
      doc["result"] = {{"type_size", result.type_size}, {"values", result.values}};
    } else if (!result.error.empty()) {
      doc["result"] = {{"error", result.error}};
    }
    doc["cost"] = {{"ops", cost.ops}, {"mem", cost.mem}, {"total", cost.total}};
    const std::string text = doc.dump(1) + "\n";
    write_file(output.empty() ? "-" : output, text);
  } else {
    std::ostringstream os;
    for (size_t k = 0; k < outputs.size(); ++k) {
      const TensorInfo& o = model->outputs()[k];
      os << "output " << k << " \"" << o.name << "\": " << shape_str(o.shape) << " "
         << (dequantize ? "float32 (" + dequantized_str(quant.outputs.at(k)) + ")" : type_str(o))
         << "\n  [" << values_str(outputs[k], kTextValues) << "]\n";
    }
    if (output.empty() || output == "-") {
      summary << os.str();
    } else {
      write_file(output, os.str());
    }
  }
  summary << "model:   " << model_path << " (" << model->version() << ", " << model->nodes().size()
          << " nodes"
          << (model->postprocess().empty() ? "" : ", postprocess \"" + model->postprocess() + "\"")
          << ")\n";
  summary << "input:   \"" << in_info.name << "\" " << shape_str(in_info.shape) << " "
          << type_str(in_info) << " from " << args.get("input")
          << (quantized_input
                  ? " (float32, quantized: round(x * " + scale_str(quant.inputs.at(0).scale) + "))"
                  : "")
          << "\n";
  if (format != "text" || (!output.empty() && output != "-")) {
    summary << "outputs: " << outputs.size() << " written to " << (output.empty() ? "-" : output)
            << (format == "npy" && outputs.size() > 1 ? " (output k > 0 in NAME_k.npy)" : "")
            << "\n";
  }
  if (result.available) {
    std::string values;
    for (size_t i = 0; i < result.values.size() && i < kTextValues; ++i) {
      values += (i ? ", " : "") + std::to_string(result.values[i]);
    }
    if (result.values.size() > kTextValues) values += ", ...";
    summary << "result:  " << model->postprocess() << " [" << values << "]\n";
  }
  char ms[32];
  std::snprintf(ms, sizeof ms, "%.3f ms", took.count());
  summary << "backend: " << session.backend() << " on " << session.device().name() << ", " << ms
          << "\n";
  summary << "cost:    " << cost_str(cost) << "\n";
  if (!result.error.empty()) {
    std::cerr << "cvmrt run: error: the section 7 output (CVMAPIInference) fails: " << result.error
              << "\n";
    return 1;
  }
  return 0;
}

}  // namespace

const Command kRunCommand = {
    "run", "run a model on one input; print or save its outputs and its cost",
    "usage: cvmrt run MODEL [--params P] --input data=FILE [--output FILE|-]\n"
    "                 [--format npy|json|text] [--backend B | --device D] [--dequantize]\n"
    "\n"
    "Runs MODEL once and prints its outputs, the postprocess result and the cost.\n"
    "\n"
    "  MODEL              a cvmrt model file, or a CVM graph JSON (with --params)\n"
    "  --params P         the CVM params (legacy CVM or cvmrt format) of a graph JSON\n"
    "  -i, --input data=FILE\n"
    "                     the input: FILE.npy (int8, int32, int64 or float32 holding integers,\n"
    "                     little-endian, C order, format 1.0/2.0; any shape with the input's\n"
    "                     element count), or any other name: raw bytes in the CVM input layout\n"
    "                     (int8 when the input precision is <= 8, else little-endian int32).\n"
    "                     Values are clipped to the input's precision, as in CVM.\n"
    "                     A float model takes float32 values as they are. A quantized model\n"
    "                     (one with quantization metadata) takes a float32 .npy as floats:\n"
    "                     each x is fed as round(x * scale) (halves away from zero), clamped\n"
    "                     to the input's precision; an int8/int32 .npy is fed as integers.\n"
    "  -o, --output FILE  where the outputs go: FILE.npy (output k > 0 in FILE_k.npy), a .json\n"
    "                     or text file, or - for stdout (default: stdout, text)\n"
    "  -f, --format F     npy, json or text (default: from the --output name, else text)\n"
    "  --backend B        kernels to use: auto, scalar, simd, ... (see cvmrt info)\n"
    "  --device D         cpu (default), cuda or cuda:N: run on that GPU with the CUDA kernels\n"
    "  --dequantize       quantized models: print and write the outputs as float32, q / scale,\n"
    "                     then the output's tail (softmax or sigmoid) where it has one\n"
    "\n"
    "The summary (model, input, postprocess result, backend and time, cost = ops + mem) goes to\n"
    "stdout, or to stderr when npy data is written to stdout. For a model with a postprocess\n"
    "(argmax, detection) the result is what CVMAPIInference returns; when that layout fails\n"
    "(a single-head detection model) the outputs are still printed and the exit status is 1.\n"
    "\n"
    "example:\n"
    "  cvmrt run examples/models/lenet.json --params examples/models/lenet.params \\\n"
    "      --input data=examples/models/lenet_input.npy\n",
    run_run};

}  // namespace cli
}  // namespace cvm
