// ParamDict: named tensors saved to and loaded from the cvmrt params format or the legacy CVM one.
//
// cvmrt format ("CVMRTPRM"): a flatbuffers table of contents (schemas/params.fbs) followed by
// raw payloads, each 64-byte aligned, addressed by 64-bit offsets so dicts beyond 2 GiB work.
// Legacy format: the CVM/TVM binary param list of spec/cvm-ops.md section 2.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cvm/export.h"
#include "cvm/ndarray.h"

namespace cvm {

enum class ParamFormat {
  kCvmrt,   // flatbuffers table of contents + aligned payloads
  kLegacy,  // CVM binary param list
};

struct LoadOptions {
  // Verify per-tensor checksums (cvmrt format). Structure, bounds, overlap and alignment are
  // always checked; only the checksum may be skipped.
  bool verify = true;
};

// An ordered list of (name, tensor) pairs with unique names, plus string metadata.
// Not synchronised: use one dict from one thread at a time.
class CVM_EXPORT ParamDict {
 public:
  ParamDict() = default;

  // Adds or replaces a tensor (kept in first-insertion order). LogicError for an empty name, an
  // undefined array or a non-CPU one. Lookups by name take constant time (a hash index).
  void set(const std::string& name, const NDArray& array);
  bool contains(const std::string& name) const;
  // LogicError naming the missing key.
  const NDArray& at(const std::string& name) const;
  size_t size() const { return entries_.size(); }
  const std::vector<std::pair<std::string, NDArray>>& entries() const { return entries_; }

  // Free-form string metadata, saved with the cvmrt format (the legacy one has none).
  std::map<std::string, std::string>& metadata() { return metadata_; }
  const std::map<std::string, std::string>& metadata() const { return metadata_; }

  // ---- saving: the same dict always gives byte-identical output ----
  std::vector<uint8_t> save(ParamFormat format = ParamFormat::kCvmrt) const;
  // Streams to a file: a temporary file of its own next to `path`, then renamed over it
  // (concurrent saves of one path each succeed; the last one's file stays). RuntimeError on
  // I/O failure.
  void save_file(const std::string& path, ParamFormat format = ParamFormat::kCvmrt) const;

  // ---- loading: the format is detected from the first 8 bytes ----
  // (a) Copies every payload into fresh arrays.
  static ParamDict load(const void* data, size_t size, const LoadOptions& options = {});
  // (b) Zero-copy over the caller's buffer: arrays point into it and hold `keepalive` until the
  // last of them is gone (a null keepalive means the caller keeps the buffer alive itself). Tensors whose payload is not aligned to their element size (possible
  // in the legacy format, or for a buffer that is not 64-byte aligned) are copied instead.
  static ParamDict load_borrowed(const void* data, size_t size,
                                 std::shared_ptr<const void> keepalive,
                                 const LoadOptions& options = {});
  // (c) Zero-copy over a read-only mmap of the file, kept mapped while any array lives.
  static ParamDict load_file(const std::string& path, const LoadOptions& options = {});
  // Reads the whole file into memory and loads by copy (no mapping kept).
  static ParamDict load_file_copy(const std::string& path, const LoadOptions& options = {});

  // Which format a buffer is in; LogicError when it is neither.
  static ParamFormat detect_format(const void* data, size_t size);

 private:
  // Takes a loader's tensors (unique names, in file order) and metadata.
  void adopt(std::vector<std::pair<std::string, NDArray>> entries,
             std::map<std::string, std::string> metadata);

  std::vector<std::pair<std::string, NDArray>> entries_;
  std::unordered_map<std::string, size_t> index_;  // name -> position in entries_
  std::map<std::string, std::string> metadata_;
};

}  // namespace cvm
