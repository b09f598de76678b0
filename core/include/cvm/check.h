// Short VERIFY / CHECK names for the library's own sources (not for code that also uses Catch2).
#pragma once

#include "cvm/error.h"

#define VERIFY(cond) CVM_VERIFY(cond)
#define CHECK(cond) CVM_CHECK(cond)
