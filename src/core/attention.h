// Attention, standard and FlashAttention-style: FLOPs exact under the causal mask, the softmax's
// exponentials on the special-function units, HBM bytes, the roofline time and its bound, and the
// tiles' shared memory, accumulator registers and occupancy.
#pragma once

#include <cstdint>
#include <string>

#include "core/gpu.h"
#include "core/occupancy.h"

namespace gpucalc {

enum class AttentionPass { fwd, bwd, fwd_bwd };

struct AttentionInput {
  std::int64_t batch = 1;     // sequences in the batch
  std::int64_t heads = 1;     // query heads
  std::int64_t kv_heads = 0;  // key/value heads (0: as many as query heads, MHA); a divisor of heads
  std::int64_t seq_q = 0;     // query length
  std::int64_t seq_kv = 0;    // key/value length
  std::int64_t head_dim = 0;  // of Q and K
  std::int64_t v_dim = 0;     // of V and O (0: head_dim)
  std::string dtype = "bf16";  // of Q, K, V, O (the matmuls' inputs)
  bool causal = false;         // the mask aligned bottom-right, as FlashAttention 2 aligns it
  AttentionPass pass = AttentionPass::fwd;
  int tile_q = 128;   // Br: query rows a block holds
  int tile_kv = 64;   // Bc: key/value rows a step of its loop takes
  int stages = 1;     // buffers of the tile that streams (K,V forward; Q,dO backward)
  int warps = 4;      // warps per block
  int registers = 0;  // registers per thread for the occupancy (0: the accumulators alone)
};

/// How often FlashAttention's streamed operand (K,V forward) comes from HBM.
enum class KvReuse {
  all_in_l2,       // every head's K,V fit in L2 together: read from HBM once
  head_in_l2,      // the K,V of the heads in flight fit: once per query head, the other tiles from L2
  per_query_tile,  // neither: once per query tile, as the FlashAttention papers count
};

/// What bounds attention's time. Its word in results: attention_bound_word.
enum class AttentionBound : std::uint8_t { tensor, memory, special_function };
/// "tensor", "memory", "special_function".
const char* attention_bound_word(AttentionBound bound);

struct AttentionResult {
  std::int64_t kv_heads = 0, v_dim = 0;
  int element_bytes = 0;
  double pairs = 0;           // unmasked (query, key) pairs of one head
  double fwd_flops = 0, bwd_flops = 0, flops = 0;  // of the passes run
  double exps = 0;            // exponentials: one a score forward, one again backward (P recomputed)
  double hbm_bytes = 0;       // FlashAttention
  double hbm_bytes_standard = 0;  // S and P written to HBM and read back
  double intensity = 0;       // flops / hbm_bytes
  double intensity_standard = 0;  // flops / hbm_bytes_standard: standard (unfused) attention's
  double tensor_peak = 0, sfu_rate = 0, bandwidth = 0;
  double clock = 0;           // Hz: the tensor peak's clock, at which the special-function rate is taken
  double tensor_time = 0, sfu_time = 0, memory_time = 0, time = 0;
  double standard_memory_time = 0;  // standard attention's bytes at the bandwidth
  AttentionBound bound = AttentionBound::tensor;
  KvReuse reuse = KvReuse::per_query_tile;      // forward's K,V
  KvReuse bwd_reuse = KvReuse::per_query_tile;  // backward's Q, dO (streamed per key tile)
  std::int64_t query_tiles = 0;    // per head (per KV head when packed_gqa)
  bool packed_gqa = false;         // one query with GQA: the group's heads are the rows of a tile
  double streamed_bytes_l2 = 0;    // forward's K,V tiles' bytes as the blocks read them (L2 or HBM)
  double fwd_kv_hbm_bytes = 0;     // forward's K,V from HBM (part of hbm_bytes)
  double fwd_once_bytes = 0;       // forward's Q read, O and LSE written (part of hbm_bytes)
  // The tiles of the kernel described (forward for fwd; backward for bwd and fwd+bwd):
  std::int64_t smem_per_block = 0;
  std::int64_t accumulator_registers = 0;  // fp32 accumulators per block
  int accumulator_registers_per_thread = 0;
  int registers_per_thread = 0;  // what the occupancy was computed with
  OccupancyResult occupancy;
  bool kernel_is_backward = false;
};

/// Unmasked (query, key) pairs of one head: seq_q x seq_kv, or under the causal mask aligned
/// bottom-right (query i sees keys j <= i + seq_kv - seq_q) the exact count.
double attention_pairs(std::int64_t seq_q, std::int64_t seq_kv, bool causal);

/// Throws FieldError naming the field (kv_heads, head_dim, dtype, tile_q, ...) for inputs out of
/// range or inconsistent; a GPU without a special-function rate gets sfu_time 0 (no such bound).
AttentionResult attention(const AttentionInput& input, const Gpu& gpu);

}  // namespace gpucalc
