// Symbol visibility for libcvmrt.so: only what is marked CVM_EXPORT is part of the ABI.
#pragma once

#if defined(_WIN32)
#define CVM_EXPORT __declspec(dllexport)
#else
#define CVM_EXPORT __attribute__((visibility("default")))
#endif
