// GPU benchmark of the CUDA backend: conv2d/dense vs cuBLASLt int8 GEMM, models cuda vs CPU.
//
// The conv2d/dense workloads (conv_workloads.h) run through run_op on cuda:0 against a cuBLASLt
// int8 GEMM of the same implicit-GEMM size, then the example models run on a cuda Session and a
// CPU Session (p50 latency, bit-identical outputs). Without a usable GPU it prints one line
// saying why and exits 0 (bench/run_cuda_bench.sh runs it on a GPU machine).
//
//   cuda_bench [--quick] [--filter SUBSTRING] [--json] [--models DIR]
//   --quick    fewer warmup calls, batches and runs
//   --filter   only the workloads whose name or family contains SUBSTRING (the family of the
//              example models is "model")
//   --json     JSON lines instead of the table
//   --models   the folder of NAME.json + NAME.params models (default: examples/models)
//
// Every figure is timed on the host clock around a batch of calls closed by a device
// synchronize (cvm::synchronize for cvmrt, cudaDeviceSynchronize for cuBLASLt: both wait for
// the default stream both enqueue on); a row reports the median batch's time per call. Every
// row is also checked: the CUDA output against the CPU run_op bit for bit, and cuBLASLt's
// GEMM of the same operands (im2col on the host) against the CUDA output minus the bias.
// Exit status: 0 when everything ran and every check held (or no GPU), 1 otherwise.
#include <cublasLt.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "conv_workloads.h"
#include "cublaslt_gemm.h"
#include "cvm/device.h"
#include "cvm/error.h"
#include "cvm/model.h"
#include "cvm/ndarray.h"
#include "cvm/op.h"
#include "cvm/registry.h"

using namespace cvm;
using cvm::bench::GemmResult;
using cvm::bench::GemmShape;
using cvm::bench::LtContext;
using cvm::bench::Timed;
using cvm::bench::Timing;
using cvm::bench::Work;
using cvm::bench::gemm_shape;
using cvm::bench::run_cublaslt;
using cvm::bench::time_per_call;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
  bool quick = false;
  bool json = false;
  std::string filter;
  std::string models_dir = CVM_BENCH_MODELS_DIR;
};

// ---- small helpers ------------------------------------------------------------------------------

std::string json_str(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string json_num(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// An int32 CPU array of `shape` with seeded values in [-127, 127] (int8 range: the dp4a path).
NDArray random_int8_values(const Shape& shape, uint64_t seed) {
  NDArray a = NDArray::empty(shape, DataType::Int(32));
  std::mt19937_64 rng(seed);
  auto* p = a.mutable_data_as<int32_t>();
  for (int64_t i = 0; i < a.numel(); ++i) p[i] = static_cast<int32_t>(rng() % 255) - 127;
  return a;
}

// Same shape, dtype and bytes. The first differing element goes to *where.
bool same_bits(const NDArray& a0, const NDArray& b0, std::string* where = nullptr) {
  const NDArray a = a0.to(Device::cpu()).contiguous();
  const NDArray b = b0.to(Device::cpu()).contiguous();
  if (a.shape() != b.shape() || a.dtype() != b.dtype()) {
    if (where != nullptr) {
      std::ostringstream os;
      os << "shape/dtype " << a.shape() << " " << a.dtype().name() << " vs " << b.shape() << " "
         << b.dtype().name();
      *where = os.str();
    }
    return false;
  }
  if (std::memcmp(a.data(), b.data(), a.nbytes()) == 0) return true;
  if (where != nullptr && a.dtype() == DataType::Int(32)) {
    const auto* pa = a.data_as<int32_t>();
    const auto* pb = b.data_as<int32_t>();
    for (int64_t i = 0; i < a.numel(); ++i) {
      if (pa[i] != pb[i]) {
        *where = "element " + std::to_string(i) + ": " + std::to_string(pa[i]) + " vs " +
                 std::to_string(pb[i]);
        break;
      }
    }
  }
  return false;
}

// ---- timing -------------------------------------------------------------------------------------

Timing timing_for(bool quick) {
  if (quick) return Timing{3, 3, 0.005, 200, 10, 2};
  return Timing{10, 7, 0.02, 1000, 50, 5};
}

// ---- GEMM columns -------------------------------------------------------------------------------

std::string dims(int64_t a, int64_t b, int64_t c) {
  return std::to_string(a) + "x" + std::to_string(b) + "x" + std::to_string(c);
}

std::string json_dims(int64_t a, int64_t b, int64_t c) {
  return "[" + std::to_string(a) + "," + std::to_string(b) + "," + std::to_string(c) + "]";
}

// ---- the workloads ------------------------------------------------------------------------------

AttrMap attrs_of(const Work& w) {
  if (!w.conv) return {{"units", std::to_string(w.w[0])}};
  return {
      {"channels", std::to_string(w.w[0])},
      {"kernel_size", "(" + std::to_string(w.w[2]) + ", " + std::to_string(w.w[3]) + ")"},
      {"strides", "(" + std::to_string(w.p.stride_h) + ", " + std::to_string(w.p.stride_w) + ")"},
      {"padding", "(" + std::to_string(w.p.pad_h) + ", " + std::to_string(w.p.pad_w) + ")"},
      {"groups", std::to_string(w.p.groups)}};
}

bool selected(const Options& o, const std::string& name, const std::string& family) {
  return o.filter.empty() || name.find(o.filter) != std::string::npos ||
         family.find(o.filter) != std::string::npos;
}

// The CUDA backend's int32 entries for `op`, in table order (the order they are tried).
std::vector<std::string> cuda_kernels(const std::string& op) {
  std::vector<std::string> names;
  for (const KernelInfo& k : list_kernels()) {
    if (k.backend == "cuda" && k.op == op && k.dtype == "int32") names.push_back(k.name);
  }
  return names;
}

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
  return s;
}

// Returns false when a check failed.
bool bench_workload(const Work& w, LtContext& lt, const Options& o, const Timing& timing) {
  const Device gpu = Device::cuda(0);
  const char* op = w.conv ? "conv2d" : "dense";
  const AttrMap attrs = attrs_of(w);
  const NDArray x = random_int8_values(w.x, 1), wt = random_int8_values(w.w, 2),
                bias = random_int8_values(Shape{w.w[0]}, 3);
  const std::vector<NDArray> host_in = {x, wt, bias};
  const std::vector<NDArray> dev_in = {x.to(gpu), wt.to(gpu), bias.to(gpu)};
  synchronize(gpu);

  // One call each on the GPU and the CPU, outside the timing: the outputs must be identical.
  const NDArray y_gpu = run_op(op, dev_in, attrs).at(0).to(Device::cpu());
  const NDArray y_cpu = run_op(op, host_in, attrs).at(0);
  std::string cpu_where;
  const bool cpu_equal = same_bits(y_gpu, y_cpu, &cpu_where);

  const Timed cvm_t =
      time_per_call([&] { run_op(op, dev_in, attrs); }, [&] { synchronize(gpu); }, timing);
  const GemmResult lt_r = run_cublaslt(lt, w, x, wt, bias, y_cpu, timing);

  const GemmShape g = gemm_shape(w);
  const bool gemm = !(w.conv && w.p.groups > 1);
  const bool padded = g.mp != g.m || g.np != g.n || g.kp != g.k;
  const double ops = 2.0 * static_cast<double>(w.macs());
  const double cvm_tops = ops / cvm_t.s / 1e12;
  const double lt_tops = lt_r.ran ? ops / lt_r.t.s / 1e12 : NAN;
  const double ratio = lt_r.ran ? cvm_t.s / lt_r.t.s : NAN;
  const bool ok = cpu_equal && (!lt_r.ran || lt_r.equal);

  if (o.json) {
    std::printf(
        "{\"kind\":\"%s\",\"family\":%s,\"name\":%s,\"gop\":%s,\"cvmrt_ms\":%s,"
        "\"cvmrt_tops\":%s,\"calls_per_batch\":%d,\"cublaslt_ms\":%s,\"cublaslt_tops\":%s,"
        "\"ratio\":%s,\"gemm\":%s,\"gemm_padded\":%s,"
        "\"cublaslt_note\":%s,\"cuda_equals_cpu\":%s,\"cublaslt_equal\":%s}\n",
        op, json_str(w.family).c_str(), json_str(w.name).c_str(), json_num(ops / 1e9).c_str(),
        json_num(cvm_t.s * 1e3).c_str(), json_num(cvm_tops).c_str(), cvm_t.calls,
        lt_r.ran ? json_num(lt_r.t.s * 1e3).c_str() : "null", json_num(lt_tops).c_str(),
        json_num(ratio).c_str(), gemm ? json_dims(g.m, g.n, g.k).c_str() : "null",
        gemm ? json_dims(g.mp, g.np, g.kp).c_str() : "null", json_str(lt_r.why).c_str(),
        cpu_equal ? "true" : "false", lt_r.ran ? (lt_r.equal ? "true" : "false") : "null");
  } else {
    std::string gemm_col = gemm ? dims(g.m, g.n, g.k) : "-";
    if (gemm && padded) gemm_col += " -> " + dims(g.mp, g.np, g.kp);
    std::string check = "ok";
    if (!cpu_equal) check = "DIFFER(cpu)";
    if (lt_r.ran && !lt_r.equal) {
      check = cpu_equal ? "DIFFER(cuBLASLt)" : check + ",DIFFER(cuBLASLt)";
    }
    char lt_ms[32] = "n/a", lt_tops_s[32] = "n/a", ratio_s[32] = "n/a";
    if (lt_r.ran) {
      std::snprintf(lt_ms, sizeof lt_ms, "%.4f", lt_r.t.s * 1e3);
      std::snprintf(lt_tops_s, sizeof lt_tops_s, "%.3f", lt_tops);
      std::snprintf(ratio_s, sizeof ratio_s, "%.2fx", ratio);
    }
    std::printf("%-9s %-26s %8.2f | %9.4f %7.3f | %11s %7s  %-30s | %7s  %s\n", w.family.c_str(),
                w.name.c_str(), ops / 1e6, cvm_t.s * 1e3, cvm_tops, lt_ms, lt_tops_s,
                gemm_col.c_str(), ratio_s, check.c_str());
    if (!lt_r.ran) std::printf("    cuBLASLt n/a: %s\n", lt_r.why.c_str());
    if (!cpu_equal) std::printf("    cuda vs cpu: %s\n", cpu_where.c_str());
    if (lt_r.ran && !lt_r.equal) std::printf("    cuBLASLt vs cvmrt: %s\n", lt_r.where.c_str());
  }
  std::fflush(stdout);
  return ok;
}

// ---- the example models -------------------------------------------------------------------------

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  CVM_VERIFY(f) << "cannot open " << path;
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The data of a C-order int8 or int32 .npy file; false when it is neither.
bool read_npy(const std::string& path, std::string* bytes, DataType* dtype) {
  std::string s;
  try {
    s = read_file(path);
  } catch (const LogicError&) {
    return false;
  }
  if (s.size() < 10 || s.compare(0, 6, "\x93NUMPY") != 0) return false;
  const int major = static_cast<unsigned char>(s[6]);
  size_t header_len = 0, start = 0;
  if (major == 1) {
    header_len = static_cast<unsigned char>(s[8]) |
                 (static_cast<size_t>(static_cast<unsigned char>(s[9])) << 8);
    start = 10;
  } else {
    if (s.size() < 12) return false;
    for (int i = 0; i < 4; ++i)
      header_len |= static_cast<size_t>(static_cast<unsigned char>(s[8 + i])) << (8 * i);
    start = 12;
  }
  if (start + header_len > s.size()) return false;
  const std::string header = s.substr(start, header_len);
  if (header.find("'fortran_order': False") == std::string::npos) return false;
  if (header.find("'|i1'") != std::string::npos) {
    *dtype = DataType::Int(8);
  } else if (header.find("'<i4'") != std::string::npos) {
    *dtype = DataType::Int(32);
  } else {
    return false;
  }
  *bytes = s.substr(start + header_len);
  return true;
}

// The model's input: NAME_input.bin (raw int8, CVMAPIInference's bytes), else NAME_input.npy,
// else seeded values in the input's precision range. *source says which.
NDArray model_input(const Model& model, const std::string& dir, const std::string& name,
                    std::string* source) {
  const TensorInfo& in = model.inputs().at(0);
  CVM_VERIFY(in.dtype == DataType::Int(32)) << "input " << in.name << " is " << in.dtype.name()
                                            << ": only int32 (CVM) models are compared here";
  const size_t n = static_cast<size_t>(in.shape.numel());
  const std::string bin = dir + "/" + name + "_input.bin";
  if (std::filesystem::exists(bin)) {
    const std::string bytes = read_file(bin);
    if (bytes.size() == n) {
      *source = name + "_input.bin";
      return NDArray::from_bytes(bytes.data(), n, in.shape, DataType::Int(8));
    }
  }
  std::string bytes;
  DataType dtype;
  if (read_npy(dir + "/" + name + "_input.npy", &bytes, &dtype) &&
      bytes.size() == n * dtype.bytes()) {
    *source = name + "_input.npy";
    return NDArray::from_bytes(bytes.data(), bytes.size(), in.shape, dtype);
  }
  *source = "synthetic";
  NDArray a = NDArray::empty(in.shape, DataType::Int(32));
  const int64_t bound = (int64_t{1} << (std::max(in.precision, 1) - 1)) - 1;
  std::mt19937_64 rng(7);
  for (int64_t i = 0; i < a.numel(); ++i) {
    a.mutable_data_as<int32_t>()[i] = static_cast<int32_t>(
        static_cast<int64_t>(rng() % static_cast<uint64_t>(2 * bound + 1)) - bound);
  }
  return a;
}

double p50_ms(Session& s, const Timing& t) {
  for (int i = 0; i < t.model_warmup; ++i) s.run();
  std::vector<double> ms;
  for (int i = 0; i < t.model_runs; ++i) {
    const auto t0 = Clock::now();
    s.run();
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[(ms.size() + 1) / 2 - 1];  // nearest rank
}

// conv2d/dense entries that took the cuda session's last run, with counts.
std::string gemm_kernels_ran(const Session& s) {
  std::map<std::string, int> count;
  for (const NodeKernelPlan& node : s.kernel_plan()) {
    for (const NodeKernelPlan::Chain& c : node.chains) {
      if (c.kernel_op == "conv2d" || c.kernel_op == "dense") {
        ++count[c.last_ran.empty() ? c.kernel_op + ":(not run)" : c.last_ran];
      }
    }
  }
  std::vector<std::string> parts;
  for (const auto& [name, n] : count) parts.push_back(name + " x" + std::to_string(n));
  return parts.empty() ? "-" : join(parts, ", ");
}

// Returns false when the model failed or its outputs differ.
bool bench_model(const std::string& dir, const std::string& name, const Options& o,
                 const Timing& t) {
  try {
    const std::string graph = read_file(dir + "/" + name + ".json");
    const std::string params = read_file(dir + "/" + name + ".params");
    const std::shared_ptr<const Model> model = Model::from_cvm(graph, params.data(), params.size());
    std::string source;
    const NDArray input = model_input(*model, dir, name, &source);
    const std::string in_name = model->inputs().at(0).name;

    Session cpu(model, SessionOptions{"auto", 0});
    Session gpu(model, SessionOptions{"cuda", 0});
    cpu.set_input(in_name, input);
    gpu.set_input(in_name, input);
    const double cpu_ms = p50_ms(cpu, t);
    const double gpu_ms = p50_ms(gpu, t);

    bool equal = cpu.num_outputs() == gpu.num_outputs();
    std::string where = equal ? "" : "output counts differ";
    for (size_t i = 0; equal && i < cpu.num_outputs(); ++i) {
      std::string w;
      if (!same_bits(gpu.output(i), cpu.output(i), &w)) {
        equal = false;
        where = "output " + std::to_string(i) + ": " + w;
      }
    }
    const std::string kernels = gemm_kernels_ran(gpu);
    if (o.json) {
      std::printf(
          "{\"kind\":\"model\",\"family\":\"model\",\"name\":%s,\"input\":%s,\"nodes\":%zu,"
          "\"cpu_backend\":%s,\"cpu_p50_ms\":%s,\"cuda_p50_ms\":%s,\"bits\":\"%s\","
          "\"cuda_gemm_kernels\":%s,\"runs\":%d}\n",
          json_str(name).c_str(), json_str(source).c_str(), model->nodes().size(),
          json_str(cpu.backend()).c_str(), json_num(cpu_ms).c_str(), json_num(gpu_ms).c_str(),
          equal ? "equal" : "DIFFER", json_str(kernels).c_str(), t.model_runs);
    } else {
      std::printf("%-12s %-22s %6zu %6s %11.4f %12.4f %9.2fx  %-6s %s\n", name.c_str(),
                  source.c_str(), model->nodes().size(), cpu.backend().c_str(), cpu_ms, gpu_ms,
                  gpu_ms / cpu_ms, equal ? "equal" : "DIFFER", kernels.c_str());
      if (!equal) std::printf("    bits: %s\n", where.c_str());
    }
    std::fflush(stdout);
    return equal;
  } catch (const std::exception& e) {
    if (o.json) {
      std::printf("{\"kind\":\"model\",\"family\":\"model\",\"name\":%s,\"error\":%s}\n",
                  json_str(name).c_str(), json_str(e.what()).c_str());
    } else {
      std::printf("%-12s FAILED: %s\n", name.c_str(), e.what());
    }
    std::fflush(stdout);
    return false;
  }
}

std::vector<std::string> model_names(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::filesystem::path& p = e.path();
    if (p.extension() != ".json") continue;
    const std::string stem = p.stem().string();
    if (std::filesystem::exists(std::filesystem::path(dir) / (stem + ".params"))) {
      names.push_back(stem);
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

int usage() {
  std::fprintf(stderr,
               "usage: cuda_bench [--quick] [--filter SUBSTRING] [--json] [--models DIR]\n");
  return 2;
}

int run(const Options& o) {
  std::string why;
  if (device_count(kDLCUDA, &why) == 0) {
    if (o.json) {
      std::printf("{\"kind\":\"skipped\",\"why\":%s}\n", json_str(why).c_str());
    } else {
      std::printf("cuda_bench: skipped, no CUDA device: %s\n", why.c_str());
    }
    return 0;
  }
  const Device gpu = Device::cuda(0);
  CUDA_OK(cudaSetDevice(0));
  const Timing t = timing_for(o.quick);
  const std::vector<std::string> conv_k = cuda_kernels("conv2d"), dense_k = cuda_kernels("dense");
  const std::string device = describe_device(gpu);
  int cublas_version = 0;
  {
    const size_t v = cublasLtGetVersion();
    cublas_version = static_cast<int>(v);
  }
  LtContext lt;
  if (o.json) {
    std::printf(
        "{\"kind\":\"device\",\"device\":%s,\"cublaslt_version\":%d,\"conv2d_kernels\":%s,"
        "\"dense_kernels\":%s,\"warmup\":%d,\"batches\":%d,\"batch_ms\":%s,"
        "\"cublaslt_note\":%s}\n",
        json_str(device).c_str(), cublas_version, json_str(join(conv_k, ",")).c_str(),
        json_str(join(dense_k, ",")).c_str(), t.warmup, t.batches,
        json_num(t.batch_s * 1e3).c_str(), json_str(lt.why).c_str());
  } else {
    std::printf("cuda_bench on cuda:0: %s (cuBLASLt %d)\n", device.c_str(), cublas_version);
    std::printf("cvmrt CUDA int32 kernels, in the order tried: conv2d: %s; dense: %s\n",
                join(conv_k, ", ").c_str(), join(dense_k, ", ").c_str());
    std::printf(
        "timing: ms per call = median of %d batches (each ~%.0f ms of calls closed by a device "
        "synchronize) after %d warmup calls; MOP = 2*MACs/1e6 of the layer itself (not the padded "
        "GEMM), TOPS = 2*MACs/time\n",
        t.batches, t.batch_s * 1e3, t.warmup);
    std::printf(
        "cuBLASLt: int8 x int8 -> int32 GEMM (CUBLAS_COMPUTE_32I, scale CUDA_R_32I), TN, "
        "column-major, M/N/K padded with zeros to multiples of 16 (GEMM column: real -> padded); "
        "ratio = cvmrt time / cuBLASLt time\n");
    std::printf(
        "check: ok = the CUDA output equals the CPU run_op's bit for bit, and cuBLASLt's GEMM of "
        "the same operands (host im2col) equals the CUDA output minus the bias\n");
    if (!lt.why.empty()) std::printf("cuBLASLt unavailable: %s\n", lt.why.c_str());
  }
  std::vector<Work> works;
  for (const Work& w : bench::workloads()) {
    if (selected(o, w.name, w.family)) works.push_back(w);
  }
  if (!works.empty() && !o.json) {
    std::printf("\n%-9s %-26s %8s | %9s %7s | %11s %7s  %-30s | %7s  %s\n", "family", "layer",
                "MOP", "cvmrt ms", "TOPS", "cuBLASLt ms", "TOPS", "GEMM MxNxK", "ratio", "check");
  }
  std::fflush(stdout);

  int failed = 0;
  for (const Work& w : works) {
    try {
      if (!bench_workload(w, lt, o, t)) ++failed;
    } catch (const std::exception& e) {
      ++failed;
      if (o.json) {
        std::printf("{\"kind\":\"%s\",\"family\":%s,\"name\":%s,\"error\":%s}\n",
                    w.conv ? "conv2d" : "dense", json_str(w.family).c_str(),
                    json_str(w.name).c_str(), json_str(e.what()).c_str());
      } else {
        std::printf("%-9s %-26s FAILED: %s\n", w.family.c_str(), w.name.c_str(), e.what());
      }
      std::fflush(stdout);
    }
  }

  const std::vector<std::string> all_models = model_names(o.models_dir);
  if (all_models.empty()) {
    std::fprintf(stderr, "cuda_bench: no NAME.json + NAME.params models in %s\n",
                 o.models_dir.c_str());
  }
  std::vector<std::string> models;
  for (const std::string& name : all_models) {
    if (selected(o, name, "model")) models.push_back(name);
  }
  if (!models.empty() && !o.json) {
    std::printf(
        "\nwhole models (%s): Session::run() p50 of %d runs after %d warmup runs, input set "
        "once; bits = every output of the cuda session equals the CPU session's\n",
        o.models_dir.c_str(), t.model_runs, t.model_warmup);
    std::printf("%-12s %-22s %6s %6s %11s %12s %10s  %-6s %s\n", "model", "input", "nodes", "cpu",
                "cpu p50 ms", "cuda p50 ms", "cuda/cpu", "bits",
                "cuda conv2d/dense kernels (last run)");
  }
  for (const std::string& name : models) {
    if (!bench_model(o.models_dir, name, o, t)) ++failed;
  }
  if (failed > 0) {
    std::fprintf(stderr, "cuda_bench: %d row(s) failed or differ (see above)\n", failed);
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--quick") {
      o.quick = true;
    } else if (a == "--json") {
      o.json = true;
    } else if (a == "--filter" && i + 1 < argc) {
      o.filter = argv[++i];
    } else if (a == "--models" && i + 1 < argc) {
      o.models_dir = argv[++i];
    } else {
      return usage();
    }
  }
  try {
    return run(o);
  } catch (const LogicError& e) {
    std::fprintf(stderr, "cuda_bench: error: %s\n", e.what());
  } catch (const RuntimeError& e) {
    std::fprintf(stderr, "cuda_bench: runtime error: %s\n", e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cuda_bench: %s\n", e.what());
  }
  return 1;
}
