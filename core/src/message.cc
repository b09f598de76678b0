// MessageStream's out-of-line formatting (cvm/message.h): the same text as a default
// std::ostringstream, from <charconv> and snprintf instead of iostreams.
#include "cvm/message.h"

#include <charconv>
#include <clocale>
#include <cstdio>
#include <cstring>

namespace cvm {
namespace detail {

MessageStream& MessageStream::operator<<(const char* s) {
  if (s == nullptr) {
    bad_ = true;
    return *this;
  }
  return put(s, std::strlen(s));
}

MessageStream& MessageStream::put_signed(long long v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return put(buf, static_cast<size_t>(r.ptr - buf));
}

MessageStream& MessageStream::put_unsigned(unsigned long long v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return put(buf, static_cast<size_t>(r.ptr - buf));
}

MessageStream& MessageStream::operator<<(HexValue h) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, h.value, 16);
  return put(buf, static_cast<size_t>(r.ptr - buf));
}

MessageStream& MessageStream::operator<<(const void* p) {
  if (p == nullptr) return put("0", 1);
  char buf[24] = {'0', 'x'};
  auto r = std::to_chars(buf + 2, buf + sizeof buf, reinterpret_cast<uintptr_t>(p), 16);
  return put(buf, static_cast<size_t>(r.ptr - buf));
}

// std::ostream's default floating-point output is printf's %.6g (std::num_put with precision 6
// and no floatfield) with a '.' decimal point (the streams' classic locale), whatever
// setlocale(LC_NUMERIC) a host program chose.
namespace {
size_t classic_point(char* buf, int n) {
  if (n <= 0) return 0;
  const char* point = std::localeconv()->decimal_point;
  if (point == nullptr || std::strcmp(point, ".") == 0 || point[0] == '\0') {
    return static_cast<size_t>(n);
  }
  char* at = std::strstr(buf, point);
  if (at == nullptr) return static_cast<size_t>(n);
  const size_t len = std::strlen(point);
  *at = '.';
  std::memmove(at + 1, at + len, std::strlen(at + len) + 1);
  return static_cast<size_t>(n) - (len - 1);
}
}  // namespace

MessageStream& MessageStream::put_double(double v) {
  char buf[64];
  return put(buf, classic_point(buf, std::snprintf(buf, sizeof buf, "%.6g", v)));
}

MessageStream& MessageStream::operator<<(long double v) {
  char buf[96];
  return put(buf, classic_point(buf, std::snprintf(buf, sizeof buf, "%.6Lg", v)));
}

}  // namespace detail
}  // namespace cvm
