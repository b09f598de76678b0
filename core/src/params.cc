// ParamDict: entries, format detection, load/save dispatch, byte sinks and the row-major writer.
#include "cvm/params.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>

#include "cvm/check.h"
#include "file_mapping.h"
#include "params_format.h"

namespace cvm {

using params_detail::Entries;
using params_detail::Loaded;
using params_detail::Sink;
using params_detail::Source;

namespace params_detail {

std::string tensor_ref(const std::string& name, size_t index) {
  detail::MessageStream os;
  os << "tensor \"" << name << "\" (#" << index << ")";
  return os.str();
}

void Sink::write_zeros(uint64_t n) {
  static const uint8_t kZeros[4096] = {};
  while (n > 0) {
    size_t k = n < sizeof(kZeros) ? static_cast<size_t>(n) : sizeof(kZeros);
    write(kZeros, k);
    n -= k;
  }
}

void VectorSink::write(const void* data, size_t n) {
  if (n == 0) return;
  const auto* p = static_cast<const uint8_t*>(data);
  out_->insert(out_->end(), p, p + n);
}

void VectorSink::expect(uint64_t n) {
  VERIFY(n <= out_->max_size() - out_->size())
      << "params: " << n << " bytes do not fit in memory on this platform; use save_file";
  out_->reserve(out_->size() + static_cast<size_t>(n));
}

void VectorSink::patch(uint64_t pos, const void* data, size_t n) {
  CHECK(pos <= out_->size() && n <= out_->size() - pos)
      << "params writer: patch [" << pos << ", +" << n << ") beyond " << out_->size() << " bytes";
  if (n) std::memcpy(out_->data() + pos, data, n);
}

namespace {

// Copies `count` elements of `esize` bytes, `step_bytes` apart in the source, to `dst`.
void gather(uint8_t* dst, const uint8_t* src, int64_t step_bytes, size_t esize, int64_t count) {
  switch (esize) {
    case 1:
      for (int64_t i = 0; i < count; ++i) dst[i] = src[i * step_bytes];
      return;
    case 2:
      for (int64_t i = 0; i < count; ++i) std::memcpy(dst + 2 * i, src + i * step_bytes, 2);
      return;
    case 4:
      for (int64_t i = 0; i < count; ++i) std::memcpy(dst + 4 * i, src + i * step_bytes, 4);
      return;
    case 8:
      for (int64_t i = 0; i < count; ++i) std::memcpy(dst + 8 * i, src + i * step_bytes, 8);
      return;
    default:
      for (int64_t i = 0; i < count; ++i) {
        std::memcpy(dst + esize * static_cast<size_t>(i), src + i * step_bytes, esize);
      }
  }
}

// Writes `count` copies of the `esize`-byte element at `src` to `dst`.
void replicate(uint8_t* dst, const uint8_t* src, size_t esize, int64_t count) {
  size_t total = esize * static_cast<size_t>(count);
  if (total == 0) return;
  if (esize == 1) {
    std::memset(dst, *src, total);
    return;
  }
  std::memcpy(dst, src, esize);
  size_t done = esize;
  while (done < total) {  // doubling copies of what is already there
    size_t k = std::min(done, total - done);
    std::memcpy(dst + done, dst, k);
    done += k;
  }
}

}  // namespace

void for_each_row_major_chunk(const NDArray& array, std::vector<uint8_t>& scratch,
                              const std::function<void(const uint8_t*, size_t)>& emit) {
  const int64_t numel = array.numel();
  if (numel == 0) return;
  const size_t esize = array.dtype().bytes();
  const auto* base = static_cast<const uint8_t*>(array.data());
  if (array.is_contiguous()) {
    // Pieces small enough to stay in cache between the checksum and the write that follow.
    constexpr size_t kPiece = size_t{4} << 20;
    const size_t total = static_cast<size_t>(numel) * esize;
    for (size_t done = 0; done < total; done += kPiece) {
      emit(base + done, std::min(kPiece, total - done));
    }
    return;
  }
  // Drop extent-1 dims and merge dims that step through memory as one (this also merges
  // stacked broadcast dims, whose strides are all 0).
  std::vector<int64_t> ext, str;
  const Shape& shape = array.shape();
  const Shape& strides = array.strides();
  for (int i = 0; i < shape.ndim(); ++i) {
    if (shape[i] == 1) continue;
    if (!ext.empty() && str.back() == strides[i] * shape[i]) {
      ext.back() *= shape[i];
      str.back() = strides[i];
    } else {
      ext.push_back(shape[i]);
      str.push_back(strides[i]);
    }
  }
  if (ext.empty()) {
    emit(base, esize);
    return;
  }
  constexpr size_t kScratchBytes = size_t{1} << 20;
  if (scratch.size() < kScratchBytes) scratch.resize(kScratchBytes);
  const size_t capacity = kScratchBytes / esize * esize;
  size_t used = 0;
  auto flush = [&] {
    if (used) emit(scratch.data(), used);
    used = 0;
  };

  const int outer = static_cast<int>(ext.size()) - 1;
  const int64_t inner = ext.back();
  const int64_t inner_step = str.back() * static_cast<int64_t>(esize);
  std::vector<int64_t> idx(static_cast<size_t>(outer), 0);
  // Byte offset of the current row from `base`: kept as an integer so that stepping past the
  // last row never forms an out-of-range pointer.
  int64_t row = 0;
  for (;;) {
    const uint8_t* src = base + row;
    if (str.back() == 1) {
      size_t bytes = static_cast<size_t>(inner) * esize;
      if (bytes >= capacity / 2) {
        flush();
        for (size_t done = 0; done < bytes; done += capacity) {
          emit(src + done, std::min(capacity, bytes - done));
        }
      } else {
        if (used + bytes > capacity) flush();
        std::memcpy(scratch.data() + used, src, bytes);
        used += bytes;
      }
    } else {
      int64_t done = 0;
      while (done < inner) {
        if (used == capacity) flush();
        int64_t take =
            std::min<int64_t>(static_cast<int64_t>((capacity - used) / esize), inner - done);
        uint8_t* dst = scratch.data() + used;
        if (inner_step == 0) {
          replicate(dst, src, esize, take);
        } else {
          gather(dst, src + done * inner_step, inner_step, esize, take);
        }
        used += static_cast<size_t>(take) * esize;
        done += take;
      }
    }
    int d = outer - 1;
    for (; d >= 0; --d) {
      row += str[static_cast<size_t>(d)] * static_cast<int64_t>(esize);
      if (++idx[static_cast<size_t>(d)] < ext[static_cast<size_t>(d)]) break;
      row -=
          str[static_cast<size_t>(d)] * ext[static_cast<size_t>(d)] * static_cast<int64_t>(esize);
      idx[static_cast<size_t>(d)] = 0;
    }
    if (d < 0) break;
  }
  flush();
}

}  // namespace params_detail

namespace {

// Streams to a file descriptor through a 1 MiB buffer. The file is removed unless commit()
// succeeds, so a failed save never leaves a partial file under the final name.
class FileSink final : public Sink {
 public:
  explicit FileSink(std::string path) : path_(std::move(path)), buffer_(kBufferBytes) {
    do {
      fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    } while (fd_ < 0 && errno == EINTR);
    if (fd_ < 0) {
      int err = errno;
      CVM_RUNTIME_ERROR() << "cannot create params file '" << path_ << "': " << std::strerror(err);
    }
  }
  ~FileSink() override {
    if (fd_ >= 0) {
      ::close(fd_);
      ::unlink(path_.c_str());
    }
  }
  FileSink(const FileSink&) = delete;
  FileSink& operator=(const FileSink&) = delete;

  void write(const void* data, size_t n) override {
    const auto* p = static_cast<const uint8_t*>(data);
    if (used_ + n > buffer_.size()) {
      flush();
      if (n >= buffer_.size()) {
        write_all(p, n, position_);
        position_ += n;
        return;
      }
    }
    std::memcpy(buffer_.data() + used_, p, n);
    used_ += n;
    position_ += n;
  }

  void patch(uint64_t pos, const void* data, size_t n) override {
    CHECK(pos <= position_ && n <= position_ - pos)
        << "params writer: patch [" << pos << ", +" << n << ") beyond " << position_ << " bytes";
    flush();
    write_all(static_cast<const uint8_t*>(data), n, pos);
  }

  uint64_t position() const override { return position_; }

  // Flushes and closes; the file then stays.
  void commit() {
    flush();
    int rc = ::close(fd_);
    int err = errno;
    fd_ = -1;
    if (rc != 0) {
      ::unlink(path_.c_str());
      CVM_RUNTIME_ERROR() << "cannot write params file '" << path_ << "': " << std::strerror(err);
    }
  }

 private:
  static constexpr size_t kBufferBytes = size_t{1} << 20;

  void flush() {
    if (used_ == 0) return;
    write_all(buffer_.data(), used_, position_ - used_);
    used_ = 0;
  }

  void write_all(const uint8_t* p, size_t n, uint64_t at) {
    while (n > 0) {
      size_t want = std::min(n, size_t{1} << 30);
      ssize_t got = ::pwrite(fd_, p, want, static_cast<off_t>(at));
      if (got < 0) {
        int err = errno;
        if (err == EINTR) continue;
        CVM_RUNTIME_ERROR() << "cannot write params file '" << path_ << "' at offset " << at << ": "
                            << std::strerror(err);
      }
      CHECK(got > 0) << "cannot write params file '" << path_ << "': no progress at offset " << at;
      p += got;
      n -= static_cast<size_t>(got);
      at += static_cast<uint64_t>(got);
    }
  }

  std::string path_;
  int fd_ = -1;
  std::vector<uint8_t> buffer_;
  size_t used_ = 0;
  uint64_t position_ = 0;
};

void save_to(const ParamDict& dict, ParamFormat format, Sink& sink) {
  switch (format) {
    case ParamFormat::kCvmrt:
      params_detail::save_cvmrt(dict.entries(), dict.metadata(), sink);
      return;
    case ParamFormat::kLegacy:
      params_detail::save_legacy(dict.entries(), sink);
      return;
  }
  CVM_LOGIC_ERROR() << "save: unknown params format " << static_cast<int>(format);
}

Loaded load_any(const Source& src, const LoadOptions& options) {
  switch (ParamDict::detect_format(src.data, src.size)) {
    case ParamFormat::kCvmrt:
      return params_detail::load_cvmrt(src, options);
    case ParamFormat::kLegacy:
      return params_detail::load_legacy(src, options);
  }
  CVM_RUNTIME_ERROR() << "params: unreachable format";
}

// Runs `fn`, prefixing any LogicError's message with the file it came from.
template <typename Fn>
auto with_path(const std::string& path, Fn&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const LogicError& e) {
    throw LogicError("params file '" + path + "': " + e.what());
  }
}

}  // namespace

void ParamDict::set(const std::string& name, const NDArray& array) {
  VERIFY(!name.empty()) << "ParamDict::set: tensor names must not be empty";
  VERIFY(array.defined()) << "ParamDict::set(\"" << name << "\"): undefined (empty) NDArray";
  VERIFY(array.device().is_cpu()) << "ParamDict::set(\"" << name << "\"): array is on "
                                  << array.device().name() << ", only CPU arrays can be stored";
  const auto found = index_.find(name);
  if (found != index_.end()) {
    entries_[found->second].second = array;
    return;
  }
  entries_.emplace_back(name, array);
  index_.emplace(name, entries_.size() - 1);
}

void ParamDict::adopt(std::vector<std::pair<std::string, NDArray>> entries,
                      std::map<std::string, std::string> metadata) {
  entries_ = std::move(entries);
  metadata_ = std::move(metadata);
  index_.clear();
  index_.reserve(entries_.size());
  for (size_t i = 0; i < entries_.size(); ++i) index_.emplace(entries_[i].first, i);
}

bool ParamDict::contains(const std::string& name) const { return index_.count(name) != 0; }

const NDArray& ParamDict::at(const std::string& name) const {
  const auto found = index_.find(name);
  if (found != index_.end()) return entries_[found->second].second;
  CVM_LOGIC_ERROR() << "ParamDict: no tensor named \"" << name << "\" (the dict has "
                    << entries_.size() << " tensors)";
}

std::vector<uint8_t> ParamDict::save(ParamFormat format) const {
  std::vector<uint8_t> out;
  params_detail::VectorSink sink(&out);
  save_to(*this, format, sink);
  return out;
}

void ParamDict::save_file(const std::string& path, ParamFormat format) const {
  const std::string tmp = temp_path_for(path);
  FileSink sink(tmp);
  save_to(*this, format, sink);
  sink.commit();
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    CVM_RUNTIME_ERROR() << "cannot rename '" << tmp << "' to '" << path
                        << "': " << std::strerror(err);
  }
}

ParamFormat ParamDict::detect_format(const void* data, size_t size) {
  VERIFY(data != nullptr || size == 0) << "params: null buffer of " << size << " bytes";
  VERIFY(size >= 8) << "params: " << size
                    << " bytes is too small to be a params file (need at least 8 for the magic)";
  const auto* p = static_cast<const uint8_t*>(data);
  if (std::memcmp(p, params_detail::kCvmrtMagic, 8) == 0) return ParamFormat::kCvmrt;
  if (params_detail::load_le64(p) == params_detail::kLegacyListMagic) return ParamFormat::kLegacy;
  static const char kDigits[] = "0123456789abcdef";
  std::string hex;
  for (int i = 0; i < 8; ++i) {
    hex += kDigits[p[i] >> 4];
    hex += kDigits[p[i] & 15];
  }
  CVM_LOGIC_ERROR() << "params: unrecognised format: the first 8 bytes are " << hex
                    << ", expected the magic \"CVMRTPRM\" (cvmrt) or u64 0xf7e58d4f05049cb7 "
                       "(legacy CVM)";
}

ParamDict ParamDict::load(const void* data, size_t size, const LoadOptions& options) {
  Source src;
  src.data = static_cast<const uint8_t*>(data);
  src.size = size;
  Loaded loaded = load_any(src, options);
  ParamDict dict;
  dict.adopt(std::move(loaded.entries), std::move(loaded.metadata));
  return dict;
}

ParamDict ParamDict::load_borrowed(const void* data, size_t size,
                                   std::shared_ptr<const void> keepalive,
                                   const LoadOptions& options) {
  Source src;
  src.data = static_cast<const uint8_t*>(data);
  src.size = size;
  src.zero_copy = true;
  src.keepalive = std::move(keepalive);
  Loaded loaded = load_any(src, options);
  ParamDict dict;
  dict.adopt(std::move(loaded.entries), std::move(loaded.metadata));
  return dict;
}

ParamDict ParamDict::load_file(const std::string& path, const LoadOptions& options) {
  std::shared_ptr<const FileMapping> mapping = FileMapping::open(path, "params file");
  Source src;
  src.data = mapping->data();
  src.size = mapping->size();
  src.zero_copy = true;
  src.keepalive = mapping;
  Loaded loaded = with_path(path, [&] { return load_any(src, options); });
  ParamDict dict;
  dict.adopt(std::move(loaded.entries), std::move(loaded.metadata));
  return dict;
}

ParamDict ParamDict::load_file_copy(const std::string& path, const LoadOptions& options) {
  ReadOnlyFile file(path, "params file");
  Loaded loaded = with_path(path, [&]() -> Loaded {
    uint8_t head[8] = {};
    size_t n = file.size() < 8 ? static_cast<size_t>(file.size()) : 8;
    file.read_at(0, head, n);
    if (detect_format(head, n) == ParamFormat::kCvmrt) {
      return params_detail::load_cvmrt_file(file, options);
    }
    // Legacy files are read through a temporary mapping and copied out of it.
    std::shared_ptr<const FileMapping> mapping = FileMapping::map(file);
    Source src;
    src.data = mapping->data();
    src.size = mapping->size();
    return params_detail::load_legacy(src, options);
  });
  ParamDict dict;
  dict.adopt(std::move(loaded.entries), std::move(loaded.metadata));
  return dict;
}

}  // namespace cvm
