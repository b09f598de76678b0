// DataType names, validation and printing.
#include "cvm/dtype.h"

#include <ostream>

#include "cvm/check.h"

namespace cvm {

bool DataType::is_supported() const {
  for (const DataType& t : kAllDataTypes) {
    if (t == *this) return true;
  }
  return false;
}

DataType DataType::from_dl(DLDataType dl) {
  DataType t(dl.code, dl.bits, dl.lanes);
  VERIFY(t.is_supported()) << "unsupported dtype (code " << int(dl.code) << ", bits "
                           << int(dl.bits) << ", lanes " << dl.lanes << ")";
  return t;
}

std::string DataType::name() const {
  std::string base;
  switch (dl_.code) {
    case kDLInt: base = "int"; break;
    case kDLUInt: base = "uint"; break;
    case kDLFloat: base = "float"; break;
    case kDLBfloat: base = "bfloat"; break;
    case kDLBoolCode: base = "bool"; break;
    default: base = "code" + std::to_string(dl_.code) + "_"; break;
  }
  std::string out = base;
  if (dl_.code != kDLBoolCode) out += std::to_string(dl_.bits);
  if (dl_.lanes != 1) out += "x" + std::to_string(dl_.lanes);
  return out;
}

DataType DataType::parse(const std::string& name) {
  for (const DataType& t : kAllDataTypes) {
    if (t.name() == name) return t;
  }
  CVM_LOGIC_ERROR() << "unknown dtype name \"" << name
                    << "\" (expected one of int8..int64, uint8..uint64, float16, bfloat16, "
                       "float32, float64, bool)";
}

std::ostream& operator<<(std::ostream& os, const DataType& t) { return os << t.name(); }

}  // namespace cvm
