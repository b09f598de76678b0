// C ABI operator calls: JSON attribute conversion, CVMOpRun ownership and errors, CVMOpList,
// CVMOpInfo, CVMOpHasKernel, CVMOperatorHasKernel and CVMOpInfer.
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "attrs_json.h"
#include "cvm/c_api.h"
#include "cvm/error.h"
#include "cvm/op.h"
#include "cvm/registry.h"

using Catch::Matchers::Contains;
using cvm::AttrMap;
using cvm::capi::attrs_from_json;

namespace {

std::string last_error() { return CVMGetLastError(); }

// The message of the LogicError that attrs_from_json(text) raises, or a marker when none.
std::string json_error(const std::string& text) {
  try {
    attrs_from_json(text.c_str(), "CVMOpRun");
  } catch (const cvm::LogicError& e) {
    return e.what();
  } catch (...) {
    return "<an exception other than LogicError>";
  }
  return "<no exception>";
}

CVMArrayHandle int32_array(const std::vector<int64_t>& shape, const std::vector<int32_t>& data) {
  CVMArrayHandle h = nullptr;
  REQUIRE(CVMArrayAlloc(shape.data(), static_cast<int>(shape.size()), kDLInt, 32, 1, kDLCPU, 0,
                        &h) == CVM_STATUS_OK);
  REQUIRE(CVMArrayCopyFromBytes(h, const_cast<int32_t*>(data.data()), data.size() * 4) == 0);
  return h;
}

std::vector<int32_t> int32_values(CVMArrayHandle h) {
  int64_t n = 1;
  for (int i = 0; i < h->ndim; ++i) n *= h->shape[i];
  std::vector<int32_t> out(static_cast<size_t>(n));
  REQUIRE(CVMArrayCopyToBytes(h, out.data(), out.size() * 4) == CVM_STATUS_OK);
  return out;
}

std::vector<int64_t> shape_of(CVMArrayHandle h) {
  return std::vector<int64_t>(h->shape, h->shape + h->ndim);
}

bool has_op(const char* name) {
  for (const cvm::OpInfo& info : cvm::list_ops()) {
    if (info.name == name) return true;
  }
  return false;
}

// Runs `op` on `inputs` and returns the outputs' values (freeing them); REQUIREs success.
std::vector<std::vector<int32_t>> run(const char* op, const std::vector<CVMArrayHandle>& inputs,
                                      const char* attrs) {
  CVMArrayHandle* outs = nullptr;
  int n = 0;
  int rc = CVMOpRun(op, inputs.data(), static_cast<int>(inputs.size()), attrs, &outs, &n);
  INFO(last_error());
  REQUIRE(rc == CVM_STATUS_OK);
  std::vector<std::vector<int32_t>> values;
  for (int i = 0; i < n; ++i) {
    values.push_back(int32_values(outs[i]));
    CHECK(CVMArrayFree(outs[i]) == CVM_STATUS_OK);
  }
  return values;
}

}  // namespace

TEST_CASE("attrs_json: every JSON value kind becomes CVM attribute text", "[capi_ops]") {
  CHECK(attrs_from_json(nullptr, "f").empty());
  CHECK(attrs_from_json("", "f").empty());
  CHECK(attrs_from_json("{}", "f").empty());
  CHECK(attrs_from_json(" { } ", "f").empty());

  AttrMap m = attrs_from_json(
      R"j({"s": "(3, 3)", "i": 10, "neg": -7, "big": 9223372036854775807,
          "min": -9223372036854775808, "f": 3.0, "nf": -2e3, "t": true, "fl": false,
          "n": null, "tuple": [1, -2, 3], "one": [5], "empty": [], "ftuple": [2.0, 4],
          "ws": "  NEAREST_NEIGHBOR "})j",
      "f");
  CHECK(m == AttrMap{{"s", "(3, 3)"},
                     {"i", "10"},
                     {"neg", "-7"},
                     {"big", "9223372036854775807"},
                     {"min", "-9223372036854775808"},
                     {"f", "3"},
                     {"nf", "-2000"},
                     {"t", "True"},
                     {"fl", "False"},
                     {"n", "None"},
                     {"tuple", "(1, -2, 3)"},
                     {"one", "(5,)"},
                     {"empty", "()"},
                     {"ftuple", "(2, 4)"},
                     {"ws", "  NEAREST_NEIGHBOR "}});
  // A repeated key: the last value wins (documented in c_api.h).
  CHECK(attrs_from_json(R"j({"a": 1, "a": 2})j", "f") == AttrMap{{"a", "2"}});
}

TEST_CASE("attrs_json: values without a CVM form are logic errors naming the key", "[capi_ops]") {
  using cvm::LogicError;
  auto fails = [](const char* text, const char* key, const char* what) {
    INFO(text);
    CHECK_THAT(json_error(text),
               Contains("CVMOpRun: attribute \"" + std::string(key) + "\"") && Contains(what));
  };
  fails(R"j({"alpha": 2.5})j", "alpha", "expected an integer");
  fails(R"j({"x": 1e30})j", "x", "expected an integer");
  fails(R"j({"x": 9223372036854775808})j", "x", "expected an integer");
  fails(R"j({"x": 18446744073709551615})j", "x", "expected an integer");
  fails(R"j({"obj": {"a": 1}})j", "obj", "found object");
  fails(R"j({"nest": [[1, 2]]})j", "nest", "expected an array of integers");
  fails(R"j({"mixed": [1, "2"]})j", "mixed", "item 1");
  fails(R"j({"fl": [1, 2.5]})j", "fl", "item 1");
  fails(R"j({"b": [true]})j", "b", "expected an array of integers");
}

TEST_CASE("attrs_json: malformed, non-object and oversized text is rejected", "[capi_ops]") {
  using cvm::LogicError;
  CHECK_THAT(json_error("{\"a\": "),
             Contains("CVMOpRun: attrs_json is not valid JSON: ") && Contains("syntax error"));
  CHECK_THAT(json_error("{'a': 1}"), Contains("not valid JSON"));
  CHECK_THAT(json_error("{} {}"), Contains("not valid JSON"));
  CHECK_THAT(json_error("{\"a\": \"\xff\"}"), Contains("not valid JSON"));
  // A number beyond double: the parser's out_of_range, a logic error like a syntax error.
  CHECK_THAT(json_error("{\"a\": 3e333}"),
             Contains("attrs_json is not valid JSON: number overflow parsing '3e333'"));
  CHECK_THAT(json_error("[1, 2]"), Contains("must be a JSON object, found array"));
  CHECK_THAT(json_error("7"), Contains("found number"));
  CHECK_THAT(json_error("null"), Contains("found null"));

  // Exactly the limit is accepted; one byte more is not, whatever follows.
  std::string at_limit = "{" + std::string(cvm::capi::kMaxAttrsJsonBytes - 2, ' ') + "}";
  CHECK(attrs_from_json(at_limit.c_str(), "f").empty());
  std::string over = "{" + std::string(cvm::capi::kMaxAttrsJsonBytes - 1, ' ') + "}";
  CHECK_THAT(json_error(over), Contains("longer than 1048576 bytes"));

  // Deep nesting within the size limit: an error, not a stack overflow (the parser recurses
  // once a level, up to 64; an attribute needs 2).
  std::string deep = "{\"a\": " + std::string(400000, '[') + std::string(400000, ']') + "}";
  CHECK_THAT(json_error(deep), Contains("not valid JSON: nesting deeper than 64 levels at byte 69"));
  std::string at_limit_depth = "{\"a\": " + std::string(63, '[') + std::string(63, ']') + "}";
  CHECK_THAT(json_error(at_limit_depth), Contains("expected an array of integers"));
  std::string unclosed = std::string(500000, '[');
  CHECK_THAT(json_error(unclosed), Contains("not valid JSON"));
}

TEST_CASE("CVMOpRun: argument errors are logic errors and leave outputs cleared", "[capi_ops]") {
  CVMArrayHandle* outs = reinterpret_cast<CVMArrayHandle*>(0x1);
  int n = 99;
  CHECK(CVMOpRun("relu", nullptr, 0, nullptr, nullptr, &n) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(), Contains("CVMOpRun: argument 'outputs' is NULL"));
  CHECK(CVMOpRun("relu", nullptr, 0, nullptr, &outs, nullptr) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(), Contains("'num_outputs' is NULL"));

  CHECK(CVMOpRun(nullptr, nullptr, 0, nullptr, &outs, &n) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(), Contains("'op_name' is NULL"));
  CHECK(outs == nullptr);
  CHECK(n == 0);

  CHECK(CVMOpRun("no_such_op", nullptr, 0, nullptr, &outs, &n) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(), Contains("unknown operator \"no_such_op\""));
  CHECK(CVMOpRun("relu", nullptr, 1, nullptr, &outs, &n) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(), Contains("'inputs' is NULL with num_inputs 1"));
  CHECK(CVMOpRun("relu", nullptr, -1, nullptr, &outs, &n) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(), Contains("num_inputs must be in 0..65536, got -1"));
  CVMArrayHandle null_input = nullptr;
  CHECK(CVMOpRun("relu", &null_input, 1, nullptr, &outs, &n) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(), Contains("input 0 is NULL"));
  CHECK(CVMOpRun("relu", nullptr, 0, "{\"x\": 1.5}", &outs, &n) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(), Contains("attribute \"x\""));
  CHECK(outs == nullptr);
  CHECK(n == 0);
}

TEST_CASE("CVMOpRun: outputs are new caller-owned handles, typed and string attrs agree",
          "[capi_ops]") {
  REQUIRE(has_op("relu"));
  REQUIRE(has_op("cvm_clip"));
  CVMArrayHandle x = int32_array({2, 3}, {-5, 3, 0, 100, -100, 7});

  CVMArrayHandle* outs = nullptr;
  int n = 0;
  REQUIRE(CVMOpRun("relu", &x, 1, nullptr, &outs, &n) == CVM_STATUS_OK);
  REQUIRE(n == 1);
  CVMArrayHandle relu_out = outs[0];
  CHECK(relu_out != x);
  CHECK(shape_of(relu_out) == std::vector<int64_t>{2, 3});
  CHECK(relu_out->dtype.code == kDLInt);
  CHECK(relu_out->dtype.bits == 32);

  // A second call replaces the thread-local handle list, not the handles handed out before.
  CHECK(run("cvm_clip", {x}, R"j({"precision": 4})j") ==
        std::vector<std::vector<int32_t>>{{-5, 3, 0, 7, -7, 7}});
  CHECK(run("cvm_clip", {x}, R"j({"precision": "4", "is_sign": true})j") ==
        std::vector<std::vector<int32_t>>{{-5, 3, 0, 7, -7, 7}});
  CHECK(int32_values(relu_out) == std::vector<int32_t>{0, 3, 0, 100, 0, 7});
  CHECK(int32_values(x) == std::vector<int32_t>{-5, 3, 0, 100, -100, 7});  // input untouched
  CHECK(CVMArrayFree(relu_out) == CVM_STATUS_OK);

  // Operator errors come through with the op layer's message.
  CHECK(CVMOpRun("cvm_clip", &x, 1, R"j({"precision": 33})j", &outs, &n) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(), Contains("cvm_clip") && Contains("precision"));
  CHECK(CVMOpRun("relu", &x, 1, R"j({"bogus": 1})j", &outs, &n) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(), Contains("bogus"));
  CHECK(CVMArrayFree(x) == CVM_STATUS_OK);
}

TEST_CASE("CVMOpRun: tuple attributes from JSON arrays, two-output operators", "[capi_ops]") {
  REQUIRE(has_op("max_pool2d"));
  REQUIRE(has_op("get_valid_counts"));
  std::vector<int32_t> data(16);
  for (int i = 0; i < 16; ++i) data[i] = i;
  CVMArrayHandle x = int32_array({1, 1, 4, 4}, data);
  auto pooled = run("max_pool2d", {x}, R"j({"pool_size": [2, 2], "strides": [2, 2]})j");
  CHECK(pooled == std::vector<std::vector<int32_t>>{{5, 7, 13, 15}});
  CHECK(run("max_pool2d", {x}, R"j({"pool_size": "(2, 2)", "strides": "[2,2]"})j") == pooled);
  CHECK(CVMArrayFree(x) == CVM_STATUS_OK);

  CVMArrayHandle boxes = int32_array({1, 3, 2}, {0, 5, 1, -1, 2, 9});
  CVMArrayHandle* outs = nullptr;
  int n = 0;
  REQUIRE(CVMOpRun("get_valid_counts", &boxes, 1, R"j({"score_threshold": 0})j", &outs, &n) == 0);
  REQUIRE(n == 2);
  std::vector<CVMArrayHandle> keep(outs, outs + n);
  CHECK(shape_of(keep[0]) == std::vector<int64_t>{1});
  CHECK(int32_values(keep[0]) == std::vector<int32_t>{2});
  CHECK(int32_values(keep[1]) == std::vector<int32_t>{0, 5, 2, 9, -1, -1});
  for (CVMArrayHandle h : keep) CHECK(CVMArrayFree(h) == CVM_STATUS_OK);
  CHECK(CVMArrayFree(boxes) == CVM_STATUS_OK);
}

TEST_CASE("CVMOpRun: threads keep their own output lists", "[capi_ops][threads]") {
  REQUIRE(has_op("negative"));
  std::vector<std::thread> threads;
  std::vector<int> ok(8, 0);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([t, &ok] {
      int good = 1;
      for (int iter = 0; iter < 200; ++iter) {
        int64_t shape[1] = {3};
        int32_t in[3] = {t, iter, -t};
        CVMArrayHandle x = nullptr;
        CVMArrayAlloc(shape, 1, kDLInt, 32, 1, kDLCPU, 0, &x);
        CVMArrayCopyFromBytes(x, in, sizeof(in));
        CVMArrayHandle* outs = nullptr;
        int n = 0;
        if (CVMOpRun("negative", &x, 1, "", &outs, &n) != 0 || n != 1) good = 0;
        int32_t got[3] = {0, 0, 0};
        if (good) CVMArrayCopyToBytes(outs[0], got, sizeof(got));
        good = good && got[0] == -t && got[1] == -iter && got[2] == t;
        if (n == 1) CVMArrayFree(outs[0]);
        CVMArrayFree(x);
      }
      ok[t] = good;
    });
  }
  for (auto& th : threads) th.join();
  CHECK(ok == std::vector<int>(8, 1));
}

TEST_CASE("CVMOpList and CVMOpInfo agree with list_ops", "[capi_ops]") {
  const char** names = nullptr;
  int count = -1;
  REQUIRE(CVMOpList(&names, &count) == CVM_STATUS_OK);
  std::vector<cvm::OpInfo> ops = cvm::list_ops();
  REQUIRE(count == static_cast<int>(ops.size()));
  for (int i = 0; i < count; ++i) {
    INFO(ops[i].name);
    CHECK(names[i] == ops[i].name);
    int in = -2, out = -2, is_cvm = -2;
    REQUIRE(CVMOpInfo(names[i], &in, &out, &is_cvm) == CVM_STATUS_OK);
    CHECK(in == ops[i].num_inputs);
    CHECK(out == ops[i].num_outputs);
    CHECK(is_cvm == (ops[i].cvm ? 1 : 0));
    CHECK(CVMOpInfo(names[i], nullptr, nullptr, nullptr) == CVM_STATUS_OK);
  }
  CHECK(CVMOpList(nullptr, &count) == CVM_STATUS_LOGIC_ERROR);
  CHECK(CVMOpList(&names, nullptr) == CVM_STATUS_LOGIC_ERROR);
  CHECK(CVMOpInfo(nullptr, nullptr, nullptr, nullptr) == CVM_STATUS_LOGIC_ERROR);
  CHECK(CVMOpInfo("no_such_op", nullptr, nullptr, nullptr) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(), Contains("unknown operator \"no_such_op\""));
}

TEST_CASE("CVMOpHasKernel answers from the kernel tables", "[capi_ops]") {
  int available = -1;
  std::vector<cvm::KernelInfo> kernels = cvm::list_kernels();
  REQUIRE(!kernels.empty());
  for (const cvm::KernelInfo& k : kernels) {
    if (!k.usable) continue;
    INFO(k.backend << " " << k.op << " " << k.dtype);
    std::string dtype = k.dtype == "any" ? "uint16" : k.dtype;
    REQUIRE(CVMOpHasKernel(k.op.c_str(), dtype.c_str(), k.backend.c_str(), &available) == 0);
    CHECK(available == 1);
    REQUIRE(CVMOpHasKernel(k.op.c_str(), dtype.c_str(), nullptr, &available) == 0);
    CHECK(available == 1);
    REQUIRE(CVMOpHasKernel(k.op.c_str(), dtype.c_str(), "", &available) == 0);
    CHECK(available == 1);
  }
  REQUIRE(CVMOpHasKernel("no_such_kernel", "int32", nullptr, &available) == 0);
  CHECK(available == 0);
  REQUIRE(CVMOpHasKernel(kernels[0].op.c_str(), "int32", "no_such_backend", &available) == 0);
  CHECK(available == 0);
  CHECK(CVMOpHasKernel("add", "int33", nullptr, &available) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(), Contains("int33"));
  CHECK(CVMOpHasKernel("add", "int32", nullptr, nullptr) == CVM_STATUS_LOGIC_ERROR);
  CHECK(CVMOpHasKernel(nullptr, "int32", nullptr, &available) == CVM_STATUS_LOGIC_ERROR);
  CHECK(CVMOpHasKernel("add", nullptr, nullptr, &available) == CVM_STATUS_LOGIC_ERROR);
}

TEST_CASE("CVMOperatorHasKernel answers in operator names", "[capi_ops]") {
  int available = -1;
  // "sum" calls the "reduce_sum" kernel, which is no operator's name: the old query misses it.
  REQUIRE(CVMOperatorHasKernel("sum", "int32", "scalar", &available) == 0);
  CHECK(available == 1);
  REQUIRE(CVMOpHasKernel("sum", "int32", "scalar", &available) == 0);
  CHECK(available == 0);
  // The reference has every operator's kernels for int32 (CVM operators).
  const char** names = nullptr;
  int count = 0;
  REQUIRE(CVMOpList(&names, &count) == 0);
  const std::vector<std::string> ops(names, names + count);
  for (const std::string& op : ops) {
    int is_cvm = 0;
    REQUIRE(CVMOpInfo(op.c_str(), nullptr, nullptr, &is_cvm) == 0);
    if (is_cvm == 0) continue;
    INFO(op);
    REQUIRE(CVMOperatorHasKernel(op.c_str(), "int32", nullptr, &available) == 0);
    CHECK(available == 1);
  }
  // A backend answers for its own kernels: "cast" calls "copy" and "cast", which only the
  // scalar reference and the CUDA backend have (CUDA: where a GPU is present).
  for (const std::string& backend : cvm::compiled_backends()) {
    INFO(backend);
    REQUIRE(CVMOperatorHasKernel("cast", "int8", backend.c_str(), &available) == 0);
    const bool gpu = backend == "cuda" && cvm::device_count(kDLCUDA) > 0;
    CHECK(available == (backend == "scalar" || gpu ? 1 : 0));
    bool usable_conv = false;  // under CVMRT_ISA=scalar the x86 entries are not usable
    for (const cvm::KernelInfo& k : cvm::list_kernels()) {
      usable_conv = usable_conv || (k.backend == backend && k.op == "conv2d" &&
                                    k.dtype == "int32" && k.usable);
    }
    REQUIRE(CVMOperatorHasKernel("conv2d", "int32", backend.c_str(), &available) == 0);
    CHECK(available == (usable_conv ? 1 : 0));
  }
  REQUIRE(CVMOperatorHasKernel("conv2d", "int32", "no_such_backend", &available) == 0);
  CHECK(available == 0);
  CHECK(CVMOperatorHasKernel("conv9d", "int32", nullptr, &available) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(), Contains("unknown operator \"conv9d\""));
  CHECK(available == 0);
  CHECK(CVMOperatorHasKernel("add", "int33", nullptr, &available) == CVM_STATUS_LOGIC_ERROR);
  CHECK(CVMOperatorHasKernel("add", "int32", nullptr, nullptr) == CVM_STATUS_LOGIC_ERROR);
  CHECK(CVMOperatorHasKernel(nullptr, "int32", nullptr, &available) == CVM_STATUS_LOGIC_ERROR);
}

TEST_CASE("CVMOpInfer: shapes, precisions and cost of the spec's dense example", "[capi_ops]") {
  REQUIRE(has_op("dense"));
  const int64_t x[2] = {1, 4}, w[2] = {3, 4}, b[1] = {3};
  const int64_t* shapes[3] = {x, w, b};
  const int ndims[3] = {2, 2, 1};
  const int precisions[3] = {8, 8, 8};
  int n = -1;
  const int64_t* const* out_shapes = nullptr;
  const int* out_ndims = nullptr;
  const int* out_precisions = nullptr;
  int64_t cost = -1;
  REQUIRE(CVMOpInfer("dense", shapes, ndims, precisions, 2, R"j({"units": 3, "use_bias": false})j",
                     &n, &out_shapes, &out_ndims, &out_precisions, &cost) == CVM_STATUS_OK);
  REQUIRE(n == 1);
  REQUIRE(out_ndims[0] == 2);
  CHECK(out_shapes[0][0] == 1);
  CHECK(out_shapes[0][1] == 3);
  CHECK(out_precisions[0] == 8 + 8 + 3);  // NB(4) = 3
  CHECK(cost == 12);                      // ops = 12 * 3 = 36 as in the spec
  REQUIRE(CVMOpInfer("dense", shapes, ndims, precisions, 3, R"j({"units": 3})j", &n, &out_shapes,
                     &out_ndims, &out_precisions, &cost) == CVM_STATUS_OK);
  CHECK(out_precisions[0] == 20);
  CHECK(cost == 13);

  const int too_wide[3] = {9, 8, 8};
  CHECK(CVMOpInfer("dense", shapes, ndims, too_wide, 3, R"j({"units": 3})j", &n, &out_shapes,
                   &out_ndims, &out_precisions, &cost) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(), Contains("dense"));
  CHECK(n == 0);
  CHECK(out_shapes == nullptr);
  const int bad_ndims[3] = {-1, 2, 1};
  CHECK(CVMOpInfer("dense", shapes, bad_ndims, precisions, 3, nullptr, &n, &out_shapes, &out_ndims,
                   &out_precisions, &cost) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(), Contains("input 0: ndim must be in 0..32, got -1"));
  CHECK(CVMOpInfer("dense", nullptr, ndims, precisions, 3, nullptr, &n, &out_shapes, &out_ndims,
                   &out_precisions, &cost) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(), Contains("'input_shapes' is NULL"));
  CHECK(CVMOpInfer("dense", shapes, ndims, precisions, 3, nullptr, &n, &out_shapes, &out_ndims,
                   &out_precisions, nullptr) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(), Contains("'cost_base' is NULL"));

  for (const cvm::OpInfo& info : cvm::list_ops()) {
    if (info.cvm) continue;
    CHECK(CVMOpInfer(info.name.c_str(), nullptr, nullptr, nullptr, 0, nullptr, &n, &out_shapes,
                     &out_ndims, &out_precisions, &cost) == CVM_STATUS_LOGIC_ERROR);
    CHECK_THAT(last_error(), Contains("is not a CVM operator"));
    break;
  }
}
