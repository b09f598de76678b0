// libFuzzer target: CVMOpRun with the operator name, inputs (dtypes, shapes, data) and JSON attributes all from the input.
//
// Input layout (tests/fuzz/make_seeds.cc writes it):
//   u8 name length, the name
//   u8 input count (mod 9), then per input: u8 dtype (index into cvm::kAllDataTypes, mod 13),
//      u8 rank (mod 7), one u8 extent per dimension
//   u16 LE attrs length, the attrs JSON text (no NUL needed; an embedded NUL ends it)
//   the rest: the inputs' bytes, back to back, row-major (zeros past the end)
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "attrs_json.h"  // core/src: the JSON -> AttrMap conversion CVMOpRun itself uses
#include "cvm/c_api.h"
#include "cvm/dtype.h"
#include "cvm/shape.h"
#include "fuzz_util.h"
#include "op_def.h"  // core/ops: shape inference, to skip inputs that would be too large

namespace {

constexpr int kMaxInputs = 8;
constexpr int64_t kMaxInputElements = int64_t{1} << 16;
constexpr int64_t kMaxOutputElements = int64_t{1} << 22;  // 16 MiB of int32
constexpr int64_t kMaxCost = int64_t{1} << 26;

struct Handle {
  CVMArrayHandle h = nullptr;
  ~Handle() { CVMArrayFree(h); }
};

// Whether CVMOpRun may run this call within the fuzzing budget: false when the op's own
// inference says the outputs or the cost are too large. CVMOpRun itself has no limit option
// (docs/fuzzing.md). A malformed call (unknown op, bad attrs, shapes or dtypes) is fine to run:
// CVMOpRun must reject it with a logic error.
bool within_budget(const std::string& name, const std::vector<cvm::Shape>& shapes,
                   const std::vector<cvm::DataType>& dtypes, const std::string& attrs_json) {
  const cvm::ops::OpDef* op = cvm::ops::find_op(name);
  if (op == nullptr) return true;
  try {
    cvm::AttrMap attrs = cvm::capi::attrs_from_json(attrs_json.c_str(), "fuzz");
    std::unique_ptr<cvm::ops::OpAttrs> parsed = op->parse(attrs);
    if (op->num_inputs() >= 0 && static_cast<size_t>(op->num_inputs()) != shapes.size()) {
      return true;
    }
    if (op->num_inputs() < 0 && shapes.empty()) return true;
    op->infer_dtypes(*parsed, dtypes);
    std::vector<cvm::Shape> out = op->infer_shapes(*parsed, shapes);
    int64_t total = 0;
    for (const cvm::Shape& s : out) {
      if (s.numel() > kMaxOutputElements) return false;
      total += s.numel();
    }
    if (total > kMaxOutputElements) return false;
    const int64_t base = op->cost_base(*parsed, shapes);
    if (!out.empty() && base > 0 && out[0].numel() > 0 && base > kMaxCost / out[0].numel()) {
      return false;
    }
  } catch (const cvm::LogicError&) {
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  cvm_fuzz::init();
  cvm_fuzz::Reader r(data, size);
  const std::string name = r.bytes(r.u8());
  const int n = r.u8() % (kMaxInputs + 1);
  std::vector<cvm::Shape> shapes;
  std::vector<cvm::DataType> dtypes;
  constexpr int kNumTypes = sizeof(cvm::kAllDataTypes) / sizeof(cvm::kAllDataTypes[0]);
  for (int i = 0; i < n; ++i) {
    dtypes.push_back(cvm::kAllDataTypes[r.u8() % kNumTypes]);
    std::vector<int64_t> dims(r.u8() % 7);
    int64_t numel = 1;
    for (int64_t& d : dims) {
      d = r.u8();
      numel *= d;
    }
    if (numel > kMaxInputElements) return 0;
    shapes.emplace_back(dims);
  }
  std::string attrs = r.bytes(r.u16());
  attrs = attrs.c_str();  // up to an embedded NUL, as a C caller's string would end
  if (!within_budget(name, shapes, dtypes, attrs)) return 0;

  std::vector<Handle> inputs(static_cast<size_t>(n));
  std::vector<CVMArrayHandle> handles;
  for (int i = 0; i < n; ++i) {
    const std::vector<int64_t> dims = shapes[i].to_vector();
    const DLDataType t = dtypes[i].dl();
    if (CVMArrayAlloc(dims.data(), static_cast<int>(dims.size()), t.code, t.bits, t.lanes, 1, 0,
                      &inputs[i].h) != CVM_STATUS_OK) {
      cvm_fuzz::fail("CVMArrayAlloc", CVMGetLastError());
    }
    std::string bytes = r.bytes(static_cast<size_t>(shapes[i].numel()) * dtypes[i].bytes());
    bytes.resize(static_cast<size_t>(shapes[i].numel()) * dtypes[i].bytes(), '\0');
    if (dtypes[i] == cvm::DataType::Bool()) {
      for (char& c : bytes) c = static_cast<char>(c & 1);  // a bool byte is 0 or 1
    }
    if (CVMArrayCopyFromBytes(inputs[i].h, &bytes[0], bytes.size()) != CVM_STATUS_OK) {
      cvm_fuzz::fail("CVMArrayCopyFromBytes", CVMGetLastError());
    }
    handles.push_back(inputs[i].h);
  }

  CVMArrayHandle* outputs = nullptr;
  int num_outputs = 0;
  const int rc = CVMOpRun(name.c_str(), handles.data(), n, attrs.c_str(), &outputs, &num_outputs);
  if (rc == CVM_STATUS_LOGIC_ERROR) return 0;
  if (rc != CVM_STATUS_OK) cvm_fuzz::fail("CVMOpRun", CVMGetLastError());
  std::vector<Handle> owned(static_cast<size_t>(num_outputs));
  for (int i = 0; i < num_outputs; ++i) owned[i].h = outputs[i];
  for (const Handle& out : owned) cvm_fuzz::touch_handle(out.h, "CVMOpRun output");
  return 0;
}
