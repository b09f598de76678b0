// get_valid_counts and non_max_suppression: hand-computed spec cases (ordering, suppression
// rules, IoU boundaries and its int64 overflow branch), precision and cost, errors, and seeded
// random cases against references written here.
#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <limits>
#include <random>

#include "cvm/error.h"
#include "cvm/op.h"
#include "op_test_util.h"
#include "test_util.h"

using namespace cvm;
using Catch::Matchers::Contains;
using test::i32;
using test::vals;

namespace {

constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax = std::numeric_limits<int32_t>::max();

using Row = std::array<int32_t, 6>;  // [id, score, x1, y1, x2, y2]
const Row kNone = {-1, -1, -1, -1, -1, -1};

// Boxes of one batch per entry of `batches` (all the same length), NMS'ed with `counts`.
std::vector<std::vector<Row>> nms(const std::vector<std::vector<Row>>& batches,
                                  const std::vector<int32_t>& counts, const AttrMap& attrs = {}) {
  const int64_t b = static_cast<int64_t>(batches.size()), n = batches[0].size();
  std::vector<int32_t> flat;
  for (const auto& rows : batches)
    for (const Row& r : rows) flat.insert(flat.end(), r.begin(), r.end());
  std::vector<NDArray> out =
      run_op("non_max_suppression", {i32({b, n, 6}, flat), i32({b}, counts)}, attrs);
  REQUIRE(out.size() == 1);
  REQUIRE(out[0].shape() == Shape{b, n, 6});
  std::vector<int32_t> v = vals(out[0]);
  std::vector<std::vector<Row>> result(b, std::vector<Row>(n));
  for (int64_t i = 0; i < b * n; ++i) std::copy_n(&v[i * 6], 6, result[i / n][i % n].begin());
  return result;
}

std::vector<Row> nms1(const std::vector<Row>& rows, int32_t count, const AttrMap& attrs = {}) {
  return nms({rows}, {count}, attrs)[0];
}

// ---- independent references ----

__extension__ typedef __int128 Int128;

// The spec's IoU in percent with exact intermediate values.
int64_t ref_iou(const Row& a, const Row& b) {
  auto lo = [](int32_t u, int32_t v) { return Int128{std::max(u, v)}; };
  auto hi = [](int32_t u, int32_t v) { return Int128{std::min(u, v)}; };
  Int128 w = std::max<Int128>(0, hi(a[4], b[4]) - lo(a[2], b[2]));
  Int128 h = std::max<Int128>(0, hi(a[5], b[5]) - lo(a[3], b[3]));
  Int128 overlap = w * h;
  Int128 u = (Int128{a[4]} - a[2]) * (Int128{a[5]} - a[3]) +
             (Int128{b[4]} - b[2]) * (Int128{b[5]} - b[3]) - overlap;
  if (u <= 0) return 0;
  if (overlap * 100 > Int128{std::numeric_limits<int64_t>::max()}) {
    return u / 100 == 0 ? 0 : static_cast<int64_t>(overlap / (u / 100));
  }
  return static_cast<int64_t>(overlap * 100 / u);
}

std::vector<Row> ref_nms(const std::vector<Row>& rows, int32_t count, int64_t threshold, bool force,
                         int32_t top_k, int32_t max_out) {
  const int64_t n = rows.size();
  const int64_t t = std::clamp<int64_t>(count, 0, n);
  std::vector<Row> sorted(rows.begin(), rows.begin() + t);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const Row& a, const Row& b) { return a[1] > b[1]; });
  if (top_k >= 0 && top_k < t) sorted.resize(top_k);
  std::vector<Row> kept;
  for (const Row& r : sorted) {
    if (max_out >= 0 && static_cast<int64_t>(kept.size()) >= max_out) break;
    if (r[0] < 0) continue;
    bool drop = false;
    for (const Row& k : kept) drop |= (force || k[0] == r[0]) && ref_iou(k, r) >= threshold;
    if (!drop) kept.push_back(r);
  }
  kept.resize(n, kNone);
  return kept;
}

}  // namespace

// -------------------------------------------------------------------------- get_valid_counts

TEST_CASE("get_valid_counts: kept rows move up in order, the rest become -1", "[ops][vision]") {
  NDArray x = i32({2, 4, 3}, {0, 5, 1, 1, 0, 2, 2, 7, 3, 3, -1, 4,    // batch 0
                              9, 1, 9, 8, 2, 8, 7, 3, 7, 6, 4,  6});  // batch 1
  std::vector<NDArray> out = run_op("get_valid_counts", {x}, {});
  REQUIRE(out.size() == 2);
  CHECK(out[0].shape() == Shape{2});
  CHECK(out[1].shape() == Shape{2, 4, 3});
  CHECK(vals(out[0]) == std::vector<int32_t>{2, 4});  // score 0 is not > 0
  CHECK(vals(out[1]) == std::vector<int32_t>{0, 5, 1, 2, 7, 3, -1, -1, -1, -1, -1, -1,
                                             9, 1, 9, 8, 2, 8, 7,  3,  7,  6,  4,  6});
  out = run_op("get_valid_counts", {x}, {{"score_threshold", "-1"}});
  CHECK(vals(out[0]) == std::vector<int32_t>{3, 4});
  CHECK(vals(out[1]) == std::vector<int32_t>{0, 5, 1, 1, 0, 2, 2, 7, 3, -1, -1, -1,
                                             9, 1, 9, 8, 2, 8, 7, 3, 7, 6,  4,  6});
  out = run_op("get_valid_counts", {x}, {{"score_threshold", "3"}});
  CHECK(vals(out[0]) == std::vector<int32_t>{2, 1});
  CHECK(vals(out[1]) == std::vector<int32_t>{0, 5, 1, 2,  7,  3,  -1, -1, -1, -1, -1, -1,
                                             6, 4, 6, -1, -1, -1, -1, -1, -1, -1, -1, -1});
  // The threshold spans int32: nothing is > INT32_MAX; everything but INT32_MIN is > INT32_MIN.
  NDArray y = i32({1, 3, 2}, {1, kMin, 2, kMax, 3, 0});
  out = run_op("get_valid_counts", {y}, {{"score_threshold", "-2147483648"}});
  CHECK(vals(out[0]) == std::vector<int32_t>{2});
  CHECK(vals(out[1]) == std::vector<int32_t>{2, kMax, 3, 0, -1, -1});
  out = run_op("get_valid_counts", {y}, {{"score_threshold", "2147483647"}});
  CHECK(vals(out[0]) == std::vector<int32_t>{0});
  CHECK(vals(out[1]) == std::vector<int32_t>(6, -1));
}

TEST_CASE("get_valid_counts: precision NP(N*K) and p0, cost base 1, errors", "[ops][vision]") {
  OpInference r = infer_op("get_valid_counts", {{2, 4, 3}}, {17}, {});
  CHECK(r.output_shapes == std::vector<std::vector<int64_t>>{{2}, {2, 4, 3}});
  CHECK(r.output_precisions == std::vector<int>{5, 17});  // NP(12) = NB(13) + 1
  CHECK(r.cost_base == 1);
  // NP quirk: N*K = 255 gives NB(256) + 1 = 10; 254 gives NB(255) + 1 = 9.
  CHECK(infer_op("get_valid_counts", {{1, 85, 3}}, {8}, {}).output_precisions[0] == 10);
  CHECK(infer_op("get_valid_counts", {{1, 127, 2}}, {8}, {}).output_precisions[0] == 9);
  CHECK(infer_op("get_valid_counts", {{1, 1, 2}}, {8}, {}).output_precisions[0] == 3);
  CHECK_NOTHROW(infer_op("get_valid_counts", {{1, 1, 31}}, {8}, {}));
  CHECK_LOGIC_ERROR(infer_op("get_valid_counts", {{1, 4, 1}}, {8}, {}),
                    Contains("op \"get_valid_counts\": data shape (1, 4, 1)") &&
                        Contains("must be in [2, 31], found 1"));
  CHECK_THROWS_WITH(infer_op("get_valid_counts", {{1, 4, 32}}, {8}, {}), Contains("found 32"));
  CHECK_THROWS_WITH(infer_op("get_valid_counts", {{4, 6}}, {8}, {}),
                    Contains("data shape (4, 6) must be 3-D (B, N, K)"));
  CHECK_THROWS_WITH(
      infer_op("get_valid_counts", {{1, 4, 6}}, {8}, {{"score_threshold", "2147483648"}}),
      Contains("attribute \"score_threshold\""));
  CHECK_THROWS_WITH(infer_op("get_valid_counts", {{1, 4, 6}}, {8}, {{"threshold", "1"}}),
                    Contains("unknown attribute \"threshold\""));
}

TEST_CASE("get_valid_counts and non_max_suppression read strided views", "[ops][vision]") {
  std::vector<int32_t> v(72);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int32_t>((i * 37) % 11) - 3;
  NDArray x = i32({6, 2, 5}, std::vector<int32_t>(v.begin(), v.begin() + 60)).permute({1, 0, 2});
  REQUIRE_FALSE(x.is_contiguous());  // (2, 6, 5)
  auto strided = run_op("get_valid_counts", {x}, {});
  auto plain = run_op("get_valid_counts", {x.contiguous()}, {});
  CHECK(test::bit_equal(strided[0], plain[0]));
  CHECK(test::bit_equal(strided[1], plain[1]));
  NDArray boxes = i32({6, 2, 6}, v).permute({1, 0, 2});       // (2, 6, 6)
  NDArray counts = i32({4}, {6, 9, 3, 5}).slice(0, 0, 4, 2);  // (6, 3), stride 2
  CHECK(test::bit_equal(
      run_op("non_max_suppression", {boxes, counts}, {})[0],
      run_op("non_max_suppression", {boxes.contiguous(), counts.contiguous()}, {})[0]));
}

TEST_CASE("get_valid_counts: seeded random cases", "[ops][vision]") {
  std::mt19937 rng(11);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int it = 0; it < 60; ++it) {
    const int64_t b = pick(1, 3), n = pick(0, 9), k = pick(2, 31);
    const int32_t threshold = pick(-3, 3);
    std::vector<int32_t> xv(b * n * k);
    for (auto& v : xv) v = pick(-5, 5);
    if (it % 5 == 0) xv.assign(xv.size(), kMin);
    std::vector<NDArray> out = run_op("get_valid_counts", {i32({b, n, k}, xv)},
                                      {{"score_threshold", std::to_string(threshold)}});
    std::vector<int32_t> counts, rows;
    for (int64_t i = 0; i < b; ++i) {
      int32_t kept = 0;
      for (int64_t j = 0; j < n; ++j) {
        const int32_t* row = &xv[(i * n + j) * k];
        if (row[1] > threshold) {
          rows.insert(rows.end(), row, row + k);
          ++kept;
        }
      }
      rows.insert(rows.end(), (n - kept) * k, -1);
      counts.push_back(kept);
    }
    CHECK(vals(out[0]) == counts);
    CHECK(vals(out[1]) == rows);
  }
}

// ----------------------------------------------------------------------- non_max_suppression

TEST_CASE("non_max_suppression: same-id suppression, force_suppress, threshold", "[ops][vision]") {
  const Row r0 = {0, 90, 0, 0, 10, 10}, r1 = {0, 80, 1, 1, 11, 11}, r2 = {1, 70, 1, 1, 11, 11},
            r3 = {0, 60, 20, 20, 30, 30};
  // IoU(r0, r1) = 81 * 100 / 119 = 68 (floored).
  CHECK(nms1({r0, r1, r2, r3}, 4) == std::vector<Row>{r0, r2, r3, kNone});
  CHECK(nms1({r0, r1, r2, r3}, 4, {{"force_suppress", "True"}}) ==
        std::vector<Row>{r0, r3, kNone, kNone});
  CHECK(nms1({r0, r1, r2, r3}, 4, {{"iou_threshold", "68"}}) ==
        std::vector<Row>{r0, r2, r3, kNone});
  CHECK(nms1({r0, r1, r2, r3}, 4, {{"iou_threshold", "69"}}) == std::vector<Row>{r0, r1, r2, r3});
  // Rows arrive unsorted; the output is by score.
  CHECK(nms1({r3, r2, r1, r0}, 4) == std::vector<Row>{r0, r2, r3, kNone});
  // A dropped box suppresses nothing: r5 overlaps r1 by 68 (r1 is dropped) and r0 by 47.
  const Row r5 = {0, 75, 2, 2, 12, 12};
  CHECK(nms1({r0, r1, r5}, 3) == std::vector<Row>{r0, r5, kNone});
  // Kept boxes do: at threshold 69 r1 stays and r4 (r1's box) goes.
  const Row r4 = {0, 75, 1, 1, 11, 11};
  CHECK(nms1({r0, r1, r4}, 3, {{"iou_threshold", "69"}}) == std::vector<Row>{r0, r1, kNone});
}

TEST_CASE("non_max_suppression: stable order for equal scores, top_k, max_output_size",
          "[ops][vision]") {
  const Row a = {0, 50, 0, 0, 1, 1}, b = {1, 50, 10, 10, 11, 11}, c = {2, 60, 20, 20, 21, 21},
            d = {3, 50, 30, 30, 31, 31};
  const std::vector<Row> rows = {a, b, c, d};
  CHECK(nms1(rows, 4) == std::vector<Row>{c, a, b, d});
  CHECK(nms1({d, b, c, a}, 4) == std::vector<Row>{c, d, b, a});
  CHECK(nms1(rows, 4, {{"top_k", "2"}}) == std::vector<Row>{c, a, kNone, kNone});
  CHECK(nms1(rows, 4, {{"top_k", "0"}}) == std::vector<Row>(4, kNone));
  CHECK(nms1(rows, 4, {{"top_k", "9"}}) == std::vector<Row>{c, a, b, d});
  CHECK(nms1(rows, 4, {{"top_k", "-7"}}) == std::vector<Row>{c, a, b, d});
  CHECK(nms1(rows, 4, {{"max_output_size", "1"}}) == std::vector<Row>{c, kNone, kNone, kNone});
  CHECK(nms1(rows, 4, {{"max_output_size", "3"}}) == std::vector<Row>{c, a, b, kNone});
  CHECK(nms1(rows, 4, {{"max_output_size", "0"}}) == std::vector<Row>(4, kNone));
  CHECK(nms1(rows, 4, {{"max_output_size", "-2"}}) == std::vector<Row>{c, a, b, d});
  // top_k counts candidates, max_output_size counts kept boxes: with a suppressed candidate
  // (a2 duplicates a), top_k 3 yields two boxes, max_output_size 3 still yields three.
  const Row a2 = {0, 55, 0, 0, 1, 1};
  CHECK(nms1({a, a2, c, b}, 4, {{"top_k", "3"}}) == std::vector<Row>{c, a2, kNone, kNone});
  CHECK(nms1({a, a2, c, b}, 4, {{"max_output_size", "3"}}) == std::vector<Row>{c, a2, b, kNone});
}

TEST_CASE("non_max_suppression: equal scores keep row order among many boxes", "[ops][vision]") {
  // Enough rows that an unstable sort would reorder ties (small ranges are insertion-sorted).
  std::vector<Row> rows;
  for (int32_t i = 0; i < 80; ++i) rows.push_back({i, (i * 7) % 3, 10 * i, 0, 10 * i + 5, 5});
  std::vector<Row> want;
  for (int32_t score = 2; score >= 0; --score)
    for (const Row& r : rows)
      if (r[1] == score) want.push_back(r);
  CHECK(nms1(rows, 80) == want);
  std::reverse(rows.begin(), rows.end());
  want.clear();
  for (int32_t score = 2; score >= 0; --score)
    for (const Row& r : rows)
      if (r[1] == score) want.push_back(r);
  CHECK(nms1(rows, 80) == want);
}

TEST_CASE("non_max_suppression: valid_count clamps, negative ids are skipped, batches",
          "[ops][vision]") {
  const Row a = {0, 10, 0, 0, 5, 5}, b = {1, 30, 0, 0, 5, 5}, c = {0, 99, 0, 0, 5, 5};
  CHECK(nms1({a, b, c}, 2) == std::vector<Row>{b, a, kNone});  // c is beyond valid_count
  CHECK(nms1({a, b, c}, 3) == std::vector<Row>{c, b, kNone});  // c suppresses a
  CHECK(nms1({a, b, c}, 100) == std::vector<Row>{c, b, kNone});
  CHECK(nms1({a, b, c}, -3) == std::vector<Row>(3, kNone));
  CHECK(nms1({a, b, c}, 0) == std::vector<Row>(3, kNone));
  // A negative id is never output and never suppresses.
  const Row neg = {-1, 100, 0, 0, 5, 5};
  CHECK(nms1({neg, a, b}, 3, {{"force_suppress", "1"}}) == std::vector<Row>{b, kNone, kNone});
  CHECK(nms1({neg, a, b}, 3) == std::vector<Row>{b, a, kNone});
  // Each batch has its own count.
  auto out = nms({{a, b, c}, {c, b, a}}, {1, 3});
  CHECK(out[0] == std::vector<Row>{a, kNone, kNone});
  CHECK(out[1] == std::vector<Row>{c, b, kNone});
}

TEST_CASE("non_max_suppression: IoU boundaries and the int64 overflow branch", "[ops][vision]") {
  auto box = [](int32_t id, int32_t score, int32_t x1, int32_t y1, int32_t x2, int32_t y2) {
    return Row{id, score, x1, y1, x2, y2};
  };
  // Exactly 50: overlap 50, union 100 + 50 - 50. IoU >= threshold drops.
  const Row big = box(0, 9, 0, 0, 10, 10), half = box(0, 8, 0, 0, 10, 5);
  CHECK(nms1({big, half}, 2, {{"iou_threshold", "50"}}) == std::vector<Row>{big, kNone});
  CHECK(nms1({big, half}, 2, {{"iou_threshold", "51"}}) == std::vector<Row>{big, half});
  // Floored: 10000 / 199 = 50.25 -> 50 (dropped); 10000 / 201 = 49.75 -> 49 (kept).
  const Row strip = box(0, 9, 0, 0, 100, 1);
  CHECK(nms1({strip, box(0, 8, 0, 0, 199, 1)}, 2) == std::vector<Row>{strip, kNone});
  CHECK(nms1({strip, box(0, 8, 0, 0, 201, 1)}, 2) ==
        std::vector<Row>{strip, box(0, 8, 0, 0, 201, 1)});
  // Areas use (x2 - x1) * (y2 - y1) without +1: touching boxes do not overlap.
  CHECK(nms1({big, box(0, 8, 10, 0, 20, 10)}, 2, {{"iou_threshold", "1"}}) ==
        std::vector<Row>{big, box(0, 8, 10, 0, 20, 10)});
  // overlap * 100 overflows int64 (overlap ~ 2.04e18): IoU = overlap / (union / 100) = 60, while
  // the exact floor(overlap * 100 / union) would be 59. Every other value fits in int64.
  const Row outer = box(0, 9, 0, 0, 1816940109, 1868469571);
  const Row inner = box(0, 8, 0, 0, 1781464320, 1143406781);
  CHECK(nms1({outer, inner}, 2, {{"iou_threshold", "60"}}) == std::vector<Row>{outer, kNone});
  CHECK(nms1({outer, inner}, 2, {{"iou_threshold", "61"}}) == std::vector<Row>{outer, inner});
  // Coordinates at the int32 bounds: widths of 2^32 - 1, areas beyond int64; no overflow.
  const Row all = box(0, 9, kMin, kMin, kMax, kMax), all2 = box(0, 8, kMin, kMin, kMax, kMax);
  CHECK(nms1({all, all2}, 2, {{"iou_threshold", "100"}}) == std::vector<Row>{all, kNone});
  CHECK(nms1({all, box(0, 8, kMin, kMin, 0, kMax)}, 2) == std::vector<Row>{all, kNone});  // 50
  CHECK(nms1({all, box(0, 8, kMin, kMin, -1, kMax)}, 2) ==
        std::vector<Row>{all, box(0, 8, kMin, kMin, -1, kMax)});  // just under 50
  // A union <= 0 gives IoU 0: mirrored boxes have negative areas and never suppress.
  const Row flip = box(0, 9, 10, 0, 0, 10), flip2 = box(0, 8, 10, 0, 0, 10);
  CHECK(nms1({flip, flip2}, 2, {{"iou_threshold", "1"}}) == std::vector<Row>{flip, flip2});
}

TEST_CASE("non_max_suppression: precision, cost and errors", "[ops][vision]") {
  OpInference r = infer_op("non_max_suppression", {{3, 5, 6}, {3}}, {24, 8}, {});
  CHECK(r.output_shapes == std::vector<std::vector<int64_t>>{{3, 5, 6}});
  CHECK(r.output_precisions == std::vector<int>{24});
  CHECK(r.cost_base == 60);  // B * 20
  auto bad = [](const std::vector<std::vector<int64_t>>& s, const AttrMap& a,
                const std::string& msg) {
    CHECK_LOGIC_ERROR(infer_op("non_max_suppression", s, {8, 8}, a),
                      Contains("op \"non_max_suppression\"") && Contains(msg));
  };
  const std::vector<std::vector<int64_t>> s = {{2, 4, 6}, {2}};
  bad({{2, 24}, {2}}, {}, "data shape (2, 24) must be 3-D (B, N, 6)");
  bad({{2, 4, 5}, {2}}, {}, "data shape (2, 4, 5) must have rows of 6 values");
  bad({{2, 4, 6}, {3}}, {}, "valid_count shape (3) does not match data shape (2, 4, 6)");
  bad({{2, 4, 6}, {2, 1}}, {}, "valid_count shape (2, 1)");
  bad(s, {{"iou_threshold", "0"}}, "attribute \"iou_threshold\": expected an integer in [1, ");
  bad(s, {{"return_indices", "True"}}, "attribute \"return_indices\": expected false, found true");
  bad(s, {{"invalid_to_bottom", "0"}}, "attribute \"invalid_to_bottom\": expected true");
  bad(s, {{"coord_start", "1"}}, "attribute \"coord_start\": expected 2, found 1");
  bad(s, {{"score_index", "0"}}, "attribute \"score_index\": expected 1, found 0");
  bad(s, {{"id_index", "1"}}, "attribute \"id_index\": expected 0, found 1");
  bad(s, {{"top_k", "2147483648"}}, "attribute \"top_k\"");
  bad(s, {{"max_output_size", "x"}}, "attribute \"max_output_size\"");
  bad(s, {{"force_suppress", "yes"}}, "attribute \"force_suppress\"");
  bad(s, {{"score_threshold", "1"}}, "unknown attribute \"score_threshold\"");
  CHECK_NOTHROW(infer_op("non_max_suppression", s, {8, 8},
                         {{"return_indices", "False"},
                          {"invalid_to_bottom", "True"},
                          {"coord_start", "2"},
                          {"score_index", "1"},
                          {"id_index", "0"},
                          {"iou_threshold", "2147483647"},
                          {"top_k", "-2147483648"}}));
  CHECK_THROWS_WITH(run_op("non_max_suppression", {i32({1, 1, 6}, {0, 1, 0, 0, 1, 1})}, {}),
                    Contains("expected 2 input(s), got 1"));
}

TEST_CASE("non_max_suppression: seeded random cases against the reference", "[ops][vision]") {
  std::mt19937 rng(2024);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int it = 0; it < 300; ++it) {
    const int64_t b = pick(1, 3), n = it % 10 == 0 ? pick(17, 70) : pick(1, 12);
    const int64_t threshold = pick(1, 100);
    const bool force = pick(0, 1) == 1;
    const int32_t top_k = pick(-1, 8), max_out = pick(-1, 8);
    const int scale = it % 4 == 0 ? 1 << 27 : 1;  // overlaps beyond int64 / 100 now and then
    std::vector<std::vector<Row>> batches(b);
    std::vector<int32_t> counts;
    for (auto& rows : batches) {
      for (int64_t i = 0; i < n; ++i) {
        int32_t x1 = pick(-4, 6) * scale, y1 = pick(-4, 6) * scale;
        rows.push_back(
            {pick(-1, 2), pick(0, 4), x1, y1, x1 + pick(-1, 6) * scale, y1 + pick(-1, 6) * scale});
      }
      counts.push_back(pick(-1, static_cast<int>(n) + 1));
    }
    AttrMap attrs = {{"iou_threshold", std::to_string(threshold)},
                     {"force_suppress", force ? "1" : "0"},
                     {"top_k", std::to_string(top_k)},
                     {"max_output_size", std::to_string(max_out)}};
    auto got = nms(batches, counts, attrs);
    for (int64_t i = 0; i < b; ++i) {
      INFO("case " << it << " batch " << i);
      CHECK(got[i] == ref_nms(batches[i], counts[i], threshold, force, top_k, max_out));
    }
  }
}

TEST_CASE("vision ops are registered with their arity", "[ops][vision]") {
  int found = 0;
  for (const OpInfo& info : list_ops()) {
    if (info.name == "get_valid_counts") {
      CHECK(info.num_inputs == 1);
      CHECK(info.num_outputs == 2);
      ++found;
    } else if (info.name == "non_max_suppression") {
      CHECK(info.num_inputs == 2);
      CHECK(info.num_outputs == 1);
      ++found;
    }
  }
  CHECK(found == 2);
}
