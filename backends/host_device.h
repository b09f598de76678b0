// CVM_HOST_DEVICE: marks a header's inline function for the device too when nvcc compiles it.
//
// The conversion, half-float, wrapping-arithmetic and det_exp helpers are the one definition of
// their results: the CUDA kernels call the very same functions rather than copies of them.
#pragma once

#if defined(__CUDACC__)
#define CVM_HOST_DEVICE __host__ __device__
#else
#define CVM_HOST_DEVICE
#endif
