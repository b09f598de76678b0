// Malformed params files: every truncation, byte flips, and hand-crafted bad fields in both
// formats must give cvm::LogicError with a clear message, never a crash or a huge allocation.
#include <xxhash.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "cvm/allocator.h"
#include "cvm/error.h"
#include "cvm/ndarray.h"
#include "cvm/params.h"
#include "cvm/schema/params_generated.h"
#include "test_util.h"

using namespace cvm;
using Catch::Matchers::Contains;

namespace {

namespace fb = ::flatbuffers;
namespace schema = ::cvm::schema;

constexpr uint64_t kAuto = std::numeric_limits<uint64_t>::max();

NDArray pattern_array(const Shape& shape, DataType dtype, uint8_t start) {
  NDArray a = NDArray::empty(shape, dtype);
  auto* p = static_cast<uint8_t*>(a.mutable_data());
  for (size_t i = 0; i < a.nbytes(); ++i) p[i] = static_cast<uint8_t>(start + 31 * i);
  return a;
}

ParamDict small_dict() {
  ParamDict d;
  d.set("conv/w", pattern_array({3, 4}, DataType::Int(8), 1));
  d.set("scale", pattern_array({2}, DataType::Float(32), 2));
  d.set("bias", pattern_array({}, DataType::Int(64), 3));
  d.metadata()["name"] = "tiny";
  d.metadata()["version"] = "3";
  return d;
}

// Loads `bytes` from an exact-size heap copy (so ASan sees any read past the end), by copy and
// zero-copy. Returns true when both loads succeed; LogicError propagates; anything else fails.
bool loads(const std::vector<uint8_t>& bytes, bool verify = true) {
  std::vector<uint8_t> exact(bytes);
  LoadOptions opts;
  opts.verify = verify;
  ParamDict a = ParamDict::load(exact.data(), exact.size(), opts);
  ParamDict b = ParamDict::load_borrowed(exact.data(), exact.size(), nullptr, opts);
  // Touch every loaded byte.
  size_t sum = 0;
  for (const auto* d : {&a, &b}) {
    for (const auto& e : d->entries()) {
      std::vector<uint8_t> out(e.second.nbytes());
      e.second.copy_to_bytes(out.data(), out.size());
      for (uint8_t v : out) sum += v;
    }
  }
  return sum != static_cast<size_t>(-1);
}

enum class Outcome { kLoaded, kLogicError };

// Loads and classifies; any other exception type fails the test.
Outcome outcome_of(const std::vector<uint8_t>& bytes, bool verify = true) {
  try {
    loads(bytes, verify);
    return Outcome::kLoaded;
  } catch (const LogicError&) {
    return Outcome::kLogicError;
  }
}

struct FileRemover {
  std::string path;
  ~FileRemover() { std::remove(path.c_str()); }
};

uint64_t le64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// ---- hand-crafted cvmrt files ----

struct FakeTensor {
  std::string name;
  std::vector<int64_t> shape;
  uint8_t code = kDLInt;
  uint8_t bits = 8;
  uint16_t lanes = 1;
  uint64_t offset = kAuto;    // kAuto: next 64-byte boundary
  uint64_t nbytes = kAuto;    // kAuto: numel * bytes
  uint64_t checksum = kAuto;  // kAuto: XXH64 of the payload bytes
  bool omit_name = false;     // leave out a required field
};

struct FakeFile {
  std::vector<FakeTensor> tensors;
  std::vector<std::pair<std::string, std::string>> metadata;
  uint32_t toc_version = 1;
  const char* identifier = "CVMP";
  uint32_t header_version = 1;
  uint32_t reserved = 0;
  size_t trailing = 0;  // extra bytes appended
};

uint64_t numel_bytes(const FakeTensor& t) {
  uint64_t n = (t.bits + 7u) / 8u;
  for (int64_t d : t.shape) n *= static_cast<uint64_t>(d);
  return n;
}

std::vector<uint8_t> build_toc(const FakeFile& f, const std::vector<FakeTensor>& ts) {
  fb::FlatBufferBuilder fbb;
  fbb.ForceDefaults(true);
  std::vector<fb::Offset<schema::Tensor>> offs;
  for (const FakeTensor& t : ts) {
    auto name = fbb.CreateString(t.name);
    auto shape = fbb.CreateVector(t.shape);
    schema::DType dt(t.code, t.bits, t.lanes);
    schema::Payload pl(t.offset, t.nbytes, t.checksum);
    // Built by hand so that a required field can be left out.
    auto start = fbb.StartTable();
    fbb.AddStruct(schema::Tensor::VT_PAYLOAD, &pl);
    fbb.AddOffset(schema::Tensor::VT_SHAPE, shape);
    if (!t.omit_name) fbb.AddOffset(schema::Tensor::VT_NAME, name);
    fbb.AddStruct(schema::Tensor::VT_DTYPE, &dt);
    offs.push_back(fb::Offset<schema::Tensor>(fbb.EndTable(start)));
  }
  auto tv = fbb.CreateVector(offs);
  fb::Offset<fb::Vector<fb::Offset<schema::MetadataEntry>>> mv;
  if (!f.metadata.empty()) {
    std::vector<fb::Offset<schema::MetadataEntry>> md;
    for (const auto& kv : f.metadata) {
      md.push_back(schema::CreateMetadataEntry(fbb, fbb.CreateString(kv.first),
                                               fbb.CreateString(kv.second)));
    }
    mv = fbb.CreateVector(md);
  }
  fbb.Finish(schema::CreateParamsToc(fbb, f.toc_version, tv, mv), f.identifier);
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

std::vector<uint8_t> craft(const FakeFile& f) {
  std::vector<FakeTensor> ts = f.tensors;
  for (FakeTensor& t : ts) {
    if (t.nbytes == kAuto) t.nbytes = numel_bytes(t);
  }
  // The table's size does not depend on offsets or checksums: size it, then lay out.
  std::vector<uint8_t> toc = build_toc(f, ts);
  uint64_t cursor = (24 + toc.size() + 63) / 64 * 64;
  uint64_t end = cursor;
  for (FakeTensor& t : ts) {
    // Only automatically placed payloads size the file; explicit (bad) offsets do not.
    const bool placed = t.offset == kAuto;
    if (placed) t.offset = cursor;
    if (t.offset < (uint64_t{1} << 40) && t.nbytes < (uint64_t{1} << 40)) {
      cursor = (t.offset + t.nbytes + 63) / 64 * 64;
      if (placed) end = std::max(end, t.offset + t.nbytes);
    }
  }
  std::vector<uint8_t> file(end + f.trailing, 0);
  for (size_t i = 0; i < ts.size(); ++i) {
    FakeTensor& t = ts[i];
    if (t.offset + t.nbytes > end || t.offset + t.nbytes < t.offset) continue;
    for (uint64_t k = 0; k < t.nbytes; ++k) file[t.offset + k] = static_cast<uint8_t>(i * 40 + k);
    if (t.checksum == kAuto) t.checksum = XXH64(file.data() + t.offset, t.nbytes, 0);
  }
  for (FakeTensor& t : ts) {
    if (t.checksum == kAuto) t.checksum = 0;
  }
  std::vector<uint8_t> toc2 = build_toc(f, ts);
  REQUIRE(toc2.size() == toc.size());
  std::memcpy(file.data(), "CVMRTPRM", 8);
  for (int i = 0; i < 4; ++i) file[8 + i] = static_cast<uint8_t>(f.header_version >> (8 * i));
  for (int i = 0; i < 4; ++i) file[12 + i] = static_cast<uint8_t>(f.reserved >> (8 * i));
  for (int i = 0; i < 8; ++i) file[16 + i] = static_cast<uint8_t>(static_cast<uint64_t>(toc2.size()) >> (8 * i));
  std::memcpy(file.data() + 24, toc2.data(), toc2.size());
  return file;
}

FakeTensor fake(std::string name, std::vector<int64_t> shape) {
  FakeTensor t;
  t.name = std::move(name);
  t.shape = std::move(shape);
  return t;
}

// ---- hand-crafted legacy files ----

struct Legacy {
  std::vector<uint8_t> b;
  Legacy& u64(uint64_t v) {
    for (int i = 0; i < 8; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
    return *this;
  }
  Legacy& i32(int32_t v) {
    for (int i = 0; i < 4; ++i)
      b.push_back(static_cast<uint8_t>(static_cast<uint32_t>(v) >> (8 * i)));
    return *this;
  }
  Legacy& bytes(const std::string& s) {
    b.insert(b.end(), s.begin(), s.end());
    return *this;
  }
  Legacy& name(const std::string& s) { return u64(s.size()).bytes(s); }
  Legacy& header(uint64_t names) { return u64(0xF7E58D4F05049CB7ULL).u64(0).u64(names); }
  // A tensor record up to and including nbytes; `data` bytes follow.
  Legacy& tensor(std::vector<int64_t> shape, uint8_t code, uint8_t bits, int64_t nbytes,
                 size_t data, int32_t device_type = 1) {
    u64(0xDD5E40F096B4A13FULL)
        .u64(0)
        .i32(device_type)
        .i32(0)
        .i32(static_cast<int32_t>(shape.size()));
    b.push_back(code), b.push_back(bits), b.push_back(1), b.push_back(0);
    for (int64_t d : shape) u64(static_cast<uint64_t>(d));
    u64(static_cast<uint64_t>(nbytes));
    for (size_t i = 0; i < data; ++i) b.push_back(static_cast<uint8_t>(i));
    return *this;
  }
};

}  // namespace

TEST_CASE("params: cvmrt: every truncation is a logic error", "[params][malformed]") {
  std::vector<uint8_t> bytes = small_dict().save();
  REQUIRE(outcome_of(bytes) == Outcome::kLoaded);
  for (size_t n = 0; n < bytes.size(); ++n) {
    INFO("truncated to " << n << " of " << bytes.size());
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<long>(n));
    REQUIRE(outcome_of(cut) == Outcome::kLogicError);
  }
}

TEST_CASE("params: legacy: every truncation is a logic error", "[params][malformed]") {
  std::vector<uint8_t> bytes = small_dict().save(ParamFormat::kLegacy);
  REQUIRE(outcome_of(bytes) == Outcome::kLoaded);
  for (size_t n = 0; n < bytes.size(); ++n) {
    INFO("truncated to " << n << " of " << bytes.size());
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<long>(n));
    REQUIRE(outcome_of(cut) == Outcome::kLogicError);
  }
}

TEST_CASE("params: cvmrt: flipping header and table bytes never crashes", "[params][malformed]") {
  const std::vector<uint8_t> bytes = small_dict().save();
  const uint64_t toc_end = 24 + le64(bytes.data() + 16);
  size_t rejected = 0, loaded = 0;
  for (size_t i = 0; i < toc_end; ++i) {
    for (uint8_t delta : {0x01, 0x80, 0xFF}) {
      std::vector<uint8_t> bad = bytes;
      bad[i] ^= delta;
      INFO("byte " << i << " ^= " << int(delta));
      Outcome o = outcome_of(bad);
      if (i < 16) REQUIRE(o == Outcome::kLogicError);  // magic, version, reserved
      (o == Outcome::kLogicError ? rejected : loaded)++;
    }
    for (uint8_t value : {0x00, 0x7F}) {
      std::vector<uint8_t> bad = bytes;
      if (bad[i] == value) continue;
      bad[i] = value;
      INFO("byte " << i << " = " << int(value));
      (outcome_of(bad) == Outcome::kLogicError ? rejected : loaded)++;
    }
  }
  // Most flips matter; the rest land in bytes the verifier legitimately ignores (padding).
  REQUIRE(rejected > 3 * loaded);  // measured: ~1390 rejected, ~330 loaded
}

TEST_CASE("params: cvmrt: the checksum catches every payload flip", "[params][malformed]") {
  ParamDict d = small_dict();
  const std::vector<uint8_t> bytes = d.save();
  std::vector<uint8_t> toc(bytes.begin() + 24,
                           bytes.begin() + 24 + static_cast<long>(le64(bytes.data() + 16)));
  const auto* root = schema::GetParamsToc(toc.data());
  size_t checked = 0;
  for (const auto* t : *root->tensors()) {
    for (uint64_t k = 0; k < t->payload()->nbytes(); ++k) {
      std::vector<uint8_t> bad = bytes;
      bad[t->payload()->offset() + k] ^= 0x10;
      INFO(t->name()->str() << " byte " << k);
      REQUIRE_THROWS_WITH(loads(bad), Contains("checksum mismatch") && Contains(t->name()->str()));
      // Without verification the flipped value loads as it is.
      ParamDict u = ParamDict::load(bad.data(), bad.size(), LoadOptions{false});
      std::vector<uint8_t> got(u.at(t->name()->str()).nbytes());
      u.at(t->name()->str()).copy_to_bytes(got.data(), got.size());
      REQUIRE(got[k] == static_cast<uint8_t>(bad[t->payload()->offset() + k]));
      ++checked;
    }
  }
  REQUIRE(checked == 12 + 8 + 8);
}

TEST_CASE("params: legacy: flipping header, name and tensor-header bytes never crashes",
          "[params][malformed]") {
  const std::vector<uint8_t> bytes = small_dict().save(ParamFormat::kLegacy);
  size_t rejected = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (uint8_t delta : {0x01, 0x80, 0xFF}) {
      std::vector<uint8_t> bad = bytes;
      bad[i] ^= delta;
      INFO("byte " << i << " ^= " << int(delta));
      if (outcome_of(bad) == Outcome::kLogicError) ++rejected;
    }
  }
  REQUIRE(rejected > bytes.size());  // header/name/structure flips are rejected
  // The list magic, its reserved word and the counts are always checked.
  for (size_t i = 0; i < 24; ++i) {
    std::vector<uint8_t> bad = bytes;
    bad[i] ^= 0x40;
    INFO("byte " << i);
    REQUIRE(outcome_of(bad) == Outcome::kLogicError);
  }
}

TEST_CASE("params: file loaders reject truncated and corrupted files", "[params][malformed]") {
  const std::string path =
      cvm::test::tmp_path("malformed.params");
  FileRemover remover{path};
  auto write = [&](const std::vector<uint8_t>& b) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  };
  for (ParamFormat format : {ParamFormat::kCvmrt, ParamFormat::kLegacy}) {
    const std::vector<uint8_t> bytes = small_dict().save(format);
    for (size_t n = 0; n < bytes.size(); n += 5) {
      INFO("truncated to " << n);
      write(std::vector<uint8_t>(bytes.begin(), bytes.begin() + static_cast<long>(n)));
      REQUIRE_THROWS_WITH(ParamDict::load_file(path), Contains(path));
      REQUIRE_THROWS_WITH(ParamDict::load_file_copy(path), Contains(path));
    }
  }
  // A flipped payload byte: the checksum catches it on both file paths unless verify is off.
  std::vector<uint8_t> bad = small_dict().save();
  bad.back() ^= 0x01;  // last byte of the last payload ("bias")
  write(bad);
  REQUIRE_THROWS_WITH(ParamDict::load_file(path), Contains("\"bias\"") && Contains("checksum"));
  REQUIRE_THROWS_WITH(ParamDict::load_file_copy(path),
                      Contains("\"bias\"") && Contains("checksum mismatch"));
  for (bool mapped : {true, false}) {
    ParamDict d = mapped ? ParamDict::load_file(path, LoadOptions{false})
                         : ParamDict::load_file_copy(path, LoadOptions{false});
    REQUIRE(static_cast<const uint8_t*>(d.at("bias").data())[7] == bad.back());
  }
}

TEST_CASE("params: cvmrt: hand-crafted bad fields give clear logic errors", "[params][malformed]") {
  FakeFile good;
  good.tensors = {fake("a", {2, 3}), fake("b", {4})};
  good.metadata = {{"k", "v"}};
  REQUIRE(outcome_of(craft(good)) == Outcome::kLoaded);

  SECTION("wrong magic, version, reserved") {
    std::vector<uint8_t> f = craft(good);
    f[3] = 'x';
    REQUIRE_THROWS_WITH(loads(f), Contains("unrecognised format"));
    FakeFile v = good;
    v.header_version = 2;
    REQUIRE_THROWS_WITH(loads(craft(v)), Contains("unsupported format version 2"));
    FakeFile r = good;
    r.reserved = 5;
    REQUIRE_THROWS_WITH(loads(craft(r)), Contains("reserved header field is 5"));
  }
  SECTION("table of contents size out of range") {
    std::vector<uint8_t> f = craft(good);
    for (uint64_t size : {uint64_t{1} << 62, static_cast<uint64_t>(f.size() - 23), uint64_t{3}}) {
      for (int i = 0; i < 8; ++i) f[16 + i] = static_cast<uint8_t>(size >> (8 * i));
      REQUIRE_THROWS_AS(loads(f), LogicError);
    }
    for (int i = 0; i < 8; ++i) f[16 + i] = static_cast<uint8_t>((uint64_t{1} << 62) >> (8 * i));
    REQUIRE_THROWS_WITH(loads(f), Contains("table of contents size 4611686018427387904 exceeds"));
  }
  SECTION("identifier, verifier, table version") {
    FakeFile id = good;
    id.identifier = "NOPE";
    REQUIRE_THROWS_WITH(loads(craft(id)), Contains("identifier \"NOPE\"") && Contains("CVMP"));
    FakeFile missing = good;
    missing.tensors[1].omit_name = true;
    REQUIRE_THROWS_WITH(loads(craft(missing)), Contains("fails flatbuffers verification"));
    std::vector<uint8_t> f = craft(good);
    for (size_t i = 32; i < 24 + le64(f.data() + 16); ++i) f[i] = 0xFF;  // garbage table
    REQUIRE_THROWS_WITH(loads(f), Contains("verification"));
    FakeFile ver = good;
    ver.toc_version = 9;
    REQUIRE_THROWS_WITH(loads(craft(ver)), Contains("format version 9"));
  }
  SECTION("names") {
    FakeFile dup = good;
    dup.tensors[1].name = "a";
    REQUIRE_THROWS_WITH(loads(craft(dup)), Contains("duplicate tensor \"a\" (#1)"));
    FakeFile empty = good;
    empty.tensors[0].name = "";
    REQUIRE_THROWS_WITH(loads(craft(empty)), Contains("tensor #0 has an empty name"));
    FakeFile md = good;
    md.metadata = {{"k", "1"}, {"k", "2"}};
    REQUIRE_THROWS_WITH(loads(craft(md)), Contains("duplicate metadata key \"k\""));
  }
  SECTION("dtypes and shapes") {
    FakeFile t = good;
    t.tensors[1].code = 9;
    REQUIRE_THROWS_WITH(loads(craft(t)), Contains("tensor \"b\" (#1): unsupported dtype (code 9"));
    t = good;
    t.tensors[1].bits = 7;
    REQUIRE_THROWS_WITH(loads(craft(t)), Contains("unsupported dtype"));
    t = good;
    t.tensors[1].lanes = 4;
    REQUIRE_THROWS_WITH(loads(craft(t)), Contains("lanes is 4, expected 1"));
    t = good;
    t.tensors[0].shape = {2, -3};
    t.tensors[0].nbytes = 6;
    REQUIRE_THROWS_WITH(loads(craft(t)), Contains("negative extent -3 in dim 1"));
    t = good;
    t.tensors[0].shape = std::vector<int64_t>(33, 1);
    REQUIRE_THROWS_WITH(loads(craft(t)), Contains("33 dims, at most 32"));
    t = good;
    t.tensors[0].shape = {int64_t{1} << 40, int64_t{1} << 40};
    t.tensors[0].nbytes = 0;
    REQUIRE_THROWS_WITH(loads(craft(t)), Contains("overflows int64"));
    t = good;
    t.tensors[0].shape = {int64_t{1} << 61};
    t.tensors[0].bits = 64;
    t.tensors[0].nbytes = 0;
    REQUIRE_THROWS_WITH(loads(craft(t)), Contains("byte size") && Contains("overflows"));
  }
  SECTION("payload bounds, alignment, overlap, size") {
    FakeFile t = good;
    t.tensors[0].nbytes = 7;
    REQUIRE_THROWS_WITH(loads(craft(t)), Contains("payload nbytes 7 does not match shape (2, 3)") &&
                                             Contains("expected 6"));
    t = good;
    t.tensors[1].offset = 1 << 20;
    REQUIRE_THROWS_WITH(loads(craft(t)),
                        Contains("tensor \"b\" (#1): payload [1048576, +4) is out of range"));
    t = good;
    t.tensors[1].offset = std::numeric_limits<uint64_t>::max() - 63;  // offset + nbytes wraps
    REQUIRE_THROWS_WITH(loads(craft(t)), Contains("out of range"));
    t = good;
    t.tensors[0].offset = 128 + 1;
    REQUIRE_THROWS_WITH(loads(craft(t)), Contains("payload offset 129 is not a multiple of 64"));
    t = good;
    t.tensors[0].offset = 0;
    REQUIRE_THROWS_WITH(loads(craft(t)), Contains("lies before the end of the table of contents"));
    std::vector<uint8_t> ok = craft(good);
    t = good;
    std::vector<uint8_t> toc(ok.begin() + 24,
                             ok.begin() + 24 + static_cast<long>(le64(ok.data() + 16)));
    uint64_t a_off = schema::GetParamsToc(toc.data())->tensors()->Get(0)->payload()->offset();
    t.tensors[1].offset = a_off;  // b sits on a
    REQUIRE_THROWS_WITH(loads(craft(t)),
                        Contains("tensor \"b\" (#1)") && Contains("overlaps tensor \"a\" (#0)"));
    t = good;
    t.trailing = 5;
    REQUIRE_THROWS_WITH(loads(craft(t)), Contains("5 unexpected bytes after the last payload"));
  }
  SECTION("checksum") {
    FakeFile t = good;
    t.tensors[1].checksum = 12345;
    REQUIRE_THROWS_WITH(loads(craft(t)), Contains("tensor \"b\" (#1): checksum mismatch") &&
                                             Contains("0x0000000000003039"));
    REQUIRE(outcome_of(craft(t), /*verify=*/false) == Outcome::kLoaded);
  }
}

TEST_CASE("params: cvmrt: huge claims never allocate", "[params][malformed]") {
  // A tensor claiming 2^40 bytes in a tiny file: rejected before any allocation.
  FakeFile f;
  f.tensors = {fake("huge", {int64_t{1} << 40})};
  f.tensors[0].offset = 64 * 4;
  const size_t before = Allocator::cpu().stats().peak_bytes_in_use;
  REQUIRE_THROWS_WITH(loads(craft(f)), Contains("out of range"));
  REQUIRE(Allocator::cpu().stats().peak_bytes_in_use - before < (size_t{1} << 20));
}

TEST_CASE("params: legacy: hand-crafted bad fields give clear logic errors",
          "[params][malformed]") {
  auto good = [] {
    Legacy l;
    l.header(2).name("w").name("b").u64(2);
    l.tensor({2, 2}, kDLInt, 32, 16, 16).tensor({}, kDLInt, 8, 1, 1);
    return l;
  };
  REQUIRE(outcome_of(good().b) == Outcome::kLoaded);

  SECTION("magics and reserved words") {
    Legacy l = good();
    l.b[0] ^= 1;
    REQUIRE_THROWS_WITH(loads(l.b), Contains("unrecognised format"));
    l = good();
    l.b[8] = 1;
    REQUIRE_THROWS_WITH(loads(l.b), Contains("reserved field is 1"));
    l = good();
    l.b[24 + 9 + 9 + 8] ^= 1;  // first tensor magic
    REQUIRE_THROWS_WITH(loads(l.b), Contains("tensor \"w\" (#0): bad tensor magic"));
  }
  SECTION("huge counts and lengths") {
    Legacy l;
    l.header(uint64_t{1} << 60).name("w");
    REQUIRE_THROWS_WITH(loads(l.b), Contains("name count 1152921504606846976 cannot fit"));
    l = Legacy();
    l.header(1).u64(uint64_t{1} << 62).bytes("w");
    REQUIRE_THROWS_WITH(loads(l.b), Contains("name #0 has length 4611686018427387904"));
    l = Legacy();
    l.header(1).name("w").u64(uint64_t{1} << 60);
    REQUIRE_THROWS_WITH(
        loads(l.b), Contains("tensor count 1152921504606846976 does not match the name count 1"));
    l = Legacy();
    l.header(0).u64(0).u64(0);
    REQUIRE_THROWS_WITH(loads(l.b), Contains("8 trailing bytes"));
  }
  SECTION("count mismatch, duplicates, empty names") {
    Legacy l;
    l.header(2).name("w").name("b").u64(1).tensor({}, kDLInt, 8, 1, 1);
    REQUIRE_THROWS_WITH(loads(l.b), Contains("tensor count 1 does not match the name count 2"));
    l = Legacy();
    l.header(2).name("w").name("w").u64(2).tensor({}, kDLInt, 8, 1, 1).tensor({}, kDLInt, 8, 1, 1);
    REQUIRE_THROWS_WITH(loads(l.b), Contains("duplicate tensor \"w\" (#1)"));
    l = Legacy();
    l.header(1).name("").u64(1).tensor({}, kDLInt, 8, 1, 1);
    REQUIRE_THROWS_WITH(loads(l.b), Contains("name #0 is empty"));
  }
  SECTION("ndim, dtype, shape, nbytes, data") {
    auto one = [](std::vector<int64_t> shape, uint8_t code, uint8_t bits, int64_t nbytes,
                  size_t data) {
      Legacy l;
      l.header(1).name("x").u64(1).tensor(std::move(shape), code, bits, nbytes, data);
      return l.b;
    };
    Legacy neg;
    neg.header(1).name("x").u64(1).u64(0xDD5E40F096B4A13FULL).u64(0).i32(1).i32(0).i32(-1);
    neg.u64(0).u64(0).u64(0).u64(0).u64(0);
    REQUIRE_THROWS_WITH(loads(neg.b), Contains("ndim -1 is out of range"));
    REQUIRE_THROWS_WITH(loads(one(std::vector<int64_t>(40, 1), kDLInt, 8, 1, 1)),
                        Contains("ndim 40 is out of range"));
    REQUIRE_THROWS_WITH(loads(one({2}, kDLInt, 7, 2, 2)),
                        Contains("unsupported dtype (code 0, bits 7"));
    REQUIRE_THROWS_WITH(loads(one({2, -1}, kDLInt, 8, 0, 0)),
                        Contains("negative extent -1 in dim 1"));
    REQUIRE_THROWS_WITH(loads(one({3}, kDLInt, 32, 11, 11)),
                        Contains("nbytes 11 does not match shape (3) int32 (expected 12)"));
    REQUIRE_THROWS_WITH(loads(one({3}, kDLInt, 32, -12, 0)), Contains("does not match"));
    REQUIRE_THROWS_WITH(loads(one({int64_t{1} << 62, 8}, kDLInt, 8, 0, 0)),
                        Contains("overflows int64"));
    REQUIRE_THROWS_WITH(loads(one({3}, kDLInt, 32, 12, 5)), Contains("truncated data: 12 bytes"));
    std::vector<uint8_t> trailing = one({3}, kDLInt, 32, 12, 12);
    trailing.push_back(0);
    REQUIRE_THROWS_WITH(loads(trailing), Contains("1 trailing bytes after the last tensor"));
  }
  SECTION("any device and any supported dtype load to the CPU") {
    Legacy l;
    l.header(2).name("gpu").name("f64").u64(2);
    l.tensor({2}, kDLInt, 32, 8, 8, /*device_type=*/2);
    l.tensor({1}, kDLFloat, 64, 8, 8);
    ParamDict d = ParamDict::load(l.b.data(), l.b.size());
    REQUIRE(d.at("gpu").device() == Device::cpu());
    REQUIRE(d.at("f64").dtype() == DataType::Float(64));
  }
}

// A shape with a zero dimension has no elements, but its other dimensions still give its strides:
// (0, 2^40, 2^40) must be rejected as (2^40, 2^40, 0) is, not pass the element-count check and
// overflow int64 computing strides (the coverage-guided fuzzer's first finding, committed as a
// regression input under tests/fuzz/regressions/params/).
TEST_CASE("params: a zero dimension does not hide an overflowing shape", "[params][malformed]") {
  const int64_t big = int64_t{1} << 40;
  for (const std::vector<int64_t>& shape :
       {std::vector<int64_t>{0, big, big}, {big, 0, big}, {big, big, 0}}) {
    CAPTURE(shape);
    Legacy l;
    l.header(1).name("x").u64(1).tensor(shape, kDLInt, 8, 0, 0);
    REQUIRE_THROWS_WITH(loads(l.b), Contains("overflows int64"));
    FakeFile f;
    f.tensors = {fake("x", shape)};
    REQUIRE_THROWS_WITH(loads(craft(f)), Contains("overflows int64"));
  }
  // Empty tensors whose extents fit still load, with contiguous strides.
  Legacy ok;
  ok.header(1).name("x").u64(1).tensor({0, 1 << 20, 1 << 20}, kDLInt, 8, 0, 0);
  REQUIRE(loads(ok.b));
  ParamDict d = ParamDict::load(ok.b.data(), ok.b.size());
  REQUIRE(d.at("x").numel() == 0);
  REQUIRE(d.at("x").shape() == Shape{0, 1 << 20, 1 << 20});

  const std::string path = std::string(CVM_TEST_DATA_DIR) +
                           "/fuzz/regressions/params/params-legacy-zero-dim-stride-overflow.bin";
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  std::vector<uint8_t> finding((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE(finding.size() == 732);
  REQUIRE_THROWS_WITH(loads(finding), Contains("overflows int64"));
  REQUIRE(outcome_of(finding, /*verify=*/false) == Outcome::kLogicError);
}
