// measure attention's host side that needs no GPU (and is unit-tested without one): the
// kernel's tile, the (query, key) pairs it computes and leaves unmasked, the rows the output
// check samples, and the host reference of one row in double precision.
#pragma once

#include <cstdint>
#include <vector>

namespace gpucalc::attn {

/// The forward kernel's tile (compute.cu / attention.cu): Br query rows a block holds, Bc key
/// rows a step of its loop loads into shared memory.
inline constexpr int kTileQ = 64;
inline constexpr int kTileKv = 64;
/// Threads a block: 16 x 16, each holding 4 query rows of the tile.
inline constexpr int kThreads = 256;
/// Query rows a thread holds: thread (ty, tx) has rows ty x 4 + i (16 x 4 = Br).
inline constexpr int kRowsPerThread = 4;
/// The kernel's shared-memory rows, in floats: Q, K and V rows of head_dim + 4 (padded so that the
/// float4 reads of 8 consecutive rows fall in 32 distinct banks), P rows of Bc + 4.
constexpr int smem_stride(int head_dim) { return head_dim + 4; }
inline constexpr int kPStride = kTileKv + 4;

/// Q, K, V of shape [batch, heads, seq, head_dim] (K and V with kv_heads heads), equal lengths.
struct Shape {
  int batch = 4, heads = 16, kv_heads = 16, seq = 4096, head_dim = 64;
  bool causal = false;
};

/// Elements of Q (= O) and of K (= V).
std::int64_t q_elements(const Shape& s);
std::int64_t kv_elements(const Shape& s);

/// The key tiles query tile `t` visits: all of them, or under the causal mask (equal lengths,
/// Br = Bc) the tiles 0..t.
int kv_tiles_visited(const Shape& s, int query_tile);

/// (query, key) pairs of one head that the kernel computes: whole Br x Bc tiles of the tiles it
/// visits (the causal diagonal tiles are computed, then masked).
double computed_pairs(const Shape& s);
/// Pairs of one head that the kernel's mask leaves: every one, or key j <= query i (causal).
double unmasked_pairs(const Shape& s);

/// FLOPs of the two matmuls (FMA = 2) over `pairs` of every head: 2 x batch x heads x pairs x 2d.
double matmul_flops(const Shape& s, double pairs);

/// The softmax scale the kernel applies to Q K^T: 1 / sqrt(head_dim).
double softmax_scale(const Shape& s);

/// The rows the output check compares with the host reference: `per_head` rows of every
/// (batch, head), the first and last row of the sequence and of a tile among them, the rest
/// spread by a hash; ascending, distinct, each below seq.
std::vector<int> sampled_rows(const Shape& s, int per_head, int head_index);

/// One row of attention in double: o = softmax(scale q K^T) V over the first `keys` keys, and
/// the log-sum-exp of scale q K^T (natural log). k and v are keys x d, row-major.
struct RowReference {
  std::vector<double> o;
  double lse = 0;
};
RowReference reference_row(const float* q, const float* k, const float* v, int keys, int d, double scale);

}  // namespace gpucalc::attn
