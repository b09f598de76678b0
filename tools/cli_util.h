// Shared pieces of the cvmrt command-line tool: argument parsing, files, .npy arrays, models.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cvm/model.h"
#include "cvm/ndarray.h"

namespace cvm {
namespace cli {

// A wrong command line (unknown option, missing value, bad number): exit status 1, with a hint to
// the command's --help.
class UsageError : public std::runtime_error {
 public:
  explicit UsageError(const std::string& msg) : std::runtime_error(msg) {}
};

// One option a command accepts: "--name VALUE" (or "--name=VALUE") when it takes a value, else a
// flag "--name". `short_name` is an optional one-letter alias ("-o").
struct OptionSpec {
  std::string name;  // without the dashes: "params"
  bool has_value = true;
  bool repeatable = false;
  char short_name = 0;
};

// The parsed command line of one command (the words after the command name).
class Args {
 public:
  // UsageError for an unknown option, a missing value, a repeated non-repeatable option, or a
  // positional count outside [min_positional, max_positional]. "--help"/"-h" anywhere sets help()
  // and skips the count check.
  Args(const std::string& command, const std::vector<std::string>& words,
       const std::vector<OptionSpec>& options, size_t min_positional, size_t max_positional);

  bool help() const { return help_; }
  const std::vector<std::string>& positional() const { return positional_; }
  bool has(const std::string& name) const;
  // The option's (last) value, or `fallback` when absent.
  std::string get(const std::string& name, const std::string& fallback = "") const;
  std::vector<std::string> get_all(const std::string& name) const;
  // An integer option in [min, max]; UsageError naming the option otherwise.
  int64_t get_int(const std::string& name, int64_t fallback, int64_t min, int64_t max) const;

 private:
  std::string command_;
  bool help_ = false;
  std::vector<std::string> positional_;
  std::vector<std::pair<std::string, std::string>> values_;
};

// An integer in [min, max] given as `text` to option --`name`; UsageError naming the option and
// the range otherwise.
int64_t parse_int_option(const std::string& name, const std::string& text, int64_t min,
                         int64_t max);

// ---- global options: accepted before or after the command name, by every command ----

struct GlobalOptions {
  bool has_threads = false;
  std::string threads;  // the text given to --threads
  std::string error;    // a malformed one (no value, given twice): a usage error to report
};

// Removes the global options ("--threads N", "--threads=N") from `args`, up to a "--".
GlobalOptions extract_global_options(std::vector<std::string>* args);
// Checks and applies them (cvm::set_num_threads); UsageError for a bad value or `error`.
void apply_global_options(const GlobalOptions& options);
// The thread count --threads set, 0 when it was not given.
int threads_option();
// The global options' lines for the help texts.
extern const char kGlobalOptionsHelp[];

// ---- files ----

// The whole file; LogicError "cannot open 'path': reason" when it cannot be read.
std::string read_file(const std::string& path);
// Writes `bytes` to `path` ("-" = stdout); RuntimeError on I/O failure.
void write_file(const std::string& path, const std::string& bytes);
bool ends_with(const std::string& s, const std::string& suffix);

// ---- .npy (NumPy format 1.0 and 2.0; int8, int32, int64, float32; little-endian, C order) ----

// Parses a .npy file's bytes; LogicError naming `what` (the file) and the problem: bad magic,
// unsupported version, dtype, byte order or Fortran order, a malformed header, a size mismatch.
NDArray parse_npy(const std::string& bytes, const std::string& what);
// The .npy bytes (format 1.0, header padded to 64 bytes) of an int8/int32/int64/float32 array.
std::string to_npy(const NDArray& array);

// ---- models ----

// MODEL is a cvmrt model file, or a CVM graph JSON (a ".json" name, or any name when `params_path`
// is given) imported with the params at `params_path`.
std::shared_ptr<const Model> load_model(const std::string& path, const std::string& params_path,
                                        const ModelOptions& options = {});
// Whether load_model reads `path` as a CVM graph JSON (else as a cvmrt model file).
bool is_cvm_json(const std::string& path, const std::string& params_path);

// Selects the backend ("" leaves the default); LogicError for an unknown name.
void select_backend(const std::string& name);

// The session options of "--device D" (`device`: "" or "cpu": the CPU backend selected by
// --backend; "cuda" or "cuda:N": the CUDA backend on GPU N). UsageError for another value, and
// for --backend combined with a device (the device's backend runs its sessions).
SessionOptions session_options(const std::string& device, const std::string& backend);

// The model input from "--input data=FILE": FILE.npy (int8/int32/int64/float32 holding integers;
// any shape with the input's element count) or raw bytes in the section 7 layout (anything else:
// input_length() bytes, int8 or little-endian int32). An int8 or int32 array of the model input's
// shape; float32 for a float model, and for a float32 .npy given to a quantized model (its
// values are quantized by Session::set_input_float, not read as integers).
NDArray read_model_input(const Model& model, const std::string& spec);
// Whether the model carries quantization metadata (a float interface over its integers).
bool is_quantized(const Model& model);
// The section 7 input bytes of an int8/int32 input array (values clipped to the input type), or
// of a float model's float32 input.
std::string input_bytes(const Model& model, const NDArray& input);

// ---- formatting ----

std::string shape_str(const Shape& s);  // "(1, 3, 28, 28)"
std::string with_commas(uint64_t v);    // 1234567 -> "1,234,567"
std::string human_bytes(uint64_t v);    // "12.3 KiB"
// Row-major values of an integer or float32 array, comma-separated; at most `limit` values (then ",
// ... (N more)"); limit 0 = all.
std::string values_str(const NDArray& a, size_t limit);
// The cost line: "ops 1,234 + mem 5,678 = total 6,912".
std::string cost_str(const ModelCost& c);

}  // namespace cli
}  // namespace cvm
