// Session: one run's activation arena, the nodes' bound kernel chains, the run loop, profiling
// and the section 7 byte layout.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>

#include "cvm/array_ops.h"
#include "cvm/check.h"
#include "device_runtime.h"
#include "input_values.h"
#include "int8_activations.h"
#include "kernel_views.h"
#include "model_impl.h"
#include "output_stage.h"
#include "pad_fusion.h"
#include "params/float_nn.h"
#include "params_format.h"
#include "thread_choice.h"
#include "thread_pool.h"

namespace cvm {

using graph::Graph;

struct Session::State {
  std::shared_ptr<const Model> model;
  const Model::Impl* m = nullptr;
  // Where the session's arena and params live and its kernels run (the CPU, or the device of
  // a device backend), and its own stream there (none on the CPU).
  Device device = Device::cpu();
  device::OwnedStream stream;
  NDArray arena;
  std::vector<NDArray> entries;  // every entry: a view of the arena or of a model param
  std::string backend;  // heads every chain
  struct Step {
    uint32_t nid;
    std::vector<NDArray> inputs, outputs;
    // The entries `inputs` (a pass: fused_in) and `outputs` hold, for store_int8_activations.
    std::vector<uint32_t> in_eids, out_eids;
    uint64_t output_bytes = 0;
    ops::NodeKernels kernels;  // bound once, here; runs only follow them
    // The model's pack of a constant weight for kernels.packed_for (keeps kernels.packed).
    std::shared_ptr<const ops::PrepackedWeight> packed;
    std::vector<std::string> pack_notes;  // entries whose packer declined the weight
    // A fused pass: the first node of a fused run computes the whole run from fused_in into
    // outputs[0] through pass_chain, the run's other nodes nothing. Clamp fusion
    // (output_stage.h): `clamp` by the cvm_right_shift or clip kernel; pad fusion
    // (pad_fusion.h): `pad` by the pad kernel.
    enum class Pass { kNone, kClamp, kPad } pass = Pass::kNone;
    // The pass's conv2d / dense when it writes the run's output itself with the clamp passed to
    // its kernels (NodeKernels::clamp): the pass then runs, in place, only after an entry
    // without KernelEntry::applies_clamp.
    const Step* clamped_by = nullptr;
    // A step of a per-channel scale stage (ClampFusion::has_scale): the broadcast_mul and the
    // second pass, computed in place unless clamped_by's kernel applied the whole stage
    // (KernelEntry::applies_channel_scale); the stage's params, kept by its second pass.
    bool in_scale_stage = false;
    kernel::ChannelScale channel_scale{};
    std::string fused_into;  // a node computed by another's pass: that node's name
    kernel::CvmClampParams clamp{};
    kernel::PadParams pad{};
    KernelChain pass_chain;
    NDArray fused_in;
    std::string fused_note;
    bool int8_output = false;  // writes outputs[0] as int8 (store_int8_activations)
  };
  std::vector<Step> steps;
  std::vector<size_t> step_index;  // node id -> its step (operator nodes)
  bool input_set = false;
  bool ran = false;
  bool profiling = false;
  std::vector<OpProfile> profile;
  bool measure_threads = false;  // SessionOptions::measure_threads, on a CPU session
  graph::ThreadChoice thread_choice;

  uint32_t data_entry() const { return m->graph.nodes[m->graph.data_node].first_entry; }
  // The graph's outputs, on the CPU (copied from the device for a device session).
  std::vector<NDArray> host_heads() const;
  void write_input(const void* src, bool int8, int64_t count);
  void bind(Step& step, const ChainPolicy& policy);
  // Makes the step of node first_nid a pass of `kernel_op` from entry `in` into entry `out`
  // that computes the nodes of `rest` too; they name it and compute nothing.
  Step& mark_pass(Step::Pass kind, uint32_t first_nid, const std::vector<uint32_t>& rest,
                  uint32_t in, uint32_t out, const char* kernel_op, const ChainPolicy& policy);
  // Clamp runs whose head (conv2d, dense, elemwise_add / _sub) writes the run's output itself
  // (head, first, out), with the scale stage's broadcast_mul and second run (mul, second:
  // kNoStep without one), recorded by fuse_clamps for store_int8_activations.
  static constexpr uint32_t kNoStep = UINT32_MAX;
  struct HeadWrite {
    uint32_t head, first, out, mul = kNoStep, second = kNoStep;
  };
  std::vector<HeadWrite> head_writes;
  void fuse_clamps(const ChainPolicy& policy);
  // How each step meets its entries, for the int8 plan (int8_activations.h).
  std::vector<graph::ActivationUse> activation_uses() const;
  void store_int8_activations();
  void fuse_pads(const ChainPolicy& policy);
  void compute(Step& step) const;
  // Whether the clamp pass of `step` (or its part of a scale stage) was applied by its conv2d /
  // dense kernel in the last run.
  static bool clamp_done(const Step& step);
};

namespace graph {

namespace {

// An on/off switch in the environment: on unless set to "0".
bool switch_on(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr || std::strcmp(v, "0") != 0;
}

}  // namespace

bool prepack_enabled() {
  static const bool enabled = switch_on("CVMRT_PREPACK");
  return enabled;
}

bool fusion_enabled() {
  static const bool enabled = switch_on("CVMRT_FUSE");
  return enabled;
}

bool int8_activations_enabled() {
  static const bool enabled = switch_on("CVMRT_INT8_ACTIVATIONS");
  return enabled;
}

bool measure_threads_enabled() {
  static const bool enabled = switch_on("CVMRT_MEASURE_THREADS");
  return enabled;
}

NDArray DeviceParamCache::get(Device device, uint32_t eid, const NDArray& host) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = std::find_if(by_device_.begin(), by_device_.end(),
                         [&](const auto& d) { return d.first == device; });
  if (it == by_device_.end()) it = by_device_.insert(by_device_.end(), {device, {}});
  std::vector<NDArray>& params = it->second;
  if (params.size() <= eid) params.resize(eid + 1);
  if (!params[eid].defined()) params[eid] = host.to(device);
  return params[eid];
}

std::shared_ptr<const ops::PrepackedWeight> PrepackCache::get(const Node& node, uint32_t nid,
                                                              const std::vector<NDArray>& inputs,
                                                              const kernel::KernelEntry& entry) {
  std::lock_guard<std::mutex> lock(mu_);
  if (by_node_.size() <= nid) by_node_.resize(nid + 1);
  for (const auto& p : by_node_[nid]) {
    if (p->entry == &entry) return p;
  }
  auto p = std::make_shared<const ops::PrepackedWeight>(
      ops::prepack_weight(*node.op, *node.parsed, inputs, entry));
  bytes_.fetch_add(p->bytes, std::memory_order_relaxed);
  by_node_[nid].push_back(p);
  return p;
}

}  // namespace graph

// Binds a step's node to its kernel chains under `policy`. A conv2d/dense node whose weight is a
// param gets the weight packed for the first entry of its chain that packs it: entries are
// tried in chain order, a packer that declines (a weight out of its range) passes to the next,
// and an entry without a packer ends the search (it runs unpacked).
void Session::State::bind(Step& step, const ChainPolicy& policy) {
  const graph::Node& n = m->graph.nodes[step.nid];
  std::vector<DataType> out_dtypes;
  for (uint32_t k = 0; k < n.num_outputs; ++k) {
    out_dtypes.push_back(m->graph.entries[n.first_entry + k].dtype);
  }
  step.kernels = ops::bind_kernels(*n.op, *n.parsed, step.inputs, out_dtypes, policy);
  const bool constant_weight = n.op->takes_prepacked_weight() && n.inputs.size() >= 2 &&
                               m->plan.offset[n.inputs[1]] < 0 &&
                               m->param_data[n.inputs[1]] != nullptr;
  if (!graph::prepack_enabled() || !constant_weight) return;
  for (const kernel::KernelEntry* e : step.kernels[0].entries) {
    if (e->prepack == nullptr) break;
    std::shared_ptr<const ops::PrepackedWeight> p =
        m->prepacked->get(n, step.nid, step.inputs, *e);
    if (p->data != nullptr) {
      step.packed = std::move(p);
      step.kernels.packed_for = e;
      step.kernels.packed = step.packed->data.get();
      return;
    }
    step.pack_notes.push_back(std::string(e->name) + ": its packer declined the weight");
  }
}

Session::State::Step& Session::State::mark_pass(Step::Pass kind, uint32_t first_nid,
                                               const std::vector<uint32_t>& rest, uint32_t in,
                                               uint32_t out, const char* kernel_op,
                                               const ChainPolicy& policy) {
  const Graph& g = m->graph;
  Step& pass = steps[step_index[first_nid]];
  pass.pass = kind;
  pass.fused_in = entries[in];
  pass.outputs = {entries[out]};
  pass.in_eids = {in};
  pass.out_eids = {out};
  pass.pass_chain = resolve_chain(policy, {kernel_op, kernel::ElemType::kInt32}, device);
  pass.fused_note = "one " + std::string(kernel_op) + " pass for " + g.nodes[first_nid].name;
  for (uint32_t nid : rest) {
    steps[step_index[nid]].fused_into = g.nodes[first_nid].name;
    pass.fused_note += ", " + g.nodes[nid].name;
  }
  return pass;
}

// Marks the steps of every fusable clamp run: its first node runs the combined clamp (the
// cvm_right_shift kernel, or clip without a shift) from the head's output into the run's last
// output; the others are skipped.
void Session::State::fuse_clamps(const ChainPolicy& policy) {
  const Graph& g = m->graph;
  auto mark_clamp = [&](uint32_t first_nid, const std::vector<uint32_t>& rest,
                        const kernel::CvmClampParams& clamp, uint32_t in, uint32_t out) -> Step& {
    Step& pass = mark_pass(Step::Pass::kClamp, first_nid, rest, in, out,
                           clamp.shift > 0 ? "cvm_right_shift" : "clip", policy);
    pass.clamp = clamp;
    return pass;
  };
  for (const graph::ClampFusion& f : graph::find_clamp_fusions(g, m->plan)) {
    Step& first = mark_clamp(f.first, f.rest, f.clamp, f.in, f.out);
    // The conv2d / dense writes the run's last output itself, clamped where its kernel can:
    // the pass then runs in place there, after an entry that does not apply it.
    if (!f.head_writes_out) continue;
    Step& head = steps[step_index[f.head]];
    head.outputs = {entries[f.out]};
    head.out_eids = {f.out};
    head.kernels.clamp = &first.clamp;
    first.fused_in = entries[f.out];
    first.in_eids = {f.out};
    first.clamped_by = &head;
    if (!f.has_scale || device.is_cpu()) {
      head_writes.push_back({f.head, f.first, f.out, f.has_scale ? f.scale.node : kNoStep,
                             f.has_scale ? f.scale.first : kNoStep});
    }
    const std::string by_head = " (or " + g.nodes[f.head].name + "'s kernel as it stores)";
    first.fused_note += by_head;
    if (!f.has_scale) continue;
    // The scale stage, in place in the run's last output unless the head's kernel applies it.
    Step& mul = steps[step_index[f.scale.node]];
    const graph::Node& mul_node = g.nodes[f.scale.node];
    for (size_t i = 0; i < mul_node.inputs.size(); ++i) {
      if (mul_node.inputs[i] == f.scale.multiplier) continue;
      mul.inputs[i] = entries[f.out];
      mul.in_eids[i] = f.out;
    }
    mul.outputs = {entries[f.out]};
    mul.out_eids = {f.out};
    mul.clamped_by = &head;
    mul.in_scale_stage = true;
    Step& second = mark_clamp(f.scale.first, f.scale.rest, f.scale.clamp, f.out, f.out);
    second.clamped_by = &head;
    second.in_scale_stage = true;
    second.fused_note += by_head;
    if (device.is_cpu()) {  // the multiplier where CPU kernels read it
      second.channel_scale = {static_cast<const int32_t*>(entries[f.scale.multiplier].data()),
                              f.scale.clamp};
      head.kernels.scale = &second.channel_scale;
    }
  }
}

// Marks the steps of every fusable pad chain: its first node runs one pad kernel call from the
// chain's activation into its last output, the others are skipped; or, on the CPU, where the
// conv2d reading the chain can take the padding (PadFusion::conv), the conv reads the chain's
// activation with the padding added to its own, and every node of the chain is skipped.
void Session::State::fuse_pads(const ChainPolicy& policy) {
  for (const graph::PadFusion& f : m->pad_chains) {
    // Apart: kept so by the plan. Kernel views have at most kMaxKernelDims dimensions (the
    // concatenates, which may merge dimensions, then run as they are).
    if (!graph::apart_in_plan(m->graph, m->plan, f.in, f.out) ||
        f.begin.size() > static_cast<size_t>(kernel::kMaxKernelDims)) {
      continue;
    }
    if (f.conv != graph::PadFusion::kNoConv && device.is_cpu()) {
      // The conv pads its input itself: it reads the chain's input, and the chain computes
      // nothing. (Device kernels are not given such calls.)
      Step& conv = steps[step_index[f.conv]];
      conv.inputs[0] = entries[f.in];
      conv.in_eids[0] = f.in;
      conv.kernels.fused_pad_h = f.begin[2];
      conv.kernels.fused_pad_w = f.begin[3];
      steps[step_index[f.first]].fused_into = m->graph.nodes[f.conv].name;
      for (uint32_t nid : f.rest) steps[step_index[nid]].fused_into = m->graph.nodes[f.conv].name;
      continue;
    }
    Step& pass = mark_pass(Step::Pass::kPad, f.first, f.rest, f.in, f.out, "pad", policy);
    for (size_t d = 0; d < f.begin.size(); ++d) pass.pad.begin[d] = f.begin[d];
    std::memcpy(&pass.pad.value_bits, &f.value, 4);
  }
}

// How each step meets its entries, from its op's OpDef::int8_activations and the first entry of
// its chain: a kGemm op (conv2d, dense) whose kernels take int8 activations reads its data
// either way and writes int8 as the head of a clamp run whose last clamp fits int8; kTogether
// ops and clamp passes whose kernels take int8 views, kTogetherClamped ones (elemwise_add /
// _sub) heading such a run, and kTogetherAnyKernel ones (concatenate) take theirs together;
// fused steps compute nothing; the rest, other passes included, int32.
std::vector<graph::ActivationUse> Session::State::activation_uses() const {
  using Kind = graph::ActivationUse::Kind;
  const Graph& g = m->graph;
  std::vector<const HeadWrite*> head_write(g.nodes.size(), nullptr);
  for (const HeadWrite& w : head_writes) head_write[w.head] = &w;
  std::vector<graph::ActivationUse> uses;
  for (const Step& s : steps) {
    graph::ActivationUse u{Kind::kInt32, s.in_eids, s.out_eids, false};
    const KernelChain& chain = s.pass == Step::Pass::kNone ? s.kernels[0] : s.pass_chain;
    const bool takes_int8 =
        !chain.entries.empty() && chain.entries.front()->takes_int8_activations;
    const HeadWrite* w = head_write[s.nid];
    // The last clamp of the run this step heads (the scale stage's, after one).
    const kernel::CvmClampParams* last =
        w == nullptr ? nullptr
                     : &steps[step_index[w->mul != kNoStep ? w->second : w->first]].clamp;
    const bool fits_int8 = last != nullptr && last->lo >= -128 && last->hi <= 127;
    if (!s.fused_into.empty() || s.clamped_by != nullptr) {
      u.kind = Kind::kNone;
    } else if (s.pass == Step::Pass::kClamp) {
      if (takes_int8) u.kind = Kind::kTogether;
    } else if (s.pass == Step::Pass::kNone) {  // other passes: int32
      switch (g.nodes[s.nid].op->int8_activations()) {
        case ops::Int8Activations::kNo:
          break;
        case ops::Int8Activations::kTogether:
          if (takes_int8) u.kind = Kind::kTogether;
          break;
        case ops::Int8Activations::kTogetherClamped:
          if (takes_int8 && fits_int8) u.kind = Kind::kTogether;
          break;
        case ops::Int8Activations::kTogetherAnyKernel:
          u.kind = Kind::kTogether;
          break;
        case ops::Int8Activations::kGemm:
          if (takes_int8) u.kind = Kind::kGemm;
          u.int8_write = fits_int8;
          break;
      }
    }
    uses.push_back(std::move(u));
  }
  return uses;
}

// Holds as int8 the activations graph::plan_int8_entries allows: each step then reads and
// writes int8 views of them (a concatenate's in-place inputs at their slice of its int8
// output: graph::int8_offsets), and an int8 step's params of precision <= 8 as int8 copies.
// A head that writes its clamp run's output as int8 applies the run itself (its kernels always
// do, or the op layer for a conv2d / dense whose int8 entries decline), so the run's passes and
// its scale stage never run. The model's input is narrowed into its int8 view (write_input).
void Session::State::store_int8_activations() {
  const Graph& g = m->graph;
  if (g.is_float()) return;
  const std::vector<graph::ActivationUse> uses = activation_uses();
  const std::vector<bool> int8 = graph::plan_int8_entries(g, m->plan, uses, data_entry());
  const std::vector<int64_t> offset = graph::int8_offsets(g, m->plan, int8);
  auto* arena_bytes = static_cast<uint8_t*>(arena.mutable_data());
  std::shared_ptr<const void> keep_arena = std::make_shared<NDArray>(arena);
  for (size_t e = 0; e < int8.size(); ++e) {
    if (!int8[e]) continue;
    entries[e] = NDArray::from_external(arena_bytes + offset[e], g.entries[e].shape,
                                        DataType::Int(8), device, keep_arena, false);
  }
  std::map<uint32_t, NDArray> int8_params;  // a param as int8, for the int8 steps reading it
  auto param_int8 = [&](uint32_t e) -> const NDArray& {
    auto it = int8_params.find(e);
    if (it == int8_params.end()) {
      it = int8_params.emplace(e, cvm::cast(entries[e], DataType::Int(8))).first;
    }
    return it->second;
  };
  for (size_t i = 0; i < steps.size(); ++i) {
    Step& s = steps[i];
    using Kind = graph::ActivationUse::Kind;
    const bool writes_int8 = (uses[i].kind == Kind::kTogether || uses[i].kind == Kind::kGemm) &&
                             !s.out_eids.empty() && int8[s.out_eids[0]];
    const bool int8_step = writes_int8 && uses[i].kind == Kind::kTogether;
    auto view = [&](uint32_t e) -> NDArray {
      if (int8_step && m->plan.offset[e] < 0) return param_int8(e);
      return entries[e];
    };
    if (s.pass != Step::Pass::kNone) {
      s.fused_in = view(s.in_eids[0]);
    } else {
      for (size_t k = 0; k < s.in_eids.size(); ++k) s.inputs[k] = view(s.in_eids[k]);
    }
    s.output_bytes = 0;
    for (size_t k = 0; k < s.out_eids.size(); ++k) {
      s.outputs[k] = entries[s.out_eids[k]];
      s.output_bytes += s.outputs[k].nbytes();
    }
    s.int8_output = writes_int8;
  }
  for (const HeadWrite& w : head_writes) {
    if (!int8[w.out]) continue;
    std::vector<uint32_t> stage = {w.first};
    if (w.mul != kNoStep) stage.insert(stage.end(), {w.mul, w.second});
    for (uint32_t nid : stage) {
      steps[step_index[nid]].fused_into = g.nodes[w.head].name;
      steps[step_index[nid]].clamped_by = nullptr;
    }
  }
}

bool Session::State::clamp_done(const Step& step) {
  if (step.clamped_by == nullptr) return false;
  const kernel::KernelEntry* ran = step.clamped_by->kernels[0].last_ran;
  if (ran == nullptr) return false;
  if (!step.in_scale_stage) return ran->applies_clamp;
  return ran->applies_channel_scale && step.clamped_by->kernels.scale != nullptr;
}

void Session::State::compute(Step& step) const {
  if (!step.fused_into.empty() || clamp_done(step)) return;
  if (step.pass == Step::Pass::kClamp) {
    NDArray out = step.outputs[0];
    const std::vector<ops::Operand> operands = {
        {&out, out.mutable_data()}, {&step.fused_in, const_cast<void*>(step.fused_in.data())}};
    ops::run_kernel(step.pass_chain, ops::elementwise_views(operands), 1, &step.clamp);
    return;
  }
  if (step.pass == Step::Pass::kPad) {
    ops::run_kernel(step.pass_chain, ops::plain_views(step.outputs, {step.fused_in}), 1,
                    &step.pad);
    return;
  }
  const graph::Node& n = m->graph.nodes[step.nid];
  n.op->compute(*n.parsed, step.inputs, step.outputs, step.kernels);
}

std::vector<NDArray> Session::State::host_heads() const {
  std::vector<NDArray> heads;
  for (uint32_t eid : m->graph.heads) heads.push_back(entries[eid].to(Device::cpu()));
  return heads;
}

void Session::State::write_input(const void* src, bool int8, int64_t count) {
  const uint32_t eid = data_entry();
  // A device session converts into a host array, then moves it over.
  NDArray target = device.is_cpu() ? entries[eid]
                                   : NDArray::empty(entries[eid].shape(), entries[eid].dtype());
  if (m->graph.is_float()) {  // float32 little-endian: the bits as they are
    graph::copy_input_f32(src, count, target.mutable_data());
  } else {  // clipped to the input's precision; int8 where the entry is held so
    const int32_t hi = graph::precision_bound(m->graph.entries[eid].precision);
    graph::clip_input(src, int8, count, -hi, hi, target.mutable_data(),
                      target.dtype() == DataType::Int(8));  // store_int8_activations
  }
  if (!device.is_cpu()) {  // the entry is a compact slice of the arena: one copy over
    device::ScopedStream on(device, stream.get());
    entries[eid].copy_from_bytes(target.data(), target.nbytes());
  }
  input_set = true;
  ran = false;
}

Session::Session(std::shared_ptr<const Model> model, const SessionOptions& options)
    : s_(std::make_unique<State>()) {
  VERIFY(model != nullptr) << "Session: null model";
  const ChainPolicy policy = chain_policy(options.backend);
  const kernel::BackendTable& table = *backend_tables()[policy.backend];
  s_->backend = table.name;
  if (table.device_type != kDLCPU) {  // a device backend: its device, checked now
    s_->device = Device{static_cast<DLDeviceType>(table.device_type), options.device_id};
    device::require(s_->device);
    s_->stream = device::OwnedStream(s_->device);
  }
  const Device device = s_->device;
  device::ScopedStream on(device, s_->stream.get());
  s_->model = std::move(model);
  s_->m = &s_->model->impl();
  const Model::Impl& m = *s_->m;
  const Graph& g = m.graph;
  const DataType i32 = DataType::Int(32);
  s_->arena = NDArray::zeros(
      Shape{std::max<int64_t>(1, static_cast<int64_t>(m.plan.arena_bytes / 4))}, i32, device);
  // Entries of other dtypes (float graphs) are views of the same arena memory, of their dtype
  // (every entry dtype is 4 bytes wide: the plan counts 4 bytes per element).
  auto* arena_base = static_cast<int32_t*>(s_->arena.mutable_data());
  std::shared_ptr<const void> keep_arena = std::make_shared<NDArray>(s_->arena);
  std::shared_ptr<const void> keep_model = s_->model;
  s_->entries.resize(g.entries.size());
  for (size_t eid = 0; eid < g.entries.size(); ++eid) {
    const graph::Entry& e = g.entries[eid];
    const Shape& shape = e.shape;
    CHECK(e.dtype.bytes() == 4) << "Session: entry " << eid << " has dtype " << e.dtype;
    if (m.plan.offset[eid] >= 0) {
      const int64_t first = m.plan.offset[eid] / 4;
      s_->entries[eid] =
          e.dtype == i32 ? s_->arena.slice(0, first, first + shape.numel()).reshape(shape)
                         : NDArray::from_external(arena_base + first, shape, e.dtype, device,
                                                  keep_arena, false);
    } else {
      CHECK(m.param_data[eid] != nullptr) << "Session: entry " << eid << " has no memory";
      // A handle of this session's own over the model's param (handles are not shared between
      // threads); read-only, keeping the model alive.
      NDArray param = NDArray::from_external(const_cast<void*>(m.param_data[eid]), shape,
                                             e.dtype, Device::cpu(), keep_model, true);
      // On a device: the model's copy there, made by its first session on that device.
      s_->entries[eid] = device.is_cpu() ? param
                                         : m.device_params->get(device, static_cast<uint32_t>(eid),
                                                                param);
    }
  }
  s_->step_index.assign(g.nodes.size(), 0);
  for (uint32_t nid = 0; nid < g.nodes.size(); ++nid) {
    const graph::Node& n = g.nodes[nid];
    if (n.is_variable()) continue;
    State::Step step;
    step.nid = nid;
    step.in_eids = n.inputs;
    for (uint32_t eid : n.inputs) step.inputs.push_back(s_->entries[eid]);
    for (uint32_t k = 0; k < n.num_outputs; ++k) {
      step.out_eids.push_back(n.first_entry + k);
      step.outputs.push_back(s_->entries[n.first_entry + k]);
      step.output_bytes += step.outputs.back().nbytes();
    }
    s_->bind(step, policy);
    s_->step_index[nid] = s_->steps.size();
    s_->steps.push_back(std::move(step));
  }
  if (options.fuse_clamps && graph::fusion_enabled()) s_->fuse_clamps(policy);
  if (options.fuse_pads && graph::fusion_enabled()) s_->fuse_pads(policy);
  if (options.int8_activations && graph::int8_activations_enabled() && device.is_cpu()) {
    s_->store_int8_activations();
  }
  s_->measure_threads =
      options.measure_threads && graph::measure_threads_enabled() && device.is_cpu();
  s_->stream.synchronize();  // the arena's zeros and the params are in place
}

Session::~Session() = default;
Session::Session(Session&&) noexcept = default;
Session& Session::operator=(Session&&) noexcept = default;

const Model& Session::model() const { return *s_->model; }

void Session::set_input(const std::string& name, const NDArray& value) {
  const TensorInfo& in = s_->m->inputs[0];
  VERIFY(name == in.name) << "Session: unknown input \"" << name << "\" (the model's input is \""
                          << in.name << "\")";
  VERIFY(value.defined()) << "Session: input \"" << name << "\" is undefined";
  VERIFY(value.device().is_cpu()) << "Session: input \"" << name << "\" is on "
                                  << value.device().name() << ", expected the CPU";
  VERIFY(value.shape() == in.shape) << "Session: input \"" << name << "\": expected shape "
                                    << in.shape << ", found " << value.shape();
  if (s_->m->graph.is_float()) {
    VERIFY(value.dtype() == in.dtype) << "Session: input \"" << name << "\": expected dtype "
                                      << in.dtype << ", found " << value.dtype();
    s_->entries[s_->data_entry()].copy_from(value);
    s_->input_set = true;
    s_->ran = false;
    return;
  }
  const bool int8 = value.dtype() == DataType::Int(8);
  VERIFY(int8 || value.dtype() == DataType::Int(32))
      << "Session: input \"" << name << "\": expected dtype int8 or int32, found " << value.dtype();
  const NDArray c = value.contiguous();
  s_->write_input(c.data(), int8, c.numel());
}

void Session::run() {
  VERIFY(s_->input_set) << "Session: run() before set_input";
  const Graph& g = s_->m->graph;
  s_->ran = false;
  if (s_->profiling) s_->profile.clear();
  // On a device the kernels are enqueued on the session's stream, and the run waits for them
  // at its end (per node when profiling, so that each timing is the node's own).
  device::ScopedStream on(s_->device, s_->stream.get());
  // Which nodes split their kernels over the pool's threads (thread_choice.h): measured again
  // whenever the pool's count changes.
  graph::ThreadChoice& choice = s_->thread_choice;
  const int threads = s_->device.is_cpu() ? threads::num_threads() : 1;
  if (threads != choice.threads()) choice.reset(s_->steps.size(), threads, s_->measure_threads);
  // Runs that measure time themselves; the others read no clock for it (a run the choice
  // measures or watches reads it twice).
  const bool measuring = choice.measuring();
  const bool timed = s_->profiling || measuring;
  const bool run_timed = choice.wants_time(s_->profiling);
  const auto run_start =
      run_timed ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
  for (size_t i = 0; i < s_->steps.size(); ++i) {
    State::Step& step = s_->steps[i];
    std::optional<threads::SerialScope> serial;
    if (choice.serial(i)) serial.emplace();
    if (!timed) {
      s_->compute(step);
      continue;
    }
    const auto start = std::chrono::steady_clock::now();
    s_->compute(step);
    s_->stream.synchronize();
    const std::chrono::duration<double, std::micro> took = std::chrono::steady_clock::now() - start;
    choice.record(i, took.count());
    if (!s_->profiling) continue;
    const graph::Node& n = g.nodes[step.nid];
    s_->profile.push_back(OpProfile{n.name, n.op_name, took.count(), step.output_bytes});
  }
  s_->stream.synchronize();
  const std::chrono::duration<double, std::micro> run_took =
      run_timed ? std::chrono::steady_clock::now() - run_start
                : std::chrono::steady_clock::duration(-1);
  choice.end_run(run_took.count());  // negative: not timed
  s_->ran = true;
}

size_t Session::num_outputs() const { return s_->m->graph.heads.size(); }

NDArray Session::output(size_t i) const {
  VERIFY(i < num_outputs()) << "Session: output " << i << " does not exist (" << num_outputs()
                            << " outputs)";
  VERIFY(s_->ran) << "Session: output() before a successful run()";
  const NDArray& e = s_->entries[s_->m->graph.heads[i]];
  NDArray out = NDArray::empty(e.shape(), e.dtype());
  out.copy_from(e);
  return out;
}

NDArray Session::output(const std::string& name) const {
  const auto& outs = s_->m->outputs;
  for (size_t i = 0; i < outs.size(); ++i) {
    if (outs[i].name == name) return output(i);
  }
  CVM_LOGIC_ERROR() << "Session: no output named \"" << name << "\"";
}

void Session::enable_profiling(bool on) {
  s_->profiling = on;
  if (!on) s_->profile.clear();
}

const std::vector<OpProfile>& Session::profile() const { return s_->profile; }

const std::string& Session::backend() const { return s_->backend; }

Device Session::device() const { return s_->device; }

std::vector<NodeKernelPlan> Session::kernel_plan() const {
  std::vector<NodeKernelPlan> plan;
  const graph::ThreadChoice& choice = s_->thread_choice;
  for (size_t k = 0; k < s_->steps.size(); ++k) {
    const State::Step& step = s_->steps[k];
    const graph::Node& n = s_->m->graph.nodes[step.nid];
    NodeKernelPlan node{n.name, n.op_name, {}, step.fused_into, step.int8_output};
    if (choice.decided()) node.threads = choice.serial(k) ? 1 : choice.threads();
    if (State::clamp_done(step)) node.fused_into = s_->m->graph.nodes[step.clamped_by->nid].name;
    std::vector<const KernelChain*> chains;
    const bool pass = step.pass != State::Step::Pass::kNone;
    if (pass) {
      chains.push_back(&step.pass_chain);
    } else {
      for (const KernelChain& c : step.kernels.chains) chains.push_back(&c);
    }
    for (size_t i = 0; i < chains.size(); ++i) {
      const KernelChain& c = *chains[i];
      NodeKernelPlan::Chain chain;
      chain.kernel_op = c.key.op;
      chain.dtype = elem_type_name(c.key.dtype);
      for (const kernel::KernelEntry* e : c.entries) chain.entries.push_back(e->name);
      chain.notes = c.notes;
      if (pass) chain.notes.push_back(step.fused_note);
      if (i == 0 && !pass) {
        chain.notes.insert(chain.notes.end(), step.pack_notes.begin(), step.pack_notes.end());
        if (step.kernels.packed_for != nullptr) chain.packed_for = step.kernels.packed_for->name;
      }
      if (c.last_ran != nullptr) chain.last_ran = c.last_ran->name;
      node.chains.push_back(std::move(chain));
    }
    plan.push_back(std::move(node));
  }
  return plan;
}

void Session::infer_bytes(const char* in, size_t in_len, char* out, size_t out_capacity) {
  const Model::Impl& m = *s_->m;
  const Graph& g = m.graph;
  VERIFY(in_len == m.input_length)
      << "inference: input is " << in_len << " bytes, expected " << m.input_length;
  VERIFY(in != nullptr || in_len == 0) << "inference: null input";
  VERIFY(out_capacity >= m.output_length) << "inference: output buffer of " << out_capacity
                                          << " bytes, expected at least " << m.output_length;
  VERIFY(out != nullptr || m.output_length == 0) << "inference: null output";
  const size_t heads = g.heads.size();
  const bool argmax = g.postprocess == "argmax";
  const bool interleave =
      !g.is_float() && !argmax && (g.postprocess == "detection" || heads > 1);
  // Checked before running: the layout depends only on the model.
  std::vector<int64_t> width(heads), rows(heads);
  for (size_t k = 0; k < heads; ++k) {
    const Shape& s = g.entries[g.heads[k]].shape;
    width[k] = s[s.ndim() - 1];
    rows[k] = s.numel() / width[k];
  }
  if (interleave) {
    VERIFY(heads > 1) << "inference: postprocess \"detection\" needs more than one output to "
                         "interleave, the model has 1";
    for (size_t k = 1; k < heads; ++k) {
      VERIFY(rows[k] == rows[0]) << "inference: outputs cannot be interleaved: output " << k
                                 << " has " << rows[k] << " rows, output 0 has " << rows[0];
    }
  }
  s_->write_input(in, m.input_type_size == 1, g.entries[s_->data_entry()].shape.numel());
  run();
  const std::vector<NDArray> host = s_->host_heads();
  auto head_data = [&](size_t k) { return host[k].data_as<int32_t>(); };

  auto* dst = reinterpret_cast<uint8_t*>(out);
  if (g.is_float()) {  // float graphs: every head in order, 4-byte values little-endian
    for (size_t k = 0; k < heads; ++k) {
      const NDArray& h = host[k];
      const auto* v = static_cast<const uint8_t*>(h.data());
      const int64_t n = h.numel();  // once: numel() multiplies out the shape with checks
      for (int64_t i = 0; i < n; ++i) {
        uint32_t bits;
        std::memcpy(&bits, v + 4 * i, 4);
        params_detail::store_le32(dst, bits);
        dst += 4;
      }
    }
    CHECK(dst == reinterpret_cast<uint8_t*>(out) + m.output_length)
        << "inference: wrote " << dst - reinterpret_cast<uint8_t*>(out) << " bytes, expected "
        << m.output_length;
    return;
  }
  const bool int8 = m.output_type_size == 1;
  auto put = [&](int32_t v) {
    if (int8) {
      *dst++ = static_cast<uint8_t>(static_cast<int8_t>(v));  // truncating, as CVM
    } else {
      params_detail::store_le32(dst, static_cast<uint32_t>(v));
      dst += 4;
    }
  };
  if (argmax) {
    for (size_t k = 0; k < heads; ++k) {
      const int32_t* x = head_data(k);
      for (int64_t r = 0; r < rows[k]; ++r) {
        const int32_t* row = x + r * width[k];
        int64_t best = 0;
        for (int64_t j = 1; j < width[k]; ++j) {
          // Quirk: compared after truncation to int8.
          if (static_cast<int8_t>(row[j]) > static_cast<int8_t>(row[best])) best = j;
        }
        put(static_cast<int32_t>(best));
      }
    }
  } else if (interleave) {
    for (int64_t r = 0; r < rows[0]; ++r) {
      for (size_t k = 0; k < heads; ++k) {
        const int32_t* row = head_data(k) + r * width[k];
        for (int64_t j = 0; j < width[k]; ++j) put(row[j]);
      }
    }
  } else {
    const int32_t* x = head_data(0);
    for (int64_t i = 0; i < rows[0] * width[0]; ++i) put(x[i]);
  }
  CHECK(dst == reinterpret_cast<uint8_t*>(out) + m.output_length)
      << "inference: wrote " << dst - reinterpret_cast<uint8_t*>(out) << " bytes, expected "
      << m.output_length;
}

}  // namespace cvm
