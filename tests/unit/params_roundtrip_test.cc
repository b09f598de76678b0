// ParamDict round trips in both formats through every load path, zero-copy and keepalive.
#include <xxhash.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
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

uint64_t splitmix(uint64_t& s) {
  uint64_t z = (s += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// Seeded random bytes (any bit pattern, NaNs included: comparisons are byte-wise).
NDArray random_array(const Shape& shape, DataType dtype, uint64_t seed) {
  NDArray a = NDArray::empty(shape, dtype);
  auto* p = static_cast<uint8_t*>(a.mutable_data());
  for (size_t i = 0; i < a.nbytes(); i += 8) {
    uint64_t r = splitmix(seed);
    std::memcpy(p + i, &r, std::min<size_t>(8, a.nbytes() - i));
  }
  return a;
}

// Row-major bytes of any strided array, computed here from data()/strides() directly.
std::vector<uint8_t> row_major_bytes(const NDArray& a) {
  const size_t esize = a.dtype().bytes();
  const int nd = a.ndim();
  const std::vector<int64_t> shape = a.shape().to_vector();
  const std::vector<int64_t> strides = a.strides().to_vector();
  std::vector<uint8_t> out(static_cast<size_t>(a.numel()) * esize);
  const auto* base = static_cast<const uint8_t*>(a.data());
  std::vector<int64_t> idx(static_cast<size_t>(nd), 0);
  int64_t off = 0;  // element offset of idx
  for (size_t i = 0; i < out.size(); i += esize) {
    std::memcpy(out.data() + i, base + off * static_cast<int64_t>(esize), esize);
    for (int d = nd - 1; d >= 0; --d) {
      const auto k = static_cast<size_t>(d);
      off += strides[k];
      if (++idx[k] < shape[k]) break;
      off -= strides[k] * shape[k];
      idx[k] = 0;
    }
  }
  return out;
}

void require_same_tensors(const ParamDict& expected, const ParamDict& got) {
  REQUIRE(got.size() == expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    const auto& e = expected.entries()[i];
    const auto& g = got.entries()[i];
    INFO("tensor #" << i << " \"" << e.first << "\"");
    REQUIRE(g.first == e.first);
    REQUIRE(g.second.dtype() == e.second.dtype());
    REQUIRE(g.second.shape() == e.second.shape());
    REQUIRE(g.second.device() == Device::cpu());
    REQUIRE(row_major_bytes(g.second) == row_major_bytes(e.second));
  }
}

// Every dtype, a 0-d tensor, empty tensors and a unicode name.
ParamDict sample_dict() {
  ParamDict d;
  uint64_t seed = 1;
  for (DataType t : kAllDataTypes) d.set("t_" + t.name(), random_array({3, 5}, t, seed++));
  d.set("scalar_f64", random_array({}, DataType::Float(64), seed++));
  d.set("scalar_i8", random_array({}, DataType::Int(8), seed++));
  d.set("empty_0x7", random_array({0, 7}, DataType::Int(32), seed++));
  d.set("empty_4x0x2", random_array({4, 0, 2}, DataType::Float(16), seed++));
  d.set(u8"权重/層_α", random_array({2, 3, 4}, DataType::Int(16), seed++));
  d.set("odd_bytes", random_array({13}, DataType::UInt(8), seed++));
  d.set("trailing_empty", random_array({0}, DataType::Float(64), seed++));
  return d;
}

// A copy of `bytes` at an address that is `misalign` bytes past a 64-byte boundary, owned by
// the returned shared_ptr.
std::shared_ptr<uint8_t> placed_copy(const std::vector<uint8_t>& bytes, size_t misalign,
                                     uint8_t** at) {
  size_t total = (bytes.size() + misalign + 64 + 63) / 64 * 64;
  std::shared_ptr<uint8_t> buf(static_cast<uint8_t*>(std::aligned_alloc(64, total)), std::free);
  REQUIRE(buf);
  *at = buf.get() + misalign;
  if (!bytes.empty()) std::memcpy(*at, bytes.data(), bytes.size());
  return buf;
}

std::string tmp_path(const std::string& stem) {
  return cvm::test::tmp_path(stem + ".params");
}

// Removes its file (and a stray .tmp) when the scope ends, also when a REQUIRE fails.
struct FileRemover {
  std::string path;
  ~FileRemover() {
    std::remove(path.c_str());
    std::remove((path + ".tmp").c_str());
  }
};

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

bool points_into(const NDArray& a, const uint8_t* begin, size_t size) {
  auto p = reinterpret_cast<uintptr_t>(a.data());
  auto b = reinterpret_cast<uintptr_t>(begin);
  return p >= b && p + a.nbytes() <= b + size;
}

uint64_t le64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

}  // namespace

TEST_CASE("params: round trip in both formats through every load path", "[params]") {
  ParamDict d = sample_dict();
  d.metadata()["producer"] = "unit test";
  d.metadata()[u8"ключ"] = u8"значение";
  d.metadata()["empty"] = "";

  for (ParamFormat format : {ParamFormat::kCvmrt, ParamFormat::kLegacy}) {
    const bool cvmrt = format == ParamFormat::kCvmrt;
    INFO((cvmrt ? "cvmrt" : "legacy"));
    std::vector<uint8_t> bytes = d.save(format);
    REQUIRE(ParamDict::detect_format(bytes.data(), bytes.size()) == format);
    const auto expected_metadata = cvmrt ? d.metadata() : std::map<std::string, std::string>{};

    ParamDict copied = ParamDict::load(bytes.data(), bytes.size());
    require_same_tensors(d, copied);
    REQUIRE(copied.metadata() == expected_metadata);

    uint8_t* at = nullptr;
    auto buf = placed_copy(bytes, 0, &at);
    ParamDict borrowed = ParamDict::load_borrowed(at, bytes.size(), buf);
    require_same_tensors(d, borrowed);
    REQUIRE(borrowed.metadata() == expected_metadata);

    const std::string path = tmp_path(cvmrt ? "rt_cvmrt" : "rt_legacy");
    FileRemover remover{path};
    d.save_file(path, format);
    REQUIRE(read_file(path) == bytes);  // streamed file == in-memory save
    ParamDict mapped = ParamDict::load_file(path);
    require_same_tensors(d, mapped);
    REQUIRE(mapped.metadata() == expected_metadata);
    ParamDict read = ParamDict::load_file_copy(path);
    require_same_tensors(d, read);
    REQUIRE(read.metadata() == expected_metadata);

    ParamDict unverified = ParamDict::load(bytes.data(), bytes.size(), LoadOptions{false});
    require_same_tensors(d, unverified);
  }
}

TEST_CASE("params: saving is deterministic", "[params]") {
  for (ParamFormat format : {ParamFormat::kCvmrt, ParamFormat::kLegacy}) {
    ParamDict a = sample_dict();
    a.metadata()["b"] = "2";
    a.metadata()["a"] = "1";
    ParamDict b = sample_dict();  // same seeds, built again
    b.metadata()["a"] = "1";
    b.metadata()["b"] = "2";
    std::vector<uint8_t> first = a.save(format);
    REQUIRE(a.save(format) == first);
    REQUIRE(b.save(format) == first);
    // A reloaded dict saves back to the same bytes (zero-copy arrays included).
    ParamDict reloaded = ParamDict::load(first.data(), first.size());
    if (format == ParamFormat::kLegacy) reloaded.metadata() = a.metadata();
    REQUIRE(reloaded.save(format) == first);
  }
}

TEST_CASE("params: cvmrt layout: header, table of contents, aligned payloads, checksums",
          "[params]") {
  ParamDict d = sample_dict();
  d.metadata()["k"] = "v";
  std::vector<uint8_t> bytes = d.save();
  REQUIRE(bytes.size() > 24);
  REQUIRE(std::memcmp(bytes.data(), "CVMRTPRM", 8) == 0);
  REQUIRE(le64(bytes.data() + 8) == 1);  // u32 version 1, u32 reserved 0
  const uint64_t toc_size = le64(bytes.data() + 16);
  REQUIRE(24 + toc_size <= bytes.size());
  std::vector<uint8_t> toc(bytes.begin() + 24, bytes.begin() + 24 + static_cast<long>(toc_size));
  flatbuffers::Verifier verifier(toc.data(), toc.size());
  REQUIRE(cvm::schema::VerifyParamsTocBuffer(verifier));
  const auto* root = cvm::schema::GetParamsToc(toc.data());
  REQUIRE(root->format_version() == 1);
  REQUIRE(root->tensors()->size() == d.size());
  REQUIRE(root->metadata()->size() == 1);
  uint64_t prev_end = 24 + toc_size;
  for (flatbuffers::uoffset_t i = 0; i < root->tensors()->size(); ++i) {
    const auto* t = root->tensors()->Get(i);
    const NDArray& a = d.entries()[i].second;
    INFO(t->name()->str());
    REQUIRE(t->name()->str() == d.entries()[i].first);
    REQUIRE(t->dtype()->code() == a.dtype().code());
    REQUIRE(t->dtype()->bits() == a.dtype().bits());
    REQUIRE(t->dtype()->lanes() == 1);
    REQUIRE(static_cast<int>(t->shape()->size()) == a.ndim());
    const uint64_t off = t->payload()->offset();
    REQUIRE(off % 64 == 0);
    REQUIRE(off == (prev_end + 63) / 64 * 64);  // next 64-byte boundary, nothing wasted
    REQUIRE(t->payload()->nbytes() == a.nbytes());
    REQUIRE(t->payload()->xxhash64() == XXH64(bytes.data() + off, a.nbytes(), 0));
    for (uint64_t k = prev_end; k < off; ++k) REQUIRE(bytes[k] == 0);  // zero padding
    prev_end = off + a.nbytes();
  }
  REQUIRE(bytes.size() == prev_end);
}

TEST_CASE("params: legacy layout matches spec section 2 byte for byte", "[params]") {
  ParamDict d;
  NDArray a = NDArray::empty({2}, DataType::Int(32));
  a.mutable_data_as<int32_t>()[0] = 1;
  a.mutable_data_as<int32_t>()[1] = -2;
  d.set("ab", a);
  NDArray s = NDArray::empty({}, DataType::Int(8));
  s.mutable_data_as<int8_t>()[0] = 7;
  d.set("s", s);

  std::vector<uint8_t> expected;
  auto u64 = [&](uint64_t v) {
    for (int i = 0; i < 8; ++i) expected.push_back(static_cast<uint8_t>(v >> (8 * i)));
  };
  auto i32 = [&](int32_t v) {
    for (int i = 0; i < 4; ++i)
      expected.push_back(static_cast<uint8_t>(static_cast<uint32_t>(v) >> (8 * i)));
  };
  u64(0xF7E58D4F05049CB7ULL);
  u64(0);
  u64(2);
  u64(2), expected.push_back('a'), expected.push_back('b');
  u64(1), expected.push_back('s');
  u64(2);
  // tensor "ab": int32 (2,)
  u64(0xDD5E40F096B4A13FULL), u64(0), i32(1), i32(0), i32(1);
  expected.insert(expected.end(), {0, 32, 1, 0});
  u64(2), u64(8);
  i32(1), i32(-2);
  // tensor "s": int8 ()
  u64(0xDD5E40F096B4A13FULL), u64(0), i32(1), i32(0), i32(0);
  expected.insert(expected.end(), {0, 8, 1, 0});
  u64(1);
  expected.push_back(7);

  REQUIRE(d.save(ParamFormat::kLegacy) == expected);
  ParamDict back = ParamDict::load(expected.data(), expected.size());
  require_same_tensors(d, back);
}

TEST_CASE("params: many tensors and an empty dict", "[params]") {
  ParamDict many;
  for (int i = 0; i < 700; ++i) {
    DataType t = kAllDataTypes[i % (sizeof(kAllDataTypes) / sizeof(kAllDataTypes[0]))];
    many.set("layer" + std::to_string(i) + "/w", random_array({i % 5, 3}, t, 1000 + i));
  }
  ParamDict empty;
  for (ParamFormat format : {ParamFormat::kCvmrt, ParamFormat::kLegacy}) {
    std::vector<uint8_t> bytes = many.save(format);
    require_same_tensors(many, ParamDict::load(bytes.data(), bytes.size()));
    std::vector<uint8_t> none = empty.save(format);
    ParamDict back = ParamDict::load(none.data(), none.size());
    REQUIRE(back.size() == 0);
  }
  REQUIRE(empty.save().size() % 64 == 0);  // header + table, padded to the payload boundary
}

TEST_CASE("params: non-contiguous, reversed and broadcast views save in row-major order",
          "[params]") {
  NDArray base = random_array({6, 8}, DataType::Int(32), 7);
  NDArray one = random_array({1}, DataType::Float(64), 8);
  NDArray row = random_array({5}, DataType::UInt(16), 9);
  ParamDict d;
  d.set("transposed", base.transpose());
  d.set("strided", base.slice(1, 1, 8, 3));
  d.set("reversed", base.slice(0, -1, -7, -2).slice(1, -1, -9, -1));
  d.set("broadcast_scalar", one.broadcast_to({3, 4, 2}));
  d.set("broadcast_rows", row.broadcast_to({4, 5}));
  d.set("broadcast_cols", row.reshape({5, 1}).broadcast_to({5, 3}).transpose());
  // Rows longer than the writer's 1 MiB scratch buffer, so they are split across chunks.
  d.set("wide_broadcast", row.slice(0, 0, 1).broadcast_to({700000}));
  d.set("sliced_rows", random_array({4096, 1024}, DataType::Int(8), 12).slice(1, 0, 512));  // 2 MiB
  d.set("long_strided", random_array({1 << 21}, DataType::Int(16), 11).slice(0, 1, 1 << 21, 3));
  d.set("big_strided", random_array({600, 1000}, DataType::Int(8), 10).slice(1, 0, 1000, 2));
  for (ParamFormat format : {ParamFormat::kCvmrt, ParamFormat::kLegacy}) {
    std::vector<uint8_t> bytes = d.save(format);
    ParamDict back = ParamDict::load(bytes.data(), bytes.size());
    require_same_tensors(d, back);
    for (const auto& e : back.entries()) REQUIRE(e.second.is_contiguous());
  }
}

TEST_CASE("params: zero-copy loads point into the buffer, aligned, allocating nothing",
          "[params]") {
  ParamDict d;
  uint64_t seed = 40;
  for (DataType t : kAllDataTypes) d.set("big_" + t.name(), random_array({1 << 14}, t, seed++));
  d.set("odd", random_array({3}, DataType::Int(8), seed++));
  size_t payload = 0;
  for (const auto& e : d.entries()) payload += e.second.nbytes();

  for (ParamFormat format : {ParamFormat::kCvmrt, ParamFormat::kLegacy}) {
    const bool cvmrt = format == ParamFormat::kCvmrt;
    INFO((cvmrt ? "cvmrt" : "legacy"));
    std::vector<uint8_t> bytes = d.save(format);
    uint8_t* at = nullptr;
    auto buf = placed_copy(bytes, 0, &at);
    const size_t before = Allocator::cpu().stats().bytes_in_use;
    ParamDict z = ParamDict::load_borrowed(at, bytes.size(), buf);
    const size_t grown = Allocator::cpu().stats().bytes_in_use - before;
    require_same_tensors(d, z);
    if (cvmrt) {
      REQUIRE(grown < 4096);  // nothing of the ~1.7 MB payload was copied
      for (const auto& e : z.entries()) {
        INFO(e.first);
        REQUIRE(points_into(e.second, at, bytes.size()));
        REQUIRE(reinterpret_cast<uintptr_t>(e.second.data()) % 64 == 0);
        REQUIRE(e.second.is_read_only());
      }
    } else {
      // Legacy payloads sit wherever the names put them: those aligned to their element size
      // are borrowed, the others copied.
      REQUIRE(grown < payload);
      size_t borrowed = 0;
      for (const auto& e : z.entries()) {
        REQUIRE(reinterpret_cast<uintptr_t>(e.second.data()) % e.second.dtype().bytes() == 0);
        if (points_into(e.second, at, bytes.size())) ++borrowed;
      }
      REQUIRE(borrowed >= 4);  // at least the 1-byte types
    }

    // Writing to a zero-copy array copies it first; the caller's buffer is untouched.
    NDArray w = z.at(cvmrt ? "big_int32" : "big_int8");
    REQUIRE(points_into(w, at, bytes.size()));
    const void* old = w.data();
    std::vector<uint8_t> snapshot(at, at + bytes.size());
    static_cast<uint8_t*>(w.mutable_data())[0] ^= 0x5a;
    REQUIRE(w.data() != old);
    REQUIRE(std::memcmp(snapshot.data(), at, bytes.size()) == 0);
  }
}

TEST_CASE("params: a load by copy does not depend on the buffer afterwards", "[params]") {
  ParamDict d = sample_dict();
  std::vector<uint8_t> bytes = d.save();
  const size_t before = Allocator::cpu().stats().bytes_in_use;
  ParamDict copied = ParamDict::load(bytes.data(), bytes.size());
  REQUIRE(Allocator::cpu().stats().bytes_in_use > before);  // the payloads were copied
  std::fill(bytes.begin(), bytes.end(), uint8_t{0xEE});
  require_same_tensors(d, copied);
}

TEST_CASE("params: zero-copy arrays keep the buffer and the mapping alive", "[params]") {
  ParamDict d = sample_dict();
  std::vector<uint8_t> bytes = d.save();
  const std::vector<uint8_t> expected = row_major_bytes(d.at("t_float32"));

  uint8_t* at = nullptr;
  std::shared_ptr<uint8_t> buf = placed_copy(bytes, 0, &at);
  std::weak_ptr<uint8_t> watch = buf;
  NDArray kept;
  {
    ParamDict z = ParamDict::load_borrowed(at, bytes.size(), buf);
    kept = z.at("t_float32");
    REQUIRE(points_into(kept, at, bytes.size()));
  }
  buf.reset();
  REQUIRE_FALSE(watch.expired());  // the array holds the caller's buffer
  REQUIRE(row_major_bytes(kept) == expected);
  NDArray view = kept.slice(0, 1, 3);
  kept = NDArray();
  REQUIRE_FALSE(watch.expired());  // ... and so does a view of it
  view = NDArray();
  REQUIRE(watch.expired());

  // A mapped file stays mapped (and readable) after the dict is gone and the file unlinked.
  const std::string path = tmp_path("keepalive");
  FileRemover remover{path};
  d.save_file(path);
  {
    ParamDict mapped = ParamDict::load_file(path);
    kept = mapped.at("t_float32");
  }
  REQUIRE(std::remove(path.c_str()) == 0);
  REQUIRE(row_major_bytes(kept) == expected);
}

TEST_CASE("params: a borrowed buffer that is not 64-byte aligned still loads", "[params]") {
  ParamDict d = sample_dict();
  for (ParamFormat format : {ParamFormat::kCvmrt, ParamFormat::kLegacy}) {
    std::vector<uint8_t> bytes = d.save(format);
    for (size_t misalign : {1, 2, 4, 8, 33}) {
      INFO("misalign " << misalign);
      uint8_t* at = nullptr;
      auto buf = placed_copy(bytes, misalign, &at);
      ParamDict z = ParamDict::load_borrowed(at, bytes.size(), buf);
      require_same_tensors(d, z);
      for (const auto& e : z.entries()) {
        REQUIRE(reinterpret_cast<uintptr_t>(e.second.data()) % e.second.dtype().bytes() == 0);
        if (e.second.dtype().bytes() == 1 && e.second.nbytes() > 0) {
          REQUIRE(points_into(e.second, at, bytes.size()));  // bytes are still borrowed
        }
      }
    }
  }
}

TEST_CASE("params: ParamDict set, replace, at and contains", "[params]") {
  ParamDict d;
  d.set("a", random_array({2}, DataType::Int(8), 1));
  d.set("b", random_array({2}, DataType::Int(8), 2));
  NDArray replacement = random_array({3}, DataType::Int(16), 3);
  d.set("a", replacement);
  REQUIRE(d.size() == 2);
  REQUIRE(d.entries()[0].first == "a");  // replacing keeps the first-insertion position
  REQUIRE(d.at("a").shares_memory_with(replacement));
  REQUIRE(d.contains("b"));
  REQUIRE_FALSE(d.contains("c"));
  REQUIRE_THROWS_WITH(d.at("c"), Contains("no tensor named \"c\""));
  REQUIRE_THROWS_AS(d.at("c"), LogicError);
  REQUIRE_THROWS_AS(d.set("x", NDArray()), LogicError);
  REQUIRE_THROWS_AS(d.set("", replacement), LogicError);

  // Loaded, copied and moved dicts find every name (in file order), and set() on them replaces.
  ParamDict many;
  for (int i = 0; i < 3000; ++i) {
    many.set("t" + std::to_string(i), random_array({1}, DataType::Int(32), i));
  }
  const std::vector<uint8_t> bytes = many.save();
  ParamDict loaded = ParamDict::load(bytes.data(), bytes.size());
  ParamDict copy = loaded;
  ParamDict moved = std::move(copy);
  for (const ParamDict* dict : {&many, &loaded, &moved}) {
    REQUIRE(dict->size() == 3000);
    for (int i = 0; i < 3000; i += 7) {
      const std::string name = "t" + std::to_string(i);
      REQUIRE(dict->entries()[i].first == name);
      REQUIRE(dict->contains(name));
      REQUIRE(test::element_bytes(dict->at(name), 0) == test::element_bytes(many.at(name), 0));
    }
    REQUIRE_FALSE(dict->contains("t3000"));
  }
  moved.set("t5", replacement);
  moved.set("new", replacement);
  REQUIRE(moved.size() == 3001);
  REQUIRE(moved.entries()[5].first == "t5");
  REQUIRE(moved.at("t5").shares_memory_with(replacement));
  REQUIRE(moved.entries().back().first == "new");
  REQUIRE(moved.at("new").shares_memory_with(replacement));
  REQUIRE_FALSE(loaded.at("t5").shares_memory_with(replacement));
}

TEST_CASE("params: file errors: missing file, directory, unwritable destination", "[params]") {
  const std::string missing = std::string(CVM_TEST_TMP_DIR) + "/does_not_exist.params";
  REQUIRE_THROWS_AS(ParamDict::load_file(missing), LogicError);
  REQUIRE_THROWS_WITH(ParamDict::load_file(missing),
                      Contains("cannot open params file") && Contains("No such file or directory"));
  REQUIRE_THROWS_AS(ParamDict::load_file_copy(missing), LogicError);
  REQUIRE_THROWS_WITH(ParamDict::load_file(CVM_TEST_TMP_DIR), Contains("not a regular file"));

  ParamDict d = sample_dict();
  const std::string bad = std::string(CVM_TEST_TMP_DIR) + "/no/such/dir/x.params";
  REQUIRE_THROWS_AS(d.save_file(bad), RuntimeError);

  // An empty file and a file of garbage are logic errors naming the file.
  const std::string path = tmp_path("garbage");
  FileRemover remover{path};
  { std::ofstream(path, std::ios::binary); }
  REQUIRE_THROWS_WITH(ParamDict::load_file(path), Contains(path) && Contains("too small"));
  REQUIRE_THROWS_WITH(ParamDict::load_file_copy(path), Contains(path) && Contains("too small"));
  { std::ofstream(path, std::ios::binary) << "definitely not params"; }
  REQUIRE_THROWS_WITH(ParamDict::load_file(path), Contains("unrecognised format"));
  REQUIRE_THROWS_WITH(ParamDict::load_file_copy(path), Contains("unrecognised format"));

  // save_file replaces an existing file and leaves no temporary behind.
  d.save_file(path);
  REQUIRE(read_file(path) == d.save());
  REQUIRE(::access((path + ".tmp").c_str(), F_OK) != 0);
}

TEST_CASE("params: format detection", "[params]") {
  ParamDict d = sample_dict();
  std::vector<uint8_t> c = d.save(ParamFormat::kCvmrt);
  std::vector<uint8_t> l = d.save(ParamFormat::kLegacy);
  REQUIRE(ParamDict::detect_format(c.data(), c.size()) == ParamFormat::kCvmrt);
  REQUIRE(ParamDict::detect_format(l.data(), l.size()) == ParamFormat::kLegacy);
  REQUIRE(ParamDict::detect_format(c.data(), 8) == ParamFormat::kCvmrt);
  REQUIRE_THROWS_WITH(ParamDict::detect_format(c.data(), 7), Contains("too small"));
  REQUIRE_THROWS_AS(ParamDict::detect_format(nullptr, 0), LogicError);
  const char junk[] = "PK\x03\x04 zip, not params";
  REQUIRE_THROWS_WITH(ParamDict::detect_format(junk, sizeof(junk)),
                      Contains("unrecognised format"));
}
