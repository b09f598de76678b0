// A params file beyond 2 GiB: saved from a broadcast view without materialising it, then mapped
// with zero copies; the tensor after the big one sits at a 64-bit offset.
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "cvm/allocator.h"
#include "cvm/error.h"
#include "cvm/ndarray.h"
#include "cvm/params.h"
#include "cvm/schema/params_generated.h"
#include "test_util.h"

using namespace cvm;

namespace {

struct FileRemover {
  std::string path;
  ~FileRemover() {
    std::remove(path.c_str());
    std::remove((path + ".tmp").c_str());
  }
};

uint64_t le64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

}  // namespace

TEST_CASE("params: beyond 2 GiB: save a broadcast view, map it back", "[params][large]") {
  const int64_t big_n = (int64_t{1} << 31) + 4096;
  NDArray one = NDArray::empty({1}, DataType::UInt(8));
  one.mutable_data_as<uint8_t>()[0] = 0xA7;
  NDArray small = NDArray::empty({5}, DataType::Int(32));
  for (int i = 0; i < 5; ++i) small.mutable_data_as<int32_t>()[i] = 1000 * i - 7;

  ParamDict d;
  d.set("big", one.broadcast_to({big_n}));
  d.set("small", small);
  d.metadata()["what"] = "large-file test";

  const std::string path =
      cvm::test::tmp_path("large.params");
  FileRemover remover{path};

  // Saving streams: no 2 GiB staging buffer.
  Allocator::cpu().reset_peak();
  const size_t base = Allocator::cpu().stats().bytes_in_use;
  d.save_file(path);
  REQUIRE(Allocator::cpu().stats().peak_bytes_in_use - base < (size_t{16} << 20));

  // The small tensor's payload offset (read from the table of contents) is past 2^31.
  {
    std::ifstream in(path, std::ios::binary);
    std::vector<uint8_t> head(24);
    in.read(reinterpret_cast<char*>(head.data()), 24);
    REQUIRE(std::memcmp(head.data(), "CVMRTPRM", 8) == 0);
    std::vector<uint8_t> toc(le64(head.data() + 16));
    in.read(reinterpret_cast<char*>(toc.data()), static_cast<std::streamsize>(toc.size()));
    flatbuffers::Verifier verifier(toc.data(), toc.size());
    REQUIRE(cvm::schema::VerifyParamsTocBuffer(verifier));
    const auto* tensors = cvm::schema::GetParamsToc(toc.data())->tensors();
    REQUIRE(tensors->size() == 2);
    REQUIRE(tensors->Get(0)->payload()->nbytes() == static_cast<uint64_t>(big_n));
    REQUIRE(tensors->Get(1)->payload()->offset() > (uint64_t{1} << 31));
    REQUIRE(tensors->Get(1)->payload()->offset() % 64 == 0);
  }

  for (bool verify : {false, true}) {
    INFO("verify " << verify);
    const size_t before = Allocator::cpu().stats().bytes_in_use;
    ParamDict m = ParamDict::load_file(path, LoadOptions{verify});
    REQUIRE(Allocator::cpu().stats().bytes_in_use - before < (size_t{1} << 20));  // mapped
    REQUIRE(m.metadata().at("what") == "large-file test");
    const NDArray& big = m.at("big");
    const NDArray& sm = m.at("small");
    REQUIRE(big.shape() == Shape{big_n});
    REQUIRE(big.dtype() == DataType::UInt(8));
    REQUIRE(big.is_read_only());
    const auto* p = big.data_as<uint8_t>();
    REQUIRE(reinterpret_cast<uintptr_t>(p) % 64 == 0);
    for (int64_t i :
         {int64_t{0}, int64_t{1}, big_n / 2, (int64_t{1} << 31) - 1, int64_t{1} << 31, big_n - 1}) {
      INFO("element " << i);
      REQUIRE(p[i] == 0xA7);
    }
    // Both arrays live in one mapping, the small one more than 2 GiB after the big one.
    const auto* q = reinterpret_cast<const uint8_t*>(sm.data());
    REQUIRE(q >= p + big_n);
    REQUIRE(static_cast<uint64_t>(q - p) < static_cast<uint64_t>(big_n) + 64);
    for (int i = 0; i < 5; ++i) REQUIRE(sm.data_as<int32_t>()[i] == 1000 * i - 7);
  }
}
