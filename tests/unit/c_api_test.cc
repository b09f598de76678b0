// C ABI from C++: status codes and messages per error class, thread-local last error, handles.
#include "cvm/c_api.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "c_api_common.h"
#include "container.h"
#include "cvm/allocator.h"
#include "cvm/error.h"
#include "cvm/ndarray.h"
#include "cvm/params.h"
#include "cvm/version.h"
#include "test_util.h"

using Catch::Matchers::Contains;
using cvm::DataType;
using cvm::NDArray;
using cvm::Shape;

namespace {

CVMArrayHandle alloc(std::vector<int64_t> shape, DataType t = DataType::Int(32)) {
  CVMArrayHandle h = nullptr;
  int rc = CVMArrayAlloc(shape.data(), static_cast<int>(shape.size()), t.code(), t.bits(), 1,
                         kDLCPU, 0, &h);
  REQUIRE(rc == CVM_STATUS_OK);
  REQUIRE(h != nullptr);
  return h;
}

// A C++ view of a handle that keeps its own reference (the handle stays valid).
NDArray view(CVMArrayHandle h) {
  auto* c = reinterpret_cast<cvm::detail::Container*>(h);
  c->retain();
  return NDArray::adopt(c);
}

std::string last_error() { return CVMGetLastError(); }

}  // namespace

TEST_CASE("guard maps every exception class to a status and a message", "[capi]") {
  using cvm::capi::guard;
  CHECK(guard([] {}) == CVM_STATUS_OK);

  CHECK(guard([] { throw cvm::LogicError("bad shape (2, 3)"); }) == CVM_STATUS_LOGIC_ERROR);
  CHECK(last_error() == "bad shape (2, 3)");

  CHECK(guard([] { throw cvm::RuntimeError("device lost"); }) == CVM_STATUS_RUNTIME_ERROR);
  CHECK(last_error() == "device lost");

  CHECK(guard([] { throw std::bad_alloc(); }) == CVM_STATUS_RUNTIME_ERROR);
  CHECK(last_error() == "out of memory");

  // Standard exceptions that are not ours are runtime errors, even std::logic_error ones.
  CHECK(guard([] { throw std::out_of_range("index 7 out of range"); }) == CVM_STATUS_RUNTIME_ERROR);
  CHECK(last_error() == "index 7 out of range");
  CHECK(guard([] { throw std::runtime_error("boom"); }) == CVM_STATUS_RUNTIME_ERROR);
  CHECK(last_error() == "boom");

  CHECK(guard([] { throw 42; }) == CVM_STATUS_RUNTIME_ERROR);
  CHECK(last_error() == "unknown error");

  // The VERIFY / CHECK macros used by the library land in the right class.
  CHECK(guard([] { CVM_VERIFY(1 == 2) << "verify " << 7; }) == CVM_STATUS_LOGIC_ERROR);
  CHECK(last_error() == "verify 7");
  CHECK(guard([] { CVM_CHECK(1 == 2) << "check " << 8; }) == CVM_STATUS_RUNTIME_ERROR);
  CHECK(last_error() == "check 8");

  // A success does not clear the last error.
  CHECK(guard([] {}) == CVM_STATUS_OK);
  CHECK(last_error() == "check 8");
}

TEST_CASE("the last error is thread-local", "[capi][threads]") {
  REQUIRE(CVMArrayFree(nullptr) == CVM_STATUS_OK);
  CHECK(CVMArrayCopyToBytes(nullptr, nullptr, 0) == CVM_STATUS_LOGIC_ERROR);
  std::string main_before = last_error();
  CHECK_THAT(main_before, Contains("CVMArrayCopyToBytes") && Contains("handle"));

  std::string fresh, a_msg, b_msg;
  int a_rc = -1, b_rc = -1;
  std::thread fresh_thread([&] { fresh = CVMGetLastError(); });
  fresh_thread.join();
  CHECK(fresh.empty());  // a thread that never failed sees ""

  std::thread a([&] {
    const int64_t shape[1] = {-5};
    CVMArrayHandle h = nullptr;
    for (int i = 0; i < 200; ++i) {
      a_rc = CVMArrayAlloc(shape, 1, kDLInt, 32, 1, kDLCPU, 0, &h);
      std::this_thread::yield();
    }
    a_msg = CVMGetLastError();
  });
  std::thread b([&] {
    for (int i = 0; i < 200; ++i) {
      b_rc = CVMSetBackend(nullptr);
      std::this_thread::yield();
    }
    b_msg = CVMGetLastError();
  });
  a.join();
  b.join();
  CHECK(a_rc == CVM_STATUS_LOGIC_ERROR);
  CHECK(b_rc == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(a_msg, Contains("negative extent -5"));
  CHECK_THAT(b_msg, Contains("CVMSetBackend") && Contains("'name' is NULL"));
  CHECK(last_error() == main_before);
}

TEST_CASE("CVMArrayAlloc validates every argument with a clear message", "[capi]") {
  const int64_t shape[2] = {2, 3};
  CVMArrayHandle h = nullptr;

  CHECK(CVMArrayAlloc(shape, 2, kDLInt, 32, 2, kDLCPU, 0, &h) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(), Contains("dtype_lanes must be 1, got 2"));
  CHECK(h == nullptr);

  CHECK(CVMArrayAlloc(shape, 2, kDLFloat, 8, 1, kDLCPU, 0, &h) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(), Contains("unsupported dtype (code 2, bits 8)"));
  // 8-bit DLDataType fields: out-of-range ints must not wrap into a supported type.
  CHECK(CVMArrayAlloc(shape, 2, kDLInt, 256 + 32, 1, kDLCPU, 0, &h) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(), Contains("bits 288"));
  CHECK(CVMArrayAlloc(shape, 2, 256 + kDLInt, 32, 1, kDLCPU, 0, &h) == CVM_STATUS_LOGIC_ERROR);
  CHECK(CVMArrayAlloc(shape, 2, -1, 32, 1, kDLCPU, 0, &h) == CVM_STATUS_LOGIC_ERROR);

  CHECK(CVMArrayAlloc(shape, 2, kDLInt, 32, 1, kDLOpenCL, 0, &h) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(), Contains("device_type must be 1 (CPU) or 2 (CUDA), got 4"));
  // CUDA arrays: see cuda_test.cc (a runtime error without a GPU).
  CHECK(CVMArrayAlloc(shape, 2, kDLInt, 32, 1, kDLCPU, 1, &h) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(), Contains("device_id must be 0"));

  CHECK(CVMArrayAlloc(nullptr, 2, kDLInt, 32, 1, kDLCPU, 0, &h) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(), Contains("'shape' is NULL with ndim 2"));
  CHECK(CVMArrayAlloc(shape, -1, kDLInt, 32, 1, kDLCPU, 0, &h) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(), Contains("ndim must be in 0..32, got -1"));
  std::vector<int64_t> many(33, 1);
  CHECK(CVMArrayAlloc(many.data(), 33, kDLInt, 32, 1, kDLCPU, 0, &h) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(), Contains("got 33"));
  const int64_t negative[2] = {2, -1};
  CHECK(CVMArrayAlloc(negative, 2, kDLInt, 32, 1, kDLCPU, 0, &h) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(), Contains("negative extent -1 in dim 1"));
  CHECK(CVMArrayAlloc(shape, 2, kDLInt, 32, 1, kDLCPU, 0, nullptr) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(), Contains("CVMArrayAlloc: argument 'out' is NULL"));

  const int64_t huge[2] = {INT64_C(1) << 62, 4};
  CHECK(CVMArrayAlloc(huge, 2, kDLInt, 32, 1, kDLCPU, 0, &h) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(), Contains("overflows"));
  CHECK(h == nullptr);
}

TEST_CASE("CVMArrayAlloc hands out a refreshed, zeroed, compact Container", "[capi]") {
  for (DataType t : cvm::kAllDataTypes) {
    CAPTURE(t.name());
    CVMArrayHandle h = alloc({4, 5}, t);
    NDArray a = view(h);
    CHECK(a.use_count() == 2);
    CHECK(a.shape() == Shape({4, 5}));
    CHECK(a.dtype() == t);
    CHECK(h->data == a.data());
    CHECK(h->strides == nullptr);
    CHECK(h->byte_offset == 0);
    std::vector<uint8_t> bytes(a.nbytes(), 0xFF);
    REQUIRE(CVMArrayCopyToBytes(h, bytes.data(), bytes.size()) == CVM_STATUS_OK);
    CHECK(bytes == std::vector<uint8_t>(a.nbytes(), 0));
    REQUIRE(CVMArrayFree(h) == CVM_STATUS_OK);
    CHECK(a.use_count() == 1);
  }
}

TEST_CASE("byte copies: sizes, NULLs, and dl.data after copy-on-write", "[capi]") {
  CVMArrayHandle h = alloc({2, 3});
  std::vector<int32_t> in = {1, 2, 3, 4, 5, 6}, out(6, 0);

  CHECK(CVMArrayCopyFromBytes(h, in.data(), 20) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(), Contains("got 20 bytes") && Contains("holds 24"));
  CHECK(CVMArrayCopyToBytes(h, out.data(), 28) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(), Contains("28") && Contains("holds 24"));
  CHECK(CVMArrayCopyFromBytes(h, nullptr, 24) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(), Contains("CVMArrayCopyFromBytes: argument 'data' is NULL"));
  CHECK(CVMArrayCopyToBytes(h, nullptr, 24) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(), Contains("CVMArrayCopyToBytes: argument 'data' is NULL"));

  REQUIRE(CVMArrayCopyFromBytes(h, in.data(), 24) == CVM_STATUS_OK);
  // A lazy copy on the C++ side shares the buffer; writing through the handle detaches it and
  // the handle's dl.data follows the new buffer.
  NDArray a = view(h);
  NDArray lazy = a.copy();
  REQUIRE(lazy.shares_memory_with(a));
  std::vector<int32_t> in2 = {9, 8, 7, 6, 5, 4};
  REQUIRE(CVMArrayCopyFromBytes(h, in2.data(), 24) == CVM_STATUS_OK);
  CHECK_FALSE(lazy.shares_memory_with(a));
  CHECK(h->data == a.data());
  CHECK(std::memcmp(h->data, in2.data(), 24) == 0);
  CHECK(std::memcmp(lazy.data(), in.data(), 24) == 0);
  REQUIRE(CVMArrayCopyToBytes(h, out.data(), 24) == CVM_STATUS_OK);
  CHECK(out == in2);
  CVMArrayFree(h);
}

TEST_CASE("CVMArrayCopyFromTo", "[capi]") {
  CVMArrayHandle a = alloc({2, 3}), b = alloc({2, 3}), c = alloc({3, 2});
  CVMArrayHandle f = alloc({2, 3}, DataType::Float(32));
  std::vector<int32_t> in = {-1, 2, -3, 4, -5, 6}, out(6);
  REQUIRE(CVMArrayCopyFromBytes(a, in.data(), 24) == CVM_STATUS_OK);
  REQUIRE(CVMArrayCopyFromTo(a, b, nullptr) == CVM_STATUS_OK);
  REQUIRE(CVMArrayCopyToBytes(b, out.data(), 24) == CVM_STATUS_OK);
  CHECK(out == in);
  CHECK(CVMArrayCopyFromTo(a, c, nullptr) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(), Contains("(2, 3)") && Contains("(3, 2)"));
  CHECK(CVMArrayCopyFromTo(a, f, nullptr) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(), Contains("int32") && Contains("float32"));
  int dummy = 0;
  CHECK(CVMArrayCopyFromTo(a, b, &dummy) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(), Contains("stream must be NULL"));
  CHECK(CVMArrayCopyFromTo(nullptr, b, nullptr) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(), Contains("'from' is NULL"));
  CHECK(CVMArrayCopyFromTo(a, nullptr, nullptr) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(), Contains("'to' is NULL"));
  // Copying an array onto itself is fine.
  CHECK(CVMArrayCopyFromTo(a, a, nullptr) == CVM_STATUS_OK);
  for (CVMArrayHandle h : {a, b, c, f}) CHECK(CVMArrayFree(h) == CVM_STATUS_OK);
}

TEST_CASE("an allocator limit is a logic error from CVMArrayAlloc", "[capi]") {
  cvm::Allocator& alloc_cpu = cvm::Allocator::cpu();
  size_t in_use = alloc_cpu.stats().bytes_in_use;
  alloc_cpu.set_limit(in_use + (1 << 20));
  const int64_t shape[1] = {int64_t{1} << 22};  // 16 MiB of int32
  CVMArrayHandle h = nullptr;
  int rc = CVMArrayAlloc(shape, 1, kDLInt, 32, 1, kDLCPU, 0, &h);
  std::string msg = last_error();
  alloc_cpu.set_limit(0);
  CHECK(rc == CVM_STATUS_LOGIC_ERROR);
  CHECK_FALSE(msg.empty());
  CHECK(h == nullptr);
}

TEST_CASE("version and backend", "[capi]") {
  CHECK(std::string(CVMGetLibraryVersion()) == CVMRT_VERSION_STRING);
  CHECK(CVMGetLibraryVersionNumber() ==
        CVMRT_VERSION_MAJOR * 10000 + CVMRT_VERSION_MINOR * 100 + CVMRT_VERSION_PATCH);

  const char* before = CVMGetBackend();
  REQUIRE(before != nullptr);
  std::string original = before;
  CHECK_FALSE(original.empty());
  REQUIRE(CVMSetBackend("scalar") == CVM_STATUS_OK);
  const char* p1 = CVMGetBackend();
  CHECK(std::string(p1) == "scalar");
  CHECK(CVMGetBackend() == p1);  // interned: stable static storage
  CHECK(CVMSetBackend("warp-drive") == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(), Contains("warp-drive"));
  REQUIRE(CVMSetBackend("auto") == CVM_STATUS_OK);
  CHECK(std::string(CVMGetBackend()) == original);
  CHECK(std::string(p1) == "scalar");  // still valid
}

TEST_CASE("params through the C ABI: handles, names, errors", "[capi][params]") {
  CVMArrayHandle w = alloc({2, 2}, DataType::Int(8));
  CVMArrayHandle s = alloc({}, DataType::Float(64));
  int8_t wv[4] = {1, -2, 3, -4};
  double sv = 2.5;
  REQUIRE(CVMArrayCopyFromBytes(w, wv, 4) == CVM_STATUS_OK);
  REQUIRE(CVMArrayCopyFromBytes(s, &sv, 8) == CVM_STATUS_OK);
  const void* params[4] = {"weight", w, "scale", s};

  for (int format : {0, 1}) {
    CAPTURE(format);
    CVMByteArray bytes{nullptr, 0};
    REQUIRE(CVMSaveParamsDictFormat(params, 4, format, &bytes) == CVM_STATUS_OK);
    CHECK(cvm::ParamDict::detect_format(bytes.data, bytes.size) ==
          (format == 0 ? cvm::ParamFormat::kCvmrt : cvm::ParamFormat::kLegacy));
    int num = 0;
    void** names = nullptr;
    void** values = nullptr;
    REQUIRE(CVMLoadParamsDict(bytes.data, static_cast<int>(bytes.size), &num, &names, &values) ==
            CVM_STATUS_OK);
    REQUIRE(num == 2);
    CHECK(std::string(static_cast<const char*>(names[0])) == "weight");
    CHECK(std::string(static_cast<const char*>(names[1])) == "scale");
    auto* h0 = static_cast<CVMArrayHandle>(values[0]);
    auto* h1 = static_cast<CVMArrayHandle>(values[1]);
    NDArray a0 = NDArray::adopt(reinterpret_cast<cvm::detail::Container*>(h0));
    NDArray a1 = NDArray::adopt(reinterpret_cast<cvm::detail::Container*>(h1));
    CHECK(a0.use_count() == 1);  // the handle's reference is the only one
    CHECK(a1.use_count() == 1);
    CHECK(h0->data == a0.data());
    CHECK(std::memcmp(a0.data(), wv, 4) == 0);
    CHECK(a1.ndim() == 0);
    CHECK(*a1.data_as<double>() == 2.5);

    // The names stay valid across a failing load, and are replaced by the next success.
    const char* name0 = static_cast<const char*>(names[0]);
    void** names2 = nullptr;
    CHECK(CVMLoadParamsDict("garbage!garbage!", 16, &num, &names2, &values) ==
          CVM_STATUS_LOGIC_ERROR);
    CHECK_THAT(last_error(), Contains("format"));
    CHECK(std::string(name0) == "weight");
  }

  CVMByteArray bytes{nullptr, 0};
  const void* dup[4] = {"x", w, "x", s};
  CHECK(CVMSaveParamsDict(dup, 4, &bytes) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(), Contains("duplicate name \"x\""));
  const void* null_tensor[2] = {"x", nullptr};
  CHECK(CVMSaveParamsDict(null_tensor, 2, &bytes) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(), Contains("tensor \"x\" (#0) is NULL"));
  const void* null_name[2] = {nullptr, w};
  CHECK(CVMSaveParamsDict(null_name, 2, &bytes) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(), Contains("name of tensor #0 is NULL"));
  CHECK(CVMSaveParamsDict(params, 3, &bytes) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(),
             Contains("params_size must be an even number >= 0") && Contains("got 3"));
  CHECK(CVMSaveParamsDictFormat(params, 4, 9, &bytes) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(), Contains("format must be 0 (cvmrt) or 1 (legacy CVM), got 9"));

  // A foreign tensor with a bad dtype is reported with its name.
  int64_t shape[1] = {2};
  int32_t raw[2] = {1, 2};
  DLTensor foreign{};
  foreign.data = raw;
  foreign.device = {kDLCPU, 0};
  foreign.ndim = 1;
  foreign.dtype = {kDLInt, 24, 1};
  foreign.shape = shape;
  const void* bad[2] = {"odd", &foreign};
  CHECK(CVMSaveParamsDict(bad, 2, &bytes) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(), Contains("tensor \"odd\"") && Contains("unsupported dtype"));
  foreign.dtype = {kDLInt, 32, 1};
  foreign.device = {kDLCUDA, 0};  // CPU memory claimed to be a GPU's: refused, not read
  CHECK(CVMSaveParamsDict(bad, 2, &bytes) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(), Contains("tensor \"odd\"") && Contains("cuda:0"));
  foreign.device = {kDLCPU, 0};
  // A strided foreign tensor with byte_offset: element [1] only.
  foreign.byte_offset = 4;
  shape[0] = 1;
  REQUIRE(CVMSaveParamsDict(bad, 2, &bytes) == CVM_STATUS_OK);
  cvm::ParamDict d = cvm::ParamDict::load(bytes.data, bytes.size);
  CHECK(d.at("odd").shape() == Shape({1}));
  CHECK(*d.at("odd").data_as<int32_t>() == 2);

  int num = 0;
  void** names = nullptr;
  void** values = nullptr;
  CHECK(CVMLoadParamsDict(bytes.data, -3, &num, &names, &values) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(), Contains("datalen must be >= 0, got -3"));
  CHECK(CVMLoadParamsDictEx(nullptr, 4, 1, &num, &names, &values) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(), Contains("CVMLoadParamsDictEx: argument 'data' is NULL"));
  CHECK(CVMLoadParamsFile(nullptr, 1, &num, &names, &values) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(), Contains("'path' is NULL"));
  CHECK(CVMLoadParamsDict(bytes.data, 8, nullptr, &names, &values) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(last_error(), Contains("'num' is NULL"));

  CVMArrayFree(w);
  CVMArrayFree(s);
}

TEST_CASE("CVMLoadParamsFile: zero-copy handles that copy on write", "[capi][params]") {
  std::string path = cvm::test::tmp_path("c_api_load_file.params");
  cvm::ParamDict dict;
  NDArray x = NDArray::empty(Shape({16}), DataType::Int(32));
  for (int i = 0; i < 16; ++i) x.mutable_data_as<int32_t>()[i] = i * i;
  dict.set("x", x);
  dict.save_file(path);

  int num = 0;
  void** names = nullptr;
  void** values = nullptr;
  REQUIRE(CVMLoadParamsFile(path.c_str(), 1, &num, &names, &values) == CVM_STATUS_OK);
  REQUIRE(num == 1);
  auto* h = static_cast<CVMArrayHandle>(values[0]);
  CHECK(std::memcmp(h->data, x.data(), 64) == 0);
  // Writing through the C API gives the handle private memory; the mapping is untouched.
  std::vector<int32_t> ones(16, 1);
  const void* mapped = h->data;
  REQUIRE(CVMArrayCopyFromBytes(h, ones.data(), 64) == CVM_STATUS_OK);
  CHECK(h->data != mapped);
  CHECK(std::memcmp(h->data, ones.data(), 64) == 0);
  CHECK(CVMArrayFree(h) == CVM_STATUS_OK);
  std::remove(path.c_str());
}
