#include "core/decode.h"


#include <algorithm>
#include <cmath>
#include <limits>

#include "core/attention.h"
#include "core/error.h"

namespace gpucalc {
namespace {

// Parameters a step reads: all but the input embedding table (one row of it a token), the routed
// experts at the fraction the batch touches.
double params_read(const DecodeModel& m, double touched) {
  const double body = m.params - m.embedding_params;
  if (m.experts == 0) return body;
  // shared + n e = params and shared + k e = active give the routed experts' n e
  const double n = static_cast<double>(m.experts), k = static_cast<double>(m.experts_per_token);
  const double routed = (m.params - m.active_params) * n / (n - k);
  return body - routed + routed * touched;
}

// The expected fraction of a layer's routed experts that `tokens` tokens choose between them, each
// its k of n uniformly: 1 - (1 - k/n)^tokens.
double touched_fraction(const DecodeModel& m, double tokens) {
  if (m.experts == 0) return 1;
  const double miss = 1 - static_cast<double>(m.experts_per_token) / static_cast<double>(m.experts);
  return 1 - std::pow(miss, tokens);
}

void check_model(const DecodeModel& m) {
  auto positive = [](const char* field, double v) {
    if (!(v >= 1) || !std::isfinite(v)) throw FieldError(field, v, Rule::at_least).lo(1);
  };
  positive("params", m.params);
  positive("layers", static_cast<double>(m.layers));
  positive("heads", static_cast<double>(m.heads));
  positive("head_dim", static_cast<double>(m.head_dim));
  if (m.kv_heads != 0 && (m.kv_heads < 1 || m.heads % m.kv_heads != 0)) {
    throw FieldError("kv_heads", static_cast<double>(m.kv_heads), Rule::divisor_of).hi(static_cast<double>(m.heads)).other("heads");
  }
  if (m.active_params != 0 && !(m.active_params <= m.params)) {
    throw FieldError("active_params", m.active_params, Rule::at_most).hi(m.params).other("params");
  }
  const bool moe_active = m.active_params != 0;
  if (!(m.embedding_params < (moe_active ? m.active_params : m.params))) {
    throw FieldError("embedding_params", m.embedding_params, Rule::below)
        .hi(moe_active ? m.active_params : m.params)
        .other(moe_active ? "active_params" : "params");
  }
  // Routed experts: a token's k of n (fewer than n), both given or neither (a dense model).
  if (m.experts == 0 && m.experts_per_token != 0) {
    throw FieldError("experts_per_token", static_cast<double>(m.experts_per_token), Rule::needs).other("experts");
  }
  if (m.experts != 0 && m.experts_per_token == 0) {
    throw FieldError("experts_per_token", "", Rule::required).other("experts");
  }
  if (m.experts != 0 && (m.experts_per_token < 1 || m.experts_per_token >= m.experts)) {
    throw FieldError("experts_per_token", static_cast<double>(m.experts_per_token), Rule::in_range)
        .range(1, static_cast<double>(std::max<std::int64_t>(m.experts - 1, 1)))
        .other("experts");
  }
  if (m.experts > 0 && m.active_params == 0) throw FieldError("active_params", "", Rule::required).other("experts");
  if (m.rope_dim != 0 && m.latent == 0) throw FieldError("rope_dim", static_cast<double>(m.rope_dim), Rule::needs).other("latent");
}

double dtype_bytes(const std::string& name, const char* field) {
  const Dtype& d = dtype_by_name(name, field);
  if (d.bytes < 1) throw FieldError(field, name, Rule::one_of).choices(whole_byte_dtype_names());
  return d.bytes;
}

// The weights' bytes a parameter: sub-byte types too (int4, fp4: two a byte, as packed weights are)
double weight_element_bytes(const std::string& name) { return element_bytes(dtype_by_name(name, "weight_dtype")); }

// The decode step's attention FLOPs a sequence a layer: QK^T and PV over the cached tokens; MLA
// (weights absorbed) scores against the latent plus the RoPE key and sums over the latent.
double attention_flops_per_token_layer(const DecodeModel& m, double tokens) {
  const double h = static_cast<double>(m.heads);
  if (m.latent > 0) return 2 * tokens * h * static_cast<double>(2 * m.latent + m.rope_dim);
  const double dv = static_cast<double>(m.v_dim != 0 ? m.v_dim : m.head_dim);
  return 2 * tokens * h * (static_cast<double>(m.head_dim) + dv);
}

// The smallest batch (a real number) at which the matmuls' FLOPs take as long as the weights'
// bytes: 2 B P_active / peak = bytes(B) / bandwidth. Dense: B = bytes / (2 P) x ridge.
double compute_bound_batch(const DecodeModel& m, double wbytes, double active_body, const DecodeResult& r) {
  auto gap = [&](double b) {
    return 2 * b * active_body / r.peak - params_read(m, touched_fraction(m, b)) * wbytes / r.bandwidth;
  };
  if (m.experts == 0) return params_read(m, 1) * wbytes / r.bandwidth / (2 * active_body / r.peak);
  double lo = 0, hi = 1;
  while (gap(hi) < 0 && hi < 1e12) hi *= 2;
  for (int i = 0; i < 200; ++i) {
    const double mid = (lo + hi) / 2;
    (gap(mid) < 0 ? lo : hi) = mid;
  }
  return hi;
}

// The GPUs the KV cache is split over under tensor parallelism: its heads' (Megatron splits the
// attention by heads; past the KV heads, GQA's are copied, as vLLM does), none for MLA, whose
// one latent every head reads (copied on every GPU).
double kv_split(const DecodeModel& m, std::int64_t tp) {
  if (m.latent > 0) return 1;
  const std::int64_t kv = m.kv_heads != 0 ? m.kv_heads : m.heads;
  return static_cast<double>(std::min(tp, kv));
}

void fit(const DecodeInput& in, DecodeResult& r) {
  // a GPU's share: the weights over tp GPUs, the cache over its split
  const double tp = static_cast<double>(in.tp), split = kv_split(in.model, in.tp);
  const double free = r.memory - r.weight_bytes / tp;
  r.weights_fit = free > 0;
  r.fits = r.memory_needed <= r.memory;
  if (!r.weights_fit) return;
  const double b = static_cast<double>(in.batch);
  const double window = static_cast<double>(in.model.window);
  // longest context at this batch: free / (batch x a GPU's bytes a token); a window caps the cache
  r.max_context = std::floor(free / (b * r.kv_bytes_per_token / split));
  if (window > 0 && r.max_context >= window) r.max_context = std::numeric_limits<double>::infinity();
  // largest batch at this context: free / (cached tokens x a GPU's bytes a token)
  r.max_batch = std::floor(free / (static_cast<double>(r.kv_tokens) * r.kv_bytes_per_token / split));
}

// One all-reduce of `tokens` rows of the model's width over the tensor-parallel GPUs of one node.
CollectiveResult tp_allreduce(const DecodeInput& in, double tokens, double width, double element) {
  CollectiveInput c;
  c.op = CollectiveOp::allreduce;
  c.size = tokens * width * element;
  c.gpus = in.tp;
  c.nodes = 1;
  c.links = in.links;
  return collective(c);
}

void prefill(const DecodeInput& in, double wbytes, double active_body, DecodeResult& r) {
  const DecodeModel& m = in.model;
  const double n = static_cast<double>(in.prefill);
  // the prompt's matmuls: 2 N P_active; its causal attention: every (query, key) pair at or before it
  const double pairs = attention_pairs(in.prefill, in.prefill, true);
  const double qk = static_cast<double>(m.head_dim), v = static_cast<double>(m.v_dim != 0 ? m.v_dim : m.head_dim);
  r.prefill_flops = 2 * n * active_body + 2 * pairs * static_cast<double>(m.layers * m.heads) * (qk + v);
  // the weights the prompt's tokens touch, read once; the prompt's KV written
  r.prefill_bytes = params_read(m, touched_fraction(m, n)) * wbytes +
                    std::min(n, m.window > 0 ? static_cast<double>(m.window) : n) * r.kv_bytes_per_token;
  // a GPU's share of both over tp GPUs, and the prompt's 2 all-reduces a layer of N x hidden
  const double tp = static_cast<double>(in.tp);
  r.prefill_time = std::max(r.prefill_flops / tp / r.peak, r.prefill_bytes / tp / r.bandwidth);
  if (in.tp > 1) {
    r.prefill_comm_time = 2 * static_cast<double>(m.layers) * tp_allreduce(in, n, static_cast<double>(r.hidden), r.activation_bytes).chosen.time;
    r.prefill_time += r.prefill_comm_time;
  }
}

// The MLP's width of a dense model from its parameters: an untied LM head as large as the embedding
// table, a final norm, and a layer of the attention's four projections, two norms and a gated MLP
// (gate, up, down: 3 x hidden x intermediate), as Llama's config.json shapes sum to its parameters.
double derived_intermediate(const DecodeModel& m, double hidden) {
  const double h = static_cast<double>(m.heads), kv = static_cast<double>(m.kv_heads != 0 ? m.kv_heads : m.heads);
  const double qk = static_cast<double>(m.head_dim), v = static_cast<double>(m.v_dim != 0 ? m.v_dim : m.head_dim);
  const double attention = hidden * (h * qk + kv * qk + kv * v) + h * v * hidden;
  const double layer = (m.params - 2 * m.embedding_params - hidden) / static_cast<double>(m.layers);
  return std::round((layer - attention - 2 * hidden) / (3 * hidden));
}

// One pass (a decode step: `rows` = batch tokens attending `keys` cached tokens; a prefill: `rows`
// = batch x prompt tokens, causal) as the kernels of kLayerKernels* run it.
PassExpected expected_pass(const DecodeInput& in, const DecodeResult& r, const Gpu& gpu, bool step) {
  const DecodeModel& m = in.model;
  const double b = static_cast<double>(in.batch);
  const double s = step ? 1 : static_cast<double>(in.prefill);
  const double t = b * s;  // the rows every GEMM and streaming kernel of a layer runs over
  const double layers = static_cast<double>(m.layers), hidden = static_cast<double>(r.hidden);
  const double heads = static_cast<double>(m.heads), kv = static_cast<double>(m.kv_heads != 0 ? m.kv_heads : m.heads);
  const double qk = static_cast<double>(m.head_dim), v = static_cast<double>(m.v_dim != 0 ? m.v_dim : m.head_dim);
  const double inter = static_cast<double>(r.intermediate);
  const double e = r.activation_bytes, kv_e = dtype_bytes(in.kv_dtype, "kv_dtype");
  const std::string& dtype = in.compute_dtype;
  PassExpected p;
  // a layer's GEMMs, M = the rows: q, k, v, o, gate, up, down
  const double shapes[kLayerGemms][2] = {{heads * qk, hidden}, {kv * qk, hidden}, {kv * v, hidden}, {hidden, heads * v},
                                         {inter, hidden},      {inter, hidden},   {hidden, inter}};
  double layer_gemms = 0;
  for (const auto& nk : shapes) layer_gemms += expected_gemm(gpu, t, nk[0], nk[1], dtype).time;
  p.gemm_time = layers * layer_gemms;
  // the LM head over the last token of each sequence
  if (r.vocab > 0) p.gemm_time += expected_gemm(gpu, b, static_cast<double>(r.vocab), hidden, dtype).time;
  // a layer's attention: a step's one query a sequence against the cache and the new token; a
  // prefill's causal pairs, each sequence its own
  double flops = 0, exps = 0, kv_bytes = 0;
  if (step) {
    const double keys = static_cast<double>(std::min(r.kv_tokens + 1, m.window > 0 ? m.window : r.kv_tokens + 1));
    exps = b * heads * keys;
    flops = 2 * exps * (qk + v);
    kv_bytes = b * kv * keys * (qk + v) * kv_e;
  } else {
    exps = b * heads * attention_pairs(in.prefill, in.prefill, true);
    flops = 2 * exps * (qk + v);
    kv_bytes = b * kv * s * (qk + v) * kv_e;
  }
  const AttentionExpected a = expected_attention(gpu, in.impl, flops, exps, kv_bytes);
  p.attention_time = layers * a.time;
  p.attention_memory_bound = a.memory_bound;
  // a layer's streaming kernels, read + write: 2 norms (2 t hidden each), rotate_half on q and k
  // (neg t d, cat 2 t d, two muls 2 t d each, add 3 t d: 10 t d), 2 residual adds (3 t hidden
  // each), silu (2 t inter), mul (3 t inter); a step's 2 KV-cache copies (2 t (k, v widths))
  double layer_elements = 4 * hidden + 10 * (heads * qk + kv * qk) + 6 * hidden + 5 * inter;
  if (step) layer_elements += 2 * kv * (qk + v);
  // the forward's: the embedding gather (2 t hidden) and the final norm over the last tokens (2 b hidden)
  p.stream_bytes = (layers * t * layer_elements + 2 * t * hidden + 2 * b * hidden) * e;
  const double per_layer = in.kernels_per_layer > 0 ? static_cast<double>(in.kernels_per_layer)
                           : step                   ? static_cast<double>(kLayerKernelsDecode)
                                                    : static_cast<double>(kLayerKernelsPrefill);
  p.kernels = layers * per_layer + static_cast<double>(kForwardKernels);
  // the streaming kernels: all but a layer's GEMMs and attention and the LM head; each starts with
  // its first loads' latency (the GEMMs' and attention's gemm_fixed_time holds theirs)
  p.stream_kernels = std::max(0.0, p.kernels - layers * static_cast<double>(kLayerGemms + 1) - 1);
  p.stream_time = expected_stream_time(gpu, p.stream_bytes) + p.stream_kernels * kernel_start_latency(gpu);
  p.busy = p.gemm_time + p.attention_time + p.stream_time;
  p.time = launched_time(p.busy, p.kernels, step ? in.step_launch : in.prefill_launch, gpu);
  return p;
}

// Why the expected times cannot be given, or none.
ExpectedGap expected_gap(const DecodeInput& in, const DecodeResult& r, const Gpu& gpu) {
  const DecodeModel& m = in.model;
  const bool fa2 = in.impl == AttentionImpl::fa2;
  const double rate = fa2 ? gpu.attention_mma_achievable : gpu.attention_wgmma_achievable;
  const double kv = fa2 ? gpu.attention_mma_kv_bandwidth : gpu.attention_wgmma_kv_bandwidth;
  if (!has_achievable(gpu) || !(rate > 0) || !(kv > 0)) {
    return ExpectedGap::profile;
  }
  if (m.experts > 0) return ExpectedGap::experts;
  if (m.latent > 0) return ExpectedGap::latent;
  if (in.tp > 1) return ExpectedGap::tp;
  if (in.weight_dtype != in.compute_dtype || !(gpu.peak(ComputeUnit::tensor, in.compute_dtype) > 0)) return ExpectedGap::dtype;
  if (r.intermediate < 1) return ExpectedGap::shape;
  return ExpectedGap::none;
}

}  // namespace

double kv_bytes_per_token(const DecodeModel& m, double element_bytes) {
  const double layers = static_cast<double>(m.layers);
  if (m.latent > 0) return static_cast<double>(m.latent + m.rope_dim) * layers * element_bytes;
  const double kv = static_cast<double>(m.kv_heads != 0 ? m.kv_heads : m.heads);
  const double dv = static_cast<double>(m.v_dim != 0 ? m.v_dim : m.head_dim);
  return kv * (static_cast<double>(m.head_dim) + dv) * layers * element_bytes;
}

DecodeResult decode(const DecodeInput& in, const Gpu& gpu) {
  const DecodeModel& m = in.model;
  check_model(m);
  DecodeResult r;
  const double wbytes = weight_element_bytes(in.weight_dtype);
  const double kvbytes = dtype_bytes(in.kv_dtype, "kv_dtype");
  r.peak = in.peak > 0 ? in.peak : gpu.peak(ComputeUnit::tensor, in.compute_dtype);
  if (!(r.peak > 0)) {
    throw FieldError("compute_dtype", in.compute_dtype, Rule::one_of).choices(gpu.dtypes_with_peak(ComputeUnit::tensor));
  }
  r.bandwidth = in.bandwidth > 0 ? in.bandwidth : gpu.memory_bandwidth;
  r.memory = in.memory > 0 ? in.memory : static_cast<double>(gpu.memory_size);
  if (in.tp < 1) throw FieldError("tp", static_cast<double>(in.tp), Rule::at_least).lo(1);
  // Megatron splits the attention by heads: each GPU its heads/tp
  if (in.tp > 1 && m.heads % in.tp != 0) {
    throw FieldError("tp", static_cast<double>(in.tp), Rule::divisor_of).hi(static_cast<double>(m.heads)).other("heads");
  }
  if (in.tp > 1) check_positive("link", in.links.link_bandwidth);
  r.hidden = m.hidden > 0 ? m.hidden : m.heads * m.head_dim;
  // the activations the all-reduces carry: the matmuls' output type, at least 16 bits (an FP8
  // GEMM writes bf16)
  r.activation_bytes = std::max(2.0, element_bytes(dtype_by_name(in.compute_dtype, "compute_dtype")));
  const double tp = static_cast<double>(in.tp), split = kv_split(m, in.tp);
  const double b = static_cast<double>(in.batch);
  const double active = m.active_params != 0 ? m.active_params : m.params;
  const double active_body = active - m.embedding_params;  // the matmuls' parameters
  r.weight_bytes = m.params * wbytes;
  r.kv_bytes_per_token = kv_bytes_per_token(m, kvbytes);
  r.kv_tokens = m.window > 0 ? std::min(in.context, m.window) : in.context;
  r.kv_bytes = b * static_cast<double>(r.kv_tokens) * r.kv_bytes_per_token;
  // a GPU's: its share of the weights and of the cache
  r.memory_needed = r.weight_bytes / tp + r.kv_bytes / split;
  fit(in, r);
  // a step: the weights the batch's tokens touch, every sequence's cache read, the new token's K,V written
  r.experts_touched = touched_fraction(m, b);
  r.step_weight_bytes = params_read(m, r.experts_touched) * wbytes;
  r.step_kv_bytes = r.kv_bytes + b * r.kv_bytes_per_token;
  r.step_bytes = r.step_weight_bytes + r.step_kv_bytes;
  r.linear_flops = 2 * b * active_body;
  r.attention_flops = b * static_cast<double>(m.layers) * attention_flops_per_token_layer(m, static_cast<double>(r.kv_tokens));
  r.step_flops = r.linear_flops + r.attention_flops;
  // the scaling book's step time: the matmuls max(FLOPs / peak, weight bytes / bandwidth) plus the
  // attention max(FLOPs / peak, KV bytes / bandwidth), each sequence its own cache
  // attention, each sequence its own cache; under tensor parallelism each GPU its share (the FLOPs
  // and weights over tp, the cache over its split) and 2 all-reduces a layer of batch x hidden
  // (Megatron-LM: after the attention's output projection and the MLP's down projection)
  r.linear_time = std::max(r.linear_flops / tp / r.peak, r.step_weight_bytes / tp / r.bandwidth);
  r.attention_time = std::max(r.attention_flops / tp / r.peak, r.step_kv_bytes / split / r.bandwidth);
  if (in.tp > 1) {
    r.allreduce_bytes = b * static_cast<double>(r.hidden) * r.activation_bytes;
    r.allreduce = tp_allreduce(in, b, static_cast<double>(r.hidden), r.activation_bytes);
    r.comm_time = 2 * static_cast<double>(m.layers) * r.allreduce.chosen.time;
  }
  r.step_time = r.linear_time + r.attention_time + r.comm_time;
  r.bound = r.linear_flops / r.peak > r.step_weight_bytes / r.bandwidth ? RooflineBound::compute : RooflineBound::memory;
  r.tokens_per_second = b / r.step_time;
  r.tokens_per_second_per_sequence = 1 / r.step_time;
  r.compute_bound_batch = compute_bound_batch(m, wbytes, active_body, r);
  if (in.prefill > 0) prefill(in, wbytes, active_body, r);
  // the expected times from the kernels a plain PyTorch forward runs
  if (in.kernels_per_layer < 0) throw FieldError("kernels_per_layer", static_cast<double>(in.kernels_per_layer), Rule::at_least).lo(1);
  r.intermediate = static_cast<std::int64_t>(std::max(0.0, derived_intermediate(m, static_cast<double>(r.hidden))));
  r.vocab = static_cast<std::int64_t>(std::llround(m.embedding_params / static_cast<double>(r.hidden)));
  r.expected_gap = expected_gap(in, r, gpu);
  if (r.expected_gap == ExpectedGap::none) {
    r.step_expected = expected_pass(in, r, gpu, true);
    if (in.prefill > 0) r.prefill_expected = expected_pass(in, r, gpu, false);
  }
  return r;
}

const DecodeModel* find_decode_preset(const std::string& name) {
  for (const DecodeModel& m : decode_presets()) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

}  // namespace gpucalc
