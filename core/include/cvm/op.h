// The generic operator entry point: run any registered operator by name, list operators.
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "cvm/export.h"
#include "cvm/message.h"
#include "cvm/ndarray.h"

namespace cvm {

// One operator attribute value: either CVM attribute text, as model files and C++ callers give
// it ("(3, 3)", "True", "None", "10"; parsed by the operator), or a typed value, as the C ABI
// takes it from JSON (an integer, a bool, None or a tuple of integers; read without any text).
// A JSON string is text. Converts implicitly from std::string and const char* (text), so
// `AttrMap a = {{"axis", "1"}}` and `a["units"] = std::to_string(n)` work; typed values come
// from the factories. Reading accepts what the text form would: an integer where a tuple is
// expected is a 1-tuple, 0 and 1 are bools, None is the absent value of an optional attribute.
class CVM_EXPORT AttrValue {
 public:
  enum class Kind { kText, kInt, kBool, kNone, kTuple };

  AttrValue() = default;                                         // the empty text ""
  AttrValue(std::string text) : v_(std::move(text)) {}           // NOLINT: implicit on purpose
  AttrValue(const char* text) : v_(std::string(text)) {}         // NOLINT: implicit on purpose

  static AttrValue integer(int64_t v) { return AttrValue(Payload(std::in_place_index<1>, v)); }
  static AttrValue boolean(bool v) { return AttrValue(Payload(std::in_place_index<2>, v)); }
  static AttrValue none() { return AttrValue(Payload(std::in_place_index<3>)); }
  static AttrValue tuple(std::vector<int64_t> v) {
    return AttrValue(Payload(std::in_place_index<4>, std::move(v)));
  }

  Kind kind() const { return static_cast<Kind>(v_.index()); }
  bool is_text() const { return kind() == Kind::kText; }
  // The payload of each kind; calling the wrong one throws std::bad_variant_access.
  const std::string& as_text() const { return std::get<0>(v_); }
  int64_t as_int() const { return std::get<1>(v_); }
  bool as_bool() const { return std::get<2>(v_); }
  const std::vector<int64_t>& as_tuple() const { return std::get<4>(v_); }

  // The CVM text form, for writers (model files, graph JSON) and messages: text as given; typed
  // values in the canonical form: decimal, "True"/"False", "None", "(a, b)" / "(a,)" / "()".
  std::string text() const {
    switch (kind()) {
      case Kind::kText: return as_text();
      case Kind::kInt: return std::to_string(as_int());
      case Kind::kBool: return as_bool() ? "True" : "False";
      case Kind::kNone: return "None";
      case Kind::kTuple: break;
    }
    const std::vector<int64_t>& t = as_tuple();
    std::string s = "(";
    for (size_t i = 0; i < t.size(); ++i) s += (i ? ", " : "") + std::to_string(t[i]);
    return s + (t.size() == 1 ? ",)" : ")");
  }

  // Equal when the text forms are: AttrValue::integer(3) == "3", but "3" != " 3".
  friend bool operator==(const AttrValue& a, const AttrValue& b) { return a.text() == b.text(); }
  friend bool operator!=(const AttrValue& a, const AttrValue& b) { return !(a == b); }
  friend std::ostream& operator<<(std::ostream& os, const AttrValue& v) { return os << v.text(); }
  friend detail::MessageStream& operator<<(detail::MessageStream& os, const AttrValue& v) {
    return os << v.text();
  }

 private:
  struct NoneTag {};
  using Payload = std::variant<std::string, int64_t, bool, NoneTag, std::vector<int64_t>>;
  explicit AttrValue(Payload v) : v_(std::move(v)) {}
  Payload v_;
};

// Operator attributes by name: {"kernel_size": "(3, 3)", "use_bias": "True", "axis": "None",
// "units": "10"} in CVM text, or typed values (AttrValue) as CVMOpRun passes its JSON. In text,
// tuples may be written "(a, b)", "[a, b]" or a bare number; bools true/false/1/0 in any case.
using AttrMap = std::map<std::string, AttrValue>;

// The most elements one output of run_op / CVMOpRun may have (a model entry's default limit,
// ModelLimits::max_elements): attributes such as tile's reps cannot make it allocate more.
constexpr int64_t kMaxOpOutputElements = int64_t{1} << 30;

// Runs operator `name` on `inputs`, allocating and returning its outputs. Validates arity,
// attributes, dtypes and shapes first: LogicError naming the op, the attribute or input, the
// expected and the found value. CVM operators (spec/cvm-ops.md section 5) take int32 arrays.
// An output over kMaxOpOutputElements is a LogicError before anything is allocated.
CVM_EXPORT std::vector<NDArray> run_op(const std::string& name, const std::vector<NDArray>& inputs,
                                       const AttrMap& attrs = {});

struct OpInfo {
  std::string name;
  int num_inputs;   // -1: any number >= 1
  int num_outputs;
  bool cvm;         // a CVM model operator (int32, precision and cost rules)
  bool inplace;     // its output may share storage with its first input (spec section 3)
};

// Every registered operator, in a fixed order.
CVM_EXPORT std::vector<OpInfo> list_ops();

// Shape, precision and cost of one CVM operator without running it (spec sections 5 and 6).
struct OpInference {
  std::vector<std::vector<int64_t>> output_shapes;
  std::vector<int> output_precisions;  // empty for non-CVM operators
  int64_t cost_base = 1;               // ops = cost_base * size(first output)
};
CVM_EXPORT OpInference infer_op(const std::string& name,
                                const std::vector<std::vector<int64_t>>& input_shapes,
                                const std::vector<int>& input_precisions, const AttrMap& attrs = {});

}  // namespace cvm
