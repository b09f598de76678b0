// The quantizer: turns a float32 model (an imported ONNX model) into a CVM int8 model whose
// float interface is described by its quantization metadata (docs/quantization.md).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cvm/model.h"
#include "cvm/ndarray.h"

namespace cvm {
namespace quant {

struct QuantizeOptions {
  // Weights of conv2d and dense: one power-of-two scale per output channel (true) or one per
  // weight tensor.
  bool per_channel = true;
  // Bits of the outputs of the model (the heads): more than the 8 of the activations keeps the
  // resolution of logits, scores and box coordinates.
  int output_precision = 16;
  // Largest spread, in bits, between the per-channel weight scales of one layer (bounded by
  // the 32-bit precision budget of the requantization; see docs/quantization.md).
  int max_channel_spread = 11;
  // The calibrated range of each activation: 100 = the largest |value| seen; below, that
  // percentile of the |values| (e.g. 99.99), so rare outliers saturate rather than coarsen the
  // tensor's scale. The input always keeps its largest |value|.
  double percentile = 100;
  // Split precision: 15-bit weights and 15-bit activations (and input), each fed to conv2d and
  // dense as two int8 halves, v = hi * 2^7 + lo; a layer then computes hi*hi, hi*lo and lo*hi
  // (three conv2d/dense, about 3x the cost) and adds them with shifts (docs/quantization.md).
  bool split = false;
  ModelLimits limits;
};

// What calibration found for one float tensor and the scale chosen for it.
struct TensorScale {
  std::string node;    // the float model's node
  std::string op;      // its operator
  double max_abs = 0;  // the largest |value| over the calibration batch
  int exponent = 0;    // the tensor is represented as q / 2^exponent
  int precision = 0;   // bits of q
};

struct QuantizeReport {
  int64_t calibration_samples = 0;
  std::vector<TensorScale> tensors;  // one per float node output that got an integer form
};

// Quantizes `float_model` (a float graph) with the calibration batch `calibration` (float32:
// N x the input's shape without its batch dimension of 1, or N x the full input shape). Runs
// the float model on every sample to find each tensor's range, then builds a CVM graph of the
// 37 CVM operators only: int8 weights with power-of-two scales, int32 biases, activations of
// at most 8 bits with shifts from the calibration statistics (with `split`: 15-bit weights and
// activations as pairs of int8 halves). Softmax and sigmoid are allowed
// only at the model's end, where they become the outputs' float tail. LogicError naming the
// node for anything without a CVM form.
std::shared_ptr<const Model> quantize(const Model& float_model, const NDArray& calibration,
                                      const QuantizeOptions& options = {},
                                      QuantizeReport* report = nullptr);

}  // namespace quant
}  // namespace cvm
