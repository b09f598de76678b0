// The quantizer's number format and shared state, for its calibration, lowering and driver files.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cvm/model.h"
#include "cvm/model_builder.h"
#include "cvm/ndarray.h"
#include "cvm/quantize.h"

namespace cvm {
namespace quant {
namespace detail {

using Entry = ModelBuilder::Entry;

inline constexpr int kActivationBits = 8;
// QuantizeOptions::split: weights and activations of 15 bits, fed to conv2d/dense as two int8
// halves v = hi * 2^kSplitShift + lo (|hi|, |lo| <= 127).
inline constexpr int kSplitBits = 15, kSplitShift = 7;
inline constexpr int kMinExponent = -30, kMaxExponent = 30;

inline int64_t alpha(int bits) { return (int64_t{1} << (bits - 1)) - 1; }

// The largest exponent k with max_abs * 2^k <= bound (values then fit the bound); 0 for zeros.
inline int exponent_for(double max_abs, int64_t bound) {
  if (!(max_abs > 0) || !std::isfinite(max_abs)) return 0;
  int k = static_cast<int>(std::floor(std::log2(static_cast<double>(bound) / max_abs)));
  while (std::ldexp(max_abs, k) > static_cast<double>(bound)) --k;  // log2 rounding
  return std::clamp(k, kMinExponent, kMaxExponent);
}

inline std::vector<float> float_values(const NDArray& a) {
  const NDArray c = a.contiguous();
  return std::vector<float>(c.data_as<float>(), c.data_as<float>() + c.numel());
}

// An integer tensor of the CVM graph standing for a float tensor: value = q / 2^k.
struct QTensor {
  Entry e;
  int k;
};

// One quantization of a float model: quantize() constructs it, calibrates it, then builds.
class Quantizer {
 public:
  // The graph analysis (quantize.cc): entries, consumers, heads and the entries that keep
  // output_precision bits.
  Quantizer(const Model& fm, const QuantizeOptions& opts);

  // Calibration (quantize_calibrate.cc): runs the float model on every sample of `calib` and
  // records each entry's range in max_abs_.
  void calibrate(const NDArray& calib, QuantizeReport* report);
  // The driver (quantize.cc): lowers every node in graph order, then assembles the outputs,
  // the quantization metadata and the report.
  std::shared_ptr<const Model> build(QuantizeReport* report);

 private:
  // ---- float side ----
  const NodeInfo& node(uint32_t nid) const { return nodes_[nid]; }
  bool is_constant(uint32_t e) const {
    const NodeInfo& n = nodes_[node_of_[e]];
    return n.op == "null" && n.name != "data";
  }
  // The float value of constant entry `e`; LogicError naming node `nid_for_error` when `e` is
  // not a constant.
  NDArray constant(uint32_t nid_for_error, uint32_t e) const;
  // The prefix of node `nid`'s messages: quantize: node <nid> "<name>" (<op>):
  std::string where(uint32_t nid) const;
  // ---- integer side (the out-of-line ones in quantize_lower.cc) ----
  // The integer form of input i of node `nid`; LogicError when it has none.
  QTensor input_of(uint32_t nid, size_t i) const;
  int precision(const QTensor& t) const { return b_.precision(t.e); }
  // The first of `base`, `base_2`, `base_3`, ... not used yet as a node name, now taken.
  std::string fresh(const std::string& base);
  Entry add(const std::string& op, const std::string& name, const std::vector<Entry>& in,
            const AttrMap& attrs = {});
  Entry constant_int(const std::string& name, const Shape& shape, const std::vector<int32_t>& v,
                     bool int8);
  // `t` shifted from exponent t.k to `k` (k <= t.k: a rounding right shift; equal: a clip),
  // clamped to `bits`.
  QTensor rescale(const QTensor& t, int k, int bits, const std::string& name);
  // The calibrated exponent of float entry `e` for values of `bits` bits.
  int calibrated(uint32_t e, int bits) const { return exponent_for(max_abs_[e], alpha(bits)); }
  bool is_head(uint32_t e) const {
    return std::find(heads_.begin(), heads_.end(), e) != heads_.end();
  }
  // Operators that only move or select values: the integer form passes through unchanged.
  static bool moves_values(const std::string& op) {
    return op == "reshape" || op == "flatten" || op == "transpose" || op == "squeeze" ||
           op == "expand_dims" || op == "strided_slice" || op == "concatenate";
  }
  // The bits an op's output gets: the heads, the inputs of a float tail and what reaches them
  // through moves_values() operators keep output_precision.
  int out_bits(uint32_t e) const {
    return wide_.count(e) ? opts_.output_precision : act_bits();
  }
  // `t` (the integer form of float entry `e`, at any precision) requantized to its calibrated
  // scale with out_bits(e) bits, named `name`.
  QTensor finish(const QTensor& t, uint32_t e, const std::string& name);
  // Bits of activations (and of the weights of conv2d/dense): 8, or 15 with split precision.
  int act_bits() const { return opts_.split ? kSplitBits : kActivationBits; }
  // An activation for conv2d/dense (split into int8 halves by split_input when wider than 8
  // bits), a multiplication or leaky_relu: at most act_bits().
  QTensor narrow(const QTensor& t, uint32_t e, const std::string& name);
  // Several tensors brought to one exponent (the smallest), for add/sub/concatenate.
  std::vector<QTensor> align(const std::vector<QTensor>& ts, const std::string& name);
  // A float constant quantized at exponent k into int32 (values clamped to `bits` bits).
  Entry constant_at(const NDArray& c, int k, int bits, const std::string& name);

  // ---- lowering of one float node into CVM operators (quantize_lower.cc) ----
  void quantize_node(uint32_t nid);
  std::vector<QTensor> split_input(const QTensor& x, const std::string& name);
  QTensor to_exponent(const QTensor& t, int k, int bits, const std::string& name);
  QTensor sum_at(const std::vector<QTensor>& parts, int k, int bits, const std::string& name);
  void conv_or_dense(uint32_t nid);
  void pool_average(uint32_t nid, const QTensor& sum, int64_t count);
  void add_sub(uint32_t nid);
  void mul_div(uint32_t nid);
  void pad(uint32_t nid);

  const Model& fm_;
  const QuantizeOptions& opts_;
  const std::vector<NodeInfo>& nodes_;
  ParamDict fparams_;
  std::vector<double> max_abs_;  // per entry: its calibrated range
  std::vector<std::optional<QTensor>> q_;
  std::vector<uint32_t> node_of_;
  std::vector<int> consumers_;
  std::vector<uint32_t> heads_;
  uint32_t data_entry_ = 0;
  std::set<uint32_t> wide_;  // entries that keep output_precision bits (out_bits)
  std::vector<std::pair<uint32_t, std::string>> tails_;  // head entry -> "softmax:axis" etc.
  ModelBuilder b_;
  std::set<std::string> used_names_;
};

}  // namespace detail
}  // namespace quant
}  // namespace cvm
