// Internal interface between ParamDict (params.cc) and its two file formats (params_cvmrt.cc,
// params_legacy.cc): constants, byte sinks, the row-major payload writer and the loaders.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cvm/ndarray.h"
#include "cvm/params.h"

namespace cvm {

class ReadOnlyFile;

namespace params_detail {

// ---- cvmrt format ----
constexpr char kCvmrtMagic[8] = {'C', 'V', 'M', 'R', 'T', 'P', 'R', 'M'};
constexpr uint32_t kCvmrtVersion = 1;
constexpr size_t kCvmrtHeaderSize = 24;  // magic, u32 version, u32 reserved, u64 toc_size
constexpr uint64_t kPayloadAlignment = 64;

// ---- legacy CVM format (spec/cvm-ops.md section 2) ----
constexpr uint64_t kLegacyListMagic = 0xF7E58D4F05049CB7ULL;
constexpr uint64_t kLegacyTensorMagic = 0xDD5E40F096B4A13FULL;

// Most dimensions a loaded tensor may have (both formats). DLPack has no limit; this keeps
// hostile files from making us allocate shapes of millions of dims.
constexpr int kMaxDims = 32;

using Entries = std::vector<std::pair<std::string, NDArray>>;
using Metadata = std::map<std::string, std::string>;

struct Loaded {
  Entries entries;  // unique names, file order
  Metadata metadata;
};

// The bytes being loaded and how arrays get their memory. zero_copy: arrays are read-only views
// into `data` holding `keepalive` (which may be null when the caller guarantees the lifetime);
// otherwise every payload is copied into a fresh array.
struct Source {
  const uint8_t* data = nullptr;
  size_t size = 0;
  bool zero_copy = false;
  std::shared_ptr<const void> keepalive;
};

// Little-endian loads and stores of fixed-width integers at any alignment.
inline uint64_t load_le64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
inline uint32_t load_le32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}
inline uint16_t load_le16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | p[1] << 8); }
inline void store_le64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
inline void store_le32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

inline uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

// Where saved bytes go: appended in order, plus patches of bytes already written (the cvmrt
// writer fills in its table of contents once the checksums are known).
class Sink {
 public:
  virtual ~Sink() = default;
  virtual void write(const void* data, size_t n) = 0;
  virtual void patch(uint64_t pos, const void* data, size_t n) = 0;
  virtual uint64_t position() const = 0;
  // Hint: about `n` more bytes will follow.
  virtual void expect(uint64_t /*n*/) {}
  void write_zeros(uint64_t n);
};

class VectorSink final : public Sink {
 public:
  explicit VectorSink(std::vector<uint8_t>* out) : out_(out) {}
  void write(const void* data, size_t n) override;
  void patch(uint64_t pos, const void* data, size_t n) override;
  uint64_t position() const override { return out_->size(); }
  void expect(uint64_t n) override;

 private:
  std::vector<uint8_t>* out_;
};

// Calls `emit` with the array's bytes in row-major order, in chunks of any size. Handles every
// stride pattern (non-contiguous views, negative steps, broadcast dims of stride 0) without
// materialising the array: at most `scratch`'s capacity (grown to 1 MiB) is used.
void for_each_row_major_chunk(const NDArray& array, std::vector<uint8_t>& scratch,
                              const std::function<void(const uint8_t*, size_t)>& emit);

// Human-readable tensor reference for messages: "tensor \"w\" (#3)".
std::string tensor_ref(const std::string& name, size_t index);

// ---- per-format entry points ----
void save_cvmrt(const Entries& entries, const Metadata& metadata, Sink& sink);
void save_legacy(const Entries& entries, Sink& sink);
Loaded load_cvmrt(const Source& src, const LoadOptions& options);
Loaded load_legacy(const Source& src, const LoadOptions& options);
// Reads a cvmrt file with positioned reads straight into fresh arrays (no mapping, no
// intermediate copy of the whole file).
Loaded load_cvmrt_file(const ReadOnlyFile& file, const LoadOptions& options);

}  // namespace params_detail
}  // namespace cvm
