// SIMD kernels vs the scalar reference: int32 elementwise ops, max_pool2d, upsampling and the
// reductions, per ISA level (table entries called directly) at 1 and 2 threads.
//
// Usage: simd_elementwise_bench [seconds per measurement, default 0.2]
// Prints the best time of repeated runs and the speedup over the scalar reference at the same
// thread count (and, for 2 threads, over the same kernel at 1 thread).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "cvm/error.h"
#include "cvm/ndarray.h"
#include "cvm/threads.h"
#include "kernel_abi.h"
#include "kernel_views.h"
#include "params/elementwise.h"
#include "params/nn.h"
#include "params/reduce.h"

namespace {

using Clock = std::chrono::steady_clock;
using cvm::DataType;
using cvm::NDArray;
using cvm::Shape;
using cvm::kernel::ElemType;
using cvm::kernel::KernelEntry;
using cvm::kernel::TensorView;

NDArray random_array(const Shape& shape, DataType t, uint64_t seed) {
  NDArray a = NDArray::empty(shape, t);
  std::mt19937 rng(static_cast<uint32_t>(seed));
  if (t == DataType::Float(32)) {
    auto* p = static_cast<float*>(a.mutable_data());
    std::uniform_real_distribution<float> d(-1000.0f, 1000.0f);
    for (int64_t i = 0; i < a.numel(); ++i) p[i] = d(rng);
  } else {
    auto* p = static_cast<int32_t*>(a.mutable_data());
    for (int64_t i = 0; i < a.numel(); ++i) p[i] = static_cast<int32_t>(rng());
  }
  return a;
}

// One benchmark: a kernel op and dtype, and a function that runs one kernel over fixed arrays.
struct Case {
  std::string op;
  ElemType dtype;
  std::string what;  // shape / attributes
  std::function<void(cvm::kernel::KernelFn)> run;
};

// Runs kernel `fn` alone (a chain of one entry) with the op layer's thread pool.
void run_alone(cvm::kernel::KernelFn fn, const std::vector<TensorView>& views, int num_outputs,
               const void* params) {
  const KernelEntry entry{"bench", "bench", ElemType::kAny, fn, 0};
  cvm::KernelChain chain;
  chain.entries = {&entry};
  cvm::ops::run_kernel(chain, views, num_outputs, params);
}

std::vector<Case> cases() {
  std::vector<Case> list;
  static const cvm::kernel::CvmClampParams kClip{0, -127, 127}, kShift{8, -127, 127},
      kLeft{3, -32767, 32767};
  for (int64_t n : {int64_t{4096}, int64_t{1} << 18, int64_t{1} << 22}) {
    const Shape shape{n};
    NDArray a = random_array(shape, DataType::Int(32), 1),
            b = random_array(shape, DataType::Int(32), 2);
    NDArray out = NDArray::empty(shape, DataType::Int(32));
    auto unary = [=](const cvm::kernel::CvmClampParams* p) {
      return [=](cvm::kernel::KernelFn fn) mutable {
        run_alone(fn, cvm::ops::plain_views({out}, {a}), 1, p);
      };
    };
    auto binary = [=](cvm::kernel::KernelFn fn) mutable {
      run_alone(fn, cvm::ops::plain_views({out}, {a, b}), 1, nullptr);
    };
    const std::string what = "n=" + std::to_string(n);
    list.push_back({"relu", ElemType::kInt32, what, unary(nullptr)});
    list.push_back({"clip", ElemType::kInt32, what, unary(&kClip)});
    list.push_back({"cvm_right_shift", ElemType::kInt32, what, unary(&kShift)});
    list.push_back({"cvm_left_shift", ElemType::kInt32, what, unary(&kLeft)});
    list.push_back({"mul", ElemType::kInt32, what, binary});
    list.push_back({"maximum", ElemType::kInt32, what, binary});
    list.push_back({"div", ElemType::kInt32, what, binary});
    list.push_back({"add", ElemType::kInt32, what, binary});
  }
  {
    static const cvm::kernel::MaxPool2dParams k3s2{3, 3, 2, 2, 1, 1}, k2s2{2, 2, 2, 2, 0, 0},
        k3s1{3, 3, 1, 1, 1, 1};
    NDArray x = random_array(Shape{1, 64, 112, 112}, DataType::Int(32), 3);
    NDArray y2 = NDArray::empty(Shape{1, 64, 56, 56}, DataType::Int(32));
    NDArray y1 = NDArray::empty(Shape{1, 64, 112, 112}, DataType::Int(32));
    auto pool = [=](const cvm::kernel::MaxPool2dParams* p, NDArray y) {
      return [=](cvm::kernel::KernelFn fn) {
        run_alone(fn, cvm::ops::plain_views({y}, {x}), 1, p);
      };
    };
    list.push_back({"max_pool2d", ElemType::kInt32, "64x112x112 3x3/2 pad 1", pool(&k3s2, y2)});
    list.push_back({"max_pool2d", ElemType::kInt32, "64x112x112 2x2/2", pool(&k2s2, y2)});
    list.push_back({"max_pool2d", ElemType::kInt32, "64x112x112 3x3/1 pad 1", pool(&k3s1, y1)});
  }
  {
    static const cvm::kernel::UpsamplingParams s2{2}, s3{3};
    NDArray x = random_array(Shape{1, 64, 56, 56}, DataType::Int(32), 4);
    NDArray y2 = NDArray::empty(Shape{1, 64, 112, 112}, DataType::Int(32));
    NDArray y3 = NDArray::empty(Shape{1, 64, 168, 168}, DataType::Int(32));
    list.push_back({"upsampling", ElemType::kInt32, "64x56x56 x2", [=](cvm::kernel::KernelFn fn) {
                      run_alone(fn, cvm::ops::plain_views({y2}, {x}), 1, &s2);
                    }});
    list.push_back({"upsampling", ElemType::kInt32, "64x56x56 x3", [=](cvm::kernel::KernelFn fn) {
                      run_alone(fn, cvm::ops::plain_views({y3}, {x}), 1, &s3);
                    }});
  }
  // Reductions of a (rows, cols) array: over the last axis, over the first, over everything.
  for (ElemType t : {ElemType::kInt32, ElemType::kFloat32}) {
    const DataType dt = t == ElemType::kInt32 ? DataType::Int(32) : DataType::Float(32);
    const int64_t rows = 512, cols = 2048;
    NDArray x = random_array(Shape{rows, cols}, dt, 5);
    NDArray by_row = NDArray::empty(Shape{rows}, dt), by_col = NDArray::empty(Shape{cols}, dt);
    NDArray all = NDArray::empty(Shape{}, dt);
    auto view_of = [](const NDArray& a) {
      return cvm::ops::plain_view(a, const_cast<void*>(a.data()));
    };
    TensorView in_rows = view_of(x);  // kept rows, reduced cols
    TensorView in_cols = view_of(x);  // kept cols, reduced rows
    std::swap(in_cols.shape[0], in_cols.shape[1]);
    std::swap(in_cols.strides[0], in_cols.strides[1]);
    TensorView in_all = view_of(x);
    in_all.shape[0] = rows * cols;
    in_all.strides[0] = 1;
    in_all.ndim = 1;
    for (const char* op : {"reduce_sum", "reduce_max"}) {
      if (t == ElemType::kFloat32 && std::string(op) == "reduce_max") continue;
      auto run = [=](NDArray out, TensorView in) {
        return [=](cvm::kernel::KernelFn fn) mutable {
          run_alone(fn, {cvm::ops::plain_view(out, out.mutable_data()), in}, 1, nullptr);
        };
      };
      list.push_back({op, t, "512x2048 axis 1", run(by_row, in_rows)});
      list.push_back({op, t, "512x2048 axis 0", run(by_col, in_cols)});
      list.push_back({op, t, "512x2048 all", run(all, in_all)});
    }
  }
  return list;
}

const KernelEntry* find(const cvm::kernel::BackendTable& table, const std::string& op, ElemType t,
                        const char* variant) {
  for (size_t i = 0; i < table.count; ++i) {
    const KernelEntry& e = table.entries[i];
    if (op == e.op && e.dtype == t && (variant == nullptr || cvm::how_of(e) == variant)) {
      return &e;
    }
  }
  return nullptr;
}

// Best time of one run, in microseconds, over about `budget` seconds.
double best_us(const std::function<void(cvm::kernel::KernelFn)>& run, cvm::kernel::KernelFn fn,
               double budget) {
  run(fn);  // warm up
  double best = 1e30;
  const auto start = Clock::now();
  int reps = 0;
  while (reps < 3 || std::chrono::duration<double>(Clock::now() - start).count() < budget) {
    const auto t0 = Clock::now();
    run(fn);
    best = std::min(best, std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    if (++reps >= 100000) break;
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const double budget = argc > 1 ? std::atof(argv[1]) : 0.2;
#ifdef CVMRT_HAVE_BACKEND_SIMD
    const cvm::kernel::BackendTable& simd = cvm::kernel::kSimdBackend;
    const uint32_t have = simd.cpu_features();
#endif
    std::printf("%-16s %-8s %-24s %3s %10s %28s %28s\n", "op", "dtype", "case", "thr", "scalar us",
                "avx2 us (x)", "avx512 us (x)");
    for (const Case& c : cases()) {
      const KernelEntry* ref = find(cvm::kernel::kScalarBackend, c.op, c.dtype, "scalar");
      if (ref == nullptr) continue;
      double one_thread[3] = {0, 0, 0};
      for (int threads : {1, 2}) {
        cvm::set_num_threads(threads);
        const double scalar = best_us(c.run, ref->fn, budget);
        std::string cols[2];
        int col = 0;
        for (const char* isa : {"avx2", "avx512"}) {
          const KernelEntry* e = nullptr;
#ifdef CVMRT_HAVE_BACKEND_SIMD
          e = find(simd, c.op, c.dtype, isa);
          if (e != nullptr && (have & e->required_features) != e->required_features) e = nullptr;
#endif
          char text[64] = "-";
          if (e != nullptr) {
            const double us = best_us(c.run, e->fn, budget);
            if (threads == 1) one_thread[col + 1] = us;
            if (threads == 1) {
              std::snprintf(text, sizeof text, "%9.1f (%5.2f)", us, scalar / us);
            } else {
              std::snprintf(text, sizeof text, "%9.1f (%5.2f, %4.2f/1t)", us, scalar / us,
                            one_thread[col + 1] / us);
            }
          }
          cols[col++] = text;
        }
        if (threads == 1) one_thread[0] = scalar;
        std::printf("%-16s %-8s %-24s %3d %10.1f %28s %28s\n", c.op.c_str(),
                    c.dtype == ElemType::kInt32 ? "int32" : "float32", c.what.c_str(), threads,
                    scalar, cols[0].c_str(), cols[1].c_str());
      }
    }
    cvm::set_num_threads(0);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "simd_elementwise_bench: %s\n", e.what());
    return 1;
  }
}
