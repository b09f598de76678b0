// The quantizer's calibration: runs the float model on every sample, records each tensor's range.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "cvm/check.h"
#include "cvm/model_builder.h"
#include "quantize_internal.h"

namespace cvm {
namespace quant {
namespace detail {

namespace {

// Counts of |values| in bins of 1/16 octave (from 2^-40 to 2^40): enough to place a percentile
// within 4.4 %, in constant memory per tensor.
class RangeHistogram {
 public:
  void add(double a) {
    ++total_;
    if (a < kLow) {
      ++counts_[0];
      return;
    }
    const int bin = static_cast<int>((std::log2(a) + kOctaves) * kPerOctave) + 1;
    ++counts_[std::min(bin, kBins - 1)];
  }
  // The upper edge of the bin where the running count reaches `p` percent of the values.
  double percentile(double p) const {
    const double want = static_cast<double>(total_) * p / 100.0;
    uint64_t seen = 0;
    for (int b = 0; b < kBins; ++b) {
      seen += counts_[b];
      if (static_cast<double>(seen) >= want) {
        return b == 0 ? kLow : std::exp2(static_cast<double>(b) / kPerOctave - kOctaves);
      }
    }
    return std::exp2(kOctaves);
  }

 private:
  static constexpr int kOctaves = 40, kPerOctave = 16, kBins = 2 * kOctaves * kPerOctave + 2;
  static constexpr double kLow = 9.094947017729282e-13;  // 2^-40
  std::vector<uint64_t> counts_ = std::vector<uint64_t>(kBins, 0);
  uint64_t total_ = 0;
};

}  // namespace

void Quantizer::calibrate(const NDArray& calib, QuantizeReport* report) {
  const TensorInfo& in = fm_.inputs()[0];
  VERIFY(calib.dtype() == DataType::Float(32))
      << "quantize: the calibration batch must be float32, found " << calib.dtype();
  const Shape& cs = calib.shape();
  int64_t n = 0;
  if (cs.ndim() == in.shape.ndim() + 1 && Shape(cs.data() + 1, cs.ndim() - 1) == in.shape) {
    n = cs[0];
  } else if (cs.ndim() == in.shape.ndim() && in.shape[0] == 1 &&
             Shape(cs.data() + 1, cs.ndim() - 1) ==
                 Shape(in.shape.data() + 1, in.shape.ndim() - 1)) {
    n = cs[0];
  } else {
    CVM_LOGIC_ERROR() << "quantize: calibration batch shape " << cs << " does not match the input "
                      << in.shape << " (expected N x " << in.shape
                      << ", or N x the shape without its batch dimension of 1)";
  }
  VERIFY(n >= 1) << "quantize: the calibration batch is empty";

  // A probe: the same float graph with every operator output as a model output.
  ModelBuilder pb;
  std::vector<Entry> map(max_abs_.size(), 0);
  std::vector<uint32_t> probed;
  for (uint32_t nid = 0; nid < nodes_.size(); ++nid) {
    const NodeInfo& nd = nodes_[nid];
    if (nd.op == "null") {
      map[nd.first_entry] = nd.name == "data" ? pb.input(in.shape, in.dtype)
                                              : pb.constant(nd.name, fparams_.at(nd.name));
      continue;
    }
    std::vector<Entry> ins;
    for (uint32_t e : nd.input_entries) ins.push_back(map[e]);
    std::vector<Entry> outs = pb.add(nd.op, nd.name, ins, nd.attrs);
    for (size_t k = 0; k < outs.size(); ++k) {
      map[nd.first_entry + k] = outs[k];
      probed.push_back(nd.first_entry + static_cast<uint32_t>(k));
    }
  }
  std::vector<Entry> outs;
  for (uint32_t e : probed) outs.push_back(map[e]);
  pb.set_outputs(outs);
  ModelOptions po;
  po.limits = opts_.limits;
  std::shared_ptr<const Model> probe = pb.build(po);
  Session s(probe);
  const NDArray batch = calib.contiguous();
  const int64_t per = in.shape.numel();
  const uint32_t data_entry = data_entry_;
  // Per entry, for QuantizeOptions::percentile.
  std::vector<RangeHistogram> ranges(max_abs_.size());
  for (int64_t i = 0; i < n; ++i) {
    NDArray x = NDArray::from_bytes(batch.data_as<float>() + i * per,
                                    static_cast<size_t>(per) * 4, in.shape, in.dtype);
    for (float v : float_values(x)) {
      VERIFY(std::isfinite(v)) << "quantize: calibration sample " << i
                               << " holds a value that is not finite";
      max_abs_[data_entry] = std::max(max_abs_[data_entry], std::fabs(static_cast<double>(v)));
    }
    s.set_input("data", x);
    s.run();
    for (size_t j = 0; j < probed.size(); ++j) {
      const NDArray o = s.output(j);
      if (o.dtype() != DataType::Float(32)) continue;
      double& m = max_abs_[probed[j]];
      RangeHistogram& h = ranges[probed[j]];
      for (float v : float_values(o)) {
        if (!std::isfinite(v)) continue;
        m = std::max(m, std::fabs(static_cast<double>(v)));
        if (opts_.percentile < 100) h.add(std::fabs(static_cast<double>(v)));
      }
    }
  }
  // Below 100: each activation's range is the percentile of its |values| (the input keeps its
  // maximum), so rare outliers saturate instead of coarsening the whole tensor.
  if (opts_.percentile < 100) {
    for (uint32_t e : probed) {
      max_abs_[e] = std::min(max_abs_[e], ranges[e].percentile(opts_.percentile));
    }
  }
  if (report) report->calibration_samples = n;
}

}  // namespace detail
}  // namespace quant
}  // namespace cvm
