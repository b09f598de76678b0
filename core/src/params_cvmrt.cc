// The cvmrt params format: header, flatbuffers table of contents, 64-byte aligned payloads.
#include <xxhash.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>
#include <set>

#include "cvm/check.h"
#include "cvm/schema/params_generated.h"
#include "file_mapping.h"
#include "params_format.h"

namespace cvm {
namespace params_detail {

namespace {

namespace fb = ::flatbuffers;
namespace schema = ::cvm::schema;

// Incremental XXH64 (seed 0) owning its state.
class Hasher {
 public:
  Hasher() : state_(XXH64_createState()) {
    CHECK(state_ != nullptr) << "params: out of memory for a checksum state";
    XXH64_reset(state_, 0);
  }
  ~Hasher() { XXH64_freeState(state_); }
  Hasher(const Hasher&) = delete;
  Hasher& operator=(const Hasher&) = delete;
  void update(const void* p, size_t n) {
    if (n) XXH64_update(state_, p, n);
  }
  uint64_t digest() const { return XXH64_digest(state_); }

 private:
  XXH64_state_t* state_;
};

uint64_t checksum(const uint8_t* p, size_t n) { return XXH64(p, n, 0); }

// One validated table-of-contents entry.
struct Record {
  std::string name;
  DataType dtype;
  Shape shape;
  uint64_t offset = 0;
  uint64_t nbytes = 0;
  uint64_t checksum = 0;
};

struct Toc {
  std::vector<Record> records;
  Metadata metadata;
};

std::string hex64(uint64_t v) {
  char buf[19];
  std::snprintf(buf, sizeof(buf), "0x%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// Validates the 24-byte header (`avail` bytes of it present) of a file of `total` bytes and
// returns the table of contents' size.
uint64_t parse_header(const uint8_t* p, size_t avail, uint64_t total) {
  VERIFY(avail >= kCvmrtHeaderSize && total >= kCvmrtHeaderSize)
      << "cvmrt params: truncated header: " << total << " bytes, expected at least "
      << kCvmrtHeaderSize;
  VERIFY(std::memcmp(p, kCvmrtMagic, 8) == 0) << "cvmrt params: bad magic, expected \"CVMRTPRM\"";
  uint32_t version = load_le32(p + 8);
  VERIFY(version == kCvmrtVersion) << "cvmrt params: unsupported format version " << version
                                   << " (this build reads version " << kCvmrtVersion << ")";
  uint32_t reserved = load_le32(p + 12);
  VERIFY(reserved == 0) << "cvmrt params: reserved header field is " << reserved << ", expected 0";
  uint64_t toc_size = load_le64(p + 16);
  VERIFY(toc_size <= total - kCvmrtHeaderSize)
      << "cvmrt params: table of contents size " << toc_size << " exceeds the "
      << total - kCvmrtHeaderSize << " bytes after the header";
  VERIFY(toc_size >= 8) << "cvmrt params: table of contents size " << toc_size
                        << " is too small (expected at least 8)";
  VERIFY(toc_size < FLATBUFFERS_MAX_BUFFER_SIZE)
      << "cvmrt params: table of contents size " << toc_size << " exceeds the flatbuffers limit "
      << FLATBUFFERS_MAX_BUFFER_SIZE;
  uint64_t data_start = align_up(kCvmrtHeaderSize + toc_size, kPayloadAlignment);
  VERIFY(data_start <= total) << "cvmrt params: truncated: the padding after the table of "
                              << "contents ends at " << data_start << " but the file has " << total
                              << " bytes";
  return toc_size;
}

// Validates the table of contents `toc` (a copy at an aligned address) of a file of `total`
// bytes: structure, names, dtypes, shapes, sizes, payload bounds, alignment and overlap.
Toc parse_toc(const std::vector<uint8_t>& toc, uint64_t total) {
  const uint64_t toc_end = kCvmrtHeaderSize + toc.size();
  const uint64_t data_start = align_up(toc_end, kPayloadAlignment);
  VERIFY(schema::ParamsTocBufferHasIdentifier(toc.data()))
      << "cvmrt params: table of contents has identifier \""
      << std::string(reinterpret_cast<const char*>(toc.data()) + 4, 4) << "\", expected \""
      << schema::ParamsTocIdentifier() << "\"";
  fb::Verifier::Options vopts;
  vopts.max_depth = 16;
  // Each table needs at least 4 bytes, so this never rejects a real file; it bounds the work a
  // hostile one (tables referenced many times) can cause.
  vopts.max_tables = static_cast<fb::uoffset_t>(toc.size() / 4 + 16);
  fb::Verifier verifier(toc.data(), toc.size(), vopts);
  VERIFY(schema::VerifyParamsTocBuffer(verifier))
      << "cvmrt params: the table of contents (" << toc.size()
      << " bytes) fails flatbuffers verification (corrupt, truncated or missing a required "
         "field)";
  const schema::ParamsToc* root = schema::GetParamsToc(toc.data());
  VERIFY(root->format_version() == kCvmrtVersion)
      << "cvmrt params: table of contents format version " << root->format_version()
      << " does not match the header's " << kCvmrtVersion;

  Toc out;
  const auto* tensors = root->tensors();
  out.records.reserve(tensors->size());
  std::set<std::string> names;
  uint64_t end = data_start;
  for (fb::uoffset_t i = 0; i < tensors->size(); ++i) {
    const schema::Tensor* t = tensors->Get(i);
    Record r;
    r.name = t->name()->str();
    VERIFY(!r.name.empty()) << "cvmrt params: tensor #" << i << " has an empty name";
    const std::string ref = tensor_ref(r.name, i);
    VERIFY(names.insert(r.name).second) << "cvmrt params: duplicate " << ref;

    const schema::DType* dt = t->dtype();
    VERIFY(dt->lanes() == 1) << "cvmrt params: " << ref << ": dtype lanes is " << dt->lanes()
                             << ", expected 1";
    DataType dtype(dt->code(), dt->bits(), dt->lanes());
    VERIFY(dtype.is_supported()) << "cvmrt params: " << ref << ": unsupported dtype (code "
                                 << int(dt->code()) << ", bits " << int(dt->bits()) << ")";
    r.dtype = dtype;

    const auto* shape = t->shape();
    VERIFY(shape->size() <= static_cast<fb::uoffset_t>(kMaxDims))
        << "cvmrt params: " << ref << ": " << shape->size() << " dims, at most " << kMaxDims
        << " are supported";
    // The Verifier checks only the 4-byte alignment of a vector's length, not that its 8-byte
    // elements are 8-byte aligned; read them bytewise so a crafted table cannot cause a
    // misaligned load.
    const uint8_t* raw_extents = shape->Data();
    r.shape.resize(static_cast<int>(shape->size()));
    int64_t numel = 1;
    for (fb::uoffset_t d = 0; d < shape->size(); ++d) {
      int64_t extent = static_cast<int64_t>(load_le64(raw_extents + 8 * static_cast<size_t>(d)));
      VERIFY(extent >= 0) << "cvmrt params: " << ref << ": negative extent " << extent << " in dim "
                          << d;
      r.shape[static_cast<int>(d)] = extent;
      VERIFY(!__builtin_mul_overflow(numel, extent, &numel))
          << "cvmrt params: " << ref << ": element count of shape " << r.shape
          << " overflows int64";
    }
    int64_t expect_bytes = 0;
    VERIFY(!__builtin_mul_overflow(numel, static_cast<int64_t>(dtype.bytes()), &expect_bytes))
        << "cvmrt params: " << ref << ": byte size of shape " << r.shape << " " << dtype
        << " overflows int64";

    const schema::Payload* pl = t->payload();
    r.offset = pl->offset();
    r.nbytes = pl->nbytes();
    r.checksum = pl->xxhash64();
    VERIFY(r.nbytes == static_cast<uint64_t>(expect_bytes))
        << "cvmrt params: " << ref << ": payload nbytes " << r.nbytes << " does not match shape "
        << r.shape << " " << dtype << " (expected " << expect_bytes << ")";
    VERIFY(r.offset % kPayloadAlignment == 0)
        << "cvmrt params: " << ref << ": payload offset " << r.offset << " is not a multiple of "
        << kPayloadAlignment;
    VERIFY(r.offset >= toc_end) << "cvmrt params: " << ref << ": payload offset " << r.offset
                                << " lies before the end of the table of contents (" << toc_end
                                << ")";
    VERIFY(r.offset <= total && r.nbytes <= total - r.offset)
        << "cvmrt params: " << ref << ": payload [" << r.offset << ", +" << r.nbytes
        << ") is out of range of the " << total << "-byte file";
    end = std::max(end, r.offset + r.nbytes);
    out.records.push_back(std::move(r));
  }

  // Payloads must not share bytes (empty ones occupy none).
  std::vector<size_t> order;
  for (size_t i = 0; i < out.records.size(); ++i) {
    if (out.records[i].nbytes > 0) order.push_back(i);
  }
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return out.records[a].offset < out.records[b].offset ||
           (out.records[a].offset == out.records[b].offset && a < b);
  });
  for (size_t k = 1; k < order.size(); ++k) {
    const Record& prev = out.records[order[k - 1]];
    const Record& cur = out.records[order[k]];
    VERIFY(cur.offset >= prev.offset + prev.nbytes)
        << "cvmrt params: " << tensor_ref(cur.name, order[k]) << ": payload [" << cur.offset << ", "
        << cur.offset + cur.nbytes << ") overlaps " << tensor_ref(prev.name, order[k - 1]) << " ["
        << prev.offset << ", " << prev.offset + prev.nbytes << ")";
  }
  VERIFY(total == end) << "cvmrt params: " << total - end
                       << " unexpected bytes after the last payload (which ends at " << end << ")";

  if (const auto* md = root->metadata()) {
    for (fb::uoffset_t i = 0; i < md->size(); ++i) {
      const schema::MetadataEntry* e = md->Get(i);
      bool inserted = out.metadata.emplace(e->key()->str(), e->value()->str()).second;
      VERIFY(inserted) << "cvmrt params: duplicate metadata key \"" << e->key()->str() << "\"";
    }
  }
  return out;
}

void verify_checksum(const Record& r, size_t index, uint64_t found) {
  VERIFY(found == r.checksum) << "cvmrt params: " << tensor_ref(r.name, index)
                              << ": checksum mismatch: the table of contents says "
                              << hex64(r.checksum) << ", the payload hashes to " << hex64(found);
}

// Builds the table of contents for `entries` at `payloads` (offset, nbytes, checksum each).
void build_toc(fb::FlatBufferBuilder& fbb, const Entries& entries, const Metadata& metadata,
               const std::vector<schema::Payload>& payloads) {
  fbb.ForceDefaults(true);  // every field present, so the size never depends on the values
  std::vector<fb::Offset<schema::Tensor>> tensors;
  tensors.reserve(entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    const NDArray& a = entries[i].second;
    auto name = fbb.CreateString(entries[i].first);
    auto shape = fbb.CreateVector(a.shape().data(), static_cast<size_t>(a.ndim()));
    DataType t = a.dtype();
    schema::DType dtype(t.code(), static_cast<uint8_t>(t.bits()), static_cast<uint16_t>(t.lanes()));
    tensors.push_back(schema::CreateTensor(fbb, name, &dtype, shape, &payloads[i]));
  }
  auto tensor_vec = fbb.CreateVector(tensors);
  fb::Offset<fb::Vector<fb::Offset<schema::MetadataEntry>>> md_vec;
  if (!metadata.empty()) {
    std::vector<fb::Offset<schema::MetadataEntry>> md;
    md.reserve(metadata.size());
    for (const auto& kv : metadata) {
      auto key = fbb.CreateString(kv.first);
      auto value = fbb.CreateString(kv.second);
      md.push_back(schema::CreateMetadataEntry(fbb, key, value));
    }
    md_vec = fbb.CreateVector(md);
  }
  schema::FinishParamsTocBuffer(fbb,
                                schema::CreateParamsToc(fbb, kCvmrtVersion, tensor_vec, md_vec));
}

}  // namespace

void save_cvmrt(const Entries& entries, const Metadata& metadata, Sink& sink) {
  const uint64_t start = sink.position();
  // The flatbuffers builder cannot grow past 2 GiB (it asserts): bound the table first. Each
  // tensor needs its name, its extents and under 100 bytes of fixed fields; each metadata entry
  // its key, its value and under 40 bytes.
  uint64_t estimate = 1024;
  for (const auto& e : entries) estimate += e.first.size() + 8 * e.second.shape().ndim() + 128;
  for (const auto& kv : metadata) estimate += kv.first.size() + kv.second.size() + 64;
  VERIFY(estimate < FLATBUFFERS_MAX_BUFFER_SIZE / 2)
      << "cvmrt params: the table of contents (names, shapes, metadata) would take about "
      << estimate << " bytes; at most " << FLATBUFFERS_MAX_BUFFER_SIZE / 2 << " are supported";
  // Pass 1: size the table of contents with placeholder payloads, then lay the payloads out.
  std::vector<schema::Payload> payloads(entries.size());
  fb::FlatBufferBuilder sizing(1024 + 96 * entries.size());
  build_toc(sizing, entries, metadata, payloads);
  const uint64_t toc_size = sizing.GetSize();
  const uint64_t data_start = align_up(kCvmrtHeaderSize + toc_size, kPayloadAlignment);
  uint64_t cursor = data_start;
  uint64_t file_end = data_start;
  for (size_t i = 0; i < entries.size(); ++i) {
    uint64_t nbytes = entries[i].second.nbytes();
    payloads[i] = schema::Payload(cursor, nbytes, 0);
    file_end = std::max(file_end, cursor + nbytes);
    cursor = align_up(cursor + nbytes, kPayloadAlignment);
  }
  sink.expect(file_end);

  // Pass 2: stream header, placeholder table, payloads (hashing them on the way).
  uint8_t header[kCvmrtHeaderSize] = {};
  std::memcpy(header, kCvmrtMagic, 8);
  store_le32(header + 8, kCvmrtVersion);
  store_le32(header + 12, 0);
  store_le64(header + 16, toc_size);
  sink.write(header, sizeof(header));
  sink.write(sizing.GetBufferPointer(), sizing.GetSize());
  std::vector<uint8_t> scratch;
  for (size_t i = 0; i < entries.size(); ++i) {
    const uint64_t offset = payloads[i].offset();
    const uint64_t here = sink.position() - start;
    CHECK(here <= offset) << "cvmrt params writer: at " << here << ", past payload offset "
                          << offset;
    sink.write_zeros(offset - here);
    Hasher hasher;
    uint64_t written = 0;
    for_each_row_major_chunk(entries[i].second, scratch, [&](const uint8_t* p, size_t n) {
      hasher.update(p, n);
      sink.write(p, n);
      written += n;
    });
    CHECK(written == payloads[i].nbytes())
        << "cvmrt params writer: " << tensor_ref(entries[i].first, i) << " produced " << written
        << " bytes, expected " << payloads[i].nbytes();
    payloads[i] = schema::Payload(offset, payloads[i].nbytes(), hasher.digest());
  }
  // The file ends at the last payload byte, or where an empty last tensor (or, without tensors,
  // the payload area) starts: pad to there.
  const uint64_t here = sink.position() - start;
  CHECK(here <= file_end) << "cvmrt params writer: wrote " << here << " bytes, expected "
                          << file_end;
  sink.write_zeros(file_end - here);

  // Pass 3: the real table of contents, same size by construction.
  fb::FlatBufferBuilder final_toc(1024 + 96 * entries.size());
  build_toc(final_toc, entries, metadata, payloads);
  CHECK(final_toc.GetSize() == toc_size) << "cvmrt params writer: table of contents changed size ("
                                         << toc_size << " -> " << final_toc.GetSize() << ")";
  sink.patch(start + kCvmrtHeaderSize, final_toc.GetBufferPointer(), final_toc.GetSize());
}

Loaded load_cvmrt(const Source& src, const LoadOptions& options) {
  const uint64_t toc_size = parse_header(src.data, src.size, src.size);
  std::vector<uint8_t> toc(src.data + kCvmrtHeaderSize, src.data + kCvmrtHeaderSize + toc_size);
  Toc parsed = parse_toc(toc, src.size);

  Loaded out;
  out.metadata = std::move(parsed.metadata);
  out.entries.reserve(parsed.records.size());
  for (size_t i = 0; i < parsed.records.size(); ++i) {
    Record& r = parsed.records[i];
    const uint8_t* p = src.data + r.offset;
    const size_t n = static_cast<size_t>(r.nbytes);
    if (options.verify) verify_checksum(r, i, checksum(p, n));
    NDArray a;
    if (src.zero_copy) {
      a = NDArray::from_external(const_cast<uint8_t*>(p), r.shape, r.dtype, Device::cpu(),
                                 src.keepalive, /*read_only=*/true);
    } else {
      a = NDArray::empty(r.shape, r.dtype);
      if (n) std::memcpy(a.mutable_data(), p, n);
    }
    out.entries.emplace_back(std::move(r.name), std::move(a));
  }
  return out;
}

Loaded load_cvmrt_file(const ReadOnlyFile& file, const LoadOptions& options) {
  const uint64_t total = file.size();
  uint8_t header[kCvmrtHeaderSize] = {};
  const size_t head = total < kCvmrtHeaderSize ? static_cast<size_t>(total) : kCvmrtHeaderSize;
  file.read_at(0, header, head);
  const uint64_t toc_size = parse_header(header, head, total);
  std::vector<uint8_t> toc(static_cast<size_t>(toc_size));
  file.read_at(kCvmrtHeaderSize, toc.data(), toc.size());
  Toc parsed = parse_toc(toc, total);

  Loaded out;
  out.metadata = std::move(parsed.metadata);
  out.entries.reserve(parsed.records.size());
  constexpr size_t kChunk = size_t{8} << 20;  // hash each piece while it is still in cache
  for (size_t i = 0; i < parsed.records.size(); ++i) {
    Record& r = parsed.records[i];
    VERIFY(r.nbytes <= std::numeric_limits<size_t>::max())
        << "cvmrt params: " << tensor_ref(r.name, i) << ": " << r.nbytes
        << " bytes do not fit this address space";
    NDArray a = NDArray::empty(r.shape, r.dtype);
    auto* dst = r.nbytes ? static_cast<uint8_t*>(a.mutable_data()) : nullptr;
    Hasher hasher;
    for (uint64_t done = 0; done < r.nbytes;) {
      size_t k = static_cast<size_t>(std::min<uint64_t>(kChunk, r.nbytes - done));
      file.read_at(r.offset + done, dst + done, k);
      if (options.verify) hasher.update(dst + done, k);
      done += k;
    }
    if (options.verify) verify_checksum(r, i, hasher.digest());
    out.entries.emplace_back(std::move(r.name), std::move(a));
  }
  return out;
}

}  // namespace params_detail
}  // namespace cvm
