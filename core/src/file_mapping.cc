// POSIX implementation of ReadOnlyFile (open/fstat/pread) and FileMapping (mmap).
#include "file_mapping.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <limits>

#include "cvm/check.h"

namespace cvm {

namespace {

// Failures the caller can fix (wrong path, permissions) are logic errors; the rest (out of file
// descriptors, I/O errors) belong to the environment.
bool is_callers_fault(int err) {
  return err == ENOENT || err == ENOTDIR || err == EACCES || err == EPERM || err == EISDIR ||
         err == ELOOP || err == ENAMETOOLONG || err == ENXIO;
}

}  // namespace

ReadOnlyFile::ReadOnlyFile(const std::string& path, const std::string& kind)
    : path_(path), kind_(kind) {
  do {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  } while (fd_ < 0 && errno == EINTR);
  if (fd_ < 0) {
    int err = errno;
    if (is_callers_fault(err)) {
      CVM_LOGIC_ERROR() << "cannot open " << kind << " '" << path << "': " << std::strerror(err);
    }
    CVM_RUNTIME_ERROR() << "cannot open " << kind << " '" << path << "': " << std::strerror(err);
  }
  struct stat st;
  if (::fstat(fd_, &st) != 0) {
    int err = errno;
    ::close(fd_);
    CVM_RUNTIME_ERROR() << "cannot stat " << kind << " '" << path << "': " << std::strerror(err);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd_);
    CVM_LOGIC_ERROR() << "cannot open " << kind << " '" << path << "': not a regular file";
  }
  size_ = static_cast<uint64_t>(st.st_size);
}

ReadOnlyFile::~ReadOnlyFile() {
  if (fd_ >= 0) ::close(fd_);
}

void ReadOnlyFile::read_at(uint64_t offset, void* dst, size_t n) const {
  auto* out = static_cast<char*>(dst);
  while (n > 0) {
    // Linux transfers at most ~2 GiB per call; ask for less and loop.
    size_t want = n < (size_t{1} << 30) ? n : (size_t{1} << 30);
    VERIFY(offset <= static_cast<uint64_t>(std::numeric_limits<off_t>::max()))
        << kind_ << " '" << path_ << "': offset " << offset << " is beyond what this system "
        << "can read";
    ssize_t got = ::pread(fd_, out, want, static_cast<off_t>(offset));
    if (got < 0) {
      int err = errno;
      if (err == EINTR) continue;
      CVM_RUNTIME_ERROR() << "cannot read " << kind_ << " '" << path_ << "' at offset "
                          << offset << ": " << std::strerror(err);
    }
    VERIFY(got > 0) << kind_ << " '" << path_ << "' ended at offset " << offset
                    << " while reading (it changed after it was opened)";
    out += got;
    offset += static_cast<uint64_t>(got);
    n -= static_cast<size_t>(got);
  }
}

std::shared_ptr<const FileMapping> FileMapping::open(const std::string& path,
                                                     const std::string& kind) {
  ReadOnlyFile file(path, kind);
  return map(file);
}

std::shared_ptr<const FileMapping> FileMapping::map(const ReadOnlyFile& file) {
  const std::string& path = file.path();
  std::shared_ptr<FileMapping> m(new FileMapping());
  if (file.size() == 0) return m;
  VERIFY(file.size() <= std::numeric_limits<size_t>::max())
      << file.kind() << " '" << path << "' (" << file.size()
      << " bytes) is too large to map in this address space";
  size_t n = static_cast<size_t>(file.size());
  void* p = ::mmap(nullptr, n, PROT_READ, MAP_PRIVATE, file.fd(), 0);
  if (p == MAP_FAILED) {
    int err = errno;
    CVM_RUNTIME_ERROR() << "cannot map " << file.kind() << " '" << path << "' (" << n
                        << " bytes): " << std::strerror(err);
  }
  m->data_ = static_cast<const uint8_t*>(p);
  m->size_ = n;
  // The mapping stays valid after the descriptor is closed.
  return m;
}

FileMapping::~FileMapping() {
  if (data_ != nullptr) ::munmap(const_cast<uint8_t*>(data_), size_);
}

std::string temp_path_for(const std::string& path) {
  static std::atomic<uint64_t> counter{0};
  return path + ".tmp." + std::to_string(::getpid()) + "." +
         std::to_string(counter.fetch_add(1, std::memory_order_relaxed));
}

}  // namespace cvm
