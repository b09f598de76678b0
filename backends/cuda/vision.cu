// CUDA kernels of the CVM vision family (get_valid_counts, non_max_suppression), as the scalar.
//
// Both are sequential over each batch item in backends/scalar/vision.cc; here a thread block
// runs one batch item at a time and splits only work whose result cannot depend on the split:
// a ballot prefix count for the rows get_valid_counts keeps, a rank count for the NMS sort (a
// strict total order: every element's sorted position is the number of elements before it),
// an OR over the kept boxes for NMS suppression, and the -1 fill of the remaining rows.
#include <cstdint>

#include "cuda_common.cuh"
#include "cuda_kernels.h"
#include "params/vision.h"
#include "vision_rules.h"

namespace cvm {
namespace kernel {
namespace cuda {
namespace {

constexpr int kGvcThreads = 256;  // get_valid_counts: one block per batch item
constexpr int kNmsThreads = 512;  // non_max_suppression: one block for every batch item
constexpr int kWarp = 32;

// Element [b, i, k] of a 3-D int32 view (any strides).
__device__ inline int32_t* cell(const TensorView& v, int64_t b, int64_t i, int64_t k) {
  return static_cast<int32_t*>(v.data) + b * v.strides[0] + i * v.strides[1] + k * v.strides[2];
}

// Rows [first, N) of batch b of `v` become -1, cells split over the block's threads.
__device__ void invalidate_rows(const TensorView& v, int64_t b, int64_t first) {
  const int64_t cols = v.shape[2];
  const int64_t cells = (v.shape[1] - first) * cols;
  for (int64_t c = threadIdx.x; c < cells; c += blockDim.x) {
    const int64_t r = c / cols;
    *cell(v, b, first + r, c - r * cols) = -1;
  }
}

__global__ void get_valid_counts_kernel(TensorView x, TensorView count, TensorView y,
                                        int32_t score_threshold) {
  __shared__ int64_t warp_kept[kGvcThreads / kWarp];
  const int64_t n_rows = x.shape[1], cols = x.shape[2];
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  for (int64_t b = blockIdx.x; b < x.shape[0]; b += gridDim.x) {
    int64_t kept = 0;  // rows kept so far: y[b, 0 .. kept)
    for (int64_t base = 0; base < n_rows; base += kGvcThreads) {
      const int64_t i = base + threadIdx.x;
      const bool keep = i < n_rows && *cell(x, b, i, 1) > score_threshold;
      const unsigned ballot = __ballot_sync(0xffffffffu, keep);
      if (lane == 0) warp_kept[warp] = __popc(ballot);
      __syncthreads();
      // This row's place: rows kept before this tile, in earlier warps, in earlier lanes.
      int64_t at = kept + __popc(ballot & ((1u << lane) - 1u));
      int64_t tile_kept = 0;
      for (int w = 0; w < kGvcThreads / kWarp; ++w) {
        if (w < warp) at += warp_kept[w];
        tile_kept += warp_kept[w];
      }
      if (keep) {
        for (int64_t k = 0; k < cols; ++k) *cell(y, b, at, k) = *cell(x, b, i, k);
      }
      kept += tile_kept;
      __syncthreads();  // warp_kept is rewritten by the next tile
    }
    if (threadIdx.x == 0) {
      static_cast<int32_t*>(count.data)[b * count.strides[0]] = static_cast<int32_t>(kept);
    }
    invalidate_rows(y, b, kept);
  }
}

using vision_rules::iou_percent;
using vision_rules::min64;

// One block runs every batch item in turn (`order` holds N entries, reused per item). All
// threads take every loop below the same number of times: the barriers need the whole block.
__global__ void nms_kernel(TensorView data, TensorView valid_count, TensorView y, NmsParams p) {
  __shared__ int32_t tile[kNmsThreads];
  const int64_t n_rows = data.shape[1];
  const int64_t tid = threadIdx.x;
  int32_t* order = p.order;
  for (int64_t b = 0; b < data.shape[0]; ++b) {
    __syncthreads();  // the previous item's readers of `order` are done
    const int64_t vc = static_cast<const int32_t*>(valid_count.data)[b * valid_count.strides[0]];
    const int64_t valid = vc < 0 ? 0 : (vc > n_rows ? n_rows : vc);
    // Score descending, ties in row order: order[rank(i)] = i, where rank(i) counts the rows j
    // that sort before i (score_j > score_i, or equal scores and j < i).
    for (int64_t base = 0; base < valid; base += kNmsThreads) {
      const int64_t i = base + tid;
      const int32_t si = i < valid ? *cell(data, b, i, 1) : 0;
      int64_t rank = 0;
      for (int64_t t0 = 0; t0 < valid; t0 += kNmsThreads) {
        __syncthreads();  // the previous tile is read
        if (t0 + tid < valid) tile[tid] = *cell(data, b, t0 + tid, 1);
        __syncthreads();
        const int64_t len = min64(kNmsThreads, valid - t0);
        for (int64_t u = 0; u < len; ++u) {
          const int32_t sj = tile[u];
          rank += (sj > si || (sj == si && t0 + u < i)) ? 1 : 0;
        }
      }
      if (i < valid) order[rank] = static_cast<int32_t>(i);
    }
    __syncthreads();  // order is complete
    const int64_t candidates = p.top_k < 0 ? valid : min64(valid, p.top_k);
    const int64_t max_kept = p.max_output_size < 0 ? valid : min64(valid, p.max_output_size);
    int64_t kept = 0;  // kept rows are y[b, 0 .. kept)
    for (int64_t c = 0; c < candidates && kept < max_kept; ++c) {
      int32_t box[6];
      for (int k = 0; k < 6; ++k) box[k] = *cell(data, b, order[c], k);
      if (box[0] < 0) continue;
      bool mine = false;  // does a kept box of this thread's share suppress it?
      for (int64_t i = tid; i < kept && !mine; i += kNmsThreads) {
        int32_t other[6];
        for (int k = 0; k < 6; ++k) other[k] = *cell(y, b, i, k);
        mine = (p.force_suppress || other[0] == box[0]) &&
               iou_percent(other + 2, box + 2) >= p.iou_threshold;
      }
      if (__syncthreads_or(mine)) continue;
      if (tid == 0) {
        for (int k = 0; k < 6; ++k) *cell(y, b, kept, k) = box[k];
      }
      ++kept;
      __syncthreads();  // the new row is visible to the next candidate's check
    }
    invalidate_rows(y, b, kept);
  }
}

}  // namespace

KernelStatus get_valid_counts_i32(const KernelCall& call) {
  const auto& p = *static_cast<const GetValidCountsParams*>(call.params);
  const TensorView& x = call.inputs[0];
  const int64_t batches = x.shape[0];
  if (batches == 0) return KernelStatus::kDone;
  const unsigned blocks = static_cast<unsigned>(batches < kMaxBlocks ? batches : kMaxBlocks);
  get_valid_counts_kernel<<<blocks, kGvcThreads, 0, stream_of(call)>>>(
      x, call.outputs[0], call.outputs[1], p.score_threshold);
  return launched("get_valid_counts");
}

KernelStatus non_max_suppression_i32(const KernelCall& call) {
  const auto& p = *static_cast<const NmsParams*>(call.params);
  const TensorView& data = call.inputs[0];
  if (data.shape[0] == 0 || data.shape[1] == 0) return KernelStatus::kDone;
  nms_kernel<<<1, kNmsThreads, 0, stream_of(call)>>>(data, call.inputs[1], call.outputs[0], p);
  return launched("non_max_suppression");
}

}  // namespace cuda
}  // namespace kernel
}  // namespace cvm
