// The array operators matmul (NumPy rules: 1-D vectors, broadcast batch dimensions) and cast
// (any dtype to any dtype through cvm::copy_into), and the public cvm::matmul.
#include "attrs.h"
#include "cvm/array_ops.h"
#include "cvm/check.h"
#include "kernel_views.h"
#include "op_def.h"
#include "registry_internal.h"

namespace cvm {
namespace ops {
namespace {

// The shapes of one matmul with 1-D operands promoted (a to a row (1, K), b to a column
// (K, 1)) and batch dimensions broadcast: the kernel computes out (B..., M, N) from
// a (B..., M, K) and b (B..., K, N); `result` drops the promoted dimensions again.
struct MatmulShapes {
  Shape a, b, out, result;
};

MatmulShapes matmul_shapes(const OpDef& op, const Shape& a, const Shape& b) {
  VERIFY(a.ndim() >= 1 && b.ndim() >= 1)
      << op_prefix(op) << "expected inputs of at least 1 dimension, found a shape " << a
      << " and b shape " << b;
  Shape a2 = a, b2 = b;
  if (a.ndim() == 1) a2.insert(0, 1);
  if (b.ndim() == 1) b2.push_back(1);
  const int na = a2.ndim(), nb = b2.ndim();
  const int64_t m = a2[na - 2], ka = a2[na - 1], kb = b2[nb - 2], n = b2[nb - 1];
  VERIFY(ka == kb) << op_prefix(op) << "inner dimensions differ: a shape " << a << " has K = " << ka
                   << ", b shape " << b << " has K = " << kb;
  Shape batch;
  try {
    batch = broadcast_shapes(Shape(a2.data(), na - 2), Shape(b2.data(), nb - 2));
  } catch (const LogicError& e) {
    CVM_LOGIC_ERROR() << op_prefix(op) << "batch dimensions of a shape " << a << " and b shape "
                      << b << " do not broadcast: " << e.what();
  }
  MatmulShapes s{batch, batch, batch, batch};
  s.a.push_back(m);
  s.a.push_back(ka);
  s.b.push_back(ka);
  s.b.push_back(n);
  s.out.push_back(m);
  s.out.push_back(n);
  if (a.ndim() > 1) s.result.push_back(m);
  if (b.ndim() > 1) s.result.push_back(n);
  return s;
}

bool matmul_dtype_ok(DataType t) {
  return t == DataType::Int(8) || t == DataType::Int(32) || t == DataType::Float(32) ||
         t == DataType::Float(64);
}

class MatmulOp : public OpDef {
 public:
  const char* name() const override { return "matmul"; }
  int num_inputs() const override { return 2; }
  bool is_cvm() const override { return false; }

  std::unique_ptr<OpAttrs> parse(const AttrMap& attrs) const override {
    AttrReader(name(), attrs).finish();
    return std::make_unique<NoAttrs>();
  }

  std::vector<DataType> infer_dtypes(const OpAttrs&,
                                     const std::vector<DataType>& inputs) const override {
    VERIFY(inputs[0] == inputs[1]) << op_prefix(*this) << "expected inputs of one dtype, found a "
                                   << inputs[0] << " and b " << inputs[1];
    VERIFY(matmul_dtype_ok(inputs[0]))
        << op_prefix(*this) << "input dtype: expected int8, int32, float32 or float64, found "
        << inputs[0];
    return {inputs[0] == DataType::Int(8) ? DataType::Int(32) : inputs[0]};
  }

  std::vector<Shape> infer_shapes(const OpAttrs&, const std::vector<Shape>& inputs) const override {
    return {matmul_shapes(*this, inputs[0], inputs[1]).result};
  }

  void compute(const OpAttrs&, const std::vector<NDArray>& inputs,
               const std::vector<NDArray>& outputs, const NodeKernels& kernels) const override {
    NDArray out = outputs[0];
    void* out_data = out.mutable_data();
    const NDArray& a = inputs[0];
    const NDArray& b = inputs[1];
    const MatmulShapes s = matmul_shapes(*this, a.shape(), b.shape());
    // Views of the promoted shapes: inserted size-1 dimensions and stride-0 batch broadcasts.
    const NDArray a_full = (a.ndim() == 1 ? a.expand_dims(0) : a).broadcast_to(s.a);
    const NDArray b_full = (b.ndim() == 1 ? b.expand_dims(1) : b).broadcast_to(s.b);
    NDArray out_full = b.ndim() == 1 ? out.expand_dims(out.ndim()) : out;
    if (a.ndim() == 1) out_full = out_full.expand_dims(out_full.ndim() - 1);
    run_kernel(
        kernels[0],
        {plain_view(out_full, out_data), plain_view(a_full, const_cast<void*>(a_full.data())),
         plain_view(b_full, const_cast<void*>(b_full.data()))},
        1, nullptr);
  }
};

struct CastAttrs : OpAttrs {
  DataType dtype;
};

class CastOp : public OpDef {
 public:
  const char* name() const override { return "cast"; }
  int num_inputs() const override { return 1; }
  bool is_cvm() const override { return false; }

  std::unique_ptr<OpAttrs> parse(const AttrMap& attrs) const override {
    AttrReader r(name(), attrs);
    auto a = std::make_unique<CastAttrs>();
    const std::string text = r.get_string("dtype", std::nullopt);
    try {
      a->dtype = DataType::parse(text);
    } catch (const LogicError&) {
      r.fail("dtype", "a dtype name such as \"float32\"", "\"" + text + "\"");
    }
    r.finish();
    return a;
  }

  std::vector<DataType> infer_dtypes(const OpAttrs& attrs,
                                     const std::vector<DataType>&) const override {
    return {static_cast<const CastAttrs&>(attrs).dtype};
  }

  std::vector<Shape> infer_shapes(const OpAttrs&, const std::vector<Shape>& inputs) const override {
    return {inputs[0]};
  }

  std::vector<const char*> kernel_ops() const override { return {"copy", "cast"}; }
  std::vector<KernelKey> kernels(const OpAttrs&, const std::vector<DataType>& inputs,
                                 const std::vector<DataType>& outputs) const override {
    return copy_kernel_keys(inputs[0], outputs[0]);
  }

  void compute(const OpAttrs&, const std::vector<NDArray>& inputs,
               const std::vector<NDArray>& outputs, const NodeKernels& kernels) const override {
    NDArray out = outputs[0];
    copy_into(out, inputs[0], kernels[0], kernels.chains.size() > 1 ? &kernels[1] : nullptr);
  }
};

}  // namespace

void add_array_linalg_ops(OpList& ops) {
  static const MatmulOp kMatmul;
  static const CastOp kCast;
  ops.push_back(&kMatmul);
  ops.push_back(&kCast);
}

}  // namespace ops

NDArray matmul(const NDArray& a, const NDArray& b) { return run_op("matmul", {a, b})[0]; }

}  // namespace cvm
