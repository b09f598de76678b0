// Error kinds and the VERIFY / CHECK macros that raise them with a streamed message.
#pragma once

#include <stdexcept>
#include <string>

#include "cvm/export.h"
#include "cvm/message.h"

namespace cvm {

// The caller's or the model author's fault: bad shapes, attributes, files, limits.
// C ABI status 1.
class CVM_EXPORT LogicError : public std::logic_error {
 public:
  explicit LogicError(const std::string& msg) : std::logic_error(msg) {}
};

// Ours or the environment's: out of memory, device failure, a broken invariant.
// C ABI status 2.
class CVM_EXPORT RuntimeError : public std::runtime_error {
 public:
  explicit RuntimeError(const std::string& msg) : std::runtime_error(msg) {}
};

namespace detail {

// Collects the streamed message and throws from its destructor's caller (`raise`). Used only
// through the macros below, which build one in a full expression so the throw happens at the
// end of the statement.
template <typename E>
class ErrorBuilder {
 public:
  ErrorBuilder() = default;
  template <typename T>
  ErrorBuilder& operator<<(const T& value) {
    stream_ << value;
    return *this;
  }
  [[noreturn]] void raise() const { throw E(stream_.str()); }

 private:
  MessageStream stream_;  // ostream formatting without iostreams (cvm/message.h)
};

// `Raiser{} & builder << ...` makes the whole streamed expression one operand, so the macro
// can throw after every `<<` has run.
struct Raiser {
  template <typename E>
  [[noreturn]] void operator&(const ErrorBuilder<E>& builder) const {
    builder.raise();
  }
};

}  // namespace detail
}  // namespace cvm

// CVM_VERIFY(cond) << "message": raise cvm::LogicError when cond is false (caller's fault).
// The library's own sources use the short names VERIFY / CHECK from "cvm/check.h"; public
// headers keep the prefixed names so they never collide with a test framework's CHECK.
#define CVM_VERIFY(cond)               \
  if (__builtin_expect(!!(cond), 1)) { \
  } else                               \
    ::cvm::detail::Raiser{} & ::cvm::detail::ErrorBuilder<::cvm::LogicError>()

// CVM_CHECK(cond) << "message": raise cvm::RuntimeError when cond is false (our fault or the
// environment's).
#define CVM_CHECK(cond)                \
  if (__builtin_expect(!!(cond), 1)) { \
  } else                               \
    ::cvm::detail::Raiser{} & ::cvm::detail::ErrorBuilder<::cvm::RuntimeError>()

// Unconditional forms, for the branch that already knows it failed.
#define CVM_LOGIC_ERROR() ::cvm::detail::Raiser{} & ::cvm::detail::ErrorBuilder<::cvm::LogicError>()
#define CVM_RUNTIME_ERROR() \
  ::cvm::detail::Raiser{} & ::cvm::detail::ErrorBuilder<::cvm::RuntimeError>()
