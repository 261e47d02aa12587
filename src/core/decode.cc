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

void fit(const DecodeInput& in, DecodeResult& r) {
  const double free = r.memory - r.weight_bytes;
  r.weights_fit = free > 0;
  r.fits = r.memory_needed <= r.memory;
  if (!r.weights_fit) return;
  const double b = static_cast<double>(in.batch);
  const double window = static_cast<double>(in.model.window);
  // longest context at this batch: free / (batch x bytes a token); a window caps the cache
  r.max_context = std::floor(free / (b * r.kv_bytes_per_token));
  if (window > 0 && r.max_context >= window) r.max_context = std::numeric_limits<double>::infinity();
  // largest batch at this context: free / (cached tokens x bytes a token)
  r.max_batch = std::floor(free / (static_cast<double>(r.kv_tokens) * r.kv_bytes_per_token));
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
  r.prefill_time = std::max(r.prefill_flops / r.peak, r.prefill_bytes / r.bandwidth);
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
  const double b = static_cast<double>(in.batch);
  const double active = m.active_params != 0 ? m.active_params : m.params;
  const double active_body = active - m.embedding_params;  // the matmuls' parameters
  r.weight_bytes = m.params * wbytes;
  r.kv_bytes_per_token = kv_bytes_per_token(m, kvbytes);
  r.kv_tokens = m.window > 0 ? std::min(in.context, m.window) : in.context;
  r.kv_bytes = b * static_cast<double>(r.kv_tokens) * r.kv_bytes_per_token;
  r.memory_needed = r.weight_bytes + r.kv_bytes;
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
  r.linear_time = std::max(r.linear_flops / r.peak, r.step_weight_bytes / r.bandwidth);
  r.attention_time = std::max(r.attention_flops / r.peak, r.step_kv_bytes / r.bandwidth);
  r.step_time = r.linear_time + r.attention_time;
  r.bound = r.linear_flops / r.peak > r.step_weight_bytes / r.bandwidth ? RooflineBound::compute : RooflineBound::memory;
  r.tokens_per_second = b / r.step_time;
  r.tokens_per_second_per_sequence = 1 / r.step_time;
  r.compute_bound_batch = compute_bound_batch(m, wbytes, active_body, r);
  if (in.prefill > 0) prefill(in, wbytes, active_body, r);
  return r;
}

const DecodeModel* find_decode_preset(const std::string& name) {
  for (const DecodeModel& m : decode_presets()) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

}  // namespace gpucalc
