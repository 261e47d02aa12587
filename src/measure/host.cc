// Host-side parts of measure that need no GPU: checks, residency counting, the case table,
// the profile for a device, and the profile TOML writer.
#include "measure/host.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

#include "core/error.h"
#include "core/profile_match.h"
#include "parse/profile_toml.h"
#include "measure/measure.h"

namespace gpucalc {

void require_match(const std::string& what, const CheckResult& result) {
  if (result.wrong == 0) return;
  std::string first;
  for (const Mismatch& m : result.first) {
    first += fmt::format("{}[{}] got {}, expected {}", first.empty() ? "" : "; ", m.index, m.got, m.want);
  }
  throw DeviceError(fmt::format("{}: {} of {} elements differ from the host reference: {}", what, result.wrong,
                                result.checked, first));
}

int max_resident_per_sm(const std::vector<dev::BlockRecord>& records, int* sms_at_max) {
  // Per SM, a sweep over start (+1) and end (-1) events; at equal times ends come first, so a
  // block that starts in the tick another ends does not count as overlapping it.
  std::map<int, std::vector<std::pair<long long, int>>> events;
  for (const dev::BlockRecord& r : records) {
    events[r.sm].push_back({r.start, +1});
    events[r.sm].push_back({r.end, -1});
  }
  int best = 0, at_best = 0;
  for (auto& [sm, ev] : events) {
    (void)sm;
    std::sort(ev.begin(), ev.end());
    int now = 0, most = 0;
    for (const auto& e : ev) {
      now += e.second;
      most = std::max(most, now);
    }
    if (most > best) {
      best = most;
      at_best = 1;
    } else if (most == best) {
      ++at_best;
    }
  }
  if (sms_at_max != nullptr) *sms_at_max = at_best;
  return best;
}

double median_after_first(std::vector<double> seconds) {
  if (seconds.size() < 2) throw std::invalid_argument("median_after_first: fewer than two timings");
  seconds.erase(seconds.begin());
  std::sort(seconds.begin(), seconds.end());
  std::size_t n = seconds.size();
  return n % 2 == 1 ? seconds[n / 2] : 0.5 * (seconds[n / 2 - 1] + seconds[n / 2]);
}

bool MeasureRow::is_range() const { return std::isfinite(predicted_low); }

double MeasureRow::ratio() const {
  if (!std::isfinite(predicted) || predicted == 0) return std::numeric_limits<double>::quiet_NaN();
  if (is_range() && predicted_low > 0) {
    if (!std::isfinite(achieved)) return std::numeric_limits<double>::quiet_NaN();
    if (achieved < predicted_low) return achieved / predicted_low;
    return achieved > predicted ? achieved / predicted : 1.0;
  }
  return achieved / predicted;
}

DeviceProfile profile_for_device(const DeviceInfo& device) {
  const ProfileMatch match = match_builtin_profile({device.name, device.cc_major, device.cc_minor, device.sm_count});
  if (match.by == MatchedBy::none) {
    throw InputError("--gpu", "(not given)",
                     fmt::format("a profile of this GPU, {} (compute capability {}.{}, {} SMs): no built-in profile has "
                                 "its compute capability (they have {}); give --gpu NAME|FILE.toml (gpucalc hw new "
                                 "writes one; gpucalc measure calibrate --gpu NAME measures one over it)",
                                 InputError::printable(device.name), device.cc_major, device.cc_minor, device.sm_count,
                                 fmt::join(builtin_capabilities(), ", ")));
  }
  const Gpu base = find_builtin_profile(match.key)->make();
  if (match.by == MatchedBy::name && base.sm_count == device.sm_count) return {base, ""};
  if (match.by == MatchedBy::capability_and_sm_count) {
    return {base, fmt::format("profile {}: the name {} is no profile's; {} has its compute capability ({}.{}) and SM "
                              "count ({}){}",
                              base.key, InputError::printable(device.name), base.key, device.cc_major, device.cc_minor,
                              device.sm_count,
                              match.others.empty() ? "" : fmt::format("; --gpu {} for another", fmt::join(match.others, ", ")))};
  }
  // Not this GPU as a profile knows it: the device's properties over the profile matched.
  Gpu gpu = base;
  const std::string source = fmt::format("device properties of {} (cudaGetDeviceProperties)", device.name);
  auto set = [&](const char* field) { gpu.provenance[field] = Provenance{"measured", source}; };
  gpu.key = "device";
  gpu.name = device.name;
  gpu.aliases.clear();
  gpu.origin = fmt::format("device properties over {}", base.key);
  gpu.cc_major = device.cc_major;
  gpu.cc_minor = device.cc_minor;
  set("name");
  set("compute_capability");
  auto take = [&](auto& member, auto value, const char* field) {
    if (value > 0) {
      member = static_cast<std::remove_reference_t<decltype(member)>>(value);
      set(field);
    }
  };
  take(gpu.sm_count, device.sm_count, "sm_count");
  take(gpu.max_threads_per_sm, device.max_threads_per_sm, "max_threads_per_sm");
  take(gpu.max_threads_per_block, device.max_threads_per_block, "max_threads_per_block");
  take(gpu.max_blocks_per_sm, device.max_blocks_per_sm, "max_blocks_per_sm");
  take(gpu.registers_per_sm, device.registers_per_sm, "registers_per_sm");
  take(gpu.registers_per_block, device.registers_per_block, "registers_per_block");
  take(gpu.shared_memory_per_sm, device.shared_memory_per_sm, "shared_memory_per_sm");
  take(gpu.shared_memory_per_block, device.shared_memory_per_block, "shared_memory_per_block");
  take(gpu.shared_memory_per_block_optin, device.shared_memory_per_block_optin, "shared_memory_per_block_optin");
  if (device.shared_memory_reserved_per_block >= 0 && device.shared_memory_per_sm > 0) {
    gpu.shared_memory_reserved_per_block = device.shared_memory_reserved_per_block;
    set("shared_memory_reserved_per_block");
  }
  // The carveouts: the base's sizes below the device's shared memory per SM, then all of it (a
  // profile's largest carveout is its shared memory per SM).
  auto& carveouts = gpu.shared_memory_carveouts;
  if (carveouts.back() != gpu.shared_memory_per_sm) {
    std::erase_if(carveouts, [&](std::int64_t size) { return size >= gpu.shared_memory_per_sm; });
    carveouts.push_back(gpu.shared_memory_per_sm);
    gpu.provenance["shared_memory_carveouts"] =
        Provenance{"derived", fmt::format("{}'s carveouts up to the device's shared memory per SM", base.key)};
  }
  take(gpu.l2_size, device.l2_bytes, "l2_size");
  take(gpu.memory_size, device.memory_bytes, "memory_size");
  take(gpu.boost_clock, device.clock_hz, "boost_clock");
  // HBM and GDDR report the clock of a double-data-rate interface: bytes/s = 2 f bus / 8.
  double bandwidth = 2.0 * device.memory_clock_hz * device.memory_bus_bits / 8.0;
  if (bandwidth > 0) {
    gpu.memory_bandwidth = bandwidth;
    gpu.provenance["memory_bandwidth"] = Provenance{"derived", source + ": 2 x memory clock x bus width / 8"};
  }
  return {gpu, fmt::format("no built-in profile matches {} (sm_{}{}, {} SMs): predictions use its properties over "
                           "the {} profile (peaks, latencies and the rest are {}'s)",
                           device.name, device.cc_major, device.cc_minor, device.sm_count, base.key, base.key)};
}

std::string profile_toml(const Gpu& g, const std::string& header_comment) {
  std::string out;
  std::size_t start = 0;
  while (start < header_comment.size()) {
    std::size_t nl = header_comment.find('\n', start);
    // Each line escaped as hw new escapes its header (a device name may hold any byte).
    out += "# " + comment_text(header_comment.substr(start, nl == std::string::npos ? std::string::npos : nl - start)) + "\n";
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  // The fields, one line each, as the core writes every profile.
  return out + profile_toml(g);
}

Gpu calibrated_profile(const Gpu& base, const Calibration& c, const DeviceInfo& device, const std::string& date) {
  Gpu g = base;
  g.key = base.key + "-calibrated";
  g.origin = "measure calibrate";
  const std::string where = fmt::format("gpucalc measure calibrate on {} ({} SMs), {}", device.name, device.sm_count, date);
  auto measured = [&](const char* field, const std::string& how) { g.provenance[field] = Provenance{"measured", where + ": " + how}; };
  if (c.copy_bandwidth > 0) {
    g.memory_bandwidth = c.copy_bandwidth;
    measured("memory_bandwidth",
             fmt::format("copy kernel {} over 1 GiB, read + write, median; cudaMemcpy device to device {:.0f} GB/s; "
                         "read-only kernel {:.0f} GB/s",
                         c.copy_variant, c.memcpy_bandwidth / 1e9, c.read_bandwidth / 1e9));
  }
  if (c.memcpy_bandwidth > 0) {
    g.memory_bandwidth_achievable = c.memcpy_bandwidth;
    measured("memory_bandwidth_achievable", "cudaMemcpy device to device over 1 GiB, read + write, median");
  }
  if (c.loaded_read_bandwidth > c.read_bandwidth) {
    g.memory_read_bandwidth = c.loaded_read_bandwidth;
    measured("memory_read_bandwidth", fmt::format("the little kernel's best read of the loaded-latency sweep (the read-only "
                                                  "kernel {}: {:.0f} GB/s)",
                                                  c.read_variant, c.read_bandwidth / 1e9));
  } else if (c.read_bandwidth > 0) {
    g.memory_read_bandwidth = c.read_bandwidth;
    measured("memory_read_bandwidth", fmt::format("read-only kernel {} over 4 GiB, median", c.read_variant));
  }
  if (c.latency_queue_time > 0 && c.warp_return_bandwidth > 0) {
    const std::string how = fmt::format("fitted to the little kernel's sweep of {} reads (1 and 16 warps x 4 loads held back), "
                                        "L0 the HBM chase, B the read-only kernel; worst point {:.3f} of the model",
                                        c.loaded_points.size(), c.loaded_worst_ratio);
    g.latency_queue_time = c.latency_queue_time;
    measured("latency_queue_time", how);
    g.warp_return_bandwidth = c.warp_return_bandwidth;
    measured("warp_return_bandwidth", how);
  }
  if (c.l2_bandwidth > 0) {
    g.l2_bandwidth = c.l2_bandwidth;
    measured("l2_bandwidth", "16-byte ld.global.cg reads of a 24 MiB buffer, repeated passes");
  }
  if (c.l2_sector_bandwidth > 0) {
    g.l2_sector_bandwidth = c.l2_sector_bandwidth;
    measured("l2_sector_bandwidth", "4-byte reads of one 32-byte sector in each 128-byte line of a 24 MiB buffer "
                                    "(lane t in line base + t, 32 lines a warp request), repeated passes; bytes of sectors; the best "
                                    "variant: " + c.l2_sector_variant);
  }
  if (c.dram_scattered_bandwidth > 0) {
    g.dram_scattered_bandwidth = c.dram_scattered_bandwidth;
    measured("dram_scattered_bandwidth", "4-byte reads of the first word of each 64-byte granule of a 1 GiB buffer in a scattered "
                                         "order (neighbouring lanes 0.618 of the buffer apart), one granule per DRAM page; bytes of granules");
  }
  if (c.launch_round_trip > 0) {
    g.launch_latency = c.launch_round_trip;
    measured("launch_latency", "launch + synchronize of an empty kernel on an idle GPU, host clock, the median of 200");
  }
  if (c.launch_overhead_graph > 0) {
    g.launch_overhead_graph = c.launch_overhead_graph;
    measured("launch_overhead_graph", "the same empty kernels replayed from a CUDA graph, events, per kernel");
  }
  if (c.latency_l1_cycles > 0) {
    g.latency_l1_cycles = c.latency_l1_cycles;
    measured("latency_l1_cycles", fmt::format("pointer chase in 64 KiB, clock64: {:.1f} ns", c.latency_l1_ns));
  }
  if (c.latency_l2_cycles > 0) {
    g.latency_l2_cycles = c.latency_l2_cycles;
    measured("latency_l2_cycles", fmt::format("pointer chase in 16 MiB, clock64: {:.1f} ns", c.latency_l2_ns));
  }
  if (c.latency_hbm_cycles > 0) {
    g.latency_hbm_cycles = c.latency_hbm_cycles;
    measured("latency_hbm_cycles", fmt::format("pointer chase over 1 GiB in 128-byte lines, clock64: {:.1f} ns", c.latency_hbm_ns));
  }
  if (c.launch_overhead > 0) {
    g.launch_overhead = c.launch_overhead;
    measured("launch_overhead", fmt::format("2000 back-to-back empty kernels, events; in a CUDA graph {:.2f} us; "
                                            "launch + synchronize {:.2f} us",
                                            c.launch_overhead_graph * 1e6, c.launch_round_trip * 1e6));
  }
  if (c.fp32_peak > 0) {
    g.peak_cuda["fp32"] = c.fp32_peak;
    measured("peak_cuda_fp32", c.fp32_clock_hz > 0 ? fmt::format("FMA loop ({}) at an SM clock of {:.0f} MHz", c.fp32_variant,
                                                                 c.fp32_clock_hz / 1e6)
                                                   : std::string("FMA loop, independent chains per thread"));
  }
  if (c.bf16_tensor_peak > 0) {
    g.peak_tensor["bf16"] = c.bf16_tensor_peak;
    std::string how = fmt::format("the best of a wmma m16n16k16 bf16 loop (mma.sync, fp32 accumulate, {:.0f} TFLOP/s)",
                                  c.bf16_mma_sync / 1e12);
    if (c.bf16_wgmma > 0) how += fmt::format(" and a wgmma loop ({}, {:.0f} TFLOP/s)", c.wgmma_variant, c.bf16_wgmma / 1e12);
    if (c.cublas_bf16 > 0) how += fmt::format("; cuBLAS bf16 GEMM {}^3 {:.0f} TFLOP/s", c.cublas_n, c.cublas_bf16 / 1e12);
    measured("peak_tensor_bf16", how);
  }
  if (c.cublas_bf16 > 0) {
    // What a library GEMM reaches on real data at the sustained clock: the expected times' rate
    // (core/expected.h), not the peak.
    g.tensor_achievable = c.cublas_bf16;
    measured("tensor_achievable", fmt::format("cuBLAS bf16 GEMM {}^3, near-normal random inputs (as torch.randn), after 2 s back to back (sustained clock), "
                                              "median", c.cublas_n));
  }
  if (!c.gpc_sms.empty()) {
    g.gpc_sms = c.gpc_sms;
    measured("gpc_sms", c.gpc_how);
  }
  const std::string props = where + ": cudaGetDeviceProperties";
  if (device.sm_count > 0) {
    g.sm_count = device.sm_count;
    g.provenance["sm_count"] = {"measured", props};
  }
  if (device.l2_bytes > 0) {
    g.l2_size = device.l2_bytes;
    g.provenance["l2_size"] = {"measured", props};
  }
  if (device.clock_hz > 0) {
    g.boost_clock = device.clock_hz;
    g.provenance["boost_clock"] = {"measured", props + " (clockRate)"};
  }
  return g;
}

}  // namespace gpucalc

#include "measure/inputs.h"

namespace gpucalc {

std::uint32_t sum_of_words(std::uint32_t seed, std::size_t n) {
  unsigned threads = std::max(1u, std::min(32u, std::thread::hardware_concurrency()));
  if (n < (1u << 16)) threads = 1;
  std::vector<std::uint32_t> parts(threads, 0);
  auto work = [&](unsigned t) {
    std::size_t begin = n / threads * t;
    std::size_t end = t + 1 == threads ? n : n / threads * (t + 1);
    std::uint32_t s = 0;
    for (std::size_t i = begin; i < end; ++i) s += inputs::word(seed, i);
    parts[t] = s;
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work, t);
  work(0);
  for (std::thread& th : pool) th.join();
  std::uint32_t sum = 0;
  for (std::uint32_t s : parts) sum += s;
  return sum;
}

}  // namespace gpucalc
