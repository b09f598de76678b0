// The quantizer's lowering: each float node (conv2d, dense, pooling, ...) as CVM integer operators.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <locale>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cvm/check.h"
#include "cvm/model_builder.h"
#include "quantize_internal.h"

namespace cvm {
namespace quant {
namespace detail {

namespace {

// Extra bits kept between the two shifts of a per-channel requantization.
constexpr int kGuardBits = 4;

std::string tuple_str(const Shape& s) {
  std::string out = "(";
  for (int i = 0; i < s.ndim(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + (s.ndim() == 1 ? ",)" : ")");
}

// Attribute values of the float model's nodes, in the CVM string form the op layer accepted
// (the op layer has validated them: these only read them back).
std::vector<int64_t> int_tuple(std::string text) {  // "(1, 2)", "[1,2]" or "3"
  for (char& ch : text) {
    if (ch == '(' || ch == ')' || ch == '[' || ch == ']' || ch == ',') ch = ' ';
  }
  std::istringstream is(text);
  std::vector<int64_t> v;
  for (int64_t n; is >> n;) v.push_back(n);
  return v;
}
double float_attr(const std::string& text) {  // a number, "inf" or "-inf"
  if (text == "inf") return INFINITY;
  if (text == "-inf") return -INFINITY;
  std::istringstream is(text);
  is.imbue(std::locale::classic());  // the op layer's parse does not depend on the locale
  double v = 0;
  is >> v;
  return v;
}
bool bool_attr(std::string text) {  // true/false/1/0 in any case
  for (char& ch : text) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return text == "true" || text == "1";
}

NDArray int_array(const Shape& shape, const std::vector<int32_t>& v, DataType dtype) {
  NDArray out = NDArray::empty(shape, dtype);
  if (dtype == DataType::Int(8)) {
    int8_t* d = out.mutable_data_as<int8_t>();
    for (size_t i = 0; i < v.size(); ++i) d[i] = static_cast<int8_t>(v[i]);
  } else {
    out.copy_from_bytes(v.data(), v.size() * 4);
  }
  return out;
}

}  // namespace

NDArray Quantizer::constant(uint32_t nid_for_error, uint32_t e) const {
  VERIFY(is_constant(e)) << where(nid_for_error) << "input entry " << e
                         << " must be a constant (a param) to be quantized";
  return fparams_.at(nodes_[node_of_[e]].name);
}

std::string Quantizer::where(uint32_t nid) const {
  return "quantize: node " + std::to_string(nid) + " \"" + nodes_[nid].name + "\" (" +
         nodes_[nid].op + "): ";
}

QTensor Quantizer::input_of(uint32_t nid, size_t i) const {
  const uint32_t e = node(nid).input_entries.at(i);
  VERIFY(q_[e].has_value()) << where(nid) << "input " << i
                            << " has no integer form (a constant where an activation is "
                               "expected, or an unsupported producer)";
  return *q_[e];
}

std::string Quantizer::fresh(const std::string& base) {
  std::string name = base;
  for (int i = 2; used_names_.count(name); ++i) name = base + "_" + std::to_string(i);
  used_names_.insert(name);
  return name;
}

Entry Quantizer::add(const std::string& op, const std::string& name, const std::vector<Entry>& in,
                     const AttrMap& attrs) {
  return b_.add1(op, fresh(name), in, attrs);
}

Entry Quantizer::constant_int(const std::string& name, const Shape& shape,
                              const std::vector<int32_t>& v, bool int8) {
  return b_.constant(fresh(name),
                     int_array(shape, v, int8 ? DataType::Int(8) : DataType::Int(32)));
}

QTensor Quantizer::rescale(const QTensor& t, int k, int bits, const std::string& name) {
  const int shift = t.k - k;
  CHECK(shift >= 0) << "quantize: left shift requested";
  if (shift == 0 && precision(t) <= bits) return t;
  const int s = std::min(shift, 32);
  const Entry e =
      s == 0 ? add("cvm_clip", name, {t.e}, {{"precision", std::to_string(bits)}})
             : add("cvm_right_shift", name, {t.e},
                   {{"precision", std::to_string(bits)}, {"shift_bit", std::to_string(s)}});
  return {e, t.k - s};
}

QTensor Quantizer::finish(const QTensor& t, uint32_t e, const std::string& name) {
  const int bits = out_bits(e);
  const int k = std::min(t.k, calibrated(e, bits));
  QTensor r = rescale(t, k, bits, name);
  if (r.e == t.e && is_head(e)) {
    // A head is named after its float node: an in-place reshape to the same shape renames it.
    r.e = add("reshape", name, {t.e}, {{"shape", tuple_str(b_.shape(t.e))}});
  }
  return r;
}

QTensor Quantizer::narrow(const QTensor& t, uint32_t e, const std::string& name) {
  if (precision(t) <= act_bits()) return t;
  return rescale(t, std::min(t.k, calibrated(e, act_bits())), act_bits(), name);
}

std::vector<QTensor> Quantizer::align(const std::vector<QTensor>& ts, const std::string& name) {
  int k = ts[0].k, bits = 0;
  for (const QTensor& t : ts) {
    k = std::min(k, t.k);
    bits = std::max(bits, precision(t));
  }
  std::vector<QTensor> out;
  for (size_t i = 0; i < ts.size(); ++i) {
    out.push_back(ts[i].k == k ? ts[i]
                               : rescale(ts[i], k, bits, name + "_align" + std::to_string(i)));
  }
  return out;
}

Entry Quantizer::constant_at(const NDArray& c, int k, int bits, const std::string& name) {
  std::vector<int32_t> v;
  for (float f : float_values(c)) {
    const double q = std::round(std::ldexp(static_cast<double>(f), k));
    const double lim = static_cast<double>(alpha(bits));
    v.push_back(static_cast<int32_t>(std::clamp(q, -lim, lim)));
  }
  return constant_int(name, c.shape(), v, false);
}

// The operands of conv2d/dense (at most 8 bits each) that stand for `x`: x itself, or its two
// halves hi = x >> 7 (rounded, 8 bits, exponent k - 7) and lo = x - hi * 2^7 (exponent k). The
// rounding keeps |lo| <= 64, and <= 127 where hi saturates at +-127 (|x| <= 2^14 - 1), so both
// halves are exact int8 values.
std::vector<QTensor> Quantizer::split_input(const QTensor& x, const std::string& name) {
  if (precision(x) <= kActivationBits) return {x};
  CHECK(precision(x) <= kSplitBits) << "quantize: " << name << " is too wide to split";
  const std::string sh = std::to_string(kSplitShift);
  const Entry hi = add("cvm_right_shift", name + "_hi", {x.e},
                       {{"precision", std::to_string(kActivationBits)}, {"shift_bit", sh}});
  const Entry back = add("cvm_left_shift", name + "_hi_back", {hi},
                         {{"precision", std::to_string(kSplitBits)}, {"shift_bit", sh}});
  const Entry diff = add("elemwise_sub", name + "_lo_wide", {x.e, back});
  const Entry lo = add("cvm_clip", name + "_lo", {diff},
                       {{"precision", std::to_string(kActivationBits)}});
  return {{hi, x.k - kSplitShift}, {lo, x.k}};
}

// `t` brought to exponent k with `bits` bits: a rounding right shift, a clip, or a left shift
// (exact; values that the result's clamp would saturate are clipped first when the shift would
// otherwise exceed 32 bits).
QTensor Quantizer::to_exponent(const QTensor& t, int k, int bits, const std::string& name) {
  if (k <= t.k) return rescale(t, k, bits, name);
  const int s = k - t.k;
  VERIFY(s < bits) << "quantize: " << name << ": a left shift by " << s << " leaves nothing of "
                   << bits << " bits";
  Entry e = t.e;
  if (precision(t) + s > 32) {
    e = add("cvm_clip", name + "_clip", {e}, {{"precision", std::to_string(bits - s)}});
  }
  return {add("cvm_left_shift", name, {e},
              {{"precision", std::to_string(bits)}, {"shift_bit", std::to_string(s)}}),
          k};
}

// Partial results brought to exponent k with `bits` bits each and added (precision grows by one
// bit per addition).
QTensor Quantizer::sum_at(const std::vector<QTensor>& parts, int k, int bits,
                          const std::string& name) {
  QTensor sum = to_exponent(parts[0], k, bits, name + "_part0");
  for (size_t i = 1; i < parts.size(); ++i) {
    const QTensor p = to_exponent(parts[i], k, bits, name + "_part" + std::to_string(i));
    sum.e = add("elemwise_add", name + "_sum" + std::to_string(i), {sum.e, p.e});
  }
  return sum;
}

void Quantizer::conv_or_dense(uint32_t nid) {
  const NodeInfo& nd = node(nid);
  const bool conv = nd.op == "conv2d";
  const uint32_t out_e = nd.first_entry;
  const QTensor x = narrow(input_of(nid, 0), nd.input_entries[0], nd.name + "_in");
  const std::vector<QTensor> xs = split_input(x, nd.name + "_in");
  const NDArray w = constant(nid, nd.input_entries.at(1));
  VERIFY(w.dtype() == DataType::Float(32)) << where(nid) << "weight must be float32";
  const bool bias = nd.input_entries.size() > 2;
  const int64_t channels = w.shape()[0];
  const int64_t per_channel = w.numel() / channels;
  const std::vector<float> wv = float_values(w);
  std::vector<double> ch_max(static_cast<size_t>(channels), 0.0);
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t i = 0; i < per_channel; ++i) {
      ch_max[c] = std::max(ch_max[c], std::fabs(static_cast<double>(wv[c * per_channel + i])));
    }
  }
  const double all_max = *std::max_element(ch_max.begin(), ch_max.end());
  const int64_t wbound = alpha(act_bits());
  const int k_tensor = exponent_for(all_max, wbound);
  const int bits = out_bits(out_e);
  // The channel alignment needs (bits + guard + spread) + (spread + 2) <= 32 bits.
  const int spread = std::min(opts_.max_channel_spread, (30 - bits - kGuardBits) / 2);
  std::vector<int> kw(static_cast<size_t>(channels), k_tensor);
  if (opts_.per_channel) {
    for (int64_t c = 0; c < channels; ++c) {
      kw[c] = ch_max[c] > 0 ? exponent_for(ch_max[c], wbound) : k_tensor;
      kw[c] = std::min(kw[c], k_tensor + spread);
    }
  }
  // The weights at their exponents; with split precision, as halves hi (exponent kw - 7) and lo.
  std::vector<int32_t> wq(wv.size()), whi, wlo;
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t i = 0; i < per_channel; ++i) {
      const double q = std::round(std::ldexp(static_cast<double>(wv[c * per_channel + i]), kw[c]));
      wq[c * per_channel + i] =
          static_cast<int32_t>(std::clamp(q, -double(wbound), double(wbound)));
    }
  }
  // Weight operands: (values, exponent offset from kw).
  std::vector<std::pair<std::vector<int32_t>, int>> ws;
  if (opts_.split) {
    for (int32_t q : wq) {
      const int32_t hi = std::clamp((q + (1 << (kSplitShift - 1))) >> kSplitShift, -127, 127);
      whi.push_back(hi);
      wlo.push_back(q - hi * (1 << kSplitShift));
    }
    ws = {{whi, -kSplitShift}, {wlo, 0}};
  } else {
    ws = {{wq, 0}};
  }
  // The products of the operands' halves; hi*hi is 2^14 coarser than lo*lo, which is dropped
  // when there are four (it is below the result's resolution).
  struct Partial {
    size_t xi, wi;
    int offset;  // exponent relative to x.k + kw
  };
  std::vector<Partial> partials;
  int off_min = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    for (size_t j = 0; j < ws.size(); ++j) {
      partials.push_back({i, j, xs[i].k - x.k + ws[j].second});
      off_min = std::min(off_min, partials.back().offset);
    }
  }
  partials.erase(std::remove_if(partials.begin(), partials.end(),
                                [&](const Partial& p) { return p.offset > off_min + kSplitShift; }),
                 partials.end());
  int off_max = off_min;
  for (const Partial& p : partials) off_max = std::max(off_max, p.offset);
  // The bias joins the finest partial, at its exponent x.k + kw + off_max.
  std::vector<QTensor> accs;
  std::vector<std::optional<Entry>> wes(ws.size());
  bool bias_done = false;
  for (const Partial& p : partials) {
    if (!wes[p.wi]) {
      wes[p.wi] = constant_int(nd.name + (ws.size() > 1 ? (p.wi ? "_weight_lo" : "_weight_hi")
                                                         : "_weight"),
                               w.shape(), ws[p.wi].first, true);
    }
    std::vector<Entry> ins = {xs[p.xi].e, *wes[p.wi]};
    AttrMap attrs = nd.attrs;
    if (bias && !bias_done && p.offset == off_max) {
      const std::vector<float> bv = float_values(constant(nid, nd.input_entries[2]));
      std::vector<int32_t> bq(bv.size());
      for (int64_t c = 0; c < channels; ++c) {
        const int kb = x.k + kw[c] + off_max;
        const double q = std::round(std::ldexp(static_cast<double>(bv[c]), kb));
        VERIFY(std::fabs(q) < 1073741823.0)
            << where(nid) << "bias of channel " << c << " does not fit 31 bits at scale 2^" << kb;
        bq[c] = static_cast<int32_t>(q);
      }
      ins.push_back(constant_int(nd.name + "_bias", Shape{channels}, bq, false));
      bias_done = true;
    } else if (bias) {
      attrs["use_bias"] = "False";
    }
    const std::string suffix = partials.size() > 1 ? "_acc" + std::to_string(accs.size()) : "_acc";
    accs.push_back({add(nd.op, nd.name + suffix, ins, attrs), x.k + p.offset});
  }
  // Per channel the accumulators have exponent acc.k + kw[c]; bring every channel to one
  // exponent.
  const int kmin_w = *std::min_element(kw.begin(), kw.end());
  for (QTensor& t : accs) t.k += kmin_w;
  const int ky = std::min(calibrated(out_e, bits), x.k + kmin_w + off_max);
  std::vector<int> shift(static_cast<size_t>(channels));
  for (int64_t c = 0; c < channels; ++c) shift[c] = x.k + kw[c] + off_max - ky;
  const int smin = *std::min_element(shift.begin(), shift.end());
  const int rmax = *std::max_element(shift.begin(), shift.end()) - smin;
  // Shift by the common part less `guard` bits, scale each channel up to the finest exponent,
  // then one rounding shift by the rest. The guard bits keep the first rounding from biasing
  // the second (two round-half-up steps in a row drift upward when the second is short).
  const int guard = std::min(kGuardBits, smin);
  QTensor t;
  if (accs.size() == 1) {
    t = accs[0];
    if (rmax == 0) {
      q_[out_e] = finish(t, out_e, nd.name);
      return;
    }
    t = rescale(t, t.k - (smin - guard), bits + guard + rmax, nd.name + "_shift");
  } else {
    // Split precision: the partials meet at ky + guard (for the finest channel) and are added.
    t = sum_at(accs, ky + guard, bits + guard + rmax, nd.name + "_shift");
    if (rmax == 0) {
      q_[out_e] = finish(t, out_e, nd.name);
      return;
    }
    t.e = add("cvm_clip", nd.name + "_sum", {t.e},
              {{"precision", std::to_string(bits + guard + rmax)}});
  }
  std::vector<int32_t> mult(static_cast<size_t>(channels));
  for (int64_t c = 0; c < channels; ++c) mult[c] = int32_t{1} << (rmax - (shift[c] - smin));
  const Shape mshape = conv ? Shape{channels, 1, 1} : Shape{channels};
  const Entry m = constant_int(nd.name + "_align", mshape, mult, false);
  const Entry aligned = add("broadcast_mul", nd.name + "_channels", {t.e, m});
  q_[out_e] = finish(QTensor{aligned, t.k + rmax}, out_e, nd.name);
}

// A sum of `count` values turned into their mean (an exponent change for a power of two, else
// a multiplication by round(2^s / count)), then requantized.
void Quantizer::pool_average(uint32_t nid, const QTensor& whole, int64_t count) {
  const NodeInfo& nd = node(nid);
  const uint32_t out_e = nd.first_entry;
  if ((count & (count - 1)) == 0) {
    int log2 = 0;
    while ((int64_t{1} << log2) < count) ++log2;
    q_[out_e] = finish(QTensor{whole.e, whole.k + log2}, out_e, nd.name);
    return;
  }
  QTensor sum = whole;
  if (31 - precision(sum) < 8) {  // a sum of many 15-bit values: drop low bits to make room
    sum = rescale(sum, sum.k - (precision(sum) - 23), 23, nd.name + "_narrow");
  }
  const int room = 31 - precision(sum);
  VERIFY(room >= 8) << where(nid) << "the sum of " << count << " values has precision "
                    << precision(sum) << ": too wide to divide exactly enough";
  const int s = room - 1;
  const int64_t m = static_cast<int64_t>(std::round(std::ldexp(1.0, s) / count));
  const Entry mc = constant_int(nd.name + "_inv_count", Shape{1}, {static_cast<int32_t>(m)}, false);
  const Entry prod = add("broadcast_mul", nd.name + "_mean", {sum.e, mc});
  q_[out_e] = finish(QTensor{prod, sum.k + s}, out_e, nd.name);
}

void Quantizer::add_sub(uint32_t nid) {
  const NodeInfo& nd = node(nid);
  const uint32_t a_e = nd.input_entries.at(0), b_e = nd.input_entries.at(1);
  const bool sub = nd.op == "sub";
  const uint32_t out_e = nd.first_entry;
  QTensor r;
  if (is_constant(a_e) || is_constant(b_e)) {
    VERIFY(!(is_constant(a_e) && is_constant(b_e))) << where(nid) << "two constants";
    const bool a_const = is_constant(a_e);
    const QTensor x = input_of(nid, a_const ? 1 : 0);
    const Entry c = constant_at(constant(nid, a_const ? a_e : b_e), x.k, 31,
                                nd.name + "_const");
    std::vector<Entry> ins = a_const ? std::vector<Entry>{c, x.e} : std::vector<Entry>{x.e, c};
    r = {add(sub ? "broadcast_sub" : "broadcast_add", nd.name + "_sum", ins), x.k};
  } else {
    std::vector<QTensor> ab = align({input_of(nid, 0), input_of(nid, 1)}, nd.name);
    const bool same = b_.shape(ab[0].e) == b_.shape(ab[1].e);
    const std::string op = same ? (sub ? "elemwise_sub" : "elemwise_add")
                                : (sub ? "broadcast_sub" : "broadcast_add");
    r = {add(op, nd.name + "_sum", {ab[0].e, ab[1].e}), ab[0].k};
  }
  q_[out_e] = finish(r, out_e, nd.name);
}

void Quantizer::mul_div(uint32_t nid) {
  const NodeInfo& nd = node(nid);
  const uint32_t a_e = nd.input_entries.at(0), b_e = nd.input_entries.at(1);
  const uint32_t out_e = nd.first_entry;
  const bool div = nd.op == "div";
  QTensor r;
  if (is_constant(b_e) || (!div && is_constant(a_e))) {
    const bool a_const = !is_constant(b_e);
    const QTensor x = narrow(input_of(nid, a_const ? 1 : 0), a_const ? b_e : a_e, nd.name + "_in");
    NDArray c = constant(nid, a_const ? a_e : b_e).contiguous();
    if (div) {
      NDArray inv = NDArray::empty(c.shape(), DataType::Float(32));
      for (int64_t i = 0; i < c.numel(); ++i) {
        const float v = c.data_as<float>()[i];
        VERIFY(v != 0) << where(nid) << "division by a constant 0";
        inv.mutable_data_as<float>()[i] = static_cast<float>(1.0 / v);
      }
      c = inv;
    }
    double cmax = 0;
    for (float v : float_values(c)) cmax = std::max(cmax, std::fabs(static_cast<double>(v)));
    const int kc = exponent_for(cmax, alpha(act_bits()));
    const Entry ce = constant_at(c, kc, act_bits(), nd.name + "_const");
    r = {add("broadcast_mul", nd.name + "_prod", {x.e, ce}), x.k + kc};
  } else {
    VERIFY(!div) << where(nid) << "division by a tensor has no CVM form";
    const QTensor a = narrow(input_of(nid, 0), a_e, nd.name + "_a");
    const QTensor b = narrow(input_of(nid, 1), b_e, nd.name + "_b");
    r = {add("broadcast_mul", nd.name + "_prod", {a.e, b.e}), a.k + b.k};
  }
  q_[out_e] = finish(r, out_e, nd.name);
}

// Constant padding as concatenations with constant blocks, axis by axis.
void Quantizer::pad(uint32_t nid) {
  const NodeInfo& nd = node(nid);
  QTensor x = input_of(nid, 0);
  const Shape in_shape = b_.shape(x.e);
  const int nd_dims = in_shape.ndim();
  const std::vector<int64_t> pads = int_tuple(nd.attrs.at("pads").text());
  VERIFY(static_cast<int>(pads.size()) == 2 * nd_dims) << where(nid) << "bad pads";
  const double value = nd.attrs.count("value") ? float_attr(nd.attrs.at("value").text()) : 0.0;
  const int bits = precision(x);
  const double lim = static_cast<double>(alpha(bits));
  const double qv = std::isinf(value) ? (value < 0 ? -lim : lim)
                                      : std::clamp(std::round(std::ldexp(value, x.k)), -lim, lim);
  Entry cur = x.e;
  for (int axis = 0; axis < nd_dims; ++axis) {
    const int64_t before = pads[axis], after = pads[axis + nd_dims];
    if (before == 0 && after == 0) continue;
    std::vector<Entry> parts;
    Shape s = b_.shape(cur);
    auto block = [&](int64_t len, const char* side) {
      Shape bs = s;
      bs[axis] = len;
      return constant_int(nd.name + "_" + side + std::to_string(axis), bs,
                          std::vector<int32_t>(static_cast<size_t>(bs.numel()),
                                               static_cast<int32_t>(qv)),
                          false);
    };
    if (before > 0) parts.push_back(block(before, "before"));
    parts.push_back(cur);
    if (after > 0) parts.push_back(block(after, "after"));
    cur = add("concatenate", nd.name + "_axis" + std::to_string(axis), parts,
              {{"axis", std::to_string(axis)}});
  }
  q_[nd.first_entry] = QTensor{cur, x.k};
}

void Quantizer::quantize_node(uint32_t nid) {
  const NodeInfo& nd = node(nid);
  const std::string& op = nd.op;
  const uint32_t out_e = nd.first_entry;
  if (op == "conv2d" || op == "dense") return conv_or_dense(nid);
  if (op == "relu" || op == "max_pool2d" || op == "flatten" || op == "reshape" ||
      op == "transpose" || op == "squeeze" || op == "expand_dims" || op == "strided_slice") {
    const QTensor x = input_of(nid, 0);
    if (!is_head(out_e)) {
      q_[out_e] = QTensor{add(op, nd.name, {x.e}, nd.attrs), x.k};
      return;
    }
    q_[out_e] = finish(QTensor{add(op, nd.name + "_op", {x.e}, nd.attrs), x.k}, out_e, nd.name);
    return;
  }
  if (op == "add" || op == "sub") return add_sub(nid);
  if (op == "mul" || op == "div") return mul_div(nid);
  if (op == "pad") return pad(nid);
  if (op == "concatenate") {
    // Activations meet at their smallest exponent; constants are quantized at it.
    std::vector<QTensor> acts;
    for (size_t i = 0; i < nd.input_entries.size(); ++i) {
      if (!is_constant(nd.input_entries[i])) acts.push_back(input_of(nid, i));
    }
    VERIFY(!acts.empty()) << where(nid) << "concatenating only constants";
    acts = align(acts, nd.name);
    const int k = acts[0].k;
    int bits = 0;
    for (const QTensor& t : acts) bits = std::max(bits, precision(t));
    std::vector<Entry> es;
    size_t next = 0;
    for (size_t i = 0; i < nd.input_entries.size(); ++i) {
      const uint32_t e = nd.input_entries[i];
      es.push_back(is_constant(e) ? constant_at(constant(nid, e), k, bits,
                                                nd.name + "_const" + std::to_string(i))
                                  : acts[next++].e);
    }
    q_[out_e] = QTensor{add("concatenate", nd.name, es, nd.attrs), k};
    return;
  }
  if (op == "clamp") {
    const QTensor x = input_of(nid, 0);
    const double lim = static_cast<double>(alpha(precision(x)));
    auto bound = [&](const char* key, double fallback) {
      if (!nd.attrs.count(key)) return fallback;
      const double v = float_attr(nd.attrs.at(key).text());
      if (std::isinf(v)) return v < 0 ? -lim : lim;
      return std::clamp(std::round(std::ldexp(v, x.k)), -lim, lim);
    };
    const double lo = bound("a_min", -lim), hi = bound("a_max", lim);
    VERIFY(lo < hi) << where(nid) << "the clamp range is empty at scale 2^" << x.k;
    q_[out_e] = finish(QTensor{add("clip", nd.name + "_clip", {x.e},
                                   {{"a_min", std::to_string(static_cast<int64_t>(lo))},
                                    {"a_max", std::to_string(static_cast<int64_t>(hi))}}),
                               x.k},
                       out_e, nd.name);
    return;
  }
  if (op == "leaky_relu") {
    const QTensor x = narrow(input_of(nid, 0), nd.input_entries[0], nd.name + "_in");
    const double a = nd.attrs.count("alpha") ? float_attr(nd.attrs.at("alpha").text()) : 0.01;
    VERIFY(a >= 0 && a <= 1) << where(nid) << "alpha " << a << " outside [0, 1]";
    const int s = 8;
    const int32_t m = static_cast<int32_t>(std::round(std::ldexp(a, s)));
    const Entry mc = constant_int(nd.name + "_alpha", Shape{1}, {m}, false);
    const Entry prod = add("broadcast_mul", nd.name + "_scaled", {x.e, mc});
    const Entry neg = add("cvm_right_shift", nd.name + "_neg", {prod},
                          {{"precision", std::to_string(precision(x))}, {"shift_bit", "8"}});
    q_[out_e] = finish(QTensor{add("broadcast_max", nd.name + "_max", {x.e, neg}), x.k}, out_e,
                       nd.name);
    return;
  }
  if (op == "avg_pool2d") {
    const QTensor x = narrow(input_of(nid, 0), nd.input_entries[0], nd.name + "_in");
    const Shape xs = b_.shape(x.e);
    // Shape logic of the float op is trusted; only windows that always hold kh*kw cells map
    // to a sum by an all-ones depthwise conv2d.
    const std::vector<int64_t> pool = int_tuple(nd.attrs.at("pool_size").text());
    const std::vector<int64_t> ps = nd.attrs.count("padding")
                                        ? int_tuple(nd.attrs.at("padding").text())
                                        : std::vector<int64_t>{};
    const bool include_pad =
        nd.attrs.count("count_include_pad") && bool_attr(nd.attrs.at("count_include_pad").text());
    bool no_pad = true;
    for (int64_t p : ps) no_pad = no_pad && p == 0;
    VERIFY(no_pad || (include_pad && (ps.size() <= 2 || (ps[0] == ps[2] && ps[1] == ps[3]))))
        << where(nid) << "average pooling with padding is quantized only with "
                         "count_include_pad and symmetric padding";
    const Shape ys = nd.output_shapes[0];
    const int64_t ph = ps.empty() ? 0 : ps[0];
    const int64_t pw = ps.empty() ? 0 : (ps.size() == 1 ? ps[0] : ps[1]);
    AttrMap attrs = {{"channels", std::to_string(xs[1])},
                     {"kernel_size",
                      "(" + std::to_string(pool[0]) + ", " + std::to_string(pool[1]) + ")"},
                     {"padding", "(" + std::to_string(ph) + ", " + std::to_string(pw) + ")"},
                     {"groups", std::to_string(xs[1])},
                     {"use_bias", "False"}};
    if (nd.attrs.count("strides")) attrs["strides"] = nd.attrs.at("strides");
    const Entry ones = constant_int(
        nd.name + "_ones", Shape{xs[1], 1, pool[0], pool[1]},
        std::vector<int32_t>(static_cast<size_t>(xs[1] * pool[0] * pool[1]), 1), true);
    // The window sums of x's int8 halves (split precision), added exactly at x's exponent.
    std::vector<QTensor> sums;
    int sum_bits = 0;
    for (const QTensor& part : split_input(x, nd.name + "_in")) {
      sums.push_back({add("conv2d", nd.name + "_sum", {part.e, ones}, attrs), part.k});
      VERIFY(b_.shape(sums.back().e) == ys) << where(nid) << "ceil_mode windows are not quantized";
      sum_bits = std::max(sum_bits, precision(sums.back()) + x.k - part.k);
    }
    VERIFY(sum_bits <= 32) << where(nid) << "the window sums are too wide to add exactly";
    return pool_average(nid, sum_at(sums, x.k, sum_bits, nd.name + "_whole"), pool[0] * pool[1]);
  }
  if (op == "reduce_mean") {
    const QTensor x = input_of(nid, 0);
    AttrMap attrs;
    if (nd.attrs.count("axis")) attrs["axis"] = nd.attrs.at("axis");
    if (nd.attrs.count("keepdims")) attrs["keepdims"] = nd.attrs.at("keepdims");
    const Entry sum = add("sum", nd.name + "_sum", {x.e}, attrs);
    const int64_t count = b_.shape(x.e).numel() / b_.shape(sum).numel();
    return pool_average(nid, QTensor{sum, x.k}, count);
  }
  if (op == "softmax" || op == "sigmoid") {
    VERIFY(is_head(out_e) && consumers_[out_e] == 0)
        << where(nid) << op << " has no exact CVM form: it is allowed only as the last "
                              "operator of a model output (its float tail)";
    const uint32_t in_e = nd.input_entries[0];
    QTensor x = input_of(nid, 0);
    // The logits keep output_precision bits; the head is renamed to the float output's name.
    QTensor r = rescale(x, std::min(x.k, calibrated(in_e, opts_.output_precision)),
                        opts_.output_precision, nd.name + "_logits");
    r.e = add("reshape", nd.name, {r.e}, {{"shape", tuple_str(b_.shape(r.e))}});
    q_[out_e] = r;
    std::string tail = op;
    if (op == "softmax") {
      tail += ":" + (nd.attrs.count("axis") ? nd.attrs.at("axis").text() : std::string("-1"));
    }
    tails_.push_back({out_e, tail});
    return;
  }
  CVM_LOGIC_ERROR() << where(nid) << "operator \"" << op << "\" has no CVM int8 form";
}

}  // namespace detail
}  // namespace quant
}  // namespace cvm
