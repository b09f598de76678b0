// The CUDA backend: its table against the scalar one, device memory and copies, models on the GPU
// (same bits and cost as the CPU), and device errors. Without a GPU, the tests that need one
// skip with one line saying why; the error tests then check what a user without one meets.
// (The kernel-table parity suite runs every CUDA entry against the scalar reference on the GPU,
// and the conformance vectors run through the "cuda" backend, where a GPU is present.)
#include <catch2/catch.hpp>

#include <cstring>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cvm/allocator.h"
#include "cvm/array_ops.h"
#include "cvm/c_api.h"
#include "cvm/error.h"
#include "cvm/model.h"
#include "cvm/ndarray.h"
#include "cvm/registry.h"
#include "graph_test_util.h"
#include "kernel_abi.h"
#include "registry_internal.h"
#include "test_util.h"

using Catch::Matchers::Contains;
using cvm::DataType;
using cvm::Device;
using cvm::NDArray;
using cvm::Session;
using cvm::SessionOptions;
namespace t = cvm::test;

namespace {

// True with a CUDA device; otherwise says why this test skips, in one line.
bool have_gpu() {
  std::string why;
  if (cvm::device_count(kDLCUDA, &why) > 0) return true;
  WARN("skipped: no CUDA device: " << why);
  return false;
}

bool cuda_compiled() {
  const std::vector<std::string> b = cvm::compiled_backends();
  return std::find(b.begin(), b.end(), "cuda") != b.end();
}

std::string last_error() { return CVMGetLastError(); }

}  // namespace

TEST_CASE("cuda: the table has an entry for every key of the scalar reference", "[cuda]") {
  if (!cuda_compiled()) {
    WARN("skipped: this build has no CUDA backend (nvcc was not found, or CVMRT_CUDA=OFF)");
    return;
  }
  const cvm::kernel::BackendTable* cuda = nullptr;
  const cvm::kernel::BackendTable* scalar = nullptr;
  for (const cvm::kernel::BackendTable* b : cvm::backend_tables()) {
    if (std::strcmp(b->name, "cuda") == 0) cuda = b;
    if (std::strcmp(b->name, "scalar") == 0) scalar = b;
  }
  REQUIRE(cuda != nullptr);
  REQUIRE(scalar != nullptr);
  CHECK(cuda->device_type == kDLCUDA);
  auto serves = [](const cvm::kernel::KernelEntry& e, const char* op, cvm::kernel::ElemType t) {
    return std::strcmp(e.op, op) == 0 && (e.dtype == t || e.dtype == cvm::kernel::ElemType::kAny);
  };
  // Every key the reference serves, the GPU serves: a model that runs on the CPU runs there.
  for (size_t i = 0; i < scalar->count; ++i) {
    const cvm::kernel::KernelEntry& s = scalar->entries[i];
    INFO(s.name);
    bool found = false;
    for (size_t k = 0; k < cuda->count && !found; ++k) found = serves(cuda->entries[k], s.op, s.dtype);
    CHECK(found);
  }
  // And nothing more: every CUDA entry has a reference to be compared with.
  std::set<std::string> names;
  for (size_t k = 0; k < cuda->count; ++k) {
    const cvm::kernel::KernelEntry& e = cuda->entries[k];
    INFO(e.name);
    CHECK(cvm::how_of(e).rfind("cuda", 0) == 0);  // "cuda", "cuda_dp4a"
    CHECK(names.insert(e.name).second);
    bool found = false;
    for (size_t i = 0; i < scalar->count && !found; ++i) {
      found = serves(scalar->entries[i], e.op, e.dtype) || serves(e, scalar->entries[i].op,
                                                                  scalar->entries[i].dtype);
    }
    CHECK(found);
  }
}

TEST_CASE("cuda: without a device every use is an error naming it, never a crash", "[cuda]") {
  std::string why;
  if (cvm::device_count(kDLCUDA, &why) > 0) {
    WARN("skipped: a CUDA device is present (this test checks the machines without one)");
    return;
  }
  CHECK_FALSE(why.empty());
  const auto lenet = t::load_lenet();
  if (cuda_compiled()) {
    // The environment's fault: RuntimeErrors that say which device and why.
    CHECK_THROWS_AS(NDArray::empty({4}, DataType::Int(32), Device::cuda()), cvm::RuntimeError);
    CHECK_THROWS_WITH(NDArray::empty({4}, DataType::Int(32), Device::cuda()),
                      Contains("cuda:0") && Contains("not available"));
    CHECK_THROWS_AS(Session(lenet, SessionOptions{"cuda"}), cvm::RuntimeError);
    CHECK_THROWS_WITH(Session(lenet, SessionOptions{"cuda", 3}), Contains("cuda:3"));
    CHECK_THROWS_AS(cvm::describe_device(Device::cuda()), cvm::RuntimeError);
    // No CUDA kernel counts as usable here.
    for (const cvm::KernelInfo& k : cvm::list_kernels()) {
      if (k.backend == "cuda") CHECK_FALSE(k.usable);
    }
  } else {
    CHECK_THROWS_AS(Session(lenet, SessionOptions{"cuda"}), cvm::LogicError);
    CHECK_THROWS_WITH(NDArray::empty({4}, DataType::Int(32), Device::cuda()),
                      Contains("without the CUDA backend"));
  }
  // The C ABI: loading a model for device 1 is a runtime error naming the device.
  const std::string graph = t::read_text(t::examples_models_dir() + "lenet.json");
  const std::string params = t::read_text(t::examples_models_dir() + "lenet.params");
  void* net = reinterpret_cast<void*>(1);
  CHECK(CVMAPILoadModel(graph.data(), static_cast<int>(graph.size()), params.data(),
                        static_cast<int>(params.size()), &net, CVM_MODEL_DEVICE_CUDA,
                        0) == CVM_STATUS_RUNTIME_ERROR);
  CHECK(net == nullptr);
  CHECK_THAT(last_error(), Contains("cuda:0") && Contains(why));
  CVMArrayHandle a = nullptr;
  const int64_t shape[] = {2, 3};
  CHECK(CVMArrayAlloc(shape, 2, kDLInt, 32, 1, kDLCUDA, 0, &a) != CVM_STATUS_OK);
  CHECK(a == nullptr);
  CHECK_THAT(last_error(), Contains("cuda:0"));
}

TEST_CASE("cuda: copies between host and device keep every bit, for every dtype", "[cuda]") {
  if (!have_gpu()) return;
  const Device gpu = Device::cuda();
  for (DataType dt : cvm::kAllDataTypes) {
    INFO(dt);
    const NDArray host = t::random_array({3, 17, 5}, dt, 11);
    const NDArray dev = host.to(gpu);
    CHECK(dev.device() == gpu);
    CHECK(t::bit_equal(dev.to(Device::cpu()), host));
    // A strided host view in, a strided device view out.
    const NDArray view = host.transpose();
    CHECK(t::bit_equal(view.to(gpu).to(Device::cpu()), view.contiguous()));
    const NDArray dev_view = dev.slice(1, 2, 15, 3);
    CHECK(t::bit_equal(dev_view.to(Device::cpu()), host.slice(1, 2, 15, 3).contiguous()));
    // Bytes in and out of a device array, and a device-to-device copy.
    std::vector<uint8_t> bytes(host.nbytes());
    dev.copy_to_bytes(bytes.data(), bytes.size());
    NDArray back = NDArray::empty(host.shape(), dt, gpu);
    back.copy_from_bytes(bytes.data(), bytes.size());
    NDArray twin = NDArray::empty(host.shape(), dt, gpu);
    twin.copy_from(back);
    CHECK(t::bit_equal(twin.to(Device::cpu()), host));
    // copy_into across devices, with a cast on the device.
    NDArray as_i64 = NDArray::empty(host.shape(), DataType::Int(64), gpu);
    cvm::copy_into(as_i64, host);
    CHECK(t::bit_equal(as_i64.to(Device::cpu()), cvm::cast(host, DataType::Int(64))));
  }
}

TEST_CASE("cuda: DLPack carries device memory both ways", "[cuda]") {
  if (!have_gpu()) return;
  const NDArray host = t::random_array({4, 6}, DataType::Int(32), 3);
  NDArray dev = host.to(Device::cuda());
  DLManagedTensor* m = dev.to_dlpack();
  CHECK(m->dl_tensor.device.device_type == kDLCUDA);
  CHECK(m->dl_tensor.device.device_id == 0);
  const NDArray back = NDArray::from_dlpack(m);
  CHECK(back.device() == Device::cuda());
  CHECK(back.data() == dev.data());
  CHECK(t::bit_equal(back.to(Device::cpu()), host));
}

TEST_CASE("cuda: the allocator counts, limits and reports out of memory", "[cuda]") {
  if (!have_gpu()) return;
  cvm::Allocator& a = cvm::Allocator::get(Device::cuda());
  const size_t before = a.stats().bytes_in_use;
  {
    const NDArray x = NDArray::empty({1 << 20}, DataType::Int(32), Device::cuda());
    CHECK(a.stats().bytes_in_use >= before + (size_t{4} << 20));
  }
  CHECK(a.stats().bytes_in_use == before);
  a.set_limit(before + 1024);
  CHECK_THROWS_AS(NDArray::empty({1 << 20}, DataType::Int(32), Device::cuda()), cvm::LogicError);
  a.set_limit(0);
  CHECK_THROWS_AS(NDArray::empty({int64_t{1} << 50}, DataType::Int(8), Device::cuda()),
                  cvm::RuntimeError);
  CHECK_THROWS_WITH(NDArray::empty({int64_t{1} << 50}, DataType::Int(8), Device::cuda()),
                    Contains("out of memory") && Contains("cuda:0"));
  const int count = cvm::device_count(kDLCUDA);
  CHECK_THROWS_AS(NDArray::empty({4}, DataType::Int(32), Device::cuda(count)), cvm::RuntimeError);
  CHECK_THROWS_WITH(NDArray::empty({4}, DataType::Int(32), Device::cuda(count)),
                    Contains("does not exist"));
  CHECK_FALSE(cvm::describe_device(Device::cuda()).empty());
}

TEST_CASE("cuda: every example model gives the CPU's bits and cost on the GPU", "[cuda][graph]") {
  if (!have_gpu()) return;
  for (const char* name : t::kModelCases) {
    INFO(name);
    const t::ModelCase c = t::load_case(name);
    const auto model = c.load();
    Session cpu(model, SessionOptions{"scalar"});
    Session gpu(model, SessionOptions{"cuda"});
    CHECK(gpu.device() == Device::cuda());
    for (Session* s : {&cpu, &gpu}) {
      s->set_input("data", c.input());
      s->run();
      s->run();  // a second run over the same arena gives the same bits
    }
    REQUIRE(gpu.num_outputs() == cpu.num_outputs());
    for (size_t i = 0; i < cpu.num_outputs(); ++i) {
      CHECK(t::bit_equal(gpu.output(i), cpu.output(i)));
    }
    std::vector<char> in = t::input_bytes(c.input(), model->input_type_size());
    std::vector<char> want(model->output_length()), got(model->output_length());
    if (c.spec.contains("infer_error")) {  // the byte interface refuses it on every device
      const std::string why = c.spec.at("infer_error").get<std::string>();
      CHECK_THROWS_WITH(cpu.infer_bytes(in.data(), in.size(), want.data(), want.size()),
                        Contains(why));
      CHECK_THROWS_WITH(gpu.infer_bytes(in.data(), in.size(), got.data(), got.size()),
                        Contains(why));
    } else {
      cpu.infer_bytes(in.data(), in.size(), want.data(), want.size());
      gpu.infer_bytes(in.data(), in.size(), got.data(), got.size());
      CHECK(got == want);
    }
    // Every chain of the GPU session is CUDA kernels only, and each ran.
    for (const cvm::NodeKernelPlan& node : gpu.kernel_plan()) {
      for (const auto& chain : node.chains) {
        for (const std::string& e : chain.entries) CHECK(e.find("__cuda") != std::string::npos);
      }
    }
  }
}

TEST_CASE("cuda: CVMAPILoadModel device 1 runs LeNet like device 0, with the same gas",
          "[cuda][cvmapi]") {
  if (!have_gpu()) return;
  const std::string graph = t::read_text(t::examples_models_dir() + "lenet.json");
  const std::string params = t::read_text(t::examples_models_dir() + "lenet.params");
  const std::string input = t::read_text(t::examples_models_dir() + "lenet_input.bin");
  void* nets[2] = {nullptr, nullptr};
  for (int device : {CVM_MODEL_DEVICE_CPU, CVM_MODEL_DEVICE_CUDA}) {
    REQUIRE(CVMAPILoadModel(graph.data(), static_cast<int>(graph.size()), params.data(),
                            static_cast<int>(params.size()), &nets[device], device, 0) == 0);
  }
  unsigned long long out_len = 0, gas[2] = {0, 0};
  REQUIRE(CVMAPIGetOutputLength(nets[0], &out_len) == 0);
  std::vector<char> outs[2] = {std::vector<char>(out_len), std::vector<char>(out_len)};
  for (int d = 0; d < 2; ++d) {
    REQUIRE(CVMAPIInference(nets[d], const_cast<char*>(input.data()),
                            static_cast<int>(input.size()), outs[d].data()) == 0);
    REQUIRE(CVMAPIGetGasFromModel(nets[d], &gas[d]) == 0);
  }
  CHECK(outs[1] == outs[0]);
  CHECK(gas[1] == gas[0]);
  // Concurrent inferences on the GPU (each takes a pooled session with its own stream).
  std::vector<std::thread> threads;
  std::vector<std::vector<char>> got(4, std::vector<char>(out_len));
  for (size_t k = 0; k < got.size(); ++k) {
    threads.emplace_back([&, k] {
      for (int r = 0; r < 5; ++r) {
        CVMAPIInference(nets[1], const_cast<char*>(input.data()), static_cast<int>(input.size()),
                        got[k].data());
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (const auto& g : got) CHECK(g == outs[0]);
  for (void* n : nets) CVMAPIFreeModel(n);
  void* bad = nullptr;
  CHECK(CVMAPILoadModel(graph.data(), static_cast<int>(graph.size()), params.data(),
                        static_cast<int>(params.size()), &bad, CVM_MODEL_DEVICE_CUDA,
                        cvm::device_count(kDLCUDA)) == CVM_STATUS_RUNTIME_ERROR);
  CHECK_THAT(last_error(), Contains("cuda:"));
}

TEST_CASE("cuda: eager operators on device arrays, and profiling a GPU session", "[cuda]") {
  if (!have_gpu()) return;
  const NDArray a = t::random_in({64, 33}, -100, 100, 5);
  const NDArray b = t::random_in({64, 33}, -100, 100, 6);
  const NDArray want = cvm::run_op("elemwise_add", {a, b})[0];
  const std::vector<NDArray> got =
      cvm::run_op("elemwise_add", {a.to(Device::cuda()), b.to(Device::cuda())});
  CHECK(got[0].device() == Device::cuda());
  CHECK(t::bit_equal(got[0].to(Device::cpu()), want));
  CHECK_THROWS_WITH(cvm::run_op("elemwise_add", {a, b.to(Device::cuda())}),
                    Contains("every input must be on one device"));
  Session s(t::load_lenet(), SessionOptions{"cuda"});
  s.enable_profiling(true);
  s.set_input("data", t::lenet_input(s.model()));
  s.run();
  CHECK_FALSE(s.profile().empty());
}
