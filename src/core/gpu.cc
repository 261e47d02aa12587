// Hardware profiles: the field table every reader and writer of profiles goes by, the built-in
// profiles, and what a profile answers (peaks by dtype).
#include "core/gpu.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "core/error.h"
#include "core/text.h"

namespace gpucalc {

double Gpu::peak(ComputeUnit unit, const std::string& dtype) const {
  const auto& table = unit == ComputeUnit::cuda ? peak_cuda : peak_tensor;
  auto it = table.find(std::string(peak_key(dtype)));
  return it == table.end() ? 0.0 : it->second;
}

double Gpu::peak_clock(ComputeUnit unit) const {
  const double clock = unit == ComputeUnit::cuda ? peak_cuda_clock : peak_tensor_clock;
  return clock > 0 ? clock : boost_clock;
}

std::vector<std::string> Gpu::dtypes_with_peak(ComputeUnit unit) const {
  std::vector<std::string> names;
  for (const Dtype& d : known_dtypes()) {
    if (peak(unit, d.name) > 0) names.push_back(d.name);
  }
  return names;
}

Gpu with_sm_count(const Gpu& gpu, int sm_count) {
  if (sm_count < 1 || sm_count > kMaxSmCount) throw FieldError("sm_count", sm_count, Rule::in_range).range(1, kMaxSmCount);
  if (gpu.sm_count < 1) throw FieldError("gpu", gpu.key, Rule::needs_profile).other("sm_count");
  Gpu out = gpu;
  out.sm_count = sm_count;
  out.sm_count_of_profile = gpu.sm_count_of_profile > 0 ? gpu.sm_count_of_profile : gpu.sm_count;
  // A peak is sm_count x (FLOP per clock per SM) x clock: the per-SM rate and the clock stay, so
  // peak' = peak x sm_count' / sm_count.
  const double scale = static_cast<double>(sm_count) / gpu.sm_count;
  for (auto& [dtype, flops] : out.peak_cuda) flops *= scale;
  for (auto& [dtype, flops] : out.peak_tensor) flops *= scale;
  // The achievable compute rates are sums over the SMs too; bandwidths and fixed times stay.
  for (auto [member, key] : {std::pair{&Gpu::tensor_achievable, "tensor_achievable"},
                             std::pair{&Gpu::attention_wgmma_achievable, "attention_wgmma_achievable"},
                             std::pair{&Gpu::attention_mma_achievable, "attention_mma_achievable"}}) {
    if (!(out.*member > 0)) continue;
    out.*member *= scale;
    out.provenance[key] = {"derived", fmt::format("the profile's x {}/{} SMs", sm_count, gpu.sm_count)};
  }
  out.gpc_sms.clear();  // which GPCs would hold the SMs is not known
  out.provenance.erase("gpc_sms");
  out.provenance["sm_count"] = {"derived", fmt::format("{} in place of the profile's {}", sm_count, gpu.sm_count)};
  for (const auto& [table, prefix] : {std::pair{&out.peak_cuda, "peak_cuda_"}, std::pair{&out.peak_tensor, "peak_tensor_"}}) {
    for (const auto& [dtype, flops] : *table) {
      out.provenance[prefix + dtype] = {"derived", fmt::format("the profile's x {}/{} SMs", sm_count, gpu.sm_count)};
    }
  }
  return out;
}

namespace {

// As for options (parse_quantity): products and ratios of a few values must stay finite.
constexpr double kMinReal = 1e-30;
constexpr double kMaxReal = 1e30;

// Table rows: where each kind of field lives in Gpu.
ProfileField count(std::string_view key, std::string_view unit, int Gpu::*member, double min = 1, double max = kProfileMaxCount) {
  return {key, FieldKind::integer, unit, Unit::count, false, min, max,
          [member](const Gpu& g) -> FieldValue { return std::int64_t{g.*member}; },
          [member](Gpu& g, const FieldValue& v) { g.*member = static_cast<int>(std::get<std::int64_t>(v)); }};
}
ProfileField size(std::string_view key, std::int64_t Gpu::*member, bool zero_ok = false, Unit quantity = Unit::onchip_bytes) {
  return {key, FieldKind::size, "bytes", quantity, zero_ok, 1, kProfileMaxSize,
          [member](const Gpu& g) -> FieldValue { return g.*member; },
          [member](Gpu& g, const FieldValue& v) { g.*member = std::get<std::int64_t>(v); }};
}
ProfileField real(std::string_view key, FieldKind kind, std::string_view unit, Unit quantity, double Gpu::*member) {
  return {key, kind, unit, quantity, false, kMinReal, kMaxReal,
          [member](const Gpu& g) -> FieldValue { return g.*member; },
          [member](Gpu& g, const FieldValue& v) { g.*member = std::get<double>(v); }};
}
ProfileField peak(std::string_view key, ComputeUnit unit, const char* dtype, bool zero_ok = true) {
  auto table = [unit](auto& g) -> auto& { return unit == ComputeUnit::cuda ? g.peak_cuda : g.peak_tensor; };
  return {key, FieldKind::rate, "FLOP/s", Unit::flops_per_second, zero_ok, kMinReal, kMaxReal,
          [table, dtype](const Gpu& g) -> FieldValue {
            auto it = table(g).find(dtype);
            return it == table(g).end() ? 0.0 : it->second;
          },
          [table, dtype](Gpu& g, const FieldValue& v) { table(g)[dtype] = std::get<double>(v); }};
}

// 0 (no) or 1 (yes).
ProfileField yes_no(std::string_view key, int Gpu::*member) {
  ProfileField f = count(key, "0 or 1", member, 1, 1);
  f.zero_ok = true;
  return f;
}

ProfileField optional_field(ProfileField f) {
  f.optional = true;
  return f;
}

}  // namespace

const std::vector<ProfileField>& profile_fields() {
  using K = FieldKind;
  static const std::vector<ProfileField> fields = {
      {"name", K::text, "", Unit::text, false, 0, 0, [](const Gpu& g) -> FieldValue { return g.name; },
       [](Gpu& g, const FieldValue& v) { g.name = std::get<std::string>(v); }},
      {"aliases", K::text_list, "", Unit::text, false, 0, 0, [](const Gpu& g) -> FieldValue { return g.aliases; },
       [](Gpu& g, const FieldValue& v) { g.aliases = std::get<std::vector<std::string>>(v); }},
      // Range: the major versions gpucalc's rules cover (sm_70 to sm_12x).
      {"compute_capability", K::version, "", Unit::text, false, 7, 12,
       [](const Gpu& g) -> FieldValue { return fmt::format("{}.{}", g.cc_major, g.cc_minor); },
       [](Gpu& g, const FieldValue& v) {
         const std::string& text = std::get<std::string>(v);  // "major.minor", checked by read_value
         const std::size_t dot = text.find('.');
         g.cc_major = std::stoi(text.substr(0, dot));
         g.cc_minor = std::stoi(text.substr(dot + 1));
       }},
      count("sm_count", "SMs", &Gpu::sm_count),
      count("warp_size", "threads", &Gpu::warp_size, 32, 32),  // the models and the lessons assume 32 lanes
      count("max_threads_per_sm", "threads", &Gpu::max_threads_per_sm, 32),
      count("max_threads_per_block", "threads", &Gpu::max_threads_per_block),
      count("max_blocks_per_sm", "blocks", &Gpu::max_blocks_per_sm),
      count("registers_per_sm", "registers", &Gpu::registers_per_sm),
      count("registers_per_block", "registers", &Gpu::registers_per_block),
      count("max_registers_per_thread", "registers", &Gpu::max_registers_per_thread, 1, 255),  // 8-bit register numbers
      count("register_allocation_unit", "registers", &Gpu::register_allocation_unit),
      count("register_sub_partitions", "sub-partitions", &Gpu::register_sub_partitions),
      count("barriers_per_sm", "barriers", &Gpu::barriers_per_sm),
      size("shared_memory_per_sm", &Gpu::shared_memory_per_sm),
      size("shared_memory_per_block", &Gpu::shared_memory_per_block),
      size("shared_memory_per_block_optin", &Gpu::shared_memory_per_block_optin),
      size("shared_memory_reserved_per_block", &Gpu::shared_memory_reserved_per_block, true),  // 0 before sm_80
      size("shared_memory_allocation_unit", &Gpu::shared_memory_allocation_unit),
      {"shared_memory_carveouts", K::size_list, "bytes", Unit::onchip_bytes, true, 1, kProfileMaxSize,
       [](const Gpu& g) -> FieldValue { return g.shared_memory_carveouts; },
       [](Gpu& g, const FieldValue& v) { g.shared_memory_carveouts = std::get<std::vector<std::int64_t>>(v); }},
      size("l1_size_per_sm", &Gpu::l1_size_per_sm),
      size("l2_size", &Gpu::l2_size),
      size("memory_size", &Gpu::memory_size, false, Unit::bytes),
      real("memory_bandwidth", K::rate, "bytes/s", Unit::bytes_per_second, &Gpu::memory_bandwidth),
      real("l2_bandwidth", K::rate, "bytes/s", Unit::bytes_per_second, &Gpu::l2_bandwidth),
      size("dram_granularity", &Gpu::dram_granularity),
      real("boost_clock", K::rate, "Hz", Unit::count, &Gpu::boost_clock),
      // The clocks at which the peaks below hold: optional, boost_clock where left out.
      optional_field(real("peak_cuda_clock", K::rate, "Hz", Unit::count, &Gpu::peak_cuda_clock)),
      optional_field(real("peak_tensor_clock", K::rate, "Hz", Unit::count, &Gpu::peak_tensor_clock)),
      peak("peak_cuda_fp64", ComputeUnit::cuda, "fp64"),
      peak("peak_cuda_fp32", ComputeUnit::cuda, "fp32", false),  // every GPU has FP32 lanes; rooflines default to them
      peak("peak_cuda_fp16", ComputeUnit::cuda, "fp16"),
      peak("peak_cuda_bf16", ComputeUnit::cuda, "bf16"),
      peak("peak_tensor_fp64", ComputeUnit::tensor, "fp64"),
      peak("peak_tensor_tf32", ComputeUnit::tensor, "tf32"),
      peak("peak_tensor_bf16", ComputeUnit::tensor, "bf16"),
      peak("peak_tensor_fp16", ComputeUnit::tensor, "fp16"),
      peak("peak_tensor_fp8", ComputeUnit::tensor, "fp8"),  // fp8_e4m3 and fp8_e5m2 alike
      peak("peak_tensor_fp4", ComputeUnit::tensor, "fp4"),  // from sm_100
      peak("peak_tensor_int8", ComputeUnit::tensor, "int8"),
      real("latency_l1_cycles", K::cycles, "cycles", Unit::cycles, &Gpu::latency_l1_cycles),
      real("latency_shared_cycles", K::cycles, "cycles", Unit::cycles, &Gpu::latency_shared_cycles),
      real("latency_l2_cycles", K::cycles, "cycles", Unit::cycles, &Gpu::latency_l2_cycles),
      real("latency_hbm_cycles", K::cycles, "cycles", Unit::cycles, &Gpu::latency_hbm_cycles),
      real("launch_overhead", K::time, "s", Unit::seconds, &Gpu::launch_overhead),
      optional_field(real("launch_latency", K::time, "s", Unit::seconds, &Gpu::launch_latency)),
      optional_field(real("launch_overhead_graph", K::time, "s", Unit::seconds, &Gpu::launch_overhead_graph)),
      optional_field(real("l2_sector_bandwidth", K::rate, "bytes/s", Unit::bytes_per_second, &Gpu::l2_sector_bandwidth)),
      optional_field(real("dram_scattered_bandwidth", K::rate, "bytes/s", Unit::bytes_per_second, &Gpu::dram_scattered_bandwidth)),
      {"gpc_sms", K::count_list, "SMs", Unit::count, false, 1, 1024,
       [](const Gpu& g) -> FieldValue { return g.gpc_sms; },
       [](Gpu& g, const FieldValue& v) { g.gpc_sms = std::get<std::vector<std::int64_t>>(v); }, true},
      optional_field(count("sfu_ops_per_sm_per_cycle", "ops/cycle", &Gpu::sfu_ops_per_sm_per_cycle, 1, 1024)),
      // sm_100's tensor memory (the tcgen05 accumulator's): optional, 0 where the GPU has none.
      {"tensor_memory_per_sm", K::size, "bytes", Unit::onchip_bytes, false, 1, kProfileMaxSize,
       [](const Gpu& g) -> FieldValue { return g.tensor_memory_per_sm; },
       [](Gpu& g, const FieldValue& v) { g.tensor_memory_per_sm = std::get<std::int64_t>(v); }, true},
      // Measured figures and the loaded-latency model's constants: optional (docs/little.md).
      optional_field(real("memory_bandwidth_achievable", K::rate, "bytes/s", Unit::bytes_per_second, &Gpu::memory_bandwidth_achievable)),
      optional_field(real("memory_read_bandwidth", K::rate, "bytes/s", Unit::bytes_per_second, &Gpu::memory_read_bandwidth)),
      optional_field(real("latency_queue_time", K::time, "s", Unit::seconds, &Gpu::latency_queue_time)),
      optional_field(real("warp_return_bandwidth", K::rate, "bytes/s", Unit::bytes_per_second, &Gpu::warp_return_bandwidth)),
      // What library kernels reach (core/expected.h): optional (0: not measured).
      optional_field(real("tensor_achievable", K::rate, "FLOP/s", Unit::flops_per_second, &Gpu::tensor_achievable)),
      optional_field(real("attention_wgmma_achievable", K::rate, "FLOP/s", Unit::flops_per_second, &Gpu::attention_wgmma_achievable)),
      optional_field(real("attention_mma_achievable", K::rate, "FLOP/s", Unit::flops_per_second, &Gpu::attention_mma_achievable)),
      optional_field(real("attention_wgmma_kv_bandwidth", K::rate, "bytes/s", Unit::bytes_per_second, &Gpu::attention_wgmma_kv_bandwidth)),
      optional_field(real("attention_mma_kv_bandwidth", K::rate, "bytes/s", Unit::bytes_per_second, &Gpu::attention_mma_kv_bandwidth)),
      optional_field(real("gemm_fixed_time", K::time, "s", Unit::seconds, &Gpu::gemm_fixed_time)),
      optional_field(real("row_kernel_bandwidth", K::rate, "bytes/s", Unit::bytes_per_second, &Gpu::row_kernel_bandwidth)),
      optional_field(real("launch_overhead_eager", K::time, "s", Unit::seconds, &Gpu::launch_overhead_eager)),
      optional_field(real("graph_replay_host", K::time, "s", Unit::seconds, &Gpu::graph_replay_host)),
      optional_field(real("graph_replay_start", K::time, "s", Unit::seconds, &Gpu::graph_replay_start)),
      // The links between GPUs: optional (0: not known, or none).
      optional_field(count("nvlink_generation", "generation", &Gpu::nvlink_generation, 1, 10)),
      optional_field(count("nvlink_links", "links", &Gpu::nvlink_links, 1, 1024)),
      optional_field(real("nvlink_bandwidth", K::rate, "bytes/s", Unit::bytes_per_second, &Gpu::nvlink_bandwidth)),
      optional_field(count("nvlink_domain", "GPUs", &Gpu::nvlink_domain, 2, 1 << 20)),
      optional_field(yes_no("nvswitch", &Gpu::nvswitch)),
      optional_field(yes_no("nvls", &Gpu::nvls)),
      optional_field(count("pcie_generation", "generation", &Gpu::pcie_generation, 1, 10)),
      optional_field(real("pcie_bandwidth", K::rate, "bytes/s", Unit::bytes_per_second, &Gpu::pcie_bandwidth)),
      optional_field(real("network_bandwidth", K::rate, "bytes/s", Unit::bytes_per_second, &Gpu::network_bandwidth)),
  };
  return fields;
}

std::vector<std::string> builtin_gpu_keys() {
  std::vector<std::string> keys;
  for (const BuiltinProfile& p : builtin_profiles()) keys.emplace_back(p.key);
  std::sort(keys.begin(), keys.end());
  return keys;
}

const BuiltinProfile* find_builtin_profile(std::string_view name) {
  const std::string lower = ascii_lower(name);
  // A key builds only its own profile (the common case, and the fast one); an alias needs
  // every profile's aliases.
  for (const BuiltinProfile& p : builtin_profiles()) {
    if (lower == p.key) return &p;
  }
  for (const BuiltinProfile& p : builtin_profiles()) {
    for (const std::string& alias : p.brief().aliases) {
      if (ascii_lower(alias) == lower) return &p;
    }
  }
  return nullptr;
}

}  // namespace gpucalc
