// <immintrin.h> for the AVX-512 and AMX translation units, without GCC 12's false warning.
// GCC 12 warns about the _mm512_undefined_*() placeholders inside its own AVX-512 intrinsics
// (GCC bug 105593, fixed in GCC 13); clang has no such warning (nor its name).
#pragma once

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
#else
#include <immintrin.h>
#endif
