// Params loading: load_file_copy (positioned reads into fresh arrays) vs load_file (zero-copy
// mmap), with and without checksum verification, on a ~1 GiB cvmrt file.
//
// Usage: params_load_bench [dir] [tensors] [MiB per tensor]
//   dir defaults to $TMPDIR, then /tmp. The file is removed at exit. The file is freshly written,
//   so the figures are for a warm page cache: they measure our overhead, not the disk.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <string>
#include <vector>

#include "cvm/error.h"
#include "cvm/ndarray.h"
#include "cvm/params.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

struct FileRemover {
  std::string path;
  ~FileRemover() {
    std::remove(path.c_str());
    std::remove((path + ".tmp").c_str());
  }
};

// Reads one byte per 4 KiB page of every tensor: what a first use of mapped data costs at least.
uint64_t touch_pages(const cvm::ParamDict& d) {
  uint64_t sum = 0;
  for (const auto& e : d.entries()) {
    const auto* p = static_cast<const volatile uint8_t*>(e.second.data());
    for (size_t i = 0; i < e.second.nbytes(); i += 4096) sum += p[i];
  }
  return sum;
}

struct Result {
  double load_s = 1e30;
  double touched_s = 1e30;
};

// Best of `reps` for loading, and for loading plus touching every page. The dict is destroyed
// (unmapped or freed) outside the timed region.
Result measure(const std::function<cvm::ParamDict()>& load, int reps, uint64_t* sink) {
  Result r;
  for (int i = 0; i < reps; ++i) {
    auto t0 = Clock::now();
    cvm::ParamDict d = load();
    double loaded = seconds_since(t0);
    *sink += touch_pages(d);
    double touched = seconds_since(t0);
    r.load_s = std::min(r.load_s, loaded);
    r.touched_s = std::min(r.touched_s, touched);
  }
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::string dir = argc > 1 ? argv[1] : "";
    if (dir.empty()) {
      const char* env = std::getenv("TMPDIR");
      dir = env && *env ? env : "/tmp";
    }
    const int tensors = argc > 2 ? std::atoi(argv[2]) : 16;
    const int64_t mib = argc > 3 ? std::atoll(argv[3]) : 64;
    if (tensors <= 0 || mib <= 0) {
      std::fprintf(stderr, "usage: %s [dir] [tensors > 0] [MiB per tensor > 0]\n", argv[0]);
      return 2;
    }
    const std::string path = dir + "/cvmrt_params_bench_" + std::to_string(::getpid()) + ".params";
    FileRemover remover{path};

    cvm::ParamDict dict;
    uint64_t state = 0x9E3779B97F4A7C15ULL;
    for (int t = 0; t < tensors; ++t) {
      cvm::NDArray a = cvm::NDArray::empty({mib << 20}, cvm::DataType::Int(8));
      auto* p = static_cast<uint64_t*>(a.mutable_data());
      for (int64_t i = 0; i < (mib << 20) / 8; ++i) {  // xorshift64: cheap, incompressible
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        p[i] = state;
      }
      dict.set("layer" + std::to_string(t) + "/weight", a);
    }
    const double total = static_cast<double>(tensors) * static_cast<double>(mib << 20);

    auto t0 = Clock::now();
    dict.save_file(path);
    const double save_s = seconds_since(t0);
    dict = cvm::ParamDict();  // free the source arrays before measuring loads

    std::printf("params_load_bench: %d tensors x %lld MiB int8 = %.2f GiB, file %s\n", tensors,
                static_cast<long long>(mib), total / (1 << 30), path.c_str());
    std::printf("save_file: %.3f s (%.2f GB/s)\n\n", save_s, total / save_s / 1e9);

    uint64_t sink = 0;
    const int reps = 3;
    struct Row {
      const char* name;
      bool verify;
      Result r;
    };
    std::vector<Row> rows;
    for (bool verify : {false, true}) {
      cvm::LoadOptions opts;
      opts.verify = verify;
      rows.push_back(
          {"load_file_copy", verify,
           measure([&] { return cvm::ParamDict::load_file_copy(path, opts); }, reps, &sink)});
      rows.push_back({"load_file (mmap)", verify,
                      measure([&] { return cvm::ParamDict::load_file(path, opts); }, reps, &sink)});
    }

    std::printf("%-18s %-6s %12s %10s %18s %10s\n", "path", "verify", "load ms", "GB/s",
                "load+touch ms", "GB/s");
    for (const Row& row : rows) {
      std::printf("%-18s %-6s %12.3f %10.2f %18.3f %10.2f\n", row.name, row.verify ? "on" : "off",
                  row.r.load_s * 1e3, total / row.r.load_s / 1e9, row.r.touched_s * 1e3,
                  total / row.r.touched_s / 1e9);
    }
    std::printf("\nratio copy/mmap (best of %d):\n", reps);
    for (size_t i = 0; i + 1 < rows.size(); i += 2) {
      std::printf("  verify %-3s  load %8.1fx   load+touch %6.2fx\n", rows[i].verify ? "on" : "off",
                  rows[i].r.load_s / rows[i + 1].r.load_s,
                  rows[i].r.touched_s / rows[i + 1].r.touched_s);
    }
    std::printf("(checksum of touched bytes: %llu)\n", static_cast<unsigned long long>(sink));
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "params_load_bench: %s\n", e.what());
    return 1;
  }
}
