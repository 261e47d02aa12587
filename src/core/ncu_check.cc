#include "core/ncu_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace gpucalc {
namespace {

double value_or(const NcuKernel& k, NcuField f, double fallback) { return k.has(f) ? k.get(f) : fallback; }

// A size ncu printed rounded (29.82 Kbyte: to 10 bytes) as a whole number of bytes: the multiple
// of 128 (the allocation unit) within the rounding, else of 16, else the nearest byte.
std::int64_t whole_bytes(const NcuKernel& k, NcuField f, std::vector<NcuRounded>& rounded) {
  const double v = k.get(f), step = k.resolution(f);
  if (step <= 1) return std::llround(v);
  for (double unit : {128.0, 16.0}) {
    const double m = std::round(v / unit) * unit;
    if (std::fabs(m - v) <= step / 2) {
      rounded.push_back({f, v, step, m, unit});
      return std::llround(m);
    }
  }
  return std::llround(v);
}

// The carveout the report's Shared Memory Configuration Size names: the profile's size nearest
// it (the report rounds: 32.77 Kbyte is 32 KiB), and the smallest preference the model turns into
// that size.
void read_carveout(const NcuKernel& k, const Gpu& gpu, NcuLaunch& l) {
  if (!k.has(NcuField::smem_config)) return;
  const double v = k.get(NcuField::smem_config), step = std::max(1.0, k.resolution(NcuField::smem_config));
  for (std::int64_t size : gpu.shared_memory_carveouts) {
    if (std::fabs(static_cast<double>(size) - v) <= step / 2 + 0.5) l.carveout = size;
  }
  if (l.carveout < 0) {
    l.carveout_unmatched = v;  // the model takes the driver's default
    return;
  }
  for (int p = 0; p <= 100; ++p) {
    const std::int64_t preference = p * gpu.shared_memory_per_sm / 100;
    std::int64_t aligned = gpu.shared_memory_per_sm;
    for (std::int64_t size : gpu.shared_memory_carveouts) {
      if (size >= preference) {
        aligned = size;
        break;
      }
    }
    if (aligned == l.carveout) {
      l.carveout_percent = p;
      return;
    }
  }
}

// Two block limits are the same when equal, or when both reach the block limit (neither binds:
// ncu prints some limits capped there, gpucalc says unlimited or the resource's own count).
NcuFigure limit_figure(NcuField f, int gpucalc, const NcuKernel& k, int cap) {
  NcuFigure fig{f, gpucalc == kNoLimit ? std::numeric_limits<double>::infinity() : gpucalc, k.get(f), true, false};
  if (fig.gpucalc == fig.ncu) return fig;
  fig.both_capped = fig.gpucalc >= cap && fig.ncu >= cap;
  fig.equal = fig.both_capped;
  return fig;
}

void compare_occupancy(const NcuKernel& k, const Gpu& gpu, NcuCheck& c) {
  const OccupancyResult& r = c.occupancy;
  const int cap = gpu.max_blocks_per_sm;
  auto add = [&](NcuFigure f) {
    if (!f.equal) ++c.differences;
    c.figures.push_back(f);
  };
  if (k.has(NcuField::limit_sm)) add(limit_figure(NcuField::limit_sm, r.limit_blocks, k, cap));
  if (k.has(NcuField::limit_registers)) add(limit_figure(NcuField::limit_registers, r.limit_registers, k, cap));
  if (k.has(NcuField::limit_smem)) add(limit_figure(NcuField::limit_smem, r.limit_shared_memory_configured, k, cap));
  if (k.has(NcuField::limit_warps)) add(limit_figure(NcuField::limit_warps, r.limit_threads, k, cap));
  if (k.has(NcuField::limit_barriers)) add(limit_figure(NcuField::limit_barriers, r.limit_barriers, k, cap));
  if (k.has(NcuField::warps_theoretical)) {
    NcuFigure f{NcuField::warps_theoretical, static_cast<double>(r.warps_per_sm), k.get(NcuField::warps_theoretical), true, false};
    f.equal = std::fabs(f.gpucalc - f.ncu) <= std::max(0.5, k.resolution(NcuField::warps_theoretical));
    add(f);
  }
  if (k.has(NcuField::occupancy_theoretical)) {
    NcuFigure f{NcuField::occupancy_theoretical, r.occupancy, k.get(NcuField::occupancy_theoretical), true, false};
    // ncu prints a percentage to two decimals: 33.33 for 1/3.
    f.equal = std::fabs(f.gpucalc - f.ncu) <= std::max(1e-4, k.resolution(NcuField::occupancy_theoretical)) * 0.51 + 1e-9;
    add(f);
  }
}

void compare_waves(const NcuKernel& k, NcuCheck& c) {
  if (!k.has(NcuField::waves) || c.occupancy.blocks_per_sm == 0) return;
  NcuFigure f{NcuField::waves, c.waves.waves_exact, k.get(NcuField::waves), true, false};
  const double step = std::max(0.01, k.resolution(NcuField::waves));
  f.equal = std::fabs(f.gpucalc - f.ncu) <= step * 0.51 + 1e-9;
  if (!f.equal) ++c.differences;
  c.figures.push_back(f);
}

// A count of the report: the total when it has it, else the rate per elapsed SMSP cycle times
// those cycles (smsp__...sum.per_cycle_elapsed x smsp__cycles_elapsed.avg), else 0.
double count_of(const NcuKernel& k, NcuField total, NcuField rate) {
  if (k.has(total)) return k.get(total);
  if (k.has(rate) && k.has(NcuField::smsp_cycles)) return k.get(rate) * k.get(NcuField::smsp_cycles);
  return 0;
}

bool counted(const NcuKernel& k, NcuField total, NcuField rate) {
  return k.has(total) || (k.has(rate) && k.has(NcuField::smsp_cycles));
}

// The precision of most FLOP: the CUDA cores' from the SASS thread-instruction counts (FMA as 2),
// the tensor cores' from the ops of each source type; false when the report counts neither.
bool largest_flops(const NcuKernel& k, NcuCheck& c) {
  using F = NcuField;
  struct Candidate {
    const char* dtype;
    ComputeUnit unit;
    double flops;
    bool present;
  };
  auto cuda = [&](const char* dtype, F add, F add_rate, F mul, F mul_rate, F fma, F fma_rate) {
    return Candidate{dtype, ComputeUnit::cuda,
                     count_of(k, add, add_rate) + count_of(k, mul, mul_rate) + 2 * count_of(k, fma, fma_rate),
                     counted(k, fma, fma_rate)};
  };
  auto tensor = [&](const char* dtype, F f) { return Candidate{dtype, ComputeUnit::tensor, k.has(f) ? k.get(f) : 0, k.has(f)}; };
  const Candidate all[] = {
      cuda("fp32", F::fadd, F::fadd_rate, F::fmul, F::fmul_rate, F::ffma, F::ffma_rate),
      cuda("fp64", F::dadd, F::dadd_rate, F::dmul, F::dmul_rate, F::dfma, F::dfma_rate),
      cuda("fp16", F::hadd, F::hadd_rate, F::hmul, F::hmul_rate, F::hfma, F::hfma_rate),
      tensor("bf16", F::tensor_bf16), tensor("fp16", F::tensor_fp16), tensor("tf32", F::tensor_tf32),
      tensor("fp8", F::tensor_fp8), tensor("int8", F::tensor_int8), tensor("fp64", F::tensor_fp64)};
  const Candidate* best = nullptr;
  for (const Candidate& x : all) {
    if (x.present && (best == nullptr || x.flops > best->flops)) best = &x;
  }
  if (best == nullptr) return false;
  c.dtype = best->dtype;
  c.unit = best->unit;
  c.flops = best->flops;
  return true;
}

// The roofline of the kernel as the counters give it (roofline --time: roofline.md).
void add_roofline(const NcuKernel& k, const Gpu& gpu, NcuCheck& c) {
  using F = NcuField;
  const bool bytes = k.has(F::dram_bytes) || (k.has(F::dram_read_bytes) && k.has(F::dram_write_bytes));
  if (!bytes || !k.has(F::duration) || !largest_flops(k, c)) return;
  c.dram_bytes = k.has(F::dram_bytes) ? k.get(F::dram_bytes) : k.get(F::dram_read_bytes) + k.get(F::dram_write_bytes);
  if (c.dram_bytes <= 0 || k.get(F::duration) <= 0 || gpu.peak(c.unit, c.dtype) <= 0) return;
  RooflineInput in;
  in.flops = c.flops;
  in.bytes = c.dram_bytes;
  in.dtype = c.dtype;
  in.unit = c.unit;
  in.time = k.get(F::duration);
  c.roofline_boost = roofline(in, gpu);
  // At the report's clocks: a peak of FLOP per clock times the clock the kernel ran at, the
  // profile's peak x clock_sm / the clock it holds at; DRAM likewise by its clock's ratio.
  c.peak_clock = gpu.peak_clock(c.unit);
  if (c.clock_sm > 0 && c.peak_clock > 0) c.sm_clock_scale = c.clock_sm / c.peak_clock;
  in.peak = gpu.peak(c.unit, c.dtype) * c.sm_clock_scale;
  in.bandwidth = gpu.memory_bandwidth * c.dram_clock_scale;
  c.roofline = roofline(in, gpu);
  c.has_roofline = true;
}

void read_clocks(const NcuKernel& k, NcuCheck& c) {
  using F = NcuField;
  if (k.has(F::sm_frequency) && k.get(F::sm_frequency) > 0) c.clock_sm = k.get(F::sm_frequency);
  if (k.has(F::dram_frequency) && k.get(F::dram_frequency) > 0) c.clock_dram = k.get(F::dram_frequency);
  // The raw page's device attribute is in kHz.
  if (k.has(F::device_dram_clock_khz) && k.get(F::device_dram_clock_khz) > 0) c.dram_clock_max = k.get(F::device_dram_clock_khz) * 1e3;
  if (c.clock_dram > 0 && c.dram_clock_max > 0) c.dram_clock_scale = c.clock_dram / c.dram_clock_max;
}

void add_access(const NcuKernel& k, NcuCheck& c) {
  auto ratio = [&](NcuField num, NcuField den) {
    return k.has(num) && k.has(den) && k.get(den) > 0 ? k.get(num) / k.get(den) : -1.0;
  };
  c.load_sectors_per_request = ratio(NcuField::global_load_sectors, NcuField::global_load_requests);
  c.store_sectors_per_request = ratio(NcuField::global_store_sectors, NcuField::global_store_requests);
  // Against the fully used minimum: a 32-byte sector of which the lanes asked for b bytes wastes
  // 32 - b; excess = 1 - b / 32, excess bytes = sectors x (32 - b).
  auto excess = [&](NcuField sectors, NcuField bytes_per_sector, double& share, double& bytes) {
    if (!k.has(sectors) || !k.has(bytes_per_sector) || k.get(sectors) <= 0) return;
    const double used = std::min(32.0, k.get(bytes_per_sector));
    share = 1 - used / 32;
    bytes = k.get(sectors) * (32 - used);
  };
  excess(NcuField::global_load_sectors, NcuField::global_load_bytes_per_sector, c.load_excess, c.load_excess_bytes);
  excess(NcuField::global_store_sectors, NcuField::global_store_bytes_per_sector, c.store_excess, c.store_excess_bytes);
  const bool shared = k.has(NcuField::shared_load_wavefronts) && k.has(NcuField::shared_load_conflicts);
  if (!shared) return;
  const double wavefronts = k.get(NcuField::shared_load_wavefronts) + value_or(k, NcuField::shared_store_wavefronts, 0);
  const double conflicts = k.get(NcuField::shared_load_conflicts) + value_or(k, NcuField::shared_store_conflicts, 0);
  if (wavefronts <= 0) return;
  // A conflict is one more wavefront than a conflict-free access needs; a wavefront moves up to
  // 32 banks x 4 bytes.
  c.shared_excess = conflicts / wavefronts;
  c.shared_excess_bytes = conflicts * 128;
}

// The raw page's launch__barrier_count: each block takes that many of the SM's barriers, so they
// allow floor(barriers per SM / count) blocks (cuda_occupancy.h counts one a block).
void apply_barrier_count(const NcuKernel& k, const Gpu& gpu, OccupancyResult& r) {
  if (!k.has(NcuField::barrier_count) || r.limit_barriers == kNoLimit || k.get(NcuField::barrier_count) < 1) return;
  const int count = static_cast<int>(k.get(NcuField::barrier_count));
  r.limit_barriers = gpu.barriers_per_sm / count;
  if (r.limit_barriers >= r.blocks_per_sm) return;
  const int warps_per_block = r.blocks_per_sm > 0 ? r.warps_per_sm / r.blocks_per_sm : 0;
  r.blocks_per_sm = r.limit_barriers;
  r.warps_per_sm = r.blocks_per_sm * warps_per_block;
  r.threads_per_sm = r.warps_per_sm * gpu.warp_size;
  r.occupancy = static_cast<double>(r.warps_per_sm) / (gpu.max_threads_per_sm / gpu.warp_size);
  r.limiter = Limiter::barriers;
  r.fits = r.blocks_per_sm > 0;
}

}  // namespace

NcuLaunch ncu_launch(const NcuKernel& k, const Gpu& gpu) {
  NcuLaunch l;
  // The Launch Statistics section's figures (ncu's default set has it).
  auto need = [&](NcuField f) {
    if (!k.has(f)) throw FieldError(std::string(ncu_field_name(f)), "", Rule::required);
    return k.get(f);
  };
  const double threads = k.block.total > 0 ? static_cast<double>(k.block.total) : need(NcuField::block_size);
  const double blocks = k.grid.total > 0 ? static_cast<double>(k.grid.total) : need(NcuField::grid_size);
  const double registers = need(NcuField::registers);
  auto refuse = [](NcuField f, double v, Rule rule) { return FieldError(std::string(ncu_field_name(f)), v, rule); };
  if (threads < 1 || threads > gpu.max_threads_per_block) {
    throw refuse(NcuField::block_size, threads, Rule::in_range).range(1, gpu.max_threads_per_block);
  }
  if (blocks < 1) throw refuse(NcuField::grid_size, blocks, Rule::at_least).lo(1);
  if (registers < 0 || registers > gpu.max_registers_per_thread) {
    throw refuse(NcuField::registers, registers, Rule::in_range).range(0, gpu.max_registers_per_thread);
  }
  l.threads = static_cast<int>(threads);
  l.blocks = static_cast<std::int64_t>(blocks);
  l.registers = static_cast<int>(registers);
  if (k.has(NcuField::smem_static)) l.shared_memory_static = whole_bytes(k, NcuField::smem_static, l.rounded);
  if (k.has(NcuField::smem_dynamic)) l.shared_memory_dynamic = whole_bytes(k, NcuField::smem_dynamic, l.rounded);
  if (k.has(NcuField::smem_driver)) l.shared_memory_driver = whole_bytes(k, NcuField::smem_driver, l.rounded);
  l.shared_memory = std::max<std::int64_t>(l.shared_memory_static, 0) + std::max<std::int64_t>(l.shared_memory_dynamic, 0);
  read_carveout(k, gpu, l);
  l.sm_count = k.has(NcuField::sm_count) ? static_cast<int>(k.get(NcuField::sm_count)) : gpu.sm_count;
  if (l.sm_count < 1) l.sm_count = gpu.sm_count;
  return l;
}

SmCountRange sm_count_from_waves(const NcuKernel& k, int blocks_per_sm, std::int64_t blocks) {
  SmCountRange r;
  if (!k.has(NcuField::waves) || blocks_per_sm < 1 || blocks < 1) return r;
  // ncu prints waves to two decimals (59.36), a whole number without them (1): half of that either way.
  const double half = std::max(0.01, k.resolution(NcuField::waves)) / 2, w = k.get(NcuField::waves);
  const double per_wave = static_cast<double>(blocks_per_sm), n = static_cast<double>(blocks);
  if (w - half <= 0) return r;
  r.lo = static_cast<int>(std::ceil(n / (per_wave * (w + half)) - 1e-9));
  const double hi = std::floor(n / (per_wave * (w - half)) + 1e-9);
  r.hi = static_cast<int>(std::min(hi, static_cast<double>(kProfileMaxCount)));
  r.lo = std::max(r.lo, 1);
  return r;
}

NcuCheck check_ncu_kernel(const NcuKernel& k, const Gpu& gpu) {
  NcuCheck c;
  c.launch = ncu_launch(k, gpu);
  OccupancyInput in;
  in.threads = c.launch.threads;
  in.registers = c.launch.registers;
  in.shared_memory = c.launch.shared_memory;
  in.carveout_percent = c.launch.carveout_percent;
  c.occupancy = launch_occupancy(in, gpu);
  apply_barrier_count(k, gpu, c.occupancy);
  if (c.occupancy.fits) {
    in.registers = std::max(in.registers, 1);
    c.one_more = one_more_block(in, c.occupancy, gpu);
  }
  compare_occupancy(k, gpu, c);
  if (c.occupancy.blocks_per_sm > 0) {
    // Waves at the report's SM count: waves_exact is ncu's Waves Per SM.
    c.waves = waves({c.launch.blocks, c.occupancy.blocks_per_sm, 0, c.launch.sm_count}, gpu);
    // A uniform partial last wave takes as long as a full one: up to 1 / waves of the time.
    c.tail_share = c.waves.last_wave_blocks < c.waves.blocks_per_wave && c.waves.waves > 1 ? 1.0 / static_cast<double>(c.waves.waves) : 0;
  }
  compare_waves(k, c);
  read_clocks(k, c);
  add_roofline(k, gpu, c);
  c.sol = speed_of_light(k);
  add_access(k, c);
  return c;
}

}  // namespace gpucalc
