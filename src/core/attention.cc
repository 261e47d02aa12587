#include "core/attention.h"


#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace gpucalc {
namespace {

constexpr double kLseBytes = 4;  // the log-sum-exp of a row (and backward's D = rowsum(dO * O)): fp32

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

void check_inputs(const AttentionInput& in, const Gpu& gpu) {
  auto positive = [](const char* field, std::int64_t v) {
    if (v < 1) throw FieldError(field, static_cast<double>(v), Rule::at_least).lo(1);
  };
  positive("batch", in.batch);
  positive("heads", in.heads);
  positive("seq_q", in.seq_q);
  positive("seq_kv", in.seq_kv);
  if (in.kv_heads != 0 && (in.kv_heads < 1 || in.heads % in.kv_heads != 0)) {
    throw FieldError("kv_heads", static_cast<double>(in.kv_heads), Rule::divisor_of).hi(static_cast<double>(in.heads)).other("heads");
  }
  // The QK^T matmul's K dimension is the head dimension: tensor-core rows of 16 bytes (8 bf16).
  auto dim = [](const char* field, std::int64_t v) {
    if (v < 8 || v > 512 || v % 8 != 0) throw FieldError(field, static_cast<double>(v), Rule::in_range).range(8, 512).step(8);
  };
  dim("head_dim", in.head_dim);
  if (in.v_dim != 0) dim("v_dim", in.v_dim);
  // Tensor-core MMA tiles have 16 rows.
  auto tile = [](const char* field, int v) {
    if (v < 16 || v > 256 || v % 16 != 0) throw FieldError(field, v, Rule::in_range).range(16, 256).step(16);
  };
  tile("tile_q", in.tile_q);
  tile("tile_kv", in.tile_kv);
  if (in.stages < 1 || in.stages > 8) throw FieldError("stages", in.stages, Rule::in_range).range(1, 8);
  if (in.warps < 1 || in.warps * gpu.warp_size > gpu.max_threads_per_block) {
    throw FieldError("warps", in.warps, Rule::in_range).range(1, gpu.max_threads_per_block / gpu.warp_size)
        .fact("threads", gpu.max_threads_per_block);
  }
}

// Keys a query tile's last row sees (bottom-right causal: row i sees keys j <= i + seq_kv - seq_q),
// rounded up to whole key tiles as a kernel loads them, at most seq_kv.
std::int64_t keys_loaded(std::int64_t last_row, const AttentionInput& in) {
  if (!in.causal) return in.seq_kv;
  const std::int64_t seen = std::clamp<std::int64_t>(last_row + in.seq_kv - in.seq_q + 1, 0, in.seq_kv);
  return std::min(in.seq_kv, ceil_div(seen, in.tile_kv) * in.tile_kv);
}

// Queries a key tile (first key `first_key`) is seen by, from the query tile holding the first of
// them to the end, as the backward kernel streams them.
std::int64_t queries_loaded(std::int64_t first_key, const AttentionInput& in) {
  if (!in.causal) return in.seq_q;
  const std::int64_t first = std::max<std::int64_t>(0, first_key - (in.seq_kv - in.seq_q));
  if (first >= in.seq_q) return 0;
  return in.seq_q - first / in.tile_q * in.tile_q;
}

// The tiles' shared memory and fp32 accumulators; the occupancy they allow.
void tiles(const AttentionInput& in, const Gpu& gpu, AttentionResult& r) {
  const std::int64_t br = in.tile_q, bc = in.tile_kv, d = in.head_dim, dv = r.v_dim, e = r.element_bytes;
  r.kernel_is_backward = in.pass != AttentionPass::fwd;
  if (!r.kernel_is_backward) {
    // forward: Q tile held, K and V tiles streamed (stages deep); O and S accumulate in registers
    r.smem_per_block = (br * d + in.stages * bc * (d + dv)) * e;
    r.accumulator_registers = br * (dv + bc);
  } else {
    // backward: K and V tiles held, Q and dO streamed with their LSE and D; P/dS staged in shared
    // memory; dK, dV and S/dP accumulate in registers
    r.smem_per_block = (bc * (d + dv) + in.stages * br * (d + dv) + br * bc) * e +
                       in.stages * br * 2 * static_cast<std::int64_t>(kLseBytes);
    r.accumulator_registers = bc * (d + dv) + br * bc;
  }
  const int threads = in.warps * gpu.warp_size;
  r.accumulator_registers_per_thread = static_cast<int>(ceil_div(r.accumulator_registers, threads));
  const int wanted = in.registers > 0 ? in.registers : r.accumulator_registers_per_thread;
  r.registers_per_thread = std::clamp(wanted, 1, gpu.max_registers_per_thread);
  OccupancyInput occ;
  occ.threads = threads;
  occ.registers = r.registers_per_thread;
  occ.shared_memory = r.smem_per_block;
  r.occupancy = launch_occupancy(occ, gpu);
}

// How often the streamed operand comes from HBM: once in all, once per query head, or once per
// tile. `per_head` is one (batch, head)'s operand, `heads` how many such operands there are,
// `tiles` the blocks of one head; `streamed` the bytes as the blocks read them.
double streamed_from_hbm(double per_head, double heads_sharing, double heads, std::int64_t tiles, double streamed,
                         const Gpu& gpu, const AttentionResult& r, KvReuse& reuse) {
  const double l2 = static_cast<double>(gpu.l2_size);
  if (heads_sharing * per_head <= l2) {
    reuse = KvReuse::all_in_l2;
    return std::min(streamed, heads_sharing * per_head);
  }
  // Blocks in flight at once (one wave), the tiles of a head adjacent in the launch order: they
  // span at most ceil(in flight / tiles) + 1 heads.
  const double blocks = heads * static_cast<double>(tiles);
  const double in_flight = std::min(blocks, static_cast<double>(gpu.sm_count) * std::max(1, r.occupancy.blocks_per_sm));
  const double heads_in_flight = std::min(heads, std::ceil(in_flight / static_cast<double>(tiles)) + 1);
  if (heads_in_flight * per_head <= l2) {
    reuse = KvReuse::head_in_l2;
    return std::min(streamed, heads * per_head);
  }
  reuse = KvReuse::per_query_tile;
  return streamed;
}

void forward_bytes(const AttentionInput& in, const Gpu& gpu, AttentionResult& r) {
  const double b = static_cast<double>(in.batch), h = static_cast<double>(in.heads), e = r.element_bytes;
  const double d = static_cast<double>(in.head_dim), dv = static_cast<double>(r.v_dim);
  const double sq = static_cast<double>(in.seq_q), sk = static_cast<double>(in.seq_kv);
  // One query (decode) with GQA: FlashAttention 2 swaps the group's query heads into the rows of
  // one tile (seqlenq_ngroups_swapped), so the tiles are a KV head's, not a query head's.
  const std::int64_t group = in.heads / r.kv_heads;
  r.packed_gqa = in.seq_q == 1 && group > 1;
  AttentionInput rows = in;
  if (r.packed_gqa) {
    rows.seq_q = group;
    rows.causal = false;  // a single query sees every key
  }
  const double tile_heads = r.packed_gqa ? static_cast<double>(r.kv_heads) : h;
  r.query_tiles = ceil_div(rows.seq_q, rows.tile_q);
  double keys = 0;  // keys loaded by all query tiles of one head
  for (std::int64_t t = 0; t < r.query_tiles; ++t) {
    keys += static_cast<double>(keys_loaded(std::min(rows.seq_q, (t + 1) * rows.tile_q) - 1, rows));
  }
  r.streamed_bytes_l2 = b * tile_heads * keys * (d + dv) * e;
  const double kv = streamed_from_hbm(sk * (d + dv) * e, b * static_cast<double>(r.kv_heads), b * tile_heads,
                                      r.query_tiles, r.streamed_bytes_l2, gpu, r, r.reuse);
  // Q read, O and the log-sum-exp written, once each; K and V as streamed_from_hbm says
  r.fwd_once_bytes = b * h * sq * (d * e + dv * e + kLseBytes);
  r.fwd_kv_hbm_bytes = kv;
  r.hbm_bytes += r.fwd_once_bytes + kv;
  // standard (FlashAttention paper, Algorithm 0): Q, K read, S written; S read, P written; P, V
  // read, O written: each of S and P goes to HBM and back
  r.hbm_bytes_standard += b * h * e * (sq * d + sk * d + sk * dv + sq * dv + 4 * sq * sk);
}

void backward_bytes(const AttentionInput& in, const Gpu& gpu, AttentionResult& r) {
  const double b = static_cast<double>(in.batch), h = static_cast<double>(in.heads), e = r.element_bytes;
  const double hk = static_cast<double>(r.kv_heads);
  const double d = static_cast<double>(in.head_dim), dv = static_cast<double>(r.v_dim);
  const double sq = static_cast<double>(in.seq_q), sk = static_cast<double>(in.seq_kv);
  const std::int64_t kv_tiles = ceil_div(in.seq_kv, in.tile_kv);
  double queries = 0;  // queries loaded by all key tiles of one head
  for (std::int64_t t = 0; t < kv_tiles; ++t) queries += static_cast<double>(queries_loaded(t * in.tile_kv, in));
  const double per_query = (d + dv) * e + 2 * kLseBytes;  // Q, dO, LSE and D of one row
  const double streamed = b * h * queries * per_query;
  const double q = streamed_from_hbm(sq * per_query, b * h, b * h, kv_tiles, streamed, gpu, r, r.bwd_reuse);
  // D = rowsum(dO * O): O and dO read, D written; K, V read and dK, dV written once; dQ summed in
  // fp32 (written and read back once, the atomics in L2), then written in the dtype
  r.hbm_bytes += b * h * sq * (2 * dv * e + kLseBytes) + 2 * b * hk * sk * (d + dv) * e + q +
                 b * h * sq * d * (2 * 4 + e);
  // standard (FlashAttention paper, Algorithm 3): P, dO read, dV written; dO, V read, dP written;
  // P, dP read, dS written; dS, K read, dQ written; dS, Q read, dK written
  r.hbm_bytes_standard += b * h * e * (2 * sq * dv + 2 * sk * dv + 2 * sk * d + 2 * sq * d + 7 * sq * sk);
}

}  // namespace

double attention_pairs(std::int64_t seq_q, std::int64_t seq_kv, bool causal) {
  const double sq = static_cast<double>(seq_q), sk = static_cast<double>(seq_kv);
  if (!causal) return sq * sk;
  // seq_kv >= seq_q: row i sees i + seq_kv - seq_q + 1 keys: sq sk - sq (sq - 1) / 2
  if (seq_kv >= seq_q) return sq * sk - sq * (sq - 1) / 2;
  // seq_q > seq_kv: the first seq_q - seq_kv rows see no key, the rest 1 to seq_kv
  return sk * (sk + 1) / 2;
}

const char* attention_bound_word(AttentionBound bound) {
  switch (bound) {
    case AttentionBound::tensor: return "tensor";
    case AttentionBound::memory: return "memory";
    case AttentionBound::special_function: return "special_function";
  }
  return "";
}

AttentionResult attention(const AttentionInput& in, const Gpu& gpu) {
  check_inputs(in, gpu);
  AttentionResult r;
  r.kv_heads = in.kv_heads == 0 ? in.heads : in.kv_heads;
  r.v_dim = in.v_dim == 0 ? in.head_dim : in.v_dim;
  const Dtype& dtype = dtype_by_name(in.dtype, "dtype");
  r.element_bytes = dtype.bytes;
  r.tensor_peak = gpu.peak(ComputeUnit::tensor, in.dtype);
  if (!(r.tensor_peak > 0) || dtype.bytes < 1) {
    throw FieldError("dtype", in.dtype, Rule::one_of).choices(gpu.dtypes_with_peak(ComputeUnit::tensor));
  }
  const double b = static_cast<double>(in.batch), h = static_cast<double>(in.heads);
  const double d = static_cast<double>(in.head_dim), dv = static_cast<double>(r.v_dim);
  r.pairs = attention_pairs(in.seq_q, in.seq_kv, in.causal);
  const bool fwd = in.pass != AttentionPass::bwd, bwd = in.pass != AttentionPass::fwd;
  // forward: S = Q K^T (2 d a pair) and O = P V (2 dv a pair)
  r.fwd_flops = 2 * b * h * r.pairs * (d + dv);
  // backward, five matmuls: S = Q K^T again (d), dV = P^T dO (dv), dP = dO V^T (dv), dQ = dS K (d),
  // dK = dS^T Q (d)
  r.bwd_flops = 2 * b * h * r.pairs * (3 * d + 2 * dv);
  r.flops = (fwd ? r.fwd_flops : 0) + (bwd ? r.bwd_flops : 0);
  // one exponential a score forward (P = exp(S - m)), one again backward (P recomputed from the LSE)
  r.exps = b * h * r.pairs * ((fwd ? 1 : 0) + (bwd ? 1 : 0));
  tiles(in, gpu, r);
  if (fwd) forward_bytes(in, gpu, r);
  if (bwd) backward_bytes(in, gpu, r);
  r.intensity = r.flops / r.hbm_bytes;
  // standard attention does the same matmuls, its S and P through HBM: flops / its bytes
  r.intensity_standard = r.flops / r.hbm_bytes_standard;
  r.bandwidth = gpu.memory_bandwidth;
  // special-function rate = ops per clock per SM x SMs x clock, the clock the tensor peak holds at
  // (gpu.h peak_tensor_clock): the H100's 989.4 TFLOP/s hold at 1.83 GHz, not its 1.98 GHz boost,
  // and one answer's rates are all at one clock
  r.clock = gpu.peak_clock(ComputeUnit::tensor);
  r.sfu_rate = static_cast<double>(gpu.sfu_ops_per_sm_per_cycle) * gpu.sm_count * r.clock;
  r.tensor_time = r.flops / r.tensor_peak;
  r.memory_time = r.hbm_bytes / r.bandwidth;
  r.sfu_time = r.sfu_rate > 0 ? r.exps / r.sfu_rate : 0;
  r.time = std::max({r.tensor_time, r.memory_time, r.sfu_time});
  r.bound = r.time == r.tensor_time ? AttentionBound::tensor : r.time == r.memory_time ? AttentionBound::memory : AttentionBound::special_function;
  r.standard_memory_time = r.hbm_bytes_standard / r.bandwidth;
  return r;
}

}  // namespace gpucalc
