// measure calibrate: the ceilings a profile needs (bandwidths, latencies, launch overhead,
// peaks), measured on GPU 0, and the table that sets them beside the base profile's figures.
#include <fmt/format.h>

#include <algorithm>

#include "core/error.h"
#include "core/little.h"
#include "parse/quantity.h"
#include "measure/cases.h"

namespace gpucalc {

using cases::find_gpc_layout;
using cases::kGiB;
using cases::kMiB;
using cases::kNoPrediction;
using cases::row;

namespace {

/// The little kernel's sweep of bytes in flight per SM, and the fit of the loaded-latency model's
/// s and r to it (L0: the HBM chase at the SM clock, as the profile gives it; B: the read-only kernel). 1 warp x 4 loads and 16 warps x 4
/// loads stay out of the sweep: `measure little` checks the model on them.
void fit_loaded_latency(const DeviceInfo& device, Calibration& c) {
  Gpu shape;
  shape.sm_count = device.sm_count;
  shape.max_threads_per_block = device.max_threads_per_block;
  shape.shared_memory_per_sm = device.shared_memory_per_sm;
  shape.shared_memory_per_block_optin = device.shared_memory_per_block_optin;
  const int max_warps = device.max_threads_per_sm / shape.warp_size;
  const std::pair<int, int> sweep[] = {{1, 1}, {2, 1}, {4, 1}, {8, 1}, {16, 1}, {32, 1}, {64, 1},
                                       {2, 4}, {4, 4}, {8, 4}, {32, 4}, {64, 4}};
  std::vector<LoadPoint> points;
  for (auto [warps, loads] : sweep) {
    if (warps > max_warps) continue;
    const double bw = cases::little_read_bandwidth(shape, warps, loads, 512 * kMiB);
    c.loaded_points.push_back({warps, loads, bw});
    points.push_back({static_cast<double>(warps), static_cast<double>(loads), 16, bw});
  }
  // B: the read-only kernel's, or the sweep's best where that read faster (the queue diverges at
  // the most the memory gives a read, whichever kernel found it)
  c.loaded_read_bandwidth = c.read_bandwidth;
  for (const LoadPoint& p : points) c.loaded_read_bandwidth = std::max(c.loaded_read_bandwidth, p.bandwidth);
  try {
    const LoadFit fit = fit_loaded(points, c.latency_hbm_cycles / device.clock_hz, c.loaded_read_bandwidth, device.sm_count);
    c.latency_queue_time = fit.queue_time;
    c.warp_return_bandwidth = fit.warp_return_bandwidth;
    c.loaded_worst_ratio = fit.worst_ratio;
  } catch (const FieldError& e) {
    // Too few points (below 99.5% of the read bandwidth, at two utilisations), or a sweep whose
    // latencies do not rise with burst and load (a fit's s or 1 / q not above 0).
    c.loaded_skipped = e.field() == "points"
                           ? fmt::format("{} usable points: the fit needs at least two below 99.5% of the read bandwidth, at two "
                                         "utilisations", e.value())
                           : fmt::format("the fit gives {} {}: the sweep's latencies do not rise with burst and load", e.field(),
                                         e.value());
  }
}

}  // namespace

Calibration run_calibration(const DeviceInfo& device) {
  Calibration c;
  try {
    dev::CopyRun copy = dev::run_copy(kGiB);
    const double bytes = 2.0 * static_cast<double>(copy.bytes);
    c.memcpy_bandwidth = bytes / copy.memcpy_seconds;
    c.copy_bandwidth = bytes / copy.variants[copy.best].second;
    c.copy_variant = copy.variants[copy.best].first;
    for (const auto& [name, seconds] : copy.variants) c.copy_variants.emplace_back(name, bytes / seconds);
    // 4 GiB: about 1 ms a pass, so the ramp at the start and the tail at the end weigh under 1%
    dev::ReadRun read = dev::run_read(4 * kGiB);
    c.read_bandwidth = static_cast<double>(read.bytes) / read.variants[read.best].second;
    c.read_variant = read.variants[read.best].first;
    for (const auto& [name, seconds] : read.variants) c.read_variants.emplace_back(name, static_cast<double>(read.bytes) / seconds);
    const int passes = 20;
    c.l2_bandwidth = static_cast<double>(24 * kMiB) * passes / dev::run_l2_read(24 * kMiB, passes);
    // one 32-byte sector of each 128-byte line at a time: 4x the passes of the full-line read in
    // sectors, so that a run lasts about as long (~100 us); the most requests in flight that the
    // variants keep is the L2's sector rate
    dev::L2SectorRun sector = dev::run_l2_sector_read(24 * kMiB, 4 * passes);
    c.l2_sector_variants = sector.variants;
    c.l2_sector_bandwidth = sector.variants[sector.best].second;
    c.l2_sector_variant = sector.variants[sector.best].first;
    // 1 GiB of 64-byte granules, each in a page of its own: ~0.4 ms at 2.5 TB/s
    c.dram_scattered_bandwidth = static_cast<double>(kGiB) / dev::run_dram_scattered_read(kGiB);
    dev::ChaseRun l1 = dev::run_chase(64 * 1024, 1 << 16);
    dev::ChaseRun l2 = dev::run_chase(16 * kMiB, 1 << 17);
    dev::ChaseRun hbm = dev::run_chase(kGiB, 1 << 17);
    c.latency_l1_cycles = l1.cycles_per_hop;
    c.latency_l1_ns = l1.ns_per_hop;
    c.latency_l2_cycles = l2.cycles_per_hop;
    c.latency_l2_ns = l2.ns_per_hop;
    c.latency_hbm_cycles = hbm.cycles_per_hop;
    c.latency_hbm_ns = hbm.ns_per_hop;
    fit_loaded_latency(device, c);
    dev::LaunchRun launch = dev::run_launch(2000);
    c.launch_overhead = launch.per_kernel;
    c.launch_overhead_graph = launch.per_kernel_graph;
    c.launch_round_trip = launch.round_trip;
    dev::FmaRun fma = dev::run_fma_peak(device.sm_count);
    c.fp32_peak = fma.flops;
    c.fp32_clock_hz = fma.clock_hz;
    c.fp32_variant = fma.variant;
    c.fp32_variants = fma.variants;
    c.bf16_mma_sync = dev::run_mma_peak(device.sm_count);
    dev::WgmmaRun wgmma = dev::run_wgmma_peak(device.sm_count);
    if (wgmma.ran) {
      c.bf16_wgmma = wgmma.variants[wgmma.best].second;
      c.wgmma_variant = wgmma.variants[wgmma.best].first;
      c.wgmma_variants = wgmma.variants;
    } else {
      c.wgmma_skipped = wgmma.why_not;
    }
    c.bf16_tensor_peak = std::max(c.bf16_mma_sync, c.bf16_wgmma);
    constexpr int kGemmN = 8192;
    dev::CublasRun gemm = dev::run_cublas_gemm(kGemmN);
    c.cublas_n = kGemmN;
    if (gemm.ran) {
      c.cublas_bf16 = 2.0 * kGemmN * static_cast<double>(kGemmN) * kGemmN / gemm.seconds;
      c.cublas_library = gemm.library;
    } else {
      c.cublas_skipped = gemm.why_not;
    }
    if (device.cc_major >= 9) {
      Gpu probe_gpu;
      probe_gpu.shared_memory_per_block_optin = device.shared_memory_per_block_optin;
      c.gpc_sms = find_gpc_layout(probe_gpu, device.sm_count, &c.gpc_how);
    }
  } catch (const DeviceError& e) {
    throw DeviceError(fmt::format("measure calibrate: {}", e.what()));
  }
  return c;
}

MeasureTable calibration_table(const Calibration& c, const Gpu& base) {
  MeasureTable t{.key = "calibrate", .title = fmt::format("the ceilings, against the {} profile", base.key)};
  const double hz = base.boost_clock;
  t.rows = {
      row("cudaMemcpy device to device, bandwidth (read + write)", Unit::bytes_per_second, base.memory_bandwidth, c.memcpy_bandwidth),
      row(fmt::format("copy kernel ({}), bandwidth (against cudaMemcpy)", c.copy_variant), Unit::bytes_per_second, c.memcpy_bandwidth,
          c.copy_bandwidth),
      row(fmt::format("read-only kernel ({}, 4 GiB), bandwidth", c.read_variant), Unit::bytes_per_second, base.memory_bandwidth,
          c.read_bandwidth),
      row("L2 read bandwidth", Unit::bytes_per_second, base.l2_bandwidth, c.l2_bandwidth),
      row("L2 sector bandwidth, one 32-byte sector per 128-byte line (against the full-line L2 read)", Unit::bytes_per_second,
          c.l2_bandwidth, c.l2_sector_bandwidth),
      row("HBM scattered 64-byte granules, one per DRAM page (against the read-only kernel)", Unit::bytes_per_second,
          c.read_bandwidth, c.dram_scattered_bandwidth),
      row("L1 latency (pointer chase, 64 KiB)", Unit::cycles, base.latency_l1_cycles, c.latency_l1_cycles),
      row("L2 latency (pointer chase, 16 MiB)", Unit::cycles, base.latency_l2_cycles, c.latency_l2_cycles),
      row("HBM latency (pointer chase, 1 GiB)", Unit::cycles, base.latency_hbm_cycles, c.latency_hbm_cycles),
      row("HBM latency in time", Unit::seconds, base.latency_hbm_cycles / hz, c.latency_hbm_ns * 1e-9),
      row("launch overhead, back to back", Unit::seconds, base.launch_overhead, c.launch_overhead),
      row("launch overhead, CUDA graph", Unit::seconds, base.launch_overhead, c.launch_overhead_graph),
      row("launch + synchronize (host clock)", Unit::seconds, kNoPrediction, c.launch_round_trip),
      row("FP32 FMA peak", Unit::flops_per_second, base.peak(ComputeUnit::cuda, "fp32"), c.fp32_peak),
  };
  // The profile's FP32 peak is at its boost clock; scaled to the clock the FMA loop ran at, it
  // is the FMA units' own ceiling (e.g. 128 FMA/clk/SM on Hopper).
  if (c.fp32_clock_hz > 0 && base.boost_clock > 0) {
    t.rows.push_back(row(fmt::format("FP32 FMA peak at the measured SM clock ({:.0f} MHz)", c.fp32_clock_hz / 1e6),
                         Unit::flops_per_second, base.peak(ComputeUnit::cuda, "fp32") * c.fp32_clock_hz / base.boost_clock,
                         c.fp32_peak));
  }
  const double bf16 = base.peak(ComputeUnit::tensor, "bf16");
  t.rows.push_back(row("bf16 tensor-core peak (wmma, mma.sync)", Unit::flops_per_second, bf16, c.bf16_mma_sync));
  if (c.bf16_wgmma > 0) {
    t.rows.push_back(row("bf16 tensor-core peak (wgmma, sm_90a)", Unit::flops_per_second, bf16, c.bf16_wgmma));
  }
  if (c.cublas_bf16 > 0) {
    t.rows.push_back(row(fmt::format("cuBLAS bf16 GEMM {}^3 (cublasGemmEx, fp32 compute)", c.cublas_n), Unit::flops_per_second, bf16,
                         c.cublas_bf16));
    if (c.bf16_wgmma > 0) {
      t.rows.push_back(row("bf16 tensor-core peak (wgmma) against cuBLAS", Unit::flops_per_second, c.cublas_bf16, c.bf16_wgmma));
    }
  }
  if (c.latency_queue_time > 0) {
    auto base_or_none = [](double v) { return v > 0 ? v : kNoPrediction; };
    t.rows.push_back(row(fmt::format("loaded latency: queue time s (fit to {} reads)", c.loaded_points.size()), Unit::seconds,
                         base_or_none(base.latency_queue_time), c.latency_queue_time));
    t.rows.push_back(row("loaded latency: a warp's burst drain rate r (same fit)", Unit::bytes_per_second,
                         base_or_none(base.warp_return_bandwidth), c.warp_return_bandwidth));
    t.notes.push_back(fmt::format("loaded-latency fit: the sweep point furthest from the model reached {:.3f} of it", c.loaded_worst_ratio));
  }
  for (const Calibration::LoadedPoint& p : c.loaded_points) {
    t.notes.push_back(fmt::format("little sweep {} warps x {} loads ({} per SM): {}", p.warps, p.loads,
                                  format_quantity(p.warps * 32.0 * p.loads * 16, Unit::onchip_bytes),
                                  format_quantity(p.bandwidth, Unit::bytes_per_second)));
  }
  if (!c.loaded_skipped.empty()) t.notes.push_back("loaded-latency fit: not written: " + c.loaded_skipped);
  if (!c.gpc_sms.empty()) {
    t.rows.push_back(row("GPCs (clusters' SMs grouped)", Unit::count, base.gpc_sms.empty() ? kNoPrediction : static_cast<double>(base.gpc_sms.size()),
                         static_cast<double>(c.gpc_sms.size())));
    t.notes.push_back(fmt::format("GPC layout: {} SMs per GPC ({})", fmt::join(c.gpc_sms, ", "), c.gpc_how));
  }
  for (const auto& [name, bw] : c.copy_variants) {
    t.notes.push_back(fmt::format("copy variant {}: {} ({:.1f}% of cudaMemcpy)", name, format_quantity(bw, Unit::bytes_per_second),
                                  100.0 * bw / c.memcpy_bandwidth));
  }
  for (const auto& [name, bw] : c.l2_sector_variants) {
    t.notes.push_back(fmt::format("L2 sector variant {}, 8 blocks of 256 an SM: {}{}", name, format_quantity(bw, Unit::bytes_per_second),
                                  name == c.l2_sector_variant ? " (the best: l2_sector_bandwidth)" : ""));
  }
  if (c.dram_scattered_bandwidth > 0) {
    t.notes.push_back("HBM scattered: the first word of each 64-byte granule of a 1 GiB buffer, lane k at granule k x step "
                      "mod 2^24 (step odd, 0.618 of the buffer): every granule once, each in a DRAM page of its own");
  }
  for (const auto& [name, bw] : c.read_variants) {
    t.notes.push_back(fmt::format("read variant {}: {} ({:.1f}% of the profile's {})", name, format_quantity(bw, Unit::bytes_per_second),
                                  100.0 * bw / base.memory_bandwidth, format_quantity(base.memory_bandwidth, Unit::bytes_per_second)));
  }
  for (const auto& [name, flops] : c.fp32_variants) {
    t.notes.push_back(fmt::format("FMA variant {}: {}{}", name, format_quantity(flops, Unit::flops_per_second),
                                  name == c.fp32_variant && c.fp32_clock_hz > 0
                                      ? fmt::format(" at {:.0f} MHz (clock64 over globaltimer, the median block)", c.fp32_clock_hz / 1e6)
                                      : std::string()));
  }
  for (const auto& [name, flops] : c.wgmma_variants) {
    t.notes.push_back(fmt::format("wgmma variant {}: {}{}", name, format_quantity(flops, Unit::flops_per_second),
                                  c.cublas_bf16 > 0 ? fmt::format(" ({:.1f}% of cuBLAS)", 100.0 * flops / c.cublas_bf16) : std::string()));
  }
  if (!c.wgmma_skipped.empty()) t.notes.push_back("wgmma: not run: " + c.wgmma_skipped);
  if (c.cublas_bf16 > 0) {
    t.notes.push_back(fmt::format("cuBLAS: {} loaded at run time; cublasGemmEx C = A^T B, {}^3, bf16 in and out, CUBLAS_COMPUTE_32F, "
                                  "random inputs (near-normal, as torch.randn), timed after 2 s back to back (the power limit's sustained clock); 256 "
                                  "sampled elements checked against the sum in double; the profile's tensor_achievable",
                                  c.cublas_library, c.cublas_n));
  }
  if (!c.cublas_skipped.empty()) t.notes.push_back("cuBLAS: not run: " + c.cublas_skipped);
  for (const MeasureRow& r : t.rows) t.summary.push_back(r.quantity);
  return t;
}

}  // namespace gpucalc
