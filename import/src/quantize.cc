// The quantizer's driver: quantize() analyses the graph, calibrates, lowers, assembles the model.
#include "cvm/quantize.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cvm/check.h"
#include "cvm/model_builder.h"
#include "quantize_internal.h"

namespace cvm {
namespace quant {
namespace detail {

Quantizer::Quantizer(const Model& fm, const QuantizeOptions& opts)
    : fm_(fm), opts_(opts), nodes_(fm.nodes()), fparams_(fm.params()) {
  VERIFY(fm.inputs().at(0).dtype == DataType::Float(32))
      << "quantize: the model is not a float model (its input is "
      << fm.inputs()[0].dtype << ")";
  size_t entries = 0;
  for (const NodeInfo& n : nodes_) {
    entries = std::max<size_t>(entries, n.first_entry + n.output_shapes.size());
  }
  max_abs_.assign(entries, 0.0);
  q_.resize(entries);
  node_of_.assign(entries, 0);
  consumers_.assign(entries, 0);
  for (size_t nid = 0; nid < nodes_.size(); ++nid) {
    for (size_t k = 0; k < nodes_[nid].output_shapes.size(); ++k) {
      node_of_[nodes_[nid].first_entry + k] = nid;
    }
    for (uint32_t e : nodes_[nid].input_entries) ++consumers_[e];
  }
  for (const NodeInfo& n : nodes_) {
    if (n.op == "null" && n.name == "data") data_entry_ = n.first_entry;
    if (n.op == "softmax" || n.op == "sigmoid") wide_.insert(n.input_entries.at(0));
  }
  for (const TensorInfo& out : fm.outputs()) {
    for (size_t nid = 0; nid < nodes_.size(); ++nid) {
      if (nodes_[nid].name == out.name) heads_.push_back(nodes_[nid].first_entry);
    }
  }
  CHECK(heads_.size() == fm.outputs().size()) << "quantize: outputs not found";
  // The outputs' resolution reaches back through operators that only move values (a head
  // made by conv -> transpose -> reshape keeps its bits from the conv on).
  for (uint32_t h : heads_) wide_.insert(h);
  for (size_t nid = nodes_.size(); nid-- > 0;) {
    const NodeInfo& n = nodes_[nid];
    if (!moves_values(n.op) || !wide_.count(n.first_entry)) continue;
    for (uint32_t e : n.input_entries) wide_.insert(e);
  }
}

std::shared_ptr<const Model> Quantizer::build(QuantizeReport* report) {
  const TensorInfo& in = fm_.inputs()[0];
  for (uint32_t nid = 0; nid < nodes_.size(); ++nid) {
    const NodeInfo& nd = nodes_[nid];
    if (nd.op == "null") {
      if (nd.name == "data") {
        const int k = calibrated(nd.first_entry, act_bits());
        q_[nd.first_entry] = QTensor{b_.input(in.shape, DataType::Int(32), act_bits()), k};
        used_names_.insert("data");
      }
      continue;
    }
    quantize_node(nid);
  }
  std::vector<Entry> outs;
  Quantization quant;
  const QTensor& qin = *q_[data_entry_];
  quant.inputs.push_back({"data", std::ldexp(1.0, qin.k), act_bits(), "", -1});
  for (size_t i = 0; i < heads_.size(); ++i) {
    const uint32_t h = heads_[i];
    VERIFY(q_[h].has_value()) << "quantize: output " << i << " has no integer form";
    outs.push_back(q_[h]->e);
    QuantizedTensor t{fm_.outputs()[i].name, std::ldexp(1.0, q_[h]->k), 0, "", -1};
    for (const auto& [e, tail] : tails_) {
      if (e != h) continue;
      const size_t colon = tail.find(':');
      t.tail = tail.substr(0, colon);
      if (colon != std::string::npos) t.tail_axis = std::stoi(tail.substr(colon + 1));
    }
    quant.outputs.push_back(t);
  }
  b_.set_outputs(outs);
  ModelOptions mo;
  mo.limits = opts_.limits;
  mo.metadata = fm_.metadata();
  mo.metadata.description = "quantized to CVM int8 (" +
                            std::string(opts_.per_channel ? "per-channel" : "per-tensor") +
                            " power-of-two weight scales" +
                            (opts_.split ? ", split 15-bit weights and activations" : "") +
                            ") from: " + fm_.metadata().description;
  mo.metadata.quantization = quant;
  if (report) {
    for (uint32_t nid = 0; nid < nodes_.size(); ++nid) {
      const NodeInfo& nd = nodes_[nid];
      const uint32_t e = nd.first_entry;
      if (nd.op == "null" && nd.name != "data") continue;
      if (!q_[e].has_value()) continue;
      report->tensors.push_back(
          {nd.name, nd.op, max_abs_[e], q_[e]->k, b_.precision(q_[e]->e)});
    }
  }
  return b_.build(mo);
}

}  // namespace detail

std::shared_ptr<const Model> quantize(const Model& float_model, const NDArray& calibration,
                                      const QuantizeOptions& options, QuantizeReport* report) {
  VERIFY(options.output_precision >= 8 && options.output_precision <= 24)
      << "quantize: output precision " << options.output_precision << " outside [8, 24]";
  VERIFY(options.percentile > 50 && options.percentile <= 100)
      << "quantize: percentile " << options.percentile << " outside (50, 100]";
  VERIFY(options.max_channel_spread >= 0 && options.max_channel_spread <= 11)
      << "quantize: max_channel_spread " << options.max_channel_spread << " outside [0, 11]";
  detail::Quantizer q(float_model, options);
  q.calibrate(calibration, report);
  return q.build(report);
}

}  // namespace quant
}  // namespace cvm
