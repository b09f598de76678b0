// The conv2d/dense benchmark workloads, shared by conv_bench.cc (CPU) and cuda_bench.cc (CUDA).
//
// ResNet-18 and MobileNet-v1 int8 conv layers and two dense shapes: one list, so that the CPU
// and GPU figures describe the same work.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cvm/shape.h"
#include "params/nn.h"

namespace cvm {
namespace bench {

struct Work {
  std::string name;
  std::string family;  // "resnet18", "mobilenet", "dense"
  bool conv;
  // conv: x (N, C, H, W), w (OC, C/groups, KH, KW); dense: x (M, K), w (units, K)
  Shape x, w;
  kernel::Conv2dParams p;  // conv only (scratch null)
  int64_t macs() const {
    if (!conv) return x[0] * w[0] * w[1];
    const int64_t oh = (x[2] + 2 * p.pad_h - (w[2] - 1) - 1) / p.stride_h + 1;
    const int64_t ow = (x[3] + 2 * p.pad_w - (w[3] - 1) - 1) / p.stride_w + 1;
    return x[0] * w[0] * oh * ow * w[1] * w[2] * w[3];
  }
  Shape y() const {
    if (!conv) return Shape{x[0], w[0]};
    return Shape{x[0], w[0], (x[2] + 2 * p.pad_h - w[2]) / p.stride_h + 1,
                 (x[3] + 2 * p.pad_w - w[3]) / p.stride_w + 1};
  }
};

// A square conv layer: c x hw x hw input, k x k kernel, padding k / 2, oc output channels.
inline Work conv(const std::string& family, int64_t c, int64_t hw, int64_t oc, int64_t k,
                 int64_t stride, int64_t groups = 1) {
  const int64_t pad = k / 2;
  Work w{"",
         family,
         true,
         Shape{1, c, hw, hw},
         Shape{oc, c / groups, k, k},
         kernel::Conv2dParams{stride, stride, pad, pad, 1, 1, groups, nullptr}};
  w.name = std::to_string(c) + "x" + std::to_string(hw) + "x" + std::to_string(hw) + " " +
           std::to_string(k) + "x" + std::to_string(k) + (groups > 1 ? " dw" : "") + " s" +
           std::to_string(stride) + " -> " + std::to_string(oc);
  return w;
}

// dense: x (m, k), w (n, k).
inline Work dense(int64_t m, int64_t k, int64_t n) {
  return Work{std::to_string(m) + "x" + std::to_string(k) + " -> " + std::to_string(n),
              "dense",
              false,
              Shape{m, k},
              Shape{n, k},
              {}};
}

inline std::vector<Work> workloads() {
  return {
      conv("resnet18", 3, 224, 64, 7, 2),
      conv("resnet18", 64, 56, 64, 3, 1),
      conv("resnet18", 64, 56, 128, 3, 2),
      conv("resnet18", 64, 56, 128, 1, 2),
      conv("resnet18", 128, 28, 128, 3, 1),
      conv("resnet18", 128, 28, 256, 3, 2),
      conv("resnet18", 128, 28, 256, 1, 2),
      conv("resnet18", 256, 14, 256, 3, 1),
      conv("resnet18", 256, 14, 512, 3, 2),
      conv("resnet18", 256, 14, 512, 1, 2),
      conv("resnet18", 512, 7, 512, 3, 1),
      conv("mobilenet", 32, 112, 32, 3, 1, 32),
      conv("mobilenet", 32, 112, 64, 1, 1),
      conv("mobilenet", 64, 112, 64, 3, 2, 64),
      conv("mobilenet", 128, 56, 128, 3, 1, 128),
      conv("mobilenet", 128, 56, 128, 1, 1),
      conv("mobilenet", 128, 56, 128, 3, 2, 128),
      conv("mobilenet", 256, 28, 256, 3, 1, 256),
      conv("mobilenet", 256, 28, 256, 1, 1),
      conv("mobilenet", 256, 28, 256, 3, 2, 256),
      conv("mobilenet", 512, 14, 512, 3, 1, 512),
      conv("mobilenet", 512, 14, 512, 1, 1),
      conv("mobilenet", 512, 14, 512, 3, 2, 512),
      conv("mobilenet", 1024, 7, 1024, 3, 1, 1024),
      conv("mobilenet", 1024, 7, 1024, 1, 1),
      dense(1, 1024, 1024),
      dense(64, 1024, 1024),
  };
}

}  // namespace bench
}  // namespace cvm
