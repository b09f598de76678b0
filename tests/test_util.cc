// Implementation of the shared unit-test helpers.
#include "test_util.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include "float16.h"
#include "cvm/registry.h"
#include "cvm/threads.h"
#include "kernel_abi.h"
#include "kernel_views.h"
#include "thread_pool.h"

namespace cvm {
namespace test {

NDArray f32(const Shape& shape, const std::vector<float>& v) {
  return NDArray::from_bytes(v.data(), v.size() * sizeof(float), shape, DataType::Float(32));
}

NDArray i32(const Shape& shape, const std::vector<int32_t>& v) {
  return NDArray::from_bytes(v.data(), v.size() * sizeof(int32_t), shape, DataType::Int(32));
}

std::vector<float> floats(const NDArray& a) {
  if (a.dtype() != DataType::Float(32)) throw std::invalid_argument("floats: not a float32 array");
  const NDArray c = a.contiguous();
  return std::vector<float>(c.data_as<float>(), c.data_as<float>() + c.numel());
}

NDArray random_array(const Shape& shape, DataType dtype, uint64_t seed) {
  NDArray a = NDArray::empty(shape, dtype);
  std::mt19937_64 rng(seed);
  uint8_t* p = static_cast<uint8_t*>(a.mutable_data());
  const int64_t n = a.numel();
  if (dtype.is_float()) {
    std::uniform_real_distribution<double> dist(-1000.0, 1000.0);
    for (int64_t i = 0; i < n; ++i) {
      double v = dist(rng);
      if (dtype == DataType::Float(32)) {
        float f = static_cast<float>(v);
        std::memcpy(p + 4 * i, &f, 4);
      } else if (dtype == DataType::Float(64)) {
        std::memcpy(p + 8 * i, &v, 8);
      } else {
        uint16_t h = dtype == DataType::Float(16) ? kernel::double_to_half_bits(v)
                                                  : kernel::double_to_bfloat16_bits(v);
        std::memcpy(p + 2 * i, &h, 2);
      }
    }
  } else if (dtype.is_bool()) {
    for (int64_t i = 0; i < n; ++i) p[i] = rng() & 1;
  } else {
    for (size_t i = 0; i < a.nbytes(); ++i) p[i] = static_cast<uint8_t>(rng());
  }
  return a;
}

std::vector<uint8_t> element_bytes(const NDArray& a, int64_t i) {
  const Shape& shape = a.shape();
  int64_t offset = 0;
  for (int d = shape.ndim() - 1; d >= 0; --d) {
    offset += (i % shape[d]) * a.strides()[d];
    i /= shape[d];
  }
  size_t es = a.dtype().bytes();
  const uint8_t* p = static_cast<const uint8_t*>(a.data()) + offset * static_cast<int64_t>(es);
  return std::vector<uint8_t>(p, p + es);
}

bool bit_equal(const NDArray& a, const NDArray& b) {
  if (a.shape() != b.shape() || a.dtype() != b.dtype()) return false;
  for (int64_t i = 0; i < a.numel(); ++i) {
    if (element_bytes(a, i) != element_bytes(b, i)) return false;
  }
  return true;
}

int64_t int_at(const NDArray& a, int64_t i) {
  std::vector<uint8_t> b = element_bytes(a, i);
  uint64_t u = 0;
  std::memcpy(&u, b.data(), b.size());
  if (a.dtype().is_int() && b.size() < 8) {
    int shift = 64 - 8 * static_cast<int>(b.size());
    return static_cast<int64_t>(u << shift) >> shift;
  }
  return static_cast<int64_t>(u);
}

double float_at(const NDArray& a, int64_t i) {
  std::vector<uint8_t> b = element_bytes(a, i);
  if (a.dtype() == DataType::Float(64)) {
    double d;
    std::memcpy(&d, b.data(), 8);
    return d;
  }
  if (a.dtype() == DataType::Float(32)) {
    float f;
    std::memcpy(&f, b.data(), 4);
    return f;
  }
  uint16_t h;
  std::memcpy(&h, b.data(), 2);
  return a.dtype() == DataType::Float(16) ? kernel::half_bits_to_double(h)
                                          : kernel::bfloat16_bits_to_double(h);
}

kernel::KernelStatus call_kernel(kernel::KernelFn fn, const std::vector<NDArray>& inputs,
                                 NDArray& out, const void* params, const void* prepacked) {
  std::vector<kernel::TensorView> views = ops::plain_views({out}, inputs);
  kernel::KernelCall call{};
  call.outputs = views.data();
  call.num_outputs = 1;
  call.inputs = views.data() + 1;
  call.num_inputs = static_cast<int32_t>(views.size()) - 1;
  call.params = params;
  const kernel::ParallelFor par = threads::kernel_parallel_for();
  call.parallel = par.num_threads > 1 ? &par : nullptr;
  call.prepacked = prepacked;
  return fn(call);
}

uint32_t simd_testable_features() {
#ifdef CVMRT_HAVE_BACKEND_SIMD
  const kernel::BackendTable& simd = kernel::kSimdBackend;
  const uint32_t usable = simd.cpu_features();
  if (simd.detected_cpu_features == nullptr) return usable;
  constexpr uint32_t kAmx = kernel::kCpuAmxTile | kernel::kCpuAmxInt8;
  return (simd.detected_cpu_features() & ~kAmx) | (usable & kAmx);
#else
  return 0;
#endif
}

std::vector<std::string> runnable_backends() {
  std::vector<std::string> names;
  for (const std::string& b : compiled_backends()) {
    const Device d = backend_device(b);
    if (d.is_cpu() || device_count(d.type) > 0) names.push_back(b);
  }
  return names;
}

Device backend_device(const std::string& backend) {
  return backend == "cuda" ? Device::cuda(0) : Device::cpu();
}

NDArray random_in(const Shape& shape, int32_t lo, int32_t hi, uint64_t seed) {
  NDArray a = NDArray::empty(shape, DataType::Int(32));
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> d(lo, hi);
  auto* p = static_cast<int32_t*>(a.mutable_data());
  for (int64_t i = 0; i < a.numel(); ++i) {
    const uint64_t r = rng() % 16;
    p[i] = r == 0 ? lo : r == 1 ? hi : static_cast<int32_t>(d(rng));
  }
  return a;
}

std::string tmp_path(const std::string& name) {
  const char* env = std::getenv("CVMRT_TEST_TMP");
  const std::string dir = std::string(env != nullptr && *env != '\0' ? env : CVM_TEST_TMP_DIR) +
                          "/pid" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  return dir + "/" + name;
}

}  // namespace test
}  // namespace cvm
