// The legacy CVM/TVM binary param list (spec/cvm-ops.md section 2): reader and writer.
#include <cstring>
#include <set>

#include "cvm/check.h"
#include "params_format.h"

namespace cvm {
namespace params_detail {

namespace {

// Smallest encoding of one name (its u64 length) and of one tensor (a 0-d one without data):
// used to bound counts by the bytes that remain before reserving anything.
constexpr uint64_t kMinNameBytes = 8;
constexpr uint64_t kMinTensorBytes = 8 + 8 + 4 + 4 + 4 + 4 + 8;

// Bounds-checked little-endian cursor over the input.
class Reader {
 public:
  Reader(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  size_t pos() const { return pos_; }
  size_t remaining() const { return size_ - pos_; }
  const uint8_t* here() const { return data_ + pos_; }

  void need(size_t n, const char* what) const {
    VERIFY(n <= remaining()) << "legacy params: truncated: " << what << " needs " << n
                             << " bytes at offset " << pos_ << ", only " << remaining()
                             << " remain";
  }
  uint64_t u64(const char* what) {
    need(8, what);
    uint64_t v = load_le64(here());
    pos_ += 8;
    return v;
  }
  int64_t i64(const char* what) { return static_cast<int64_t>(u64(what)); }
  int32_t i32(const char* what) {
    need(4, what);
    uint32_t v = load_le32(here());
    pos_ += 4;
    return static_cast<int32_t>(v);
  }
  uint8_t u8(const char* what) {
    need(1, what);
    return data_[pos_++];
  }
  uint16_t u16(const char* what) {
    need(2, what);
    uint16_t v = load_le16(here());
    pos_ += 2;
    return v;
  }
  void skip(size_t n, const char* what) {
    need(n, what);
    pos_ += n;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// Appends little-endian fields to a small staging buffer.
class Writer {
 public:
  void u64(uint64_t v) {
    uint8_t b[8];
    store_le64(b, v);
    bytes_.insert(bytes_.end(), b, b + 8);
  }
  void i32(int32_t v) {
    uint8_t b[4];
    store_le32(b, static_cast<uint32_t>(v));
    bytes_.insert(bytes_.end(), b, b + 4);
  }
  void raw(const void* p, size_t n) {
    const auto* c = static_cast<const uint8_t*>(p);
    bytes_.insert(bytes_.end(), c, c + n);
  }
  void flush_to(Sink& sink) {
    sink.write(bytes_.data(), bytes_.size());
    bytes_.clear();
  }

 private:
  std::vector<uint8_t> bytes_;
};

}  // namespace

void save_legacy(const Entries& entries, Sink& sink) {
  Writer w;
  w.u64(kLegacyListMagic);
  w.u64(0);
  w.u64(entries.size());
  for (const auto& e : entries) {
    w.u64(e.first.size());
    w.raw(e.first.data(), e.first.size());
    w.flush_to(sink);
  }
  w.u64(entries.size());
  w.flush_to(sink);
  std::vector<uint8_t> scratch;
  for (size_t i = 0; i < entries.size(); ++i) {
    const NDArray& a = entries[i].second;
    DataType t = a.dtype();
    w.u64(kLegacyTensorMagic);
    w.u64(0);
    w.i32(kDLCPU);  // device_type 1, device_id 0: CVM always writes CPU
    w.i32(0);
    w.i32(a.ndim());
    uint8_t dtype[4] = {t.code(), static_cast<uint8_t>(t.bits()),
                        static_cast<uint8_t>(t.lanes() & 0xff),
                        static_cast<uint8_t>(t.lanes() >> 8)};
    w.raw(dtype, 4);
    for (int64_t d : a.shape()) w.u64(static_cast<uint64_t>(d));
    w.u64(static_cast<uint64_t>(a.nbytes()));
    w.flush_to(sink);
    uint64_t written = 0;
    for_each_row_major_chunk(a, scratch, [&](const uint8_t* p, size_t n) {
      sink.write(p, n);
      written += n;
    });
    CHECK(written == a.nbytes()) << "legacy params writer: " << tensor_ref(entries[i].first, i)
                                 << " produced " << written << " bytes, expected " << a.nbytes();
  }
}

Loaded load_legacy(const Source& src, const LoadOptions& /*options: no checksums here*/) {
  Reader r(src.data, src.size);
  uint64_t magic = r.u64("list magic");
  VERIFY(magic == kLegacyListMagic) << "legacy params: bad list magic 0x" << detail::hex(magic)
                                    << ", expected 0x" << detail::hex(kLegacyListMagic);
  uint64_t reserved = r.u64("reserved field");
  VERIFY(reserved == 0) << "legacy params: reserved field is " << reserved << ", expected 0";

  uint64_t n_names = r.u64("name count");
  VERIFY(n_names <= r.remaining() / kMinNameBytes)
      << "legacy params: name count " << n_names << " cannot fit in the " << r.remaining()
      << " bytes that remain";
  std::vector<std::string> names;
  names.reserve(static_cast<size_t>(n_names));
  std::set<std::string> seen;
  for (uint64_t i = 0; i < n_names; ++i) {
    uint64_t len = r.u64("name length");
    VERIFY(len <= r.remaining()) << "legacy params: name #" << i << " has length " << len
                                 << " but only " << r.remaining() << " bytes remain (offset "
                                 << r.pos() << ")";
    std::string name(reinterpret_cast<const char*>(r.here()), static_cast<size_t>(len));
    r.skip(static_cast<size_t>(len), "name");
    VERIFY(!name.empty()) << "legacy params: name #" << i << " is empty";
    VERIFY(seen.insert(name).second) << "legacy params: duplicate " << tensor_ref(name, i);
    names.push_back(std::move(name));
  }

  uint64_t n_tensors = r.u64("tensor count");
  VERIFY(n_tensors == n_names) << "legacy params: tensor count " << n_tensors
                               << " does not match the name count " << n_names;
  VERIFY(n_tensors <= r.remaining() / kMinTensorBytes)
      << "legacy params: tensor count " << n_tensors << " cannot fit in the " << r.remaining()
      << " bytes that remain";

  Loaded out;
  out.entries.reserve(static_cast<size_t>(n_tensors));
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string ref = tensor_ref(names[i], i);
    const size_t start = r.pos();
    uint64_t tmagic = r.u64("tensor magic");
    VERIFY(tmagic == kLegacyTensorMagic)
        << "legacy params: " << ref << ": bad tensor magic 0x" << detail::hex(tmagic)
        << " at offset " << start << ", expected 0x" << detail::hex(kLegacyTensorMagic);
    uint64_t treserved = r.u64("tensor reserved field");
    VERIFY(treserved == 0) << "legacy params: " << ref << ": reserved field is " << treserved
                           << ", expected 0";
    // The device the writer had: any value is accepted, the tensor always loads to the CPU.
    r.i32("device_type");
    r.i32("device_id");
    int32_t ndim = r.i32("ndim");
    VERIFY(ndim >= 0 && ndim <= kMaxDims) << "legacy params: " << ref << ": ndim " << ndim
                                          << " is out of range [0, " << kMaxDims << "]";
    uint8_t code = r.u8("dtype code");
    uint8_t bits = r.u8("dtype bits");
    uint16_t lanes = r.u16("dtype lanes");
    DataType dtype(code, bits, lanes);
    VERIFY(dtype.is_supported()) << "legacy params: " << ref << ": unsupported dtype (code "
                                 << int(code) << ", bits " << int(bits) << ", lanes " << lanes
                                 << ")";
    Shape shape;
    shape.resize(ndim);
    int64_t numel = 1;
    for (int d = 0; d < ndim; ++d) {
      int64_t extent = r.i64("shape");
      VERIFY(extent >= 0) << "legacy params: " << ref << ": negative extent " << extent
                          << " in dim " << d;
      shape[d] = extent;
      VERIFY(!__builtin_mul_overflow(numel, extent, &numel))
          << "legacy params: " << ref << ": element count of shape " << shape << " overflows int64";
    }
    int64_t expect = 0;
    VERIFY(!__builtin_mul_overflow(numel, static_cast<int64_t>(dtype.bytes()), &expect))
        << "legacy params: " << ref << ": byte size of shape " << shape << " " << dtype
        << " overflows int64";
    int64_t nbytes = r.i64("nbytes");
    VERIFY(nbytes == expect) << "legacy params: " << ref << ": nbytes " << nbytes
                             << " does not match shape " << shape << " " << dtype << " (expected "
                             << expect << ")";
    VERIFY(static_cast<uint64_t>(nbytes) <= r.remaining())
        << "legacy params: " << ref << ": truncated data: " << nbytes << " bytes at offset "
        << r.pos() << ", only " << r.remaining() << " remain";
    const uint8_t* p = r.here();
    const size_t n = static_cast<size_t>(nbytes);
    r.skip(n, "tensor data");
    NDArray a;
    if (src.zero_copy) {
      a = NDArray::from_external(const_cast<uint8_t*>(p), shape, dtype, Device::cpu(),
                                 src.keepalive, /*read_only=*/true);
    } else {
      a = NDArray::empty(shape, dtype);
      if (n) std::memcpy(a.mutable_data(), p, n);
    }
    out.entries.emplace_back(names[i], std::move(a));
  }
  VERIFY(r.remaining() == 0) << "legacy params: " << r.remaining()
                             << " trailing bytes after the last tensor (at offset " << r.pos()
                             << ")";
  return out;
}

}  // namespace params_detail
}  // namespace cvm
