// The float interface of quantized models: Model::quantize_input, Session::set_input_float and
// Session::output_float.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "cvm/check.h"
#include "cvm/model.h"
#include "cvm/op.h"

namespace cvm {
namespace {

// LogicError unless the model carries quantization metadata; `what` names the call.
const Quantization& quantization_of(const Model& model, const char* what) {
  const Quantization& q = model.metadata().quantization;
  VERIFY(!q.empty()) << what << ": this model is not a quantized model (it has no "
                     << "quantization metadata); use set_input / output with integers";
  return q;
}

}  // namespace

NDArray Model::quantize_input(const NDArray& value) const {
  const Quantization& q = quantization_of(*this, "quantize_input");
  const TensorInfo& in = inputs().at(0);
  VERIFY(value.defined()) << "quantize_input: input \"" << in.name << "\" is undefined";
  VERIFY(value.device().is_cpu()) << "quantize_input: input \"" << in.name << "\" is on "
                                  << value.device().name() << ", expected the CPU";
  VERIFY(value.dtype() == DataType::Float(32))
      << "quantize_input: input \"" << in.name << "\": expected dtype float32, found "
      << value.dtype();
  VERIFY(value.shape() == in.shape) << "quantize_input: input \"" << in.name
                                    << "\": expected shape " << in.shape << ", found "
                                    << value.shape();
  // The load checked that the metadata's input is this one, with the input's precision.
  const double scale = q.inputs.at(0).scale;
  const double bound = static_cast<double>((int64_t{1} << (in.precision - 1)) - 1);
  const NDArray src = value.contiguous();
  const float* x = src.data_as<float>();
  NDArray ints = NDArray::empty(in.shape, DataType::Int(32));
  int32_t* dst = ints.mutable_data_as<int32_t>();
  const int64_t n = src.numel();
  for (int64_t i = 0; i < n; ++i) {
    VERIFY(!std::isnan(x[i])) << "quantize_input: input \"" << in.name << "\": NaN at flat index "
                              << i << " cannot be quantized";
    // One rounding of the product in double, then std::round (halves away from zero); the clamp
    // comes before the conversion, so infinities and huge values saturate.
    const double r = std::round(static_cast<double>(x[i]) * scale);
    dst[i] = static_cast<int32_t>(std::min(std::max(r, -bound), bound));
  }
  return ints;
}

void Session::set_input_float(const std::string& name, const NDArray& value) {
  quantization_of(model(), "Session: set_input_float");
  const TensorInfo& in = model().inputs().at(0);
  VERIFY(name == in.name) << "Session: unknown input \"" << name << "\" (the model's input is \""
                          << in.name << "\")";
  set_input(name, model().quantize_input(value));
}

NDArray Session::output_float(size_t i) const {
  const Quantization& q = quantization_of(model(), "Session: output_float");
  const NDArray ints = output(i);  // checks the index and that a run happened
  const QuantizedTensor& t = q.outputs.at(i);
  NDArray out = NDArray::empty(ints.shape(), DataType::Float(32));
  const int32_t* src = ints.data_as<int32_t>();
  float* dst = out.mutable_data_as<float>();
  const int64_t n = ints.numel();
  for (int64_t k = 0; k < n; ++k) {
    // The division in double, rounded to float once.
    dst[k] = static_cast<float>(static_cast<double>(src[k]) / t.scale);
  }
  if (t.tail == "softmax") {
    return run_op("softmax", {out}, {{"axis", std::to_string(t.tail_axis)}})[0];
  }
  if (t.tail == "sigmoid") return run_op("sigmoid", {out})[0];
  CHECK(t.tail.empty()) << "Session: output_float: unknown tail \"" << t.tail << "\"";
  return out;
}

}  // namespace cvm
