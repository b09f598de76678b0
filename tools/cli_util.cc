// Shared pieces of the cvmrt command-line tool: argument parsing, files, .npy arrays, models.
#include "cli_util.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <limits>
#include <sstream>

#include "cvm/error.h"
#include "cvm/registry.h"
#include "cvm/threads.h"

namespace cvm {
namespace cli {

// ---- Args ----

Args::Args(const std::string& command, const std::vector<std::string>& words,
           const std::vector<OptionSpec>& options, size_t min_positional, size_t max_positional)
    : command_(command) {
  auto find = [&](const std::string& word) -> const OptionSpec* {
    for (const OptionSpec& o : options) {
      if (word == "--" + o.name) return &o;
      if (o.short_name != 0 && word == std::string("-") + o.short_name) return &o;
    }
    return nullptr;
  };
  for (size_t i = 0; i < words.size(); ++i) {
    std::string word = words[i];
    if (word == "--help" || word == "-h") {
      help_ = true;
      continue;
    }
    if (word.size() < 2 || word[0] != '-' || word == "--") {
      positional_.push_back(word);
      continue;
    }
    std::string inline_value;
    bool has_inline = false;
    const size_t eq = word.find('=');
    if (word.compare(0, 2, "--") == 0 && eq != std::string::npos) {
      inline_value = word.substr(eq + 1);
      word = word.substr(0, eq);
      has_inline = true;
    }
    const OptionSpec* o = find(word);
    if (o == nullptr) throw UsageError("unknown option \"" + word + "\"");
    std::string value;
    if (o->has_value) {
      if (has_inline) {
        value = inline_value;
      } else {
        if (i + 1 >= words.size()) throw UsageError("option --" + o->name + " needs a value");
        value = words[++i];
      }
    } else if (has_inline) {
      throw UsageError("option --" + o->name + " takes no value");
    }
    if (!o->repeatable && has(o->name)) {
      throw UsageError("option --" + o->name + " given more than once");
    }
    values_.emplace_back(o->name, value);
  }
  if (help_) return;
  if (positional_.size() < min_positional) {
    throw UsageError(min_positional == 1
                         ? "missing argument"
                         : "expected at least " + std::to_string(min_positional) +
                               " arguments, found " + std::to_string(positional_.size()));
  }
  if (positional_.size() > max_positional) {
    throw UsageError("unexpected argument \"" + positional_[max_positional] + "\"");
  }
}

bool Args::has(const std::string& name) const {
  return std::any_of(values_.begin(), values_.end(),
                     [&](const auto& v) { return v.first == name; });
}

std::string Args::get(const std::string& name, const std::string& fallback) const {
  std::string out = fallback;
  for (const auto& v : values_) {
    if (v.first == name) out = v.second;
  }
  return out;
}

std::vector<std::string> Args::get_all(const std::string& name) const {
  std::vector<std::string> out;
  for (const auto& v : values_) {
    if (v.first == name) out.push_back(v.second);
  }
  return out;
}

int64_t Args::get_int(const std::string& name, int64_t fallback, int64_t min, int64_t max) const {
  return has(name) ? parse_int_option(name, get(name), min, max) : fallback;
}

int64_t parse_int_option(const std::string& name, const std::string& text, int64_t min,
                         int64_t max) {
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE || v < min || v > max) {
    throw UsageError("option --" + name + ": expected an integer in [" + std::to_string(min) +
                     ", " + std::to_string(max) + "], found \"" + text + "\"");
  }
  return v;
}

// ---- global options ----

namespace {

// set_num_threads' upper bound (cvm/threads.h).
constexpr int64_t kMaxThreads = 1024;
int g_threads_option = 0;

}  // namespace

const char kGlobalOptionsHelp[] =
    "global options (before or after the command):\n"
    "  --threads N   threads one operator may use, 1 to 1024 (default: CVMRT_THREADS, else the\n"
    "                hardware concurrency); results are bit-identical for every count\n";

GlobalOptions extract_global_options(std::vector<std::string>* args) {
  GlobalOptions g;
  std::vector<std::string> rest;
  for (size_t i = 0; i < args->size(); ++i) {
    const std::string& w = (*args)[i];
    if (w == "--") {
      rest.insert(rest.end(), args->begin() + static_cast<std::ptrdiff_t>(i), args->end());
      break;
    }
    if (w != "--threads" && w.rfind("--threads=", 0) != 0) {
      rest.push_back(w);
      continue;
    }
    if (g.has_threads) g.error = "option --threads given more than once";
    g.has_threads = true;
    if (w != "--threads") {
      g.threads = w.substr(std::strlen("--threads="));
    } else if (i + 1 < args->size()) {
      g.threads = (*args)[++i];
    } else if (g.error.empty()) {
      g.error = "option --threads needs a value";
    }
  }
  *args = rest;
  return g;
}

void apply_global_options(const GlobalOptions& options) {
  if (!options.error.empty()) throw UsageError(options.error);
  if (!options.has_threads) return;
  const int n = static_cast<int>(parse_int_option("threads", options.threads, 1, kMaxThreads));
  set_num_threads(n);
  g_threads_option = n;
}

int threads_option() { return g_threads_option; }

// ---- files ----

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    CVM_LOGIC_ERROR() << "cannot open '" << path << "': " << std::strerror(errno);
  }
  // A folder opens as a stream and fails only on the first read (libstdc++): say so first.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    CVM_LOGIC_ERROR() << "cannot open '" << path << "': is a directory, not a file";
  }
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CVM_CHECK(!in.bad()) << "cannot read '" << path << "'";
  return bytes;
}

void write_file(const std::string& path, const std::string& bytes) {
  if (path == "-") {
    std::cout.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    std::cout.flush();
    CVM_CHECK(std::cout.good()) << "cannot write to stdout";
    return;
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) CVM_RUNTIME_ERROR() << "cannot create '" << path << "': " << std::strerror(errno);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  CVM_CHECK(out.good()) << "cannot write '" << path << "'";
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// ---- .npy ----

namespace {

const char kNpyMagic[] = "\x93NUMPY";

uint32_t read_le(const std::string& b, size_t at, int bytes) {
  uint32_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(b[at + i]);
  return v;
}

// The text after `'key':` in a .npy header dict, with leading spaces removed.
std::string header_value(const std::string& header, const std::string& key,
                         const std::string& what) {
  for (const char* quote : {"'", "\""}) {
    const std::string k = quote + key + quote;
    size_t at = header.find(k);
    if (at == std::string::npos) continue;
    at = header.find(':', at + k.size());
    if (at == std::string::npos) break;
    ++at;
    while (at < header.size() && header[at] == ' ') ++at;
    return header.substr(at);
  }
  CVM_LOGIC_ERROR() << what << ": .npy header has no '" << key << "' entry: " << header;
}

DataType npy_dtype(const std::string& descr, const std::string& what) {
  const bool prefixed = !descr.empty() && std::strchr("<|=>", descr[0]) != nullptr;
  const std::string body = prefixed ? descr.substr(1) : descr;
  DataType t;
  if (body == "i1") {
    t = DataType::Int(8);
  } else if (body == "i4") {
    t = DataType::Int(32);
  } else if (body == "i8") {
    t = DataType::Int(64);
  } else if (body == "f4") {
    t = DataType::Float(32);
  } else {
    CVM_LOGIC_ERROR() << what << ": .npy dtype '" << descr
                      << "' is not supported (expected int8 '|i1', int32 '<i4', int64 '<i8' or "
                         "float32 '<f4')";
  }
  if (descr[0] == '>' && t.bytes() > 1) {
    CVM_LOGIC_ERROR() << what << ": big-endian .npy data ('" << descr
                      << "') is not supported; save it little-endian (astype('<i4'))";
  }
  return t;
}

std::string npy_descr(DataType t) {
  if (t == DataType::Int(8)) return "|i1";
  if (t == DataType::Int(32)) return "<i4";
  if (t == DataType::Int(64)) return "<i8";
  if (t == DataType::Float(32)) return "<f4";
  CVM_LOGIC_ERROR() << ".npy output of dtype " << t.name() << " is not supported";
}

Shape npy_shape(const std::string& text, const std::string& what) {
  if (text.empty() || text[0] != '(') {
    CVM_LOGIC_ERROR() << what << ": .npy shape must be a tuple, found: " << text.substr(0, 40);
  }
  const size_t close = text.find(')');
  if (close == std::string::npos) CVM_LOGIC_ERROR() << what << ": .npy shape is not closed";
  Shape shape;
  std::stringstream items(text.substr(1, close - 1));
  std::string item;
  while (std::getline(items, item, ',')) {
    item.erase(std::remove(item.begin(), item.end(), ' '), item.end());
    if (!item.empty() && item.back() == 'L') item.pop_back();
    if (item.empty()) continue;
    char* end = nullptr;
    errno = 0;
    const long long d = std::strtoll(item.c_str(), &end, 10);
    if (*end != '\0' || d < 0 || errno == ERANGE) {
      CVM_LOGIC_ERROR() << what << ": .npy shape has a bad extent '" << item << "'";
    }
    shape.push_back(d);
  }
  shape.numel();  // LogicError on overflow
  return shape;
}

}  // namespace

NDArray parse_npy(const std::string& bytes, const std::string& what) {
  if (bytes.size() < 10 || bytes.compare(0, 6, kNpyMagic, 6) != 0) {
    CVM_LOGIC_ERROR() << what << ": not a .npy file (no \\x93NUMPY magic)";
  }
  const int major = static_cast<uint8_t>(bytes[6]), minor = static_cast<uint8_t>(bytes[7]);
  if (!((major == 1 || major == 2) && minor == 0)) {
    CVM_LOGIC_ERROR() << what << ": .npy format version " << major << "." << minor
                      << " is not supported (expected 1.0 or 2.0)";
  }
  const size_t len_bytes = major == 1 ? 2 : 4;
  if (bytes.size() < 8 + len_bytes) CVM_LOGIC_ERROR() << what << ": truncated .npy header";
  const size_t header_len = read_le(bytes, 8, static_cast<int>(len_bytes));
  const size_t data_at = 8 + len_bytes + header_len;
  if (data_at > bytes.size()) {
    CVM_LOGIC_ERROR() << what << ": .npy header of " << header_len << " bytes runs past the end of "
                      << "the file (" << bytes.size() << " bytes)";
  }
  const std::string header = bytes.substr(8 + len_bytes, header_len);
  std::string descr = header_value(header, "descr", what);
  if (descr.empty() || (descr[0] != '\'' && descr[0] != '"')) {
    CVM_LOGIC_ERROR() << what
                      << ": .npy descr must be a string (structured dtypes are not "
                         "supported)";
  }
  descr = descr.substr(1, descr.find(descr[0], 1) - 1);
  const DataType dtype = npy_dtype(descr, what);
  const std::string fortran = header_value(header, "fortran_order", what);
  if (fortran.compare(0, 4, "True") == 0) {
    CVM_LOGIC_ERROR() << what
                      << ": Fortran-order .npy arrays are not supported (save with "
                         "np.ascontiguousarray)";
  }
  if (fortran.compare(0, 5, "False") != 0) {
    CVM_LOGIC_ERROR() << what << ": .npy fortran_order must be True or False";
  }
  const Shape shape = npy_shape(header_value(header, "shape", what), what);
  const size_t need = static_cast<size_t>(
      checked_mul(shape.numel(), static_cast<int64_t>(dtype.bytes()), ".npy data bytes"));
  if (bytes.size() - data_at != need) {
    CVM_LOGIC_ERROR() << what << ": .npy data is " << bytes.size() - data_at << " bytes, shape "
                      << shape_str(shape) << " of " << dtype.name() << " needs " << need;
  }
  return NDArray::from_bytes(bytes.data() + data_at, need, shape, dtype);
}

std::string to_npy(const NDArray& array) {
  const std::string descr = npy_descr(array.dtype());
  std::string shape = "(";
  for (int i = 0; i < array.shape().ndim(); ++i) {
    shape += std::to_string(array.shape()[i]) + (array.shape().ndim() == 1 ? "," : "");
    if (i + 1 < array.shape().ndim()) shape += ", ";
  }
  shape += ")";
  std::string header =
      "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad with spaces so that the data starts at a multiple of 64 bytes, then a newline.
  const size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::string out(kNpyMagic, 6);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xFF);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  const NDArray c = array.contiguous();
  std::string data(c.nbytes(), '\0');
  c.copy_to_bytes(&data[0], data.size());
  return out + data;
}

// ---- models ----

bool is_cvm_json(const std::string& path, const std::string& params_path) {
  return !params_path.empty() || ends_with(path, ".json");
}

std::shared_ptr<const Model> load_model(const std::string& path, const std::string& params_path,
                                        const ModelOptions& options) {
  if (is_cvm_json(path, params_path)) {
    const std::string graph = read_file(path);
    if (params_path.empty()) {
      try {
        return Model::from_cvm(graph, nullptr, 0, options);
      } catch (const LogicError& e) {
        throw LogicError(path + ": " + e.what() + " (no --params given)");
      }
    }
    const std::string params = read_file(params_path);
    try {
      return Model::from_cvm(graph, params.data(), params.size(), options);
    } catch (const LogicError& e) {
      throw LogicError(path + " + " + params_path + ": " + e.what());
    }
  }
  return Model::load_file(path, options);
}

void select_backend(const std::string& name) {
  if (!name.empty()) set_backend(name);
}

SessionOptions session_options(const std::string& device, const std::string& backend) {
  SessionOptions options;
  if (device.empty() || device == "cpu") return options;
  if (!backend.empty()) throw UsageError("--backend applies to the CPU; --device " + device +
                                         " runs the device's own backend");
  const std::string kCuda = "cuda";
  bool valid = device == kCuda;
  if (!valid && device.compare(0, kCuda.size() + 1, kCuda + ":") == 0) {
    const std::string id = device.substr(kCuda.size() + 1);
    valid = !id.empty() && id.size() <= 3 && id.find_first_not_of("0123456789") == std::string::npos;
    if (valid) options.device_id = std::stoi(id);
  }
  if (!valid) throw UsageError("--device must be cpu, cuda or cuda:N, found \"" + device + "\"");
  options.backend = kCuda;
  // The machine's answer, not the command line's fault: a runtime error (exit 2) saying why,
  // in builds without the CUDA backend too.
  const std::string why = device_unavailable_reason(Device::cuda(options.device_id));
  if (!why.empty()) {
    CVM_RUNTIME_ERROR() << "--device " << device << ": no CUDA device cuda:" << options.device_id
                        << ": " << why;
  }
  return options;
}

namespace {

// An int8/int32 array of the input's shape from a .npy array of any supported dtype; float32
// kept for a float model and for a quantized model.
NDArray npy_to_input(const Model& model, const NDArray& a, const std::string& file) {
  const TensorInfo& in = model.inputs().at(0);
  if (a.numel() != in.shape.numel()) {
    CVM_LOGIC_ERROR() << "input \"" << in.name << "\": " << file << " holds "
                      << shape_str(a.shape()) << " (" << a.numel() << " elements), the model "
                      << "expects " << shape_str(in.shape) << " (" << in.shape.numel()
                      << " elements)";
  }
  if (in.dtype == DataType::Float(32)) {  // a float model takes float32 as it is
    if (a.dtype() != DataType::Float(32)) {
      CVM_LOGIC_ERROR() << "input \"" << in.name << "\": " << file << " holds " << a.dtype().name()
                        << ", this float model takes float32";
    }
    return a.contiguous().reshape(in.shape);
  }
  if (a.dtype() == DataType::Int(8) || a.dtype() == DataType::Int(32) ||
      (a.dtype() == DataType::Float(32) && is_quantized(model))) {
    return a.contiguous().reshape(in.shape);
  }
  NDArray out = NDArray::empty(in.shape, DataType::Int(32));
  int32_t* dst = out.mutable_data_as<int32_t>();
  const NDArray c = a.contiguous();
  for (int64_t i = 0; i < c.numel(); ++i) {
    double v;
    if (c.dtype() == DataType::Int(64)) {
      const int64_t x = c.data_as<int64_t>()[i];
      if (x < INT32_MIN || x > INT32_MAX) {
        CVM_LOGIC_ERROR() << "input \"" << in.name << "\": " << file << " value " << x
                          << " at index " << i << " does not fit int32";
      }
      v = static_cast<double>(x);
    } else {
      v = c.data_as<float>()[i];
      if (!(v == std::floor(v)) || v < INT32_MIN || v > INT32_MAX) {
        CVM_LOGIC_ERROR() << "input \"" << in.name << "\": " << file << " value " << v
                          << " at index " << i << " is not an int32 integer (models take "
                          << "integers)";
      }
    }
    dst[i] = static_cast<int32_t>(v);
  }
  return out;
}

}  // namespace

NDArray read_model_input(const Model& model, const std::string& spec) {
  const TensorInfo& in = model.inputs().at(0);
  std::string file = spec;
  const size_t eq = spec.find('=');
  if (eq != std::string::npos) {
    const std::string name = spec.substr(0, eq);
    file = spec.substr(eq + 1);
    if (name != in.name) {
      CVM_LOGIC_ERROR() << "--input " << spec << ": the model has no input \"" << name
                        << "\" (its input is \"" << in.name << "\")";
    }
  }
  const std::string bytes = read_file(file);
  if (ends_with(file, ".npy")) return npy_to_input(model, parse_npy(bytes, file), file);
  const size_t need = model.input_length();
  if (bytes.size() != need) {
    CVM_LOGIC_ERROR() << "input \"" << in.name << "\": " << file << " is " << bytes.size()
                      << " bytes of raw input, the model expects " << need << " ("
                      << in.shape.numel() << " x "
                      << (model.input_type_size() == 1 ? "int8" : "int32")
                      << ", little-endian; use a .npy file for other layouts)";
  }
  const DataType t = model.input_type_size() == 1 ? DataType::Int(8) : in.dtype;
  if (t == DataType::Int(8)) return NDArray::from_bytes(bytes.data(), need, in.shape, t);
  NDArray out = NDArray::empty(in.shape, t);  // int32 or float32: 4 bytes, little-endian
  auto* dst = static_cast<uint8_t*>(out.mutable_data());
  for (int64_t i = 0; i < out.numel(); ++i) {
    const uint32_t bits = static_cast<uint32_t>(read_le(bytes, static_cast<size_t>(i) * 4, 4));
    std::memcpy(dst + 4 * i, &bits, 4);
  }
  return out;
}

bool is_quantized(const Model& model) { return !model.metadata().quantization.empty(); }

std::string input_bytes(const Model& model, const NDArray& input) {
  const NDArray c = input.contiguous();
  std::string out;
  out.reserve(model.input_length());
  if (c.dtype() == DataType::Float(32)) {  // float models: the float32 bits, little-endian
    for (int64_t i = 0; i < c.numel(); ++i) {
      uint32_t bits;
      std::memcpy(&bits, c.data_as<float>() + i, 4);
      for (int b = 0; b < 4; ++b) out += static_cast<char>((bits >> (8 * b)) & 0xFF);
    }
    return out;
  }
  for (int64_t i = 0; i < c.numel(); ++i) {
    const int32_t v =
        c.dtype() == DataType::Int(8) ? c.data_as<int8_t>()[i] : c.data_as<int32_t>()[i];
    if (model.input_type_size() == 1) {
      // The section 7 int8 layout: clip first (the model clips to its precision <= 8 anyway).
      out += static_cast<char>(static_cast<int8_t>(std::min(std::max(v, -127), 127)));
    } else {
      for (int b = 0; b < 4; ++b)
        out += static_cast<char>((static_cast<uint32_t>(v) >> (8 * b)) & 0xFF);
    }
  }
  return out;
}

// ---- formatting ----

std::string shape_str(const Shape& s) { return s.str(); }

std::string with_commas(uint64_t v) {
  std::string digits = std::to_string(v), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string human_bytes(uint64_t v) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double x = static_cast<double>(v);
  int u = 0;
  while (x >= 1024 && u < 4) {
    x /= 1024;
    ++u;
  }
  char buf[32];
  if (u == 0) {
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(v));
  } else {
    std::snprintf(buf, sizeof buf, "%.1f %s", x, kUnits[u]);
  }
  return buf;
}

std::string values_str(const NDArray& a, size_t limit) {
  const NDArray c = a.contiguous();
  const size_t n = static_cast<size_t>(c.numel());
  const size_t shown = limit == 0 ? n : std::min(n, limit);
  std::string out;
  char buf[32];
  for (size_t i = 0; i < shown; ++i) {
    if (i > 0) out += ", ";
    const DataType t = c.dtype();
    if (t == DataType::Int(8)) {
      out += std::to_string(c.data_as<int8_t>()[i]);
    } else if (t == DataType::Int(32)) {
      out += std::to_string(c.data_as<int32_t>()[i]);
    } else if (t == DataType::Int(64)) {
      out += std::to_string(c.data_as<int64_t>()[i]);
    } else if (t == DataType::Float(32)) {
      std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(c.data_as<float>()[i]));
      out += buf;
    } else {
      CVM_LOGIC_ERROR() << "cannot print values of dtype " << t.name();
    }
  }
  if (shown < n) out += ", ... (" + std::to_string(n - shown) + " more)";
  return out;
}

std::string cost_str(const ModelCost& c) {
  return "ops " + with_commas(c.ops) + " + mem " + with_commas(c.mem) + " = total " +
         with_commas(c.total);
}

}  // namespace cli
}  // namespace cvm
