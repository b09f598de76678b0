// The model C ABI (CVMAPI* and CVMModel* / CVMSession*) against the hand-built models of
// tests/models and their .case.json expectations: cost, byte layout, outputs, errors, threads.
#include <atomic>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "cvm/c_api.h"
#include "cvm/registry.h"
#include "cvm/version.h"
#include "graph_test_util.h"
#include "test_util.h"

namespace {

using cvm::test::decode_values;
using cvm::test::input_bytes;
using cvm::test::load_case;
using cvm::test::ModelCase;

std::string last_error() { return CVMGetLastError(); }

// A CVMAPILoadModel net that frees itself.
struct Net {
  void* net = nullptr;
  Net(const ModelCase& c, int device_type) {
    std::vector<uint8_t> params = c.params(cvm::ParamFormat::kLegacy);
    const int rc = CVMAPILoadModel(c.graph.data(), static_cast<int>(c.graph.size()),
                                   reinterpret_cast<const char*>(params.data()),
                                   static_cast<int>(params.size()), &net, device_type, 0);
    INFO(last_error());
    REQUIRE(rc == 0);
    REQUIRE(net != nullptr);
  }
  ~Net() { CVMAPIFreeModel(net); }
  Net(const Net&) = delete;
  Net& operator=(const Net&) = delete;
  unsigned long long get(int (*fn)(void*, unsigned long long*)) const {
    unsigned long long v = 0;
    REQUIRE(fn(net, &v) == 0);
    return v;
  }
};

std::vector<int64_t> expected_bytes_values(const ModelCase& c) {
  return c.spec.at("infer_bytes").at("values").get<std::vector<int64_t>>();
}

}  // namespace

TEST_CASE("CVMAPI calls reproduce every tests/models case", "[cvmapi]") {
  for (const char* name : cvm::test::kModelCases) {
    for (int device : {CVM_MODEL_DEVICE_CPU, CVM_MODEL_DEVICE_REFERENCE}) {
      DYNAMIC_SECTION(name << " on device " << device) {
        const ModelCase c = load_case(name);
        Net n(c, device);
        const auto& cost = c.spec.at("cost");
        const uint64_t total = cost.at("total").get<uint64_t>();
        CHECK(n.get(CVMAPIGetGasFromModel) == total);
        unsigned long long gas = 0;
        REQUIRE(CVMAPIGetGasFromGraphFile(c.graph.c_str(), &gas) == 0);
        CHECK(gas == total);

        const cvm::NDArray input = c.input();
        const size_t in_type = n.get(CVMAPIGetInputTypeSize);
        CHECK(n.get(CVMAPIGetInputLength) == static_cast<uint64_t>(input.numel()) * in_type);
        std::vector<char> in = input_bytes(input, in_type);
        const size_t out_len = n.get(CVMAPIGetOutputLength);
        // One canary byte past the output: CVMAPIInference writes exactly out_len bytes.
        std::vector<char> out(out_len + 1, '\x5a');
        const int rc = CVMAPIInference(n.net, in.data(), static_cast<int>(in.size()), out.data());
        if (c.spec.contains("infer_error")) {
          CHECK(rc == 1);
          CHECK_THAT(last_error(), Catch::Contains(c.spec.at("infer_error").get<std::string>()));
          continue;
        }
        INFO(last_error());
        REQUIRE(rc == 0);
        CHECK(out.back() == '\x5a');
        out.pop_back();
        const size_t out_type = c.spec.at("infer_bytes").at("type_size").get<size_t>();
        CHECK(n.get(CVMAPIGetOutputTypeSize) == out_type);
        CHECK(decode_values(out, out_type) == expected_bytes_values(c));
      }
    }
  }
}

TEST_CASE("CVMModel and CVMSession calls reproduce every tests/models case", "[cvmapi]") {
  for (const char* name : cvm::test::kModelCases) {
    DYNAMIC_SECTION(name) {
      const ModelCase c = load_case(name);
      std::vector<uint8_t> params = c.params(cvm::ParamFormat::kCvmrt);
      CVMModelHandle model = nullptr;
      REQUIRE(CVMModelLoadCVM(c.graph.data(), c.graph.size(), params.data(), params.size(),
                              &model) == 0);
      uint64_t ops = 0, mem = 0, total = 0;
      REQUIRE(CVMModelGetCost(model, &ops, &mem, &total) == 0);
      CHECK(ops == c.spec.at("cost").at("ops").get<uint64_t>());
      CHECK(mem == c.spec.at("cost").at("mem").get<uint64_t>());
      CHECK(total == c.spec.at("cost").at("total").get<uint64_t>());

      int num_outputs = 0;
      REQUIRE(CVMModelNumOutputs(model, &num_outputs) == 0);
      const auto expected = c.spec.at("outputs").get<std::vector<std::vector<int64_t>>>();
      const auto precisions = c.spec.at("precisions").get<std::vector<int>>();
      REQUIRE(static_cast<size_t>(num_outputs) == expected.size());
      const cvm::NDArray input = c.input();
      int ndim = 0, precision = 0;
      const int64_t* shape = nullptr;
      const char* in_name = nullptr;
      REQUIRE(CVMModelGetInputInfo(model, 0, &in_name, &ndim, &shape, &precision) == 0);
      CHECK(std::string(in_name) == "data");
      CHECK(cvm::Shape(shape, ndim) == input.shape());

      CVMSessionHandle session = nullptr;
      REQUIRE(CVMSessionCreate(model, &session) == 0);
      // The C handle of the input array: a fresh int32 copy (borrowed by SetInput, not kept).
      CVMArrayHandle in = nullptr;
      std::vector<int64_t> dims = input.shape().to_vector();
      REQUIRE(CVMArrayAlloc(dims.data(), static_cast<int>(dims.size()), kDLInt, 32, 1, kDLCPU, 0,
                            &in) == 0);
      std::vector<int32_t> values;
      for (int64_t i = 0; i < input.numel(); ++i) {
        values.push_back(static_cast<int32_t>(cvm::test::int_at(input, i)));
      }
      REQUIRE(CVMArrayCopyFromBytes(in, values.data(), values.size() * 4) == 0);
      REQUIRE(CVMSessionSetInput(session, "data", in) == 0);
      REQUIRE(CVMSessionRun(session) == 0);
      for (int k = 0; k < num_outputs; ++k) {
        const char* out_name = nullptr;
        REQUIRE(CVMModelGetOutputInfo(model, k, &out_name, &ndim, &shape, &precision) == 0);
        CHECK(precision == precisions[static_cast<size_t>(k)]);
        CVMArrayHandle out = nullptr;
        REQUIRE(CVMSessionGetOutput(session, k, &out) == 0);
        CHECK(out->ndim == ndim);
        CHECK(std::equal(shape, shape + ndim, out->shape));
        std::vector<int32_t> got(expected[static_cast<size_t>(k)].size());
        REQUIRE(CVMArrayCopyToBytes(out, got.data(), got.size() * 4) == 0);
        CHECK(std::vector<int64_t>(got.begin(), got.end()) == expected[static_cast<size_t>(k)]);
        CVMArrayFree(out);
      }
      CVMArrayFree(in);
      CHECK(CVMSessionFree(session) == 0);

      // Bytes with an exact capacity, and one byte short (nothing written).
      size_t in_len = 0, out_len = 0, written = 7;
      REQUIRE(CVMModelGetByteLengths(model, &in_len, &out_len) == 0);
      unsigned long long type_size = 0;
      REQUIRE(CVMAPIGetInputTypeSize(model, &type_size) == 0);
      std::vector<char> in_bytes = input_bytes(input, type_size);
      REQUIRE(in_bytes.size() == in_len);
      std::vector<char> out(out_len + 8, '\x5a');
      int rc = CVMModelInferBytes(model, in_bytes.data(), in_len, out.data(), out_len, &written);
      if (c.spec.contains("infer_error")) {
        CHECK(rc == 1);
        CHECK(written == 0);
      } else {
        REQUIRE(rc == 0);
        CHECK(written == out_len);
        const size_t out_type = c.spec.at("infer_bytes").at("type_size").get<size_t>();
        CHECK(decode_values(std::vector<char>(out.begin(), out.begin() + out_len), out_type) ==
              expected_bytes_values(c));
        CHECK(std::all_of(out.begin() + out_len, out.end(), [](char b) { return b == '\x5a'; }));
        std::fill(out.begin(), out.end(), '\x5a');
        rc = CVMModelInferBytes(model, in_bytes.data(), in_len, out.data(), out_len - 1, &written);
        CHECK(rc == 1);
        CHECK_THAT(last_error(), Catch::Contains("output buffer"));
        CHECK(written == 0);
        CHECK(std::all_of(out.begin(), out.end(), [](char b) { return b == '\x5a'; }));
      }
      CHECK(CVMModelFree(model) == 0);
    }
  }
}

TEST_CASE("CVM graph JSON: trailing NULs end the text, other bytes after the value do not",
          "[cvmapi]") {
  const ModelCase c = load_case("mlp");
  const std::vector<uint8_t> params = c.params(cvm::ParamFormat::kLegacy);
  auto load = [&](const std::string& graph) {
    CVMModelHandle model = nullptr;
    const int rc = CVMModelLoadCVM(graph.data(), graph.size(), params.data(), params.size(),
                                   &model);
    CVMModelFree(model);
    return rc;
  };
  CHECK(load(c.graph) == 0);
  CHECK(load(c.graph + std::string(3, '\0')) == 0);  // strlen + 1 and more
  CHECK(load(c.graph + std::string("\0x", 2)) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(), Catch::Contains("not valid JSON (syntax error at byte ") &&
                               Catch::Contains("unexpected text after the value"));
  CHECK(load(c.graph + " ]") == CVM_STATUS_LOGIC_ERROR);
  // CVMAPILoadModel with the NUL counted, as bindings that pass strlen + 1 do.
  void* net = nullptr;
  REQUIRE(CVMAPILoadModel(c.graph.c_str(), static_cast<int>(c.graph.size() + 1),
                          reinterpret_cast<const char*>(params.data()),
                          static_cast<int>(params.size()), &net, CVM_MODEL_DEVICE_CPU, 0) == 0);
  CVMAPIFreeModel(net);
}

TEST_CASE("CVMModelLoadFile and CVMModelLoadBytes read cvmrt model files", "[cvmapi]") {
  const ModelCase c = load_case("mlp");
  const auto model = c.load();
  const std::string path = cvm::test::tmp_path("c_api_model_mlp.cvmrt");
  model->save_file(path);
  CVMModelHandle from_file = nullptr, from_bytes = nullptr;
  REQUIRE(CVMModelLoadFile(path.c_str(), &from_file) == 0);
  const std::vector<uint8_t> bytes = model->save();
  REQUIRE(CVMModelLoadBytes(bytes.data(), bytes.size(), &from_bytes) == 0);
  std::vector<char> in = input_bytes(c.input(), model->input_type_size());
  Net from_json(c, CVM_MODEL_DEVICE_CPU);
  for (CVMModelHandle h : {from_file, from_bytes}) {
    uint64_t total = 0;
    REQUIRE(CVMModelGetCost(h, nullptr, nullptr, &total) == 0);
    CHECK(total == model->cost().total);
    std::vector<char> out(model->output_length());
    size_t written = 0;
    REQUIRE(CVMModelInferBytes(h, in.data(), in.size(), out.data(), out.size(), &written) == 0);
    CHECK(decode_values(out, model->output_type_size()) == expected_bytes_values(c));
    // The model file keeps the CVM storage ids: the same storage size as the JSON import.
    unsigned long long storage = 0;
    REQUIRE(CVMAPIGetStorageSize(h, &storage) == 0);
    CHECK(storage == from_json.get(CVMAPIGetStorageSize));
    // Written by this library; a CVM JSON import has no producer.
    const char* producer = nullptr;
    REQUIRE(CVMModelGetProducer(h, &producer) == 0);
    CHECK(std::string(producer) == "cvmrt " CVMRT_VERSION_STRING);
    CHECK(CVMModelFree(h) == 0);
  }
  const char* none = nullptr;
  REQUIRE(CVMModelGetProducer(static_cast<CVMModelHandle>(from_json.net), &none) == 0);
  CHECK(std::string(none).empty());
  CHECK(CVMModelGetProducer(static_cast<CVMModelHandle>(from_json.net), nullptr) == 1);
  CHECK(last_error() == "CVMModelGetProducer: argument 'producer' is NULL");
  std::vector<uint8_t> broken = bytes;
  broken.resize(broken.size() / 2);
  CVMModelHandle h = nullptr;
  CHECK(CVMModelLoadBytes(broken.data(), broken.size(), &h) == 1);
  CHECK(h == nullptr);
  CHECK_FALSE(last_error().empty());
  CHECK(CVMModelLoadBytes(nullptr, 10, &h) == 1);
}

TEST_CASE("CVMAPILoadModel device 2 runs with the scalar backend, whatever the preferred one",
          "[cvmapi]") {
  const ModelCase c = load_case("chain");
  Net reference(c, CVM_MODEL_DEVICE_REFERENCE);
  std::vector<char> in = input_bytes(c.input(), reference.get(CVMAPIGetInputTypeSize));
  std::vector<char> out(reference.get(CVMAPIGetOutputLength));
  for (const std::string& backend : cvm::test::runnable_backends()) {
    cvm::set_backend(backend);
    REQUIRE(CVMAPIInference(reference.net, in.data(), static_cast<int>(in.size()), out.data()) ==
            0);
    CHECK(decode_values(out, 1) == expected_bytes_values(c));
    CHECK(cvm::current_backend() == backend);
    // Its sessions are bound to the reference: the net is a CVMModelHandle.
    CVMSessionHandle session = nullptr;
    REQUIRE(CVMSessionCreate(static_cast<CVMModelHandle>(reference.net), &session) == 0);
    const char* text = nullptr;
    REQUIRE(CVMSessionGetKernelPlan(session, &text) == 0);
    CHECK(nlohmann::json::parse(text).at("backend") == "scalar");
    CHECK(CVMSessionFree(session) == 0);
  }
  cvm::set_backend("auto");
}

TEST_CASE("CVMSessionCreateEx binds a backend; CVMSessionGetKernelPlan shows the chains",
          "[cvmapi]") {
  const ModelCase c = load_case("nn");
  std::vector<uint8_t> params = c.params(cvm::ParamFormat::kCvmrt);
  CVMModelHandle model = nullptr;
  REQUIRE(CVMModelLoadCVM(c.graph.data(), c.graph.size(), params.data(), params.size(), &model) ==
          0);
  const cvm::NDArray input = c.input();
  std::vector<int64_t> dims = input.shape().to_vector();
  CVMArrayHandle in = nullptr;
  REQUIRE(CVMArrayAlloc(dims.data(), static_cast<int>(dims.size()), kDLInt, 32, 1, kDLCPU, 0,
                        &in) == 0);
  std::vector<int32_t> values;
  for (int64_t i = 0; i < input.numel(); ++i) {
    values.push_back(static_cast<int32_t>(cvm::test::int_at(input, i)));
  }
  REQUIRE(CVMArrayCopyFromBytes(in, values.data(), values.size() * 4) == 0);
  const auto expected = c.spec.at("outputs").get<std::vector<std::vector<int64_t>>>();
  for (const std::string& backend : cvm::test::runnable_backends()) {
    INFO(backend);
    CVMSessionHandle session = nullptr;
    REQUIRE(CVMSessionCreateEx(model, backend.c_str(), &session) == 0);
    const char* text = nullptr;
    REQUIRE(CVMSessionGetKernelPlan(session, &text) == 0);
    nlohmann::json plan = nlohmann::json::parse(text);
    CHECK(plan.at("backend") == backend);
    REQUIRE(!plan.at("nodes").empty());
    for (const auto& node : plan.at("nodes")) {
      for (const auto& chain : node.at("chains")) {
        const auto entries = chain.at("entries").get<std::vector<std::string>>();
        REQUIRE(!entries.empty());
        const std::string last = cvm::test::backend_device(backend).is_cpu() ? "__scalar"
                                                                              : "__" + backend;
        const std::string reference = cvm::test::chain_reference(entries, chain.at("notes"));
        CHECK(cvm::test::ends_with(reference, last));
        if (backend == "scalar") CHECK(entries.size() == 1);
        CHECK(chain.at("last_ran") == "");
      }
    }
    REQUIRE(CVMSessionSetInput(session, "data", in) == 0);
    REQUIRE(CVMSessionRun(session) == 0);
    CVMArrayHandle out = nullptr;
    REQUIRE(CVMSessionGetOutput(session, 0, &out) == 0);
    std::vector<int32_t> got(expected[0].size());
    REQUIRE(CVMArrayCopyToBytes(out, got.data(), got.size() * 4) == 0);
    CHECK(std::vector<int64_t>(got.begin(), got.end()) == expected[0]);
    CVMArrayFree(out);
    REQUIRE(CVMSessionGetKernelPlan(session, &text) == 0);
    plan = nlohmann::json::parse(text);
    for (const auto& node : plan.at("nodes")) {
      for (const auto& chain : node.at("chains")) {
        const std::string ran = chain.at("last_ran");
        if (node.at("op") == "flatten" || node.at("op") == "reshape") continue;  // in place
        if (node.at("fused_into") != "") {  // computed by an earlier node's clamp pass
          CHECK(ran == "");
          continue;
        }
        CHECK(ran == cvm::test::expected_runner(chain.at("entries"), chain.at("notes")));
      }
    }
    CHECK(CVMSessionFree(session) == 0);
  }
  CVMSessionHandle session = nullptr;
  CHECK(CVMSessionCreateEx(model, "tpu", &session) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(), Catch::Contains("unknown backend \"tpu\""));
  CHECK(session == nullptr);
  REQUIRE(CVMSessionCreateEx(model, "", &session) == 0);  // the handle's choice
  CHECK(CVMSessionFree(session) == 0);
  const char* text = "untouched";
  CHECK(CVMSessionGetKernelPlan(nullptr, &text) == CVM_STATUS_LOGIC_ERROR);
  CHECK(text == nullptr);
  CVMArrayFree(in);
  CVMModelFree(model);
}

TEST_CASE("CVMAPIInference is safe from many threads on one net", "[cvmapi][threads]") {
  const ModelCase c = load_case("mlp");
  Net fast(c, CVM_MODEL_DEVICE_CPU);
  Net reference(c, CVM_MODEL_DEVICE_REFERENCE);
  const std::vector<int64_t> expected = expected_bytes_values(c);
  std::vector<char> in = input_bytes(c.input(), fast.get(CVMAPIGetInputTypeSize));
  const size_t out_len = fast.get(CVMAPIGetOutputLength);
  const size_t type_size = fast.get(CVMAPIGetOutputTypeSize);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&, t] {
      void* net = (t % 3 == 2) ? reference.net : fast.net;
      std::vector<char> input = in, out(out_len);
      for (int i = 0; i < 40; ++i) {
        if (CVMAPIInference(net, input.data(), static_cast<int>(input.size()), out.data()) != 0 ||
            decode_values(out, type_size) != expected) {
          ++failures;
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  CHECK(failures.load() == 0);
}

TEST_CASE("CVMAPI string getters never write past 33 bytes", "[cvmapi]") {
  ModelCase c = load_case("dense_nobias");
  const std::string method(40, 'p');
  const size_t close = c.graph.rfind('}');
  c.graph.insert(close, ", \"postprocess\": \"" + method + "\"");
  Net n(c, CVM_MODEL_DEVICE_CPU);
  char buf[64];
  std::memset(buf, '\x5a', sizeof buf);
  REQUIRE(CVMAPIGetPreprocessMethod(n.net, buf) == 0);
  CHECK(std::string(buf) == method.substr(0, 32));
  CHECK(std::all_of(buf + 33, buf + sizeof buf, [](char b) { return b == '\x5a'; }));
  const char* full = nullptr;
  REQUIRE(CVMModelGetPostprocess(static_cast<CVMModelHandle>(n.net), &full) == 0);
  CHECK(std::string(full) == method);
  std::memset(buf, '\x5a', sizeof buf);
  REQUIRE(CVMAPIGetVersion(n.net, buf) == 0);
  CHECK(std::string(buf) == "cvm_1.0.0");
  CHECK(CVMAPIGetVersion(n.net, nullptr) == 1);
  CHECK_THAT(last_error(), Catch::Contains("version"));
}

TEST_CASE("CVMAPILoadModel rejects every truncation of a model with status 1", "[cvmapi]") {
  const ModelCase c = load_case("dense_bias");
  std::vector<uint8_t> params = c.params(cvm::ParamFormat::kLegacy);
  for (size_t len = 0; len < c.graph.size(); len += 7) {
    void* net = &net;
    CHECK(CVMAPILoadModel(c.graph.data(), static_cast<int>(len),
                          reinterpret_cast<const char*>(params.data()),
                          static_cast<int>(params.size()), &net, 0, 0) == 1);
    CHECK(net == nullptr);
    CHECK_FALSE(last_error().empty());
  }
  for (size_t len = 0; len < params.size(); len += 5) {
    void* net = nullptr;
    CHECK(CVMAPILoadModel(c.graph.data(), static_cast<int>(c.graph.size()),
                          reinterpret_cast<const char*>(params.data()), static_cast<int>(len), &net,
                          0, 0) == 1);
    CHECK(net == nullptr);
  }
}
