// NDArray: refcounts, views (reshape, permute, slice, broadcast, squeeze), copy-on-write, aliasing.
#include <catch2/catch.hpp>

#include <cstring>
#include <numeric>

#include "container.h"
#include "cvm/array_ops.h"
#include "cvm/error.h"
#include "cvm/ndarray.h"
#include "test_util.h"

using namespace cvm;
using Catch::Matchers::Contains;

namespace {

NDArray iota(const Shape& shape) {
  NDArray a = NDArray::empty(shape, DataType::Int(32));
  int32_t* p = a.mutable_data_as<int32_t>();
  std::iota(p, p + a.numel(), 0);
  return a;
}

std::vector<int64_t> values(const NDArray& a) {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < a.numel(); ++i) v.push_back(test::int_at(a, i));
  return v;
}

}  // namespace

TEST_CASE("container starts with its DLTensor and refcounts handles", "[ndarray]") {
  NDArray a = NDArray::empty({2, 3}, DataType::Int(32));
  detail::Container* c = a.container();
  REQUIRE(reinterpret_cast<DLTensor*>(c) == &c->dl);
  REQUIRE(a.use_count() == 1);
  {
    NDArray b = a;
    REQUIRE(a.use_count() == 2);
    NDArray moved = std::move(b);
    REQUIRE(a.use_count() == 2);
    REQUIRE_FALSE(b.defined());
  }
  REQUIRE(a.use_count() == 1);
  const DLTensor* t = a.dltensor();
  REQUIRE(t->ndim == 2);
  REQUIRE(t->shape[0] == 2);
  REQUIRE(t->shape[1] == 3);
  REQUIRE(t->strides == nullptr);  // compact arrays advertise null strides
  REQUIRE(t->byte_offset == 0);
  REQUIRE(reinterpret_cast<uintptr_t>(t->data) % 64 == 0);
}

TEST_CASE("every dtype allocates with the right size", "[ndarray][dtype]") {
  for (DataType t : kAllDataTypes) {
    NDArray a = NDArray::zeros({3, 5}, t);
    REQUIRE(a.nbytes() == 15 * t.bytes());
    std::vector<uint8_t> bytes(a.nbytes(), 0xff);
    a.copy_to_bytes(bytes.data(), bytes.size());
    for (uint8_t b : bytes) REQUIRE(b == 0);
  }
}

TEST_CASE("0-d and empty arrays", "[ndarray]") {
  NDArray s = NDArray::zeros(Shape{}, DataType::Float(64));
  REQUIRE(s.ndim() == 0);
  REQUIRE(s.numel() == 1);
  REQUIRE(s.nbytes() == 8);
  NDArray e = NDArray::empty({4, 0, 3}, DataType::Int(8));
  REQUIRE(e.numel() == 0);
  REQUIRE(e.nbytes() == 0);
  REQUIRE(e.data() != nullptr);
  REQUIRE(e.reshape({0, 12}).shape() == Shape{0, 12});
  NDArray c = e.copy();
  REQUIRE(c.numel() == 0);
  fill(e, 3);  // no elements: nothing happens, no crash
}

TEST_CASE("negative extents and overflowing shapes are logic errors", "[ndarray]") {
  REQUIRE_THROWS_MATCHES(NDArray::empty({2, -1}, DataType::Int(8)), LogicError,
                         Catch::Matchers::Message("negative extent -1 in shape (2, -1)"));
  REQUIRE_THROWS_WITH(NDArray::empty({int64_t(1) << 40, int64_t(1) << 40}, DataType::Int(8)),
                      Contains("overflows int64"));
  REQUIRE_THROWS_AS(NDArray::empty({int64_t(1) << 62}, DataType::Int(64)), LogicError);
}

TEST_CASE("reshape is a view when strides allow and a copy otherwise", "[ndarray][views]") {
  NDArray a = iota({2, 3, 4});
  NDArray r = a.reshape({6, -1});
  REQUIRE(r.shape() == Shape{6, 4});
  REQUIRE(r.shares_memory_with(a));
  REQUIRE(values(r) == values(a));
  // A transposed array reshaped where merging is possible stays a view...
  NDArray t = a.permute({1, 2, 0});  // (3, 4, 2)
  NDArray merged = t.reshape({12, 2});
  REQUIRE(merged.shares_memory_with(a));
  REQUIRE(values(merged) == values(t));
  // ...and where it is not, becomes a contiguous copy with the same row-major order.
  NDArray flat = a.transpose().reshape({24});
  REQUIRE_FALSE(flat.shares_memory_with(a));
  REQUIRE(values(flat) == values(a.transpose()));
  REQUIRE_THROWS_WITH(a.reshape({5, 5}), Contains("cannot reshape (2, 3, 4)"));
  REQUIRE_THROWS_WITH(a.reshape({-1, -1}), Contains("more than one -1"));
  REQUIRE_THROWS_WITH(a.reshape({7, -1}), Contains("cannot infer"));
}

TEST_CASE("permute and transpose reorder dims and strides", "[ndarray][views]") {
  NDArray a = iota({2, 3});
  NDArray t = a.transpose();
  REQUIRE(t.shape() == Shape{3, 2});
  REQUIRE(values(t) == std::vector<int64_t>{0, 3, 1, 4, 2, 5});
  REQUIRE_FALSE(t.is_contiguous());
  REQUIRE(t.dltensor()->strides != nullptr);
  REQUIRE(t.dltensor()->strides[0] == 1);
  REQUIRE(t.dltensor()->strides[1] == 3);
  REQUIRE(values(t.contiguous()) == values(t));
  REQUIRE(t.contiguous().is_contiguous());
  REQUIRE_THROWS_WITH(a.permute({0, 0}), Contains("repeated"));
  REQUIRE_THROWS_WITH(a.permute({0}), Contains("1 axes given"));
  REQUIRE_THROWS_WITH(a.permute({0, 2}), Contains("out of range"));
  REQUIRE(values(a.permute({-1, -2})) == values(t));
}

TEST_CASE("slice with steps, negative steps and clamping", "[ndarray][views]") {
  NDArray a = iota({10});
  REQUIRE(values(a.slice(0, 2, 8, 3)) == std::vector<int64_t>{2, 5});
  REQUIRE(values(a.slice(0, -1, -11, -2)) == std::vector<int64_t>{9, 7, 5, 3, 1});
  REQUIRE(values(a.slice(0, 100, 200)).empty());
  REQUIRE(values(a.slice(0, -100, 3)) == std::vector<int64_t>{0, 1, 2});
  REQUIRE(values(a.slice(0, 8, 2, -3)) == std::vector<int64_t>{8, 5});
  REQUIRE_THROWS_WITH(a.slice(0, 0, 1, 0), Contains("step must not be 0"));
  NDArray m = iota({4, 5});
  NDArray s = m.slice(1, 1, 5, 2).slice(0, 3, 0, -2);  // rows 3,1; cols 1,3
  REQUIRE(values(s) == std::vector<int64_t>{16, 18, 6, 8});
  // Writes through a view land in the base array.
  fill(s, 99);
  REQUIRE(test::int_at(m, 16) == 99);
  REQUIRE(test::int_at(m, 8) == 99);
  REQUIRE(test::int_at(m, 7) == 7);
}

TEST_CASE("broadcast_to, squeeze and expand_dims", "[ndarray][views]") {
  NDArray a = iota({3, 1});
  NDArray b = a.broadcast_to({2, 3, 4});
  REQUIRE(b.shape() == Shape{2, 3, 4});
  REQUIRE(b.strides()[0] == 0);
  REQUIRE(b.strides()[2] == 0);
  REQUIRE(test::int_at(b, 23) == 2);
  REQUIRE_THROWS_WITH(a.broadcast_to({3, 2, 2}), Contains("cannot broadcast (3, 1)"));
  REQUIRE_THROWS_WITH(a.broadcast_to({4}), Contains("fewer dims"));
  REQUIRE_THROWS_WITH(fill(b, 1), Contains("broadcast view"));
  NDArray e = a.expand_dims(0).expand_dims(-1);
  REQUIRE(e.shape() == Shape{1, 3, 1, 1});
  REQUIRE(e.squeeze().shape() == Shape{3});
  REQUIRE(e.squeeze(2).shape() == Shape{1, 3, 1});
  REQUIRE_THROWS_WITH(e.squeeze(1), Contains("has extent 3, not 1"));
  REQUIRE_THROWS_WITH(e.expand_dims(6), Contains("out of range"));
}

TEST_CASE("copy is lazy and copy-on-write on either side", "[ndarray][cow]") {
  NDArray a = iota({4, 4});
  NDArray view = a.slice(0, 1, 3);
  NDArray c = a.copy();
  REQUIRE(c.shares_memory_with(a));  // nothing copied yet
  // Writing through the copy gives the copy its own buffer; the original is untouched.
  c.mutable_data_as<int32_t>()[0] = -5;
  REQUIRE_FALSE(c.shares_memory_with(a));
  REQUIRE(test::int_at(a, 0) == 0);
  REQUIRE(test::int_at(c, 0) == -5);
  // Writing through a view of the original after another lazy copy detaches the original and
  // all of its views together; the copy keeps the old contents.
  NDArray d = a.copy();
  fill(view, 7);
  REQUIRE(test::int_at(a, 4) == 7);
  REQUIRE(test::int_at(view, 0) == 7);
  REQUIRE(test::int_at(d, 4) == 4);
  REQUIRE(view.shares_memory_with(a));
  REQUIRE_FALSE(d.shares_memory_with(a));
}

TEST_CASE("copy of a strided view is immediate and compact", "[ndarray][cow]") {
  NDArray a = iota({3, 4});
  NDArray t = a.transpose().copy();
  REQUIRE_FALSE(t.shares_memory_with(a));
  REQUIRE(t.is_contiguous());
  REQUIRE(values(t) == values(a.transpose()));
}

TEST_CASE("copy_from handles overlapping views as if copied at once", "[ndarray][aliasing]") {
  NDArray a = iota({10});
  NDArray dst = a.slice(0, 1, 10);
  NDArray src = a.slice(0, 0, 9);
  dst.copy_from(src);
  REQUIRE(values(a) == std::vector<int64_t>{0, 0, 1, 2, 3, 4, 5, 6, 7, 8});
  NDArray r = iota({6});
  NDArray rev = r.slice(0, 5, -7, -1);
  r.copy_from(rev);
  REQUIRE(values(r) == std::vector<int64_t>{5, 4, 3, 2, 1, 0});
  REQUIRE_THROWS_WITH(r.copy_from(iota({5})), Contains("does not match destination shape"));
  REQUIRE_THROWS_WITH(r.copy_from(NDArray::zeros({6}, DataType::Int(8))),
                      Contains("does not match destination dtype"));
}

TEST_CASE("bytes in and out of strided arrays", "[ndarray]") {
  NDArray a = iota({2, 3}).transpose();  // (3, 2), strided
  std::vector<int32_t> out(6);
  a.copy_to_bytes(out.data(), 24);
  REQUIRE(out == std::vector<int32_t>{0, 3, 1, 4, 2, 5});
  std::vector<int32_t> in{10, 11, 12, 13, 14, 15};
  a.copy_from_bytes(in.data(), 24);
  REQUIRE(values(a) == std::vector<int64_t>{10, 11, 12, 13, 14, 15});
  REQUIRE_THROWS_WITH(a.copy_to_bytes(out.data(), 20), Contains("holds 24"));
}

TEST_CASE("external memory: read-only copies on write, misaligned is copied", "[ndarray]") {
  std::vector<int32_t> host{1, 2, 3, 4};
  auto keep = std::make_shared<int>(0);
  NDArray ro = NDArray::from_external(host.data(), {4}, DataType::Int(32), Device::cpu(), keep,
                                      true);
  REQUIRE(ro.data() == host.data());
  REQUIRE(keep.use_count() == 2);
  fill(ro, 9);
  REQUIRE(host[0] == 1);  // the caller's memory is untouched
  REQUIRE(test::int_at(ro, 3) == 9);
  std::vector<uint8_t> raw(17);
  for (int i = 0; i < 16; ++i) raw[i + 1] = static_cast<uint8_t>(i);
  NDArray mis = NDArray::from_external(raw.data() + 1, {4}, DataType::Int(32), Device::cpu(),
                                       nullptr, false);
  REQUIRE(mis.data() != raw.data() + 1);
  REQUIRE(reinterpret_cast<uintptr_t>(mis.data()) % 4 == 0);
  REQUIRE(test::int_at(mis, 1) == 0x07060504);
}

TEST_CASE("using an undefined array is a logic error", "[ndarray]") {
  NDArray none;
  REQUIRE_FALSE(none.defined());
  REQUIRE_THROWS_WITH(none.shape(), Contains("undefined"));
  REQUIRE_THROWS_AS(none.reshape({1}), LogicError);
}
