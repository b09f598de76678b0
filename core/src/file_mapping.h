// File access for the params and model loaders and savers: a positioned reader, an RAII mmap,
// and temporary names for writes that are renamed into place.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace cvm {

// An open, read-only regular file. Not copyable; closes on destruction.
// Errors: LogicError when the file cannot be opened for a reason that is the caller's
// (missing, not permitted, a directory), RuntimeError for anything else the OS reports. Their
// messages name the file as `kind` says what it is: "cannot open params file 'x.params': ...".
class ReadOnlyFile {
 public:
  ReadOnlyFile(const std::string& path, const std::string& kind);
  ~ReadOnlyFile();
  ReadOnlyFile(const ReadOnlyFile&) = delete;
  ReadOnlyFile& operator=(const ReadOnlyFile&) = delete;

  const std::string& path() const { return path_; }
  const std::string& kind() const { return kind_; }  // "params file", "model file"
  uint64_t size() const { return size_; }
  int fd() const { return fd_; }
  // Reads exactly `n` bytes at byte `offset` into `dst`. LogicError when the file ends first
  // (it shrank since it was opened), RuntimeError on an OS error.
  void read_at(uint64_t offset, void* dst, size_t n) const;

 private:
  std::string path_;
  std::string kind_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

// A whole file mapped read-only (MAP_PRIVATE). Shared through shared_ptr: zero-copy arrays keep
// the mapping alive. An empty file maps to (nullptr, 0). The file must not be truncated while
// mapped (the OS would fault on access; nothing portable can prevent that).
class FileMapping {
 public:
  // Opens and maps `path`; `kind` as for ReadOnlyFile.
  static std::shared_ptr<const FileMapping> open(const std::string& path, const std::string& kind);
  // Maps an already open file (which may be closed afterwards).
  static std::shared_ptr<const FileMapping> map(const ReadOnlyFile& file);
  ~FileMapping();
  FileMapping(const FileMapping&) = delete;
  FileMapping& operator=(const FileMapping&) = delete;

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  FileMapping() = default;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

// A temporary file name next to `path` for a save that writes it and then renames it over
// `path`: unique per process and call, so concurrent saves of one path (threads or processes)
// never write the same temporary file, and the last rename wins with a whole file.
std::string temp_path_for(const std::string& path);

}  // namespace cvm
