#include "measure/attention_ref.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "measure/inputs.h"

namespace gpucalc::attn {

std::int64_t q_elements(const Shape& s) {
  return std::int64_t{s.batch} * s.heads * s.seq * s.head_dim;
}

std::int64_t kv_elements(const Shape& s) {
  return std::int64_t{s.batch} * s.kv_heads * s.seq * s.head_dim;
}

int kv_tiles_visited(const Shape& s, int query_tile) {
  const int tiles = (s.seq + kTileKv - 1) / kTileKv;
  // causal, Br = Bc: query tile t's last row is (t + 1) Br - 1, so it sees key tiles 0..t
  return s.causal ? std::min(tiles, query_tile + 1) : tiles;
}

double computed_pairs(const Shape& s) {
  const int query_tiles = (s.seq + kTileQ - 1) / kTileQ;
  double tiles = 0;
  for (int t = 0; t < query_tiles; ++t) tiles += kv_tiles_visited(s, t);
  return tiles * kTileQ * kTileKv;
}

double unmasked_pairs(const Shape& s) {
  const double n = s.seq;
  // causal: query i sees keys 0..i, i + 1 of them: sum = n (n + 1) / 2
  return s.causal ? n * (n + 1) / 2 : n * n;
}

double matmul_flops(const Shape& s, double pairs) {
  // S = Q K^T and O = P V: 2 d FLOPs a pair each
  return 2.0 * s.batch * s.heads * pairs * 2.0 * s.head_dim;
}

double softmax_scale(const Shape& s) { return 1.0 / std::sqrt(static_cast<double>(s.head_dim)); }

std::vector<int> sampled_rows(const Shape& s, int per_head, int head_index) {
  std::set<int> rows;
  const int want = std::min(per_head, s.seq);
  if (head_index == 0) {
    for (int r : {0, kTileQ - 1, kTileQ, s.seq - 1}) {
      if (r < s.seq && static_cast<int>(rows.size()) < want) rows.insert(r);
    }
  }
  for (std::uint64_t k = 0; static_cast<int>(rows.size()) < want; ++k) {
    rows.insert(static_cast<int>(inputs::hash(0xA77u + static_cast<std::uint32_t>(head_index), k) % static_cast<std::uint32_t>(s.seq)));
  }
  return {rows.begin(), rows.end()};
}

RowReference reference_row(const float* q, const float* k, const float* v, int keys, int d, double scale) {
  RowReference r;
  r.o.assign(static_cast<std::size_t>(d), 0.0);
  std::vector<double> s(static_cast<std::size_t>(keys));
  double m = -INFINITY;
  for (int j = 0; j < keys; ++j) {
    double dot = 0;
    for (int c = 0; c < d; ++c) dot += static_cast<double>(q[c]) * k[static_cast<std::size_t>(j) * d + c];
    s[static_cast<std::size_t>(j)] = dot * scale;
    m = std::max(m, s[static_cast<std::size_t>(j)]);
  }
  // o = sum_j exp(s_j - m) v_j / sum_j exp(s_j - m); lse = m + ln(sum_j exp(s_j - m))
  double sum = 0;
  for (int j = 0; j < keys; ++j) {
    const double p = std::exp(s[static_cast<std::size_t>(j)] - m);
    sum += p;
    for (int c = 0; c < d; ++c) r.o[static_cast<std::size_t>(c)] += p * v[static_cast<std::size_t>(j) * d + c];
  }
  for (double& x : r.o) x /= sum;
  r.lse = m + std::log(sum);
  return r;
}

}  // namespace gpucalc::attn
