// libFuzzer target: one input is a JSON text; the core's parser (core/src/json_text.h) must
// accept exactly what nlohmann::json accepts, up to its nesting bound, and read the same value.
// nlohmann::json ends a text at a NUL byte where the core refuses the byte: texts with one are
// only parsed (no crash, leak or UB), not compared.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "json_same.h"
#include "json_text.h"

namespace {

constexpr int kDepth = 64;

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "cvmrt fuzz invariant failed: %s\n", what);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  cvm::json::Value ours;
  try {
    ours = cvm::json::parse(text, kDepth);
  } catch (const cvm::json::ParseError& e) {
    if (std::string(e.what()).rfind("nesting deeper", 0) == 0) return 0;  // our bound alone
    if (text.find('\0') != std::string::npos) return 0;
    try {
      (void)nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception&) {
      return 0;  // both reject it
    }
    fail("the core's parser rejects a text nlohmann::json accepts");
  }
  if (text.find('\0') != std::string::npos) fail("the core's parser accepts a NUL byte");
  nlohmann::json theirs;
  try {
    theirs = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception&) {
    fail("the core's parser accepts a text nlohmann::json rejects");
  }
  if (!cvm_test::same_json(ours, theirs)) fail("the two parsers read different values");
  return 0;
}
