// MessageStream: builds an error or log message with `<<`, formatting values exactly as a
// default-constructed std::ostringstream would (decimal integers, %g with precision 6 for
// floating point, bool as 1/0, chars as characters), without iostreams: no locale, no stream
// buffers, which are most of a WebAssembly module's libc++ bytes. A class type that only has an
// std::ostream operator<< still works (through an ostringstream, so prefer a MessageStream
// overload for the library's own types).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "cvm/export.h"

namespace cvm {
namespace detail {

// `<< hex(v)`: v in lowercase hexadecimal without a prefix, as `<< std::hex << v` prints it.
struct HexValue {
  uint64_t value;
};
inline HexValue hex(uint64_t v) { return HexValue{v}; }

template <typename T, typename = void>
struct has_ostream_insert : std::false_type {};

class CVM_EXPORT MessageStream {
 public:
  MessageStream() = default;

  const std::string& str() const& { return text_; }
  std::string str() && { return std::move(text_); }

  MessageStream& operator<<(const std::string& s) { return put(s.data(), s.size()); }
  MessageStream& operator<<(std::string_view s) { return put(s.data(), s.size()); }
  MessageStream& operator<<(const char* s);  // NULL: like ostream, nothing more is written
  MessageStream& operator<<(char c) { return put(&c, 1); }
  MessageStream& operator<<(signed char c) { return *this << static_cast<char>(c); }
  MessageStream& operator<<(unsigned char c) { return *this << static_cast<char>(c); }
  MessageStream& operator<<(bool b) { return put(b ? "1" : "0", 1); }
  MessageStream& operator<<(short v) { return put_signed(v); }
  MessageStream& operator<<(int v) { return put_signed(v); }
  MessageStream& operator<<(long v) { return put_signed(v); }
  MessageStream& operator<<(long long v) { return put_signed(v); }
  MessageStream& operator<<(unsigned short v) { return put_unsigned(v); }
  MessageStream& operator<<(unsigned v) { return put_unsigned(v); }
  MessageStream& operator<<(unsigned long v) { return put_unsigned(v); }
  MessageStream& operator<<(unsigned long long v) { return put_unsigned(v); }
  MessageStream& operator<<(float v) { return put_double(v); }
  MessageStream& operator<<(double v) { return put_double(v); }
  MessageStream& operator<<(long double v);
  MessageStream& operator<<(const void* p);  // 0x... (0 for NULL), as libstdc++ and libc++ print
  MessageStream& operator<<(HexValue h);

  // Any other class type with an std::ostream operator<< (not used by the library itself).
  template <typename T,
            typename std::enable_if<std::is_class<T>::value && has_ostream_insert<T>::value &&
                                        !std::is_convertible<const T&, std::string_view>::value,
                                    int>::type = 0>
  MessageStream& operator<<(const T& v);

 private:
  MessageStream& put(const char* s, size_t n) {
    if (!bad_) text_.append(s, n);
    return *this;
  }
  MessageStream& put_signed(long long v);
  MessageStream& put_unsigned(unsigned long long v);
  MessageStream& put_double(double v);

  std::string text_;
  bool bad_ = false;  // a NULL const char* was written (std::ostream sets badbit)
};

}  // namespace detail
}  // namespace cvm

// The fallback needs <ostream> and <sstream> only where it is instantiated.
#include <ostream>
#include <sstream>

namespace cvm {
namespace detail {

template <typename T>
struct has_ostream_insert<
    T, std::void_t<decltype(std::declval<std::ostream&>() << std::declval<const T&>())>>
    : std::true_type {};

template <typename T,
          typename std::enable_if<std::is_class<T>::value && has_ostream_insert<T>::value &&
                                      !std::is_convertible<const T&, std::string_view>::value,
                                  int>::type>
MessageStream& MessageStream::operator<<(const T& v) {
  std::ostringstream os;
  os << v;
  return *this << os.str();
}

}  // namespace detail
}  // namespace cvm
