// Device backends as the core sees them: discovery, the thread's stream, cross-device copies.
#include "device_runtime.h"

#include <mutex>
#include <utility>
#include <vector>

#include "cvm/check.h"

namespace cvm {
namespace device {
namespace {

thread_local Device t_device = Device::cpu();
thread_local void* t_stream = nullptr;

struct Availability {
  int count = 0;
  std::string why;  // when count is 0
};

// The devices of `type` and why there are none, asked of its runtime once per process (the
// driver's answer does not change while it runs); for a type this build has no runtime for, 0
// and why. kDLCPU is not asked.
const Availability& availability(DLDeviceType type) {
#ifdef CVMRT_HAVE_BACKEND_CUDA
  if (type == kDLCUDA) {
    static std::once_flag once;
    static Availability cuda;
    std::call_once(once, [] {
      char why[512] = {0};
      cuda.count = kernel::kCudaDeviceApi.device_count(why, sizeof why);
      cuda.why = why;
    });
    return cuda;
  }
#endif
  static const Availability no_cuda{0, "this build has no CUDA backend (nvcc was not found at "
                                       "build time, or CVMRT_CUDA=OFF)"};
  static const Availability unknown{0, "this build supports no such device type"};
  return type == kDLCUDA ? no_cuda : unknown;
}

}  // namespace

const kernel::DeviceApi* api_of(Device d) {
  if (d.is_cpu()) return nullptr;
#ifdef CVMRT_HAVE_BACKEND_CUDA
  if (d.type == kDLCUDA) return &kernel::kCudaDeviceApi;
#endif
  CVM_LOGIC_ERROR() << "device " << d.name() << " is not supported by this build"
                    << (d.type == kDLCUDA ? " (it was built without the CUDA backend: nvcc was "
                                            "not found, or CVMRT_CUDA=OFF)"
                                          : "");
}

const kernel::DeviceApi* require(Device d) {
  const kernel::DeviceApi* api = api_of(d);
  if (api == nullptr) return nullptr;
  const std::string why = device_unavailable_reason(d);
  CHECK(why.empty()) << "device " << d.name() << " is not available: " << why;
  return api;
}

void raise(const kernel::DeviceApi& api, Device d, const std::string& what) {
  CVM_RUNTIME_ERROR() << what << " on " << d.name() << ": " << api.last_error();
}

std::string foreign_memory_problem(Device d, const void* ptr) {
  const kernel::DeviceApi* api = require(d);
  if (api == nullptr) return "";
  char why[256] = {0};
  return api->holds(d.id, ptr, why, sizeof why) ? "" : why;
}

void* current_stream() { return t_stream; }

ScopedStream::ScopedStream(Device device, void* stream)
    : previous_device_(t_device), previous_stream_(t_stream) {
  if (device.is_cpu()) return;
  const kernel::DeviceApi* api = require(device);
  if (!api->set_device(device.id)) raise(*api, device, "making the device current");
  t_device = device;
  t_stream = stream;
}

ScopedStream::~ScopedStream() {
  if (!previous_device_.is_cpu() && previous_device_ != t_device) {
    api_of(previous_device_)->set_device(previous_device_.id);
  }
  t_device = previous_device_;
  t_stream = previous_stream_;
}

OwnedStream::OwnedStream(Device device) : device_(device) {
  const kernel::DeviceApi* api = require(device);
  if (api != nullptr && !api->stream_create(device.id, &stream_)) {
    raise(*api, device, "creating a stream");
  }
}

OwnedStream::~OwnedStream() {
  if (stream_ != nullptr) api_of(device_)->stream_destroy(device_.id, stream_);
}

OwnedStream::OwnedStream(OwnedStream&& o) noexcept
    : device_(o.device_), stream_(std::exchange(o.stream_, nullptr)) {}

OwnedStream& OwnedStream::operator=(OwnedStream&& o) noexcept {
  if (this != &o) {
    if (stream_ != nullptr) api_of(device_)->stream_destroy(device_.id, stream_);
    device_ = o.device_;
    stream_ = std::exchange(o.stream_, nullptr);
  }
  return *this;
}

void OwnedStream::synchronize() const {
  if (stream_ == nullptr) return;
  const kernel::DeviceApi* api = api_of(device_);
  if (!api->synchronize(device_.id, stream_)) raise(*api, device_, "running kernels");
}

void copy_bytes(void* dst, Device dst_device, const void* src, Device src_device, size_t n) {
  if (n == 0) return;
  VERIFY(dst_device.is_cpu() || src_device.is_cpu() || dst_device == src_device)
      << "copying from " << src_device.name() << " to " << dst_device.name()
      << " directly is not supported: copy through the CPU";
  CHECK(!(dst_device.is_cpu() && src_device.is_cpu())) << "copy_bytes: host-to-host copy";
  const Device d = dst_device.is_cpu() ? src_device : dst_device;
  const kernel::DeviceApi* api = require(d);
  kernel::CopyKind kind = kernel::CopyKind::kDeviceToDevice;
  if (src_device.is_cpu()) kind = kernel::CopyKind::kHostToDevice;
  if (dst_device.is_cpu()) kind = kernel::CopyKind::kDeviceToHost;
  if (!api->copy(d.id, dst, src, n, kind, t_device == d ? t_stream : nullptr)) {
    raise(*api, d, "copying " + std::to_string(n) + " bytes");
  }
}

void synchronize(Device d) {
  if (d.is_cpu()) return;
  const kernel::DeviceApi* api = require(d);
  if (!api->synchronize(d.id, t_device == d ? t_stream : nullptr)) {
    raise(*api, d, "running kernels");
  }
}

}  // namespace device

int device_count(DLDeviceType type, std::string* why) {
  if (type == kDLCPU) return 1;
  const device::Availability& a = device::availability(type);
  if (why != nullptr) *why = a.count == 0 ? a.why : std::string();
  return a.count;
}

std::string device_unavailable_reason(Device d) {
  if (d.is_cpu()) return d.id == 0 ? "" : "the CPU is device 0 only";
  const device::Availability& a = device::availability(d.type);
  if (a.count == 0) return a.why;
  if (d.id >= 0 && d.id < a.count) return "";
  const std::string kind = d.type == kDLCUDA ? "CUDA" : "such";
  return "it does not exist: this machine has " + std::to_string(a.count) + " " + kind +
         " device" + (a.count == 1 ? "" : "s");
}

void synchronize(Device d) { device::synchronize(d); }

std::string describe_device(Device d) {
  const kernel::DeviceApi* api = device::require(d);
  if (api == nullptr) return "cpu";
  char line[512] = {0};
  api->describe(d.id, line, sizeof line);
  return line;
}

}  // namespace cvm
