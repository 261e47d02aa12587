// gpucalc decode: an LLM's weights and KV cache against the GPU's memory, a decode step's
// roofline, tokens/s, the batch where decode turns compute-bound, and the prefill of a prompt.
#include "core/decode.h"

#include <fmt/format.h>

#include <cmath>

#include "commands/chart.h"
#include "commands/commands.h"
#include "commands/options.h"
#include "core/error.h"

namespace gpucalc {
namespace {

constexpr double kMaxTokens = double(std::int64_t{1} << 24);

// The handles of the options and results, in the order the declaration below gives them (the
// engine checks it): a run reads each option and puts each result by its handle, no name looked up.
enum Option : Place {
  kModel, kParams, kActiveParams, kEmbeddingParams, kLayers, kHeads, kKvHeads, kHeadDim, kVDim, kLatent, kRopeDim,
  kExperts, kExpertsPerToken, kWindow, kDtype, kKvDtype, kComputeDtype, kContext, kBatchSize, kPrefill, kBandwidth,
  kPeak, kMemory, kHidden, kTp, kLink, kLinkLatency, kLaunch, kImpl, kKernelsPerLayer
};
enum Result : Place {
  kWeightBytes, kKvBytesPerToken, kKvBytes, kMemoryNeeded, kFits, kStepBytes, kStepFlops, kStepTime,
  kTokensPerSecond, kComputeBoundBatch, kTokensPerSecondPerSequence, kBound, kMemorySize, kMaxContext,
  kMaxBatch, kPrefillFlops, kPrefillTime, kCommTime, kAllreduceTime, kAllreduceBytes, kExpectedStepTime,
  kExpectedPrefillTime,
};

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  for (const DecodeModel& m : decode_presets()) names.push_back(m.name);
  return names;
}

// The model: a preset, any of its numbers given overriding it, or the numbers alone.
DecodeModel read_model(const Args& a, Report& report) {
  DecodeModel m;
  if (a.has(kModel)) m = *find_decode_preset(a.text(kModel));
  std::vector<std::string> overridden;
  auto take = [&](std::size_t at, auto& field) {
    if (!a.has(at)) return;
    if (a.has(kModel)) overridden.push_back("--" + a.name(at));
    using T = std::remove_reference_t<decltype(field)>;
    field = static_cast<T>(a.number(at));
  };
  take(kParams, m.params);
  take(kActiveParams, m.active_params);
  take(kEmbeddingParams, m.embedding_params);
  take(kLayers, m.layers);
  take(kHeads, m.heads);
  take(kKvHeads, m.kv_heads);
  take(kHeadDim, m.head_dim);
  take(kVDim, m.v_dim);
  take(kLatent, m.latent);
  take(kRopeDim, m.rope_dim);
  take(kExperts, m.experts);
  take(kExpertsPerToken, m.experts_per_token);
  take(kWindow, m.window);
  take(kHidden, m.hidden);
  // MLA (DeepSeek-V2/V3) caches one compressed latent and one decoupled RoPE key a token a layer,
  // shared by every head (DeepSeek-V3 technical report, arXiv 2412.19437, section 2.1.1: d_c = 512,
  // d_h^R = 64): there are no KV heads to count, so --kv-heads would change nothing.
  if (a.has(kKvHeads) && m.latent > 0) {
    throw InputError(fmt::format("--kv-heads: invalid value '{}': {} uses MLA: its KV cache is the latent ({}) and the RoPE "
                                 "key ({}) a token a layer, shared by all heads, so it has no KV heads; --kv-heads is for "
                                 "MHA and GQA models (--latent and --rope-dim size MLA's cache)",
                                 a.text(kKvHeads), a.has(kModel) ? m.name : "a model with --latent", m.latent, m.rope_dim));
  }
  if (!a.has(kModel)) {
    for (std::size_t at : {kParams, kLayers, kHeads, kHeadDim}) {
      if (!a.has(at)) {
        throw InputError(fmt::format("--{} is required: --model NAME ({}), or the model in numbers: --params, --layers, "
                                     "--heads, --head-dim (and --kv-heads for GQA, --latent for MLA)",
                                     a.name(at), fmt::join(preset_names(), ", ")));
      }
    }
  } else {
    report.notes.push_back(fmt::format("{}: {}", m.name, m.source));
    if (!overridden.empty()) {
      report.notes.push_back(fmt::format("{} overrides the preset's {}", fmt::join(overridden, ", "),
                                         overridden.size() == 1 ? "value" : "values"));
    }
  }
  return m;
}

DecodeInput read_input(const Args& a, const Gpu& gpu, Report& report) {
  DecodeInput in;
  in.model = read_model(a, report);
  const Dtype& weights = dtype_by_name(a.text(kDtype), "dtype");
  in.weight_dtype = weights.name;
  // Sub-byte weights (int4, fp4) are weight-only quantization: the KV cache stays bf16 unless
  // --kv-dtype says otherwise, and the matmuls run at the bf16 peak where the GPU has no tensor-core
  // rate of the weights' type (none has an int4 one): said in a note, never a rate made up.
  const bool sub_byte = weights.bytes < 1;
  in.kv_dtype = a.has(kKvDtype) ? dtype_by_name(a.text(kKvDtype), "kv_dtype").name : sub_byte ? "bf16" : in.weight_dtype;
  const bool no_peak = !(gpu.peak(ComputeUnit::tensor, in.weight_dtype) > 0);
  in.compute_dtype = a.has(kComputeDtype) ? dtype_by_name(a.text(kComputeDtype), "compute_dtype").name
                     : sub_byte && no_peak ? "bf16"
                                           : in.weight_dtype;
  if (sub_byte && !a.has(kKvDtype)) {
    report.notes.push_back(fmt::format("{} weights, {} a parameter: the KV cache in bf16 (--kv-dtype to change)",
                                       in.weight_dtype, format_quantity(element_bytes(weights), Unit::bytes)));
  }
  if (sub_byte && no_peak && !a.has(kComputeDtype) && !a.has(kPeak)) {
    report.notes.push_back(fmt::format("{} has no {} tensor-core rate: the matmuls run at its bf16 peak, the weights "
                                       "dequantized as weight-only kernels do (--compute-dtype to change)",
                                       gpu.key, in.weight_dtype));
  }
  in.context = a.integer(kContext);
  in.batch = a.integer(kBatchSize);
  if (a.has(kPrefill)) in.prefill = a.integer(kPrefill);
  if (a.has(kBandwidth)) in.bandwidth = a.number(kBandwidth);
  if (a.has(kPeak)) in.peak = a.number(kPeak);
  if (a.has(kMemory)) in.memory = a.number(kMemory);
  in.tp = a.has(kTp) ? a.integer(kTp) : 1;
  if (in.tp > 1) {
    // the tensor-parallel GPUs' links: the profile's NVLink inside its domain, else PCIe; --link overrides
    LinkKind kind = LinkKind::none;
    in.links = profile_links(gpu, in.tp, kind);
    if (a.has(kLink)) {
      in.links.link_bandwidth = a.number(kLink);
      if (kind == LinkKind::none) in.links.link_latency = nccl_latency::kNvlinkStep;
    } else if (kind == LinkKind::none) {
      throw InputError(fmt::format("--link is required with --tp {}: {} gives no link between GPUs (nvlink_bandwidth or "
                                   "pcie_bandwidth); give each GPU's link rate, one direction (--link 450GB/s)",
                                   in.tp, gpu.key));
    }
    if (a.has(kLinkLatency)) in.links.link_latency = a.number(kLinkLatency);
    if (kind == LinkKind::pcie && !a.has(kLink) && gpu.nvlink_bandwidth > 0) {
      report.notes.push_back(fmt::format("--tp {} is more GPUs than {}'s NVLink joins ({}): the all-reduces run over PCIe {}",
                                         in.tp, gpu.key, gpu.nvlink_domain, gpu.pcie_generation));
    }
  } else if (a.given(kLink) || a.given(kLinkLatency)) {
    throw InputError(fmt::format("--{}: the link between GPUs is for --tp 2 or more (tensor parallelism); --tp is 1",
                                 a.given(kLink) ? "link" : "link-latency"));
  }
  // the expected times: --launch for both passes, else a step from a CUDA graph and a prefill eager
  if (a.given(kLaunch)) in.step_launch = in.prefill_launch = options::read_launch(a, kLaunch);
  in.impl = a.text(kImpl) == "fa2" ? AttentionImpl::fa2 : AttentionImpl::fa3;
  if (a.has(kKernelsPerLayer)) in.kernels_per_layer = a.integer(kKernelsPerLayer);
  return in;
}

std::string bytes(double v) { return format_quantity(v, Unit::bytes); }
std::string secs(double v) { return format_quantity(v, Unit::seconds); }

void explain(const DecodeInput& in, const DecodeResult& r, Report& report) {
  const DecodeModel& m = in.model;
  report.explain.push_back(fmt::format("weights = {} parameters x {} = {}", format_number(m.params), in.weight_dtype,
                                       bytes(r.weight_bytes)));
  if (m.latent > 0) {
    report.explain.push_back(fmt::format("KV a token (MLA) = (latent {} + rope {}) x {} layers x {} = {}", m.latent, m.rope_dim,
                                         m.layers, in.kv_dtype, format_quantity(r.kv_bytes_per_token, Unit::onchip_bytes)));
  } else {
    const std::int64_t kv = m.kv_heads != 0 ? m.kv_heads : m.heads;
    report.explain.push_back(fmt::format("KV a token = 2 (K and V) x {} KV heads x {} x {} layers x {} = {}{}", kv, m.head_dim,
                                         m.layers, in.kv_dtype, format_quantity(r.kv_bytes_per_token, Unit::onchip_bytes),
                                         kv == m.heads ? " (MHA)" : kv == 1 ? " (MQA)" : fmt::format(" (GQA, {} query heads a KV head)", m.heads / kv)));
  }
  report.explain.push_back(fmt::format("KV cache = batch {} x {} tokens x a token's = {}{}", in.batch, r.kv_tokens,
                                       bytes(r.kv_bytes), r.kv_tokens < in.context ? " (the sliding window caps the cache)" : ""));
  if (in.tp > 1) {
    const double split = r.kv_bytes > 0 ? r.kv_bytes / (r.memory_needed - r.weight_bytes / static_cast<double>(in.tp)) : 1;
    report.explain.push_back(fmt::format("memory needed a GPU = weights / {} + KV / {} = {} against {}: {}", in.tp,
                                         format_number(split), bytes(r.memory_needed), bytes(r.memory),
                                         r.fits ? "fits" : "does not fit"));
  } else {
    report.explain.push_back(fmt::format("memory needed = weights + KV = {} against {}: {}", bytes(r.memory_needed), bytes(r.memory),
                                         r.fits ? "fits" : "does not fit"));
  }
  if (m.experts > 0) {
    report.explain.push_back(fmt::format("experts a step reads = 1 - (1 - {}/{})^{} = {} of the routed experts' weights",
                                         m.experts_per_token, m.experts, in.batch,
                                         format_quantity(r.experts_touched, Unit::fraction)));
  }
  report.explain.push_back(fmt::format("step bytes = weights read {} + KV read and written {} = {}", bytes(r.step_weight_bytes),
                                       bytes(r.step_kv_bytes), bytes(r.step_bytes)));
  report.explain.push_back(fmt::format("step FLOPs = 2 x batch x active parameters {} + attention {} = {}",
                                       format_quantity(r.linear_flops, Unit::flops), format_quantity(r.attention_flops, Unit::flops),
                                       format_quantity(r.step_flops, Unit::flops)));
  if (in.tp > 1) {
    const AlgoTime& t = r.allreduce.chosen;
    report.explain.push_back(fmt::format("an all-reduce = batch {} x hidden {} x {} B = {}: {} over {} GPUs, {} + {} = {}",
                                         in.batch, r.hidden, format_number(r.activation_bytes), bytes(r.allreduce_bytes),
                                         collective_algo_word(t.algo), in.tp, secs(t.latency_time), secs(t.bandwidth_time),
                                         secs(t.time)));
    report.explain.push_back(fmt::format("communication = 2 all-reduces x {} layers x {} = {} (Megatron-LM: after attention and "
                                         "after the MLP)",
                                         m.layers, secs(t.time), secs(r.comm_time)));
    report.explain.push_back(fmt::format(
        "step time = max({} / {} / {}, {} / {} / {}) + attention (a GPU's heads) + communication = {} + {} + {} = {}",
        format_quantity(r.linear_flops, Unit::flops), in.tp, format_quantity(r.peak, Unit::flops_per_second),
        bytes(r.step_weight_bytes), in.tp, format_quantity(r.bandwidth, Unit::bytes_per_second), secs(r.linear_time),
        secs(r.attention_time), secs(r.comm_time), secs(r.step_time)));
  } else {
    report.explain.push_back(fmt::format(
        "step time = max({} / {}, {} / {}) + max(attention FLOPs / peak, KV bytes / bandwidth) = {} + {} = {}",
        format_quantity(r.linear_flops, Unit::flops), format_quantity(r.peak, Unit::flops_per_second), bytes(r.step_weight_bytes),
        format_quantity(r.bandwidth, Unit::bytes_per_second), secs(r.linear_time), secs(r.attention_time), secs(r.step_time)));
  }
  report.explain.push_back(fmt::format("tokens/s = batch / step time = {} / {} = {} ({} a sequence)", in.batch, secs(r.step_time),
                                       format_number(r.tokens_per_second), format_number(r.tokens_per_second_per_sequence)));
  const double per_sequence = r.linear_flops / static_cast<double>(in.batch) / r.peak;  // 2 P / peak
  report.explain.push_back(fmt::format(
      "compute-bound from batch {}: where 2 x B x active parameters / peak = weight bytes / bandwidth ({} a sequence of "
      "matmul against {} of weights{})",
      format_number(r.compute_bound_batch), secs(per_sequence),
      secs(r.compute_bound_batch * per_sequence), m.experts > 0 ? ", the experts that batch touches" : ""));
  if (in.prefill > 0) {
    report.explain.push_back(fmt::format("prefill of {} tokens = max({} / peak, {} / bandwidth) = {}", in.prefill,
                                         format_quantity(r.prefill_flops, Unit::flops), bytes(r.prefill_bytes),
                                         secs(r.prefill_time)));
  }
}

// How a pass's kernels start, in words: "from a CUDA graph", "eagerly", "as raw CUDA launches", "at 3.6 us each".
std::string launch_how(const Launch& l) {
  switch (l.path) {
    case LaunchPath::graph: return "from a CUDA graph";
    case LaunchPath::eager: return "eagerly";
    case LaunchPath::cuda: return "as raw CUDA launches";
    case LaunchPath::given: return fmt::format("at {} each", secs(l.given));
  }
  return "";
}

std::string launch_words(const Launch& l, const Gpu& gpu) {
  if (l.path == LaunchPath::given) return fmt::format("{} a kernel (--launch)", secs(l.given));
  const char* field = l.path == LaunchPath::eager ? "launch_overhead_eager" : l.path == LaunchPath::graph ? "launch_overhead_graph" : "launch_overhead";
  return fmt::format("{} a kernel ({}, {})", secs(launch_cost(l, gpu)), launch_path_word(l.path), field);
}

void explain_pass(const char* what, const DecodeInput& in, const PassExpected& p, const Launch& l,
                  const Gpu& gpu, Report& report) {
  const DecodeModel& m = in.model;
  report.explain.push_back(fmt::format(
      "expected {}: GEMMs {} ({} a layer x {} layers + the LM head, cuBLAS-class at tensor_achievable and "
      "memory_read_bandwidth) + attention {} ({} kernels, {}{}) + streaming kernels {} ({} at memory_bandwidth_achievable, "
      "{} kernels each after its first loads' latency {}) = {} on the GPU",
      what, secs(p.gemm_time), kLayerGemms, m.layers, secs(p.attention_time), m.layers, attention_impl_word(in.impl),
      p.attention_memory_bound ? ", K and V's bytes" : ", its matmuls", secs(p.stream_time), bytes(p.stream_bytes),
      format_number(p.stream_kernels), secs(kernel_start_latency(gpu)), secs(p.busy)));
  const std::string combine = l.path == LaunchPath::eager
                                  ? fmt::format("max({}, {} kernels x {}) = {}", secs(p.busy), format_number(p.kernels),
                                                launch_words(l, gpu), secs(p.time))
                                  : fmt::format("{} + {} kernels x {} = {}", secs(p.busy), format_number(p.kernels),
                                                launch_words(l, gpu), secs(p.time));
  report.explain.push_back(fmt::format("expected {} = {}{}", what, combine,
                                       in.kernels_per_layer > 0 ? " (--kernels-per-layer)" : ""));
}

// The profile's fields the expected times need and lack.
std::vector<std::string> missing_fields(const DecodeInput& in, const Gpu& gpu) {
  std::vector<std::string> out;
  const bool fa2 = in.impl == AttentionImpl::fa2;
  const std::pair<const char*, double> need[] = {
      {"tensor_achievable", gpu.tensor_achievable},
      {"memory_read_bandwidth", gpu.memory_read_bandwidth},
      {"memory_bandwidth_achievable", gpu.memory_bandwidth_achievable},
      {fa2 ? "attention_mma_achievable" : "attention_wgmma_achievable", fa2 ? gpu.attention_mma_achievable : gpu.attention_wgmma_achievable},
      {fa2 ? "attention_mma_kv_bandwidth" : "attention_wgmma_kv_bandwidth", fa2 ? gpu.attention_mma_kv_bandwidth : gpu.attention_wgmma_kv_bandwidth},
  };
  for (const auto& [name, value] : need) {
    if (!(value > 0)) out.emplace_back(name);
  }
  return out;
}

void expected_notes(const DecodeInput& in, const DecodeResult& r, const Gpu& gpu, Report& report) {
  switch (r.expected_gap) {
    case ExpectedGap::none: break;
    case ExpectedGap::profile:
      report.notes.push_back(fmt::format("no expected times: {} lacks the achievable ceilings they need ({}; "
                                         "scripts/device-calibrate measures them)",
                                         gpu.key, fmt::join(missing_fields(in, gpu), ", ")));
      return;
    case ExpectedGap::experts: report.notes.push_back("no expected times: they model a dense model's kernels, not routed experts"); return;
    case ExpectedGap::latent: report.notes.push_back("no expected times: they model MHA and GQA attention, not MLA's latent"); return;
    case ExpectedGap::tp: report.notes.push_back("no expected times: they model one GPU (--tp 1)"); return;
    case ExpectedGap::dtype:
      report.notes.push_back(fmt::format("no expected times: they model weights in the matmuls' type ({} weights, {} matmuls)",
                                         in.weight_dtype, in.compute_dtype));
      return;
    case ExpectedGap::shape:
      report.notes.push_back("no expected times: the parameters leave no gated MLP beside the attention (a Llama-shaped layer)");
      return;
  }
  report.notes.push_back(fmt::format(
      "expected times: the kernels of a plain PyTorch (Hugging Face-style) Llama forward, {} a layer (a decode step; {} a "
      "prefill) and {} a forward, MLP width {} from the parameters; attention {} ({}); a decode step's kernels launched {}, "
      "a prefill's {}{}",
      in.kernels_per_layer > 0 ? in.kernels_per_layer : kLayerKernelsDecode,
      in.kernels_per_layer > 0 ? in.kernels_per_layer : kLayerKernelsPrefill, kForwardKernels, r.intermediate,
      attention_impl_word(in.impl),
      in.impl == AttentionImpl::fa3 ? "cuDNN or FlashAttention 3: PyTorch's SDPA picks cuDNN first on Hopper; --impl fa2 for FlashAttention 2"
                                    : "FlashAttention 2's mma.sync kernels",
      launch_how(in.step_launch), launch_how(in.prefill_launch),
      in.prefill > 0 ? fmt::format("; expected_prefill_time prefills {} tokens for each of the {} sequences (prefill_time is one "
                                   "sequence's)",
                                   in.prefill, in.batch)
                     : ""));
}

void add_notes(const DecodeInput& in, const DecodeResult& r, Report& report) {
  if (!r.weights_fit) {
    const bool wide = dtype_by_name(in.weight_dtype, "dtype").bytes > 1;
    report.notes.push_back(fmt::format("the weights alone ({}) do not fit in {}: no context fits; spread the model over GPUs "
                                       "(tensor parallelism){}",
                                       bytes(r.weight_bytes), bytes(r.memory),
                                       wide ? " or quantize it (--dtype fp8_e4m3, int8)" : ""));
  } else if (!r.fits) {
    report.notes.push_back(fmt::format("does not fit: {} needed against {}; at batch {} the longest context that fits is {} tokens, "
                                       "at context {} the largest batch {}",
                                       bytes(r.memory_needed), bytes(r.memory), in.batch, format_number(r.max_context),
                                       in.context, format_number(r.max_batch)));
  }
  static const std::string floor_note =
      "memory needed counts weights and the KV cache; activations, the runtime and fragmentation take more (a floor)";
  report.notes.push_back(floor_note);
}

void run(const Args& a, const Gpu& gpu, Report& report) {
  const DecodeInput in = read_input(a, gpu, report);
  const DecodeResult r = decode(in, gpu);
  if (!a.has(kBandwidth)) report.inputs.push_back(Value::num("bandwidth", r.bandwidth, Unit::bytes_per_second));
  if (!a.has(kPeak)) report.inputs.push_back(Value::num("peak", r.peak, Unit::flops_per_second));
  report.num(kWeightBytes, r.weight_bytes);
  report.num(kKvBytesPerToken, r.kv_bytes_per_token);
  report.num(kKvBytes, r.kv_bytes);
  report.num(kMemoryNeeded, r.memory_needed);
  report.boolean(kFits, r.fits);
  report.num(kStepBytes, r.step_bytes);
  report.num(kStepFlops, r.step_flops);
  report.num(kStepTime, r.step_time);
  report.num(kTokensPerSecond, r.tokens_per_second);
  report.num(kComputeBoundBatch, r.compute_bound_batch);
  report.num(kTokensPerSecondPerSequence, r.tokens_per_second_per_sequence);
  report.word(kBound, roofline_bound_word(r.bound));
  report.num(kMemorySize, r.memory);
  if (r.weights_fit && std::isfinite(r.max_context)) report.num(kMaxContext, r.max_context);
  if (r.weights_fit) report.num(kMaxBatch, r.max_batch);
  if (in.prefill > 0) {
    report.num(kPrefillFlops, r.prefill_flops);
    report.num(kPrefillTime, r.prefill_time);
  }
  if (in.tp > 1) {
    report.num(kCommTime, r.comm_time);
    report.num(kAllreduceTime, r.allreduce.chosen.time);
    report.num(kAllreduceBytes, r.allreduce_bytes);
  }
  if (r.expected_gap == ExpectedGap::none) {
    report.num(kExpectedStepTime, r.step_expected.time);
    if (in.prefill > 0) report.num(kExpectedPrefillTime, r.prefill_expected.time);
  }
  if (a.for_people()) {
    explain(in, r, report);
    if (r.expected_gap == ExpectedGap::none) {
      explain_pass("step", in, r.step_expected, in.step_launch, gpu, report);
      if (in.prefill > 0) explain_pass("prefill", in, r.prefill_expected, in.prefill_launch, gpu, report);
    }
    add_notes(in, r, report);
    expected_notes(in, r, gpu, report);
  }
}

// Tokens/s over the swept batch (or context): where more sequences stop paying.
std::string chart(const ChartData& d) {
  plot::Chart c;
  c.title = "Decode: tokens/s in all and a sequence";
  c.subtitle = fmt::format("{} ({})", d.gpu->name, d.gpu->key);
  c.x_label = d.axis;
  c.x_unit = Unit::count;
  c.log_x = true;
  c.log_y = true;
  c.y_label = "tokens/s";
  c.y_unit = Unit::count;
  c.series.push_back(column(d, "tokens_per_second", "tokens/s, all sequences", "line thick"));
  c.series.push_back(column(d, "tokens_per_second_per_sequence", "tokens/s, a sequence", "line"));
  return plot::render_svg(c);
}

OptionSpec count_option(Place place, std::string name, std::string what, double max) {
  return integer_option(place, std::move(name), std::move(what)).at_least(1).at_most(max);
}

}  // namespace

const Calculator& decode_command() {
  static const Calculator calc{
      .name = "decode",
      .options =
          {choice_option(kModel, "model", "a published architecture, its numbers from its config.json and paper", preset_names()),
           number_option(kParams, "params", "parameters in all (6.74e9)", Unit::count).at_least(1).at_most(1e15),
           number_option(kActiveParams, "active-params", "MoE: parameters a token uses (default: --params)", Unit::count).at_least(1).at_most(1e15),
           number_option(kEmbeddingParams, "embedding-params", "the input embedding table's parameters: a step reads one row of it", Unit::count).at_least(0).at_most(1e15),
           count_option(kLayers, "layers", "transformer layers", 4096),
           count_option(kHeads, "heads", "query heads", 4096),
           count_option(kKvHeads, "kv-heads", "key/value heads: a divisor of --heads (default: --heads, MHA; 1: MQA)", 4096),
           count_option(kHeadDim, "head-dim", "head dimension of Q and K", 4096),
           count_option(kVDim, "v-dim", "head dimension of V where it differs (default: --head-dim)", 4096),
           count_option(kLatent, "latent", "MLA: the compressed KV a token a layer caches (kv_lora_rank)", 65536),
           count_option(kRopeDim, "rope-dim", "MLA: the decoupled RoPE key a token a layer caches", 4096),
           count_option(kExperts, "experts", "MoE: routed experts a layer", 65536),
           count_option(kExpertsPerToken, "experts-per-token", "MoE: routed experts a token uses", 65536),
           count_option(kWindow, "window", "sliding window: the KV cache keeps at most this many tokens", kMaxTokens),
           options::dtype(kDtype, "bf16", true).fills("weight_dtype"),
           choice_option(kKvDtype, "kv-dtype", "the KV cache's element type (default: --dtype; bf16 for int4 and fp4 weights)",
                         whole_byte_dtype_names()),
           choice_option(kComputeDtype, "compute-dtype",
                         "the tensor-core peak the matmuls run at (default: --dtype; bf16 for weights of a type without one)",
                         whole_byte_dtype_names()),
           count_option(kContext, "context", "tokens in each sequence's KV cache", kMaxTokens).or_else("4096")
               .sweepable([](const Gpu&) { return SweepRange{1024, 131072, 2, true}; }),
           count_option(kBatchSize, "batch-size", "sequences in flight", 1 << 20).or_else("1").fills("batch")
               .sweepable([](const Gpu&) { return SweepRange{1, 1024, 2, true}; }),
           count_option(kPrefill, "prefill", "prompt tokens to prefill (one sequence)", kMaxTokens)
               .sweepable([](const Gpu&) { return SweepRange{128, 131072, 2, true}; }),
           options::bandwidth(kBandwidth),
           number_option(kPeak, "peak", "tensor peak override (989TFLOP/s)", Unit::flops_per_second).above(0),
           number_option(kMemory, "memory", "GPU memory override (80GB)", Unit::bytes).above(0),
           count_option(kHidden, "hidden", "the model's width d_model, what the all-reduces carry a token (default: --heads x --head-dim)", 1 << 20),
           integer_option(kTp, "tp", "tensor parallelism: GPUs of one node the weights and KV cache are split over (Megatron-LM; default 1)")
               .at_least(1)
               .at_most(1024)
               .sweepable([](const Gpu&) { return SweepRange{1, 8, 2, true}; }),
           number_option(kLink, "link", "with --tp: each GPU's link bandwidth, one direction (default: the profile's NVLink or PCIe)",
                         Unit::bytes_per_second)
               .above(0),
           number_option(kLinkLatency, "link-latency", "with --tp: one all-reduce step's latency (default: NCCL's, 0.6us NVLink)",
                         Unit::seconds)
               .at_least(0),
           options::launch(kLaunch, ""),
           choice_option(kImpl, "impl",
                         "the attention kernel class of the expected times: fa3 (cuDNN, FlashAttention 3: wgmma) or fa2 "
                         "(FlashAttention 2: mma.sync)",
                         {"fa3", "fa2"})
               .or_else("fa3"),
           count_option(kKernelsPerLayer, "kernels-per-layer",
                        "kernels a layer launches, for the expected times' launch costs (default: a plain PyTorch layer's, 26 "
                        "a decode step, 24 a prefill)",
                        1 << 16)},
      .results =
          {result(kWeightBytes, "weight_bytes", Unit::bytes, "bytes of the weights").in_rows(),
           result(kKvBytesPerToken, "kv_bytes_per_token", Unit::onchip_bytes,
                  "KV-cache bytes a token, all layers: KV heads x (head dim + V dim) x layers x element size").in_rows(),
           result(kKvBytes, "kv_bytes", Unit::bytes, "the KV cache of every sequence at this context").in_rows(),
           result(kMemoryNeeded, "memory_needed", Unit::bytes, "weights + KV cache").in_rows(),
           result(kFits, "fits", Unit::boolean, "whether the memory needed fits the memory size").in_rows(),
           result(kStepBytes, "step_bytes", Unit::bytes,
                  "bytes of one decode step: the weights the batch touches, every KV cache read, the new K,V written"),
           result(kStepFlops, "step_flops", Unit::flops, "FLOP of one decode step, all sequences"),
           result(kStepTime, "step_time", Unit::seconds,
                  "one step's time: the matmuls' max(FLOP / peak, weight bytes / bandwidth) + the attention's").in_rows(),
           result(kTokensPerSecond, "tokens_per_second", Unit::count,
                  "tokens a second, all sequences: batch / step time").in_rows(),
           result(kComputeBoundBatch, "compute_bound_batch", Unit::count,
                  "the batch (sequences, a real number) at which a step turns compute-bound").in_rows(),
           result(kTokensPerSecondPerSequence, "tokens_per_second_per_sequence", Unit::count,
                  "tokens a second of one sequence: 1 / step time"),
           result(kBound, "bound", Unit::text, "what bounds the matmuls: memory or compute"),
           result(kMemorySize, "memory_size", Unit::bytes, "the GPU's memory (the profile's, or --memory)"),
           result(kMaxContext, "max_context", Unit::count,
                  "the longest context that fits at this batch (empty when the weights do not fit or a window caps the cache)"),
           result(kMaxBatch, "max_batch", Unit::count,
                  "the most sequences that fit at this context (empty when the weights do not fit)"),
           result(kPrefillFlops, "prefill_flops", Unit::flops, "with --prefill: FLOP of the prompt's prefill"),
           result(kPrefillTime, "prefill_time", Unit::seconds, "with --prefill: the prefill's time"),
           result(kCommTime, "comm_time", Unit::seconds,
                  "with --tp: a step's all-reduces, 2 a layer of batch x hidden (in step_time)"),
           result(kAllreduceTime, "allreduce_time", Unit::seconds, "with --tp: one all-reduce's time (gpucalc collective's model)"),
           result(kAllreduceBytes, "allreduce_bytes", Unit::bytes, "with --tp: one all-reduce's size, batch x hidden x activation bytes"),
           result(kExpectedStepTime, "expected_step_time", Unit::seconds,
                  "the step's time to expect: a plain PyTorch forward's kernels at the profile's achievable rates, each "
                  "launched (--launch; default a CUDA graph); empty without the profile's ceilings")
               .in_rows(),
           result(kExpectedPrefillTime, "expected_prefill_time", Unit::seconds,
                  "with --prefill: the prefill's time to expect, --prefill tokens for each of the batch's sequences "
                  "(--launch; default eager)")},
      .run = run,
      .chart_axis = "batch-size",
      .chart = chart,
      .reasons = {
          {"kv_heads", Rule::divisor_of, "a divisor of the {hi} query heads ({hi} for MHA, 1 for MQA)"},
          {"active_params", Rule::at_most, "at most the {hi} parameters in all"},
          {"embedding_params", Rule::below, "fewer than the active parameters ({hi})"},
          {"experts_per_token", Rule::needs, "{rule}: both, or neither for a dense model"},
          {"experts_per_token", Rule::in_range,
           "{lo} to {hi} routed experts a token (fewer than --experts), given with --experts: both, or neither for a dense model"},
          {"active_params", Rule::required, "the parameters a token uses, for a model with --experts"},
          {"experts_per_token", Rule::required, "the routed experts a token uses, 1 to fewer than --experts, for a model with --experts"},
          {"rope_dim", Rule::needs, "with --latent (MLA caches the latent and the RoPE key)"},
          {"weight_dtype", Rule::one_of, "a dtype of at least a byte: {choices}"},
          {"kv_dtype", Rule::one_of, "a dtype of at least a byte: {choices}"},
          {"compute_dtype", Rule::one_of, "a dtype the tensor cores of {gpu} run: {choices}"},
          {"tp", Rule::divisor_of, "a divisor of the {hi} query heads (Megatron splits the attention by heads)"},
      }};
  return calc;
}

}  // namespace gpucalc
