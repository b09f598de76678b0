// DataType: a value type over DLPack's DLDataType, with names, sizes and the kernel mapping.
#pragma once

#include <dlpack/dlpack.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "cvm/export.h"
#include "cvm/message.h"

namespace cvm {

// DLPack 0.6 has no bool code; we use the value later DLPack versions give kDLBool (6), 8 bits.
constexpr uint8_t kDLBoolCode = 6;

// One element type. Only the types listed in `DataType::all()` are supported; constructing from
// an unsupported DLDataType through `from_dl` is a LogicError.
class CVM_EXPORT DataType {
 public:
  constexpr DataType() : dl_{kDLInt, 32, 1} {}
  constexpr DataType(uint8_t code, uint8_t bits, uint16_t lanes = 1) : dl_{code, bits, lanes} {}

  // Named constructors for every supported type.
  static constexpr DataType Int(int bits) { return DataType(kDLInt, static_cast<uint8_t>(bits)); }
  static constexpr DataType UInt(int bits) { return DataType(kDLUInt, static_cast<uint8_t>(bits)); }
  static constexpr DataType Float(int bits) {
    return DataType(kDLFloat, static_cast<uint8_t>(bits));
  }
  static constexpr DataType BFloat16() { return DataType(kDLBfloat, 16); }
  static constexpr DataType Bool() { return DataType(kDLBoolCode, 8); }

  // Validates: LogicError unless the type is one of the supported ones.
  static DataType from_dl(DLDataType dl);
  // "int8", "uint16", "float32", "bfloat16", "bool", ...; LogicError for an unknown name.
  static DataType parse(const std::string& name);

  DLDataType dl() const { return dl_; }
  uint8_t code() const { return dl_.code; }
  int bits() const { return dl_.bits; }
  int lanes() const { return dl_.lanes; }
  // Storage bytes of one element: ceil(bits / 8) * lanes.
  size_t bytes() const { return (static_cast<size_t>(dl_.bits) + 7) / 8 * dl_.lanes; }

  bool is_int() const { return dl_.code == kDLInt; }
  bool is_uint() const { return dl_.code == kDLUInt; }
  bool is_float() const { return dl_.code == kDLFloat || dl_.code == kDLBfloat; }
  bool is_bool() const { return dl_.code == kDLBoolCode; }
  bool is_supported() const;

  std::string name() const;

  bool operator==(const DataType& o) const {
    return dl_.code == o.dl_.code && dl_.bits == o.dl_.bits && dl_.lanes == o.dl_.lanes;
  }
  bool operator!=(const DataType& o) const { return !(*this == o); }

 private:
  DLDataType dl_;
};

CVM_EXPORT std::ostream& operator<<(std::ostream& os, const DataType& t);
inline detail::MessageStream& operator<<(detail::MessageStream& os, const DataType& t) {
  return os << t.name();
}

// The supported types, in a fixed order (used by tests and capability queries).
constexpr DataType kAllDataTypes[] = {
    DataType::Int(8),   DataType::Int(16),   DataType::Int(32),    DataType::Int(64),
    DataType::UInt(8),  DataType::UInt(16),  DataType::UInt(32),   DataType::UInt(64),
    DataType::Float(16), DataType::BFloat16(), DataType::Float(32), DataType::Float(64),
    DataType::Bool(),
};

}  // namespace cvm
