// Umbrella header: the whole public C++ API of cvmrt.
#pragma once

#include "cvm/allocator.h"
#include "cvm/array_ops.h"
#include "cvm/device.h"
#include "cvm/dtype.h"
#include "cvm/error.h"
#include "cvm/ndarray.h"
#include "cvm/params.h"
#include "cvm/registry.h"
#include "cvm/shape.h"
#include "cvm/system.h"
#include "cvm/threads.h"
#include "cvm/version.h"
