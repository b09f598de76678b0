// Shared pieces of the libFuzzer targets in tests/fuzz: resource limits, a byte reader,
// deterministic model inputs and the "only LogicError is an acceptable failure" rule.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "cvm/c_api.h"
#include "cvm/error.h"
#include "cvm/model.h"
#include "cvm/threads.h"

namespace cvm_fuzz {

// The limits every model-loading target passes: no input may make the library plan more than
// 64 MiB of storage (the ctest runs cap single mallocs at 256 MiB and RSS at 2 GiB, ASan's
// shadow and quarantine included) or run more than ~16M "ops" (well under a second even under
// ASan + UBSan).
inline cvm::ModelLimits limits() {
  cvm::ModelLimits l;
  l.max_elements = int64_t{1} << 22;        // 16 MiB of int32 in one entry
  l.max_storage_bytes = uint64_t{64} << 20;  // params + activations
  l.max_cost_base = int64_t{1} << 16;
  l.max_ops = uint64_t{1} << 24;
  l.max_mem = uint64_t{1} << 26;
  return l;
}

inline cvm::ModelOptions model_options() {
  cvm::ModelOptions o;
  o.limits = limits();
  // A model file may name a by-reference params file (a relative path without ".."): looked up
  // under a folder that does not exist, so no input reads the fuzzer's surroundings.
  o.base_dir = "/nonexistent-cvmrt-fuzz";
  return o;
}

// Once per process: one kernel thread (the runs are serial and deterministic anyway).
inline void init() {
  static const bool done = [] {
    cvm::set_num_threads(1);
    return true;
  }();
  (void)done;
}

// A broken invariant found by a target itself (not by a sanitizer): print and abort.
[[noreturn]] inline void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "cvmrt fuzz invariant failed: %s: %s\n", what, detail.c_str());
  std::abort();
}

inline volatile uint8_t g_sink;  // touch() writes here, so its reads cannot be dropped

// Reads every byte so that ASan sees any out-of-bounds view (the optimiser cannot drop it).
inline void touch(const void* data, size_t size) {
  const auto* p = static_cast<const volatile uint8_t*>(data);
  uint8_t acc = 0;
  for (size_t i = 0; i < size; ++i) acc = static_cast<uint8_t>(acc ^ p[i]);
  g_sink = acc;
}

// Reads every byte of a compact C ABI array (strides NULL, as the library's handles are).
inline void touch_handle(const DLTensor* t, const char* what) {
  if (t->strides != nullptr) fail(what, "a strided array handle");
  size_t nbytes = (t->dtype.bits * t->dtype.lanes + 7) / 8;
  for (int d = 0; d < t->ndim; ++d) nbytes *= static_cast<size_t>(t->shape[d]);
  touch(t->data, nbytes);
}

// Runs `f`; a cvm::LogicError is the expected answer to a malformed input and is swallowed.
// Anything else (cvm::RuntimeError, std::bad_alloc, another exception) escapes, std::terminate
// aborts and libFuzzer records a crash: the lineage promises a LogicError for every bad input.
template <typename F>
bool accept_logic_errors(F&& f) {
  try {
    f();
    return true;
  } catch (const cvm::LogicError&) {
    return false;
  }
}

// Consumes the fuzzer's bytes front to back; past the end every read gives zeros.
class Reader {
 public:
  Reader(const uint8_t* data, size_t size) : p_(data), n_(size) {}
  size_t left() const { return n_; }
  uint8_t u8() { return n_ ? (--n_, *p_++) : 0; }
  uint16_t u16() { return static_cast<uint16_t>(u8() | (u8() << 8)); }
  uint32_t u32() { return static_cast<uint32_t>(u16()) | (static_cast<uint32_t>(u16()) << 16); }
  // Up to `k` bytes (fewer at the end).
  std::string bytes(size_t k) {
    k = k < n_ ? k : n_;
    std::string s(reinterpret_cast<const char*>(p_), k);
    p_ += k;
    n_ -= k;
    return s;
  }
  std::string rest() { return bytes(n_); }

 private:
  const uint8_t* p_;
  size_t n_;
};

// Splits a two-part input: a u32 LE length L, then L bytes of the first part (fewer when the
// input is shorter), then the rest as the second part.
inline void split2(const uint8_t* data, size_t size, std::string* first, std::string* second) {
  Reader r(data, size);
  uint32_t len = r.u32();
  *first = r.bytes(len);
  *second = r.rest();
}

// The inverse of split2 (seed generation).
inline std::string join2(const std::string& first, const std::string& second) {
  std::string out(4, '\0');
  auto len = static_cast<uint32_t>(first.size());
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>((len >> (8 * i)) & 0xff);
  return out + first + second;
}

// One inference over the spec section 7 byte interface with a fixed input: small integers for
// integer inputs (int8 or int32 little-endian), small floats for a float model's float32
// input. Reads the whole output.
inline void run_once(const std::shared_ptr<const cvm::Model>& model) {
  cvm::Session session(model);
  std::vector<char> in(model->input_length());
  const bool is_float = model->inputs().at(0).dtype == cvm::DataType::Float(32);
  const size_t type_size = is_float ? 4 : model->input_type_size();
  for (size_t i = 0; i + type_size <= in.size(); i += type_size) {
    const auto k = static_cast<int32_t>((i / type_size) % 17) - 8;  // -8 .. 8
    if (is_float) {
      float v = static_cast<float>(k) * 0.25f;
      std::memcpy(&in[i], &v, 4);
    } else if (type_size == 1) {
      in[i] = static_cast<char>(k);
    } else {
      std::memcpy(&in[i], &k, 4);  // little-endian hosts only, like the library
    }
  }
  std::vector<char> out(model->output_length());
  session.infer_bytes(in.data(), in.size(), out.data(), out.size());
  touch(out.data(), out.size());
}

}  // namespace cvm_fuzz
