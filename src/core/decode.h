// LLM decode on one GPU: weight and KV-cache bytes (MHA, GQA, MQA, MLA), what fits in memory,
// a decode step's bytes, FLOPs and roofline time, tokens/s, the batch where decode turns
// compute-bound, and the prefill of a prompt.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/collective.h"
#include "core/expected.h"
#include "core/gpu.h"
#include "core/roofline.h"

namespace gpucalc {

/// A model's shape, as its config.json gives it.
struct DecodeModel {
  std::string name;              // the preset's name, empty for a model given in numbers
  double params = 0;             // every parameter
  double active_params = 0;      // a token's (MoE: shared plus its experts); 0: params
  double embedding_params = 0;   // the input embedding table: a step reads one row of it, no matmul
  std::int64_t layers = 0;
  std::int64_t heads = 0;        // query heads
  std::int64_t kv_heads = 0;     // 0: heads (MHA); 1: MQA
  std::int64_t head_dim = 0;     // of Q and K (MLA: the nope plus rope dims)
  std::int64_t v_dim = 0;        // 0: head_dim
  std::int64_t latent = 0;       // MLA: the compressed KV (kv_lora_rank) cached a token a layer; 0: not MLA
  std::int64_t rope_dim = 0;     // MLA: the decoupled RoPE key, cached too
  std::int64_t experts = 0;      // MoE: routed experts a layer (0: dense)
  std::int64_t experts_per_token = 0;
  std::int64_t window = 0;       // sliding window: the KV cache holds at most this many tokens (0: all)
  std::int64_t hidden = 0;       // the model's width d_model, what a layer's all-reduces carry a token (0: heads x head_dim)
  std::string source;            // where the numbers come from
};

/// The presets, in the order `--model` lists them.
const std::vector<DecodeModel>& decode_presets();
/// The preset of that name, or null.
const DecodeModel* find_decode_preset(const std::string& name);

struct DecodeInput {
  DecodeModel model;
  std::string weight_dtype = "bf16";
  std::string kv_dtype = "bf16";
  std::string compute_dtype = "bf16";  // the tensor-core peak the matmuls run at
  std::int64_t context = 4096;  // tokens in each sequence's KV cache at this step
  std::int64_t batch = 1;       // sequences in flight
  std::int64_t prefill = 0;     // prompt tokens to prefill (0: none)
  double bandwidth = 0, peak = 0, memory = 0;  // overrides (0: the profile's)
  // Tensor parallelism (Megatron-LM, Shoeybi et al. 2019): weights and KV cache split over `tp`
  // GPUs of one node, two all-reduces a layer over `links`.
  std::int64_t tp = 1;
  CollectiveLinks links;
  // The expected times (issue 38): how each pass's kernels are launched (a decode step from a CUDA
  // graph, as serving engines replay it; a prefill eagerly), the attention kernel's class, and the
  // kernels a layer launches (0: a plain PyTorch layer's, kLayerKernelsDecode / kLayerKernelsPrefill).
  Launch step_launch{LaunchPath::graph, 0};
  Launch prefill_launch{LaunchPath::eager, 0};
  AttentionImpl impl = AttentionImpl::fa3;
  std::int64_t kernels_per_layer = 0;
};

// The kernels of a plain PyTorch (Hugging Face-style) Llama layer, ATen op by op
// (scripts/probes/expect38.py's Llama.layer; docs/decode.md derives the count): F.rms_norm (one
// fused kernel on CUDA), the q, k, v projections, rotate_half's neg, cat, two muls and an add for
// each of q and k, the two KV-cache copies (a decode step only), SDPA, the o projection, the
// residual add, F.rms_norm, gate, up, silu, mul, down, the residual add. Views (view, transpose,
// slices, reshape of a contiguous tensor) launch nothing.
constexpr std::int64_t kLayerGemms = 7;
constexpr std::int64_t kLayerKernelsDecode = 26;   // 7 GEMMs, 1 attention, 18 streaming
constexpr std::int64_t kLayerKernelsPrefill = 24;  // no KV-cache copies
// A forward's kernels outside its layers: the embedding gather, the rotary tables (arange, div,
// pow, reciprocal, the positions' cast, mul, cos twice, cat, cast, sin twice, cat, cast: 14), the
// final norm and the LM head.
constexpr std::int64_t kForwardKernels = 17;

/// Why a decode has no expected times.
enum class ExpectedGap : std::uint8_t { none, profile, experts, latent, tp, dtype, shape };

/// A pass's (a decode step's or a prefill's) expected time from its kernels.
struct PassExpected {
  double gemm_time = 0;       // the GEMMs' own times (expected_gemm): 7 a layer and the LM head
  double attention_time = 0;  // the attention kernels' (expected_attention), one a layer
  double stream_bytes = 0;    // the streaming kernels' bytes (norms, rotary, KV-cache copies, adds, silu, mul, gather)
  double stream_kernels = 0;  // the streaming kernels: kernels less a layer's GEMMs and attention and the LM head
  double stream_time = 0;     // those bytes at memory_bandwidth_achievable + stream_kernels x kernel_start_latency
  double busy = 0;            // the kernels' own times: the GPU with no gaps
  double kernels = 0;         // kernels the pass launches
  double time = 0;            // launched_time(busy, kernels, the pass's launch path)
  bool attention_memory_bound = false;
};

struct DecodeResult {
  double bandwidth = 0, peak = 0, memory = 0;
  double weight_bytes = 0;         // every parameter, resident
  double kv_bytes_per_token = 0;   // all layers
  std::int64_t kv_tokens = 0;      // tokens cached per sequence: the context, or the window
  double kv_bytes = 0;             // batch x kv_tokens x kv_bytes_per_token
  double memory_needed = 0;
  bool fits = false;
  bool weights_fit = false;
  double max_context = 0;          // at this batch (0: the weights alone do not fit; inf: a window caps it)
  double max_batch = 0;            // at this context
  double experts_touched = 1;      // MoE: the expected fraction of routed-expert weights a step reads
  double step_weight_bytes = 0;    // weights a step reads
  double step_kv_bytes = 0;        // KV read, and the new token's written
  double step_bytes = 0;
  double linear_flops = 0, attention_flops = 0, step_flops = 0;
  double linear_time = 0, attention_time = 0, step_time = 0;
  RooflineBound bound = RooflineBound::memory;  // of the weights' matmuls
  double tokens_per_second = 0;    // all sequences
  double tokens_per_second_per_sequence = 0;
  double compute_bound_batch = 0;  // the batch where the matmuls' FLOPs take as long as the weights' bytes
  double prefill_flops = 0, prefill_bytes = 0, prefill_time = 0;
  // tensor parallelism (tp above 1): per GPU, memory_needed and the step's bytes and FLOPs are a
  // GPU's share; the all-reduces' time is added to the step's
  std::int64_t hidden = 0;
  double activation_bytes = 0;      // bytes of an activation element the all-reduces carry
  double allreduce_bytes = 0;       // one all-reduce: batch x hidden x activation bytes
  CollectiveResult allreduce;       // its time over the links
  double comm_time = 0;             // 2 x layers x the all-reduce's time
  double prefill_comm_time = 0;     // the prefill's: 2 x layers all-reduces of prefill x hidden
  // expected times (issue 38), where expected_gap is none: a dense model without MLA on one GPU,
  // weights in the matmuls' type, a profile with the achievable ceilings
  ExpectedGap expected_gap = ExpectedGap::none;
  std::int64_t intermediate = 0;    // the MLP's width, from the parameters (a gated MLP, an untied LM head)
  std::int64_t vocab = 0;           // embedding_params / hidden
  PassExpected step_expected;
  PassExpected prefill_expected;    // --prefill tokens for each of the batch's sequences
};

/// Throws FieldError for a model that is not whole (no layers, heads not divisible by kv_heads,
/// active above total parameters) or a dtype without a tensor peak on this GPU. A model that
/// does not fit is an answer (fits false), not an error.
DecodeResult decode(const DecodeInput& input, const Gpu& gpu);

/// KV-cache bytes a token, all layers: 2 x kv_heads x head_dim (K and V), or MLA's latent + rope
/// dims, x layers x the element size.
double kv_bytes_per_token(const DecodeModel& m, double element_bytes);

}  // namespace gpucalc
