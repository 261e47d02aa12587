// gpucalc ncu FILE|-: an Nsight Compute report read, a row per kernel launch, gpucalc's models
// (occupancy, waves, roofline, memory access) beside what ncu counted.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <iterator>
#include <memory>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "commands/commands.h"
#include "commands/ncu_sol_words.h"
#include "commands/ncu_words.h"
#include "core/error.h"
#include "core/kernel_name.h"
#include "core/ncu_check.h"
#include "core/lines.h"
#include "core/ncu_report.h"
#include "core/profile_match.h"
#include "io/read.h"
#include "parse/pattern.h"

namespace gpucalc {
namespace {

// The handles of the options and results, in the order the declaration below gives them (the
// engine checks it): a run reads each option and puts each result by its handle, no name looked up.
enum Option : Place { kReport, kKernel, kDevice, kNameBase };
enum Result : Place {
  kKernelId, kKernelName, kKernelProcess, kKernelDevice, kLaunchGrid, kLaunchBlock, kLaunchCluster,
  kLaunchRegisters, kLaunchSharedMemory, kLaunchSharedMemoryStatic, kLaunchSharedMemoryDynamic,
  kLaunchSharedMemoryDriver, kLaunchCarveout, kBlocksPerSm, kWarpsPerSm, kOccupancy, kLimiter, kLimitsRegisters,
  kLimitsSharedMemory, kLimitsWarps, kLimitsBlocks, kLimitsBarriers, kOneMoreBlockRegs, kOneMoreBlockSmem,
  kOneMoreBlockThreads, kWaves, kFullWaves, kLastWaveBlocks, kLastWaveUtilization, kTailShare, kSmCount,
  kNcuBlockLimitSm, kNcuBlockLimitRegisters, kNcuBlockLimitSharedMemory, kNcuBlockLimitWarps,
  kNcuBlockLimitBarriers, kNcuWarpsTheoretical, kNcuOccupancyTheoretical, kNcuOccupancyAchieved,
  kNcuWarpsAchieved, kNcuWaves, kNcuDuration, kClockSm, kClockDram, kDifferences, kFlagged, kFlops, kDramBytes, kAchievedFlops,
  kDramBandwidth, kIntensity, kAttainable, kRooflineShare, kRooflineShareBoost, kBound, kPrecision, kAccessSectorsPerLoad,
  kAccessSectorsPerStore, kAccessLoadExcess, kAccessLoadExcessBytes, kAccessStoreExcess,
  kAccessStoreExcessBytes, kAccessSharedExcess, kAccessSharedExcessBytes, kSolUnit, kSolShare, kVerdict,
};

/// At most this many bytes of report are read.
constexpr std::size_t kMaxReportBytes = 512u * 1024 * 1024;

const std::string kAccepted = fmt::format(
    "an Nsight Compute report as text (or - for standard input), at most {} MiB: ncu --csv, ncu --csv --page raw or "
    "ncu's text report (a saved .ncu-rep: ncu --import FILE.ncu-rep --csv > FILE.csv)",
    kMaxReportBytes / (1024 * 1024));

// The report's kernels, a pass at a time: a regular file read a block at a time, again for each
// pass, never held; standard input, a FIFO or UTF-16 text read whole within the bound. A details
// page whose kernel's rows come apart is read whole, its kernels held (NcuScattered).
class Kernels {
 public:
  Kernels(const std::string& path, std::istream& in) : path_(path), in_(in) {
    try {
      if (path != "-") file_ = io::FileLines::open(path, limits(), kNcuMaxLineBytes + 1);
      if (!file_) {
        text_ = io::read_text(path, limits(), in);
        text_lines_ = std::make_unique<TextLines>(text_);
      }
    } catch (const io::ReadError& e) {
      throw io::input_error(e, "--report", kAccepted);
    }
  }
  NcuFormat format() const { return format_; }

  /// Calls each(kernel) on every kernel of the report, in order. A report found unfit to stream
  /// (its rows come apart) is read whole: restart() is called, and each(kernel) again from the first.
  template <class Each, class Restart>
  void pass(Each&& each, Restart&& restart) {
    if (whole_) {
      for (const NcuKernel& k : whole_->kernels) each(k);
      return;
    }
    try {
      try {
        NcuReader reader(file_ ? static_cast<LineSource&>(*file_) : *text_lines_);
        NcuKernel k;
        while (reader.next(k)) each(k);
        format_ = reader.format();
      } catch (const NcuScattered&) {
        if (file_) text_ = io::read_text(path_, limits(), in_);
        whole_ = parse_ncu_report(text_);
        format_ = whole_->format;
        restart();
        for (const NcuKernel& k : whole_->kernels) each(k);
      } catch (const NcuReportError&) {
        // What read_text refuses before any line (a NUL byte further on) comes first.
        if (file_) file_->check_rest();
        throw;
      }
    } catch (const io::ReadError& e) {
      throw io::input_error(e, "--report", kAccepted);
    } catch (const NcuReportError& e) {
      throw InputError(fmt::format("{}: {}", InputError::printable(path_), ncu_words::report_problem(e)));
    }
  }

 private:
  static io::Limits limits() { return {.max_bytes = kMaxReportBytes, .text = true, .empty_ok = false}; }
  std::string path_;
  std::istream& in_;
  std::unique_ptr<io::FileLines> file_;
  std::string text_;
  std::unique_ptr<TextLines> text_lines_;
  std::optional<NcuReport> whole_;
  NcuFormat format_ = NcuFormat::text;
};

// --- the profile ---

struct Chosen {
  Gpu gpu;
  std::vector<std::string> notes;
};

// An SM count the report does not give, from ncu's Waves Per SM (ncu_check's sm_count_from_waves):
// 0 when none is inferred. `how` shows one kernel's arithmetic.
struct InferredSms {
  int count = 0;
  std::string how;
};

// The profile match_profile gives the report's device (its name, compute capability and SM count:
// docs/profiles.md), with the report's SM count; --gpu overrides. `first`: the first chosen kernel
// with a compute capability, `other`: the first with another (mixed architectures are refused).
Chosen choose_gpu(const NcuKernel* first, const NcuKernel* other, const Args& args, const Gpu& given, const std::string& path,
                  const InferredSms& inferred = {}) {
  if (other != nullptr && !args.gpu_given()) {
    const NcuKernel& k = *other;
    throw InputError(fmt::format(
        "{}: line {}: kernel {} ran on a GPU of compute capability {}.{}, line {}: {} on {}.{}: gpucalc models one GPU a "
        "call: pick one device's kernels (--device N) or give --gpu",
        path, first->line, InputError::printable(first->name), first->cc_major, first->cc_minor, k.line,
        InputError::printable(k.name), k.cc_major, k.cc_minor));
  }
  Chosen c;
  if (args.gpu_given()) {
    c.gpu = given;
    if (first != nullptr && (first->cc_major != given.cc_major || first->cc_minor != given.cc_minor)) {
      c.notes.push_back(fmt::format("the report's kernels ran on compute capability {}.{}; the {} profile (--gpu) is {}.{}",
                                    first->cc_major, first->cc_minor, given.key, given.cc_major, given.cc_minor));
    }
    c.notes.push_back(fmt::format("profile {} (--gpu), {} unless the report gives its own (# SMs)", given.key,
                                  format_count(given.sm_count, "SM")));
    if (inferred.count > 0) {
      c.notes.push_back(fmt::format("the report gives no SM count (# SMs): {}, from ncu's Waves Per SM ({}), used for waves",
                                    format_count(inferred.count, "SM"), inferred.how));
      c.gpu.sm_count = inferred.count;
    }
    return c;
  }
  if (first == nullptr) {
    throw InputError(fmt::format("--gpu is needed: {} names no compute capability (ncu before 2020.2 writes none, nor a CSV "
                                 "without the CC column): give the profile of the GPU the report ran on (a name from gpucalc "
                                 "hw list, or FILE.toml)",
                                 InputError::printable(path)));
  }
  const std::string device = first->device_name;
  const ProfileMatch match = match_builtin_profile(
      {device, first->cc_major, first->cc_minor,
       first->has(NcuField::sm_count) ? static_cast<int>(first->get(NcuField::sm_count)) : inferred.count});
  if (match.by == MatchedBy::none) {
    throw InputError(fmt::format("{}: line {}: compute capability {}.{}: gpucalc has no built-in profile of it (it knows {}): "
                                 "give --gpu FILE.toml, a profile of that GPU (gpucalc hw new writes one)",
                                 path, first->line, first->cc_major, first->cc_minor, fmt::join(builtin_capabilities(), ", ")));
  }
  c.gpu = find_builtin_profile(match.key)->make();
  c.notes.push_back(fmt::format("profile {} ({}), the built-in profile of compute capability {}.{}{}{}", c.gpu.key, c.gpu.name,
                                first->cc_major, first->cc_minor,
                                device.empty() ? " (the report names no device)"
                                               : fmt::format(" (the report's device: {})", InputError::printable(first->device_name)),
                                match.others.empty() ? ""
                                                     : fmt::format("; --gpu {} for another GPU of it (the same SM limits, "
                                                                   "other ceilings for the roofline)",
                                                                   fmt::join(match.others, ", "))));
  if (first->has(NcuField::sm_count) && first->get(NcuField::sm_count) != c.gpu.sm_count) {
    c.notes.push_back(fmt::format("the report's GPU has {} (# SMs), the {} profile {}: the report's count is used",
                                  format_count(first->get(NcuField::sm_count), "SM"), c.gpu.key, c.gpu.sm_count));
    c.gpu.sm_count = static_cast<int>(first->get(NcuField::sm_count));
  } else if (!first->has(NcuField::sm_count) && inferred.count > 0) {
    // Checked against the profiles of the compute capability: the match above took one with that
    // count when there is one.
    c.notes.push_back(fmt::format("the report gives no SM count (# SMs): {}, from ncu's Waves Per SM ({}), used for waves; {}",
                                  format_count(inferred.count, "SM"), inferred.how,
                                  match.by == MatchedBy::capability_and_sm_count
                                      ? fmt::format("the {} profile has that count", c.gpu.key)
                                      : fmt::format("no profile of compute capability {}.{} has it ({}: {}): its SM limits with {}",
                                                    first->cc_major, first->cc_minor, c.gpu.key, c.gpu.sm_count,
                                                    format_count(inferred.count, "SM"))));
    c.gpu.sm_count = inferred.count;
  } else if (!first->has(NcuField::sm_count)) {
    c.notes.push_back(fmt::format("the report gives no SM count (# SMs), nor waves that imply one: the profile's {} is used for waves", c.gpu.sm_count));
  }
  return c;
}

// --- the rows ---

double limit(int n) { return n == kNoLimit ? std::numeric_limits<double>::infinity() : n; }

void put_ncu(const NcuKernel& k, NcuField f, Result at, Report& report) {
  if (k.has(f)) report.num(at, k.get(f));
}

// What the report measured nearest its peak and the clocks it ran at: every row has them, a
// kernel the models cannot take too.
void put_sol(const NcuSol& sol, double clock_sm, double clock_dram, Report& report) {
  if (clock_sm > 0) report.num(kClockSm, clock_sm);
  if (clock_dram > 0) report.num(kClockDram, clock_dram);
  if (sol.measured) {
    report.word(kSolUnit, std::string(sol_unit_word(sol.unit)));
    report.num(kSolShare, sol.share);
  }
}

void put_row(const NcuKernel& k, const NcuCheck& c, const std::string& verdict, const std::string& name, Report& report) {
  report.word(kKernelId, k.id);
  report.word(kKernelName, name);
  if (!k.process.empty()) report.word(kKernelProcess, k.process);
  if (!k.device.empty()) report.word(kKernelDevice, k.device);
  report.word(kLaunchGrid, k.grid.total > 0 ? k.grid.text() : fmt::format("{}", c.launch.blocks));
  report.word(kLaunchBlock, k.block.total > 0 ? k.block.text() : fmt::format("{}", c.launch.threads));
  put_ncu(k, NcuField::cluster_size, kLaunchCluster, report);
  report.num(kLaunchRegisters, c.launch.registers);
  report.num(kLaunchSharedMemory, static_cast<double>(c.launch.shared_memory));
  if (c.launch.shared_memory_static >= 0) report.num(kLaunchSharedMemoryStatic, static_cast<double>(c.launch.shared_memory_static));
  if (c.launch.shared_memory_dynamic >= 0) report.num(kLaunchSharedMemoryDynamic, static_cast<double>(c.launch.shared_memory_dynamic));
  if (c.launch.shared_memory_driver >= 0) report.num(kLaunchSharedMemoryDriver, static_cast<double>(c.launch.shared_memory_driver));
  if (c.launch.carveout >= 0) report.num(kLaunchCarveout, static_cast<double>(c.launch.carveout));
  const OccupancyResult& r = c.occupancy;
  report.num(kBlocksPerSm, r.blocks_per_sm);
  report.num(kWarpsPerSm, r.warps_per_sm);
  report.num(kOccupancy, r.occupancy);
  report.word(kLimiter, limiter_word(r.limiter));
  report.num(kLimitsRegisters, limit(r.limit_registers));
  report.num(kLimitsSharedMemory, limit(r.limit_shared_memory_configured));
  report.num(kLimitsWarps, limit(r.limit_threads));
  report.num(kLimitsBlocks, limit(r.limit_blocks));
  if (r.limit_barriers != kNoLimit) report.num(kLimitsBarriers, limit(r.limit_barriers));
  if (c.one_more.registers > 0) report.num(kOneMoreBlockRegs, c.one_more.registers);
  if (c.one_more.shared_memory >= 0) report.num(kOneMoreBlockSmem, static_cast<double>(c.one_more.shared_memory));
  if (c.one_more.threads > 0) report.num(kOneMoreBlockThreads, c.one_more.threads);
  if (r.blocks_per_sm > 0) {
    const WavesResult& w = c.waves;
    report.num(kWaves, w.waves_exact);
    report.num(kFullWaves, static_cast<double>(w.waves - (w.last_wave_blocks < w.blocks_per_wave ? 1 : 0)));
    report.num(kLastWaveBlocks, static_cast<double>(w.last_wave_blocks));
    report.num(kLastWaveUtilization, w.last_wave_utilization);
    report.num(kTailShare, c.tail_share);
  }
  report.num(kSmCount, c.launch.sm_count);
  put_ncu(k, NcuField::limit_sm, kNcuBlockLimitSm, report);
  put_ncu(k, NcuField::limit_registers, kNcuBlockLimitRegisters, report);
  put_ncu(k, NcuField::limit_smem, kNcuBlockLimitSharedMemory, report);
  put_ncu(k, NcuField::limit_warps, kNcuBlockLimitWarps, report);
  put_ncu(k, NcuField::limit_barriers, kNcuBlockLimitBarriers, report);
  put_ncu(k, NcuField::warps_theoretical, kNcuWarpsTheoretical, report);
  put_ncu(k, NcuField::occupancy_theoretical, kNcuOccupancyTheoretical, report);
  put_ncu(k, NcuField::occupancy_achieved, kNcuOccupancyAchieved, report);
  put_ncu(k, NcuField::warps_achieved, kNcuWarpsAchieved, report);
  put_ncu(k, NcuField::waves, kNcuWaves, report);
  put_ncu(k, NcuField::duration, kNcuDuration, report);
  report.num(kDifferences, c.differences);
  std::vector<std::string> differ;
  for (const NcuFigure& f : c.figures) {
    if (!f.equal) differ.emplace_back(ncu_field_name(f.field));
  }
  report.word(kFlagged, differ.empty() ? std::string("none") : fmt::format("{}", fmt::join(differ, "; ")));
  if (c.has_roofline) {
    report.num(kFlops, c.flops);
    report.num(kDramBytes, c.dram_bytes);
    report.num(kAchievedFlops, c.roofline.achieved);
    report.num(kDramBandwidth, c.roofline.achieved_bandwidth);
    report.num(kIntensity, c.roofline.intensity);
    report.num(kAttainable, c.roofline.attainable);
    report.num(kRooflineShare, c.roofline.achieved_fraction);
    report.num(kRooflineShareBoost, c.roofline_boost.achieved_fraction);
    report.word(kBound, roofline_bound_word(c.roofline.bound));
    report.word(kPrecision, fmt::format("{} {}", c.dtype, c.unit == ComputeUnit::tensor ? "tensor" : "cuda"));
  }
  if (c.load_sectors_per_request >= 0) report.num(kAccessSectorsPerLoad, c.load_sectors_per_request);
  if (c.store_sectors_per_request >= 0) report.num(kAccessSectorsPerStore, c.store_sectors_per_request);
  if (!c.has_roofline && k.has(NcuField::dram_throughput)) {
    // The details page and the text report: Memory Workload Analysis's DRAM throughput, no FLOP.
    report.num(kDramBandwidth, k.get(NcuField::dram_throughput));
    if (k.has(NcuField::duration)) report.num(kDramBytes, k.get(NcuField::dram_throughput) * k.get(NcuField::duration));
  }
  if (c.load_excess >= 0) {
    report.num(kAccessLoadExcess, c.load_excess);
    report.num(kAccessLoadExcessBytes, c.load_excess_bytes);
  }
  if (c.store_excess >= 0) {
    report.num(kAccessStoreExcess, c.store_excess);
    report.num(kAccessStoreExcessBytes, c.store_excess_bytes);
  }
  if (c.shared_excess >= 0) {
    report.num(kAccessSharedExcess, c.shared_excess);
    report.num(kAccessSharedExcessBytes, c.shared_excess_bytes);
  }
  put_sol(c.sol, c.clock_sm, c.clock_dram, report);
  report.word(kVerdict, verdict);
}

// The row of a kernel the models cannot take (a figure they need is missing): the report's figures.
void put_unmodelled_row(const NcuKernel& k, const std::string& verdict, const std::string& name, Report& report) {
  report.word(kKernelId, k.id);
  report.word(kKernelName, name);
  if (!k.process.empty()) report.word(kKernelProcess, k.process);
  if (!k.device.empty()) report.word(kKernelDevice, k.device);
  if (k.grid.total > 0) report.word(kLaunchGrid, k.grid.text());
  if (k.block.total > 0) report.word(kLaunchBlock, k.block.text());
  put_ncu(k, NcuField::cluster_size, kLaunchCluster, report);
  put_ncu(k, NcuField::registers, kLaunchRegisters, report);
  put_ncu(k, NcuField::sm_count, kSmCount, report);
  put_ncu(k, NcuField::limit_sm, kNcuBlockLimitSm, report);
  put_ncu(k, NcuField::limit_registers, kNcuBlockLimitRegisters, report);
  put_ncu(k, NcuField::limit_smem, kNcuBlockLimitSharedMemory, report);
  put_ncu(k, NcuField::limit_warps, kNcuBlockLimitWarps, report);
  put_ncu(k, NcuField::limit_barriers, kNcuBlockLimitBarriers, report);
  put_ncu(k, NcuField::warps_theoretical, kNcuWarpsTheoretical, report);
  put_ncu(k, NcuField::occupancy_theoretical, kNcuOccupancyTheoretical, report);
  put_ncu(k, NcuField::occupancy_achieved, kNcuOccupancyAchieved, report);
  put_ncu(k, NcuField::warps_achieved, kNcuWarpsAchieved, report);
  put_ncu(k, NcuField::waves, kNcuWaves, report);
  put_ncu(k, NcuField::duration, kNcuDuration, report);
  // What the counters give without the launch: sectors per request.
  if (k.has(NcuField::global_load_sectors) && k.get(NcuField::global_load_requests) > 0) {
    report.num(kAccessSectorsPerLoad, k.get(NcuField::global_load_sectors) / k.get(NcuField::global_load_requests));
  }
  if (k.has(NcuField::global_store_sectors) && k.get(NcuField::global_store_requests) > 0) {
    report.num(kAccessSectorsPerStore, k.get(NcuField::global_store_sectors) / k.get(NcuField::global_store_requests));
  }
  // Speed Of Light needs no launch.
  put_sol(speed_of_light(k), k.has(NcuField::sm_frequency) ? k.get(NcuField::sm_frequency) : -1,
          k.has(NcuField::dram_frequency) ? k.get(NcuField::dram_frequency) : -1, report);
  report.word(kVerdict, verdict);
}

// Whether a kernel has a figure of its own beyond its launch's grid and block.
bool has_figures(const NcuKernel& k) {
  for (std::size_t f = 0; f < kNcuFields; ++f) {
    const auto field = static_cast<NcuField>(f);
    if (field != NcuField::block_size && field != NcuField::grid_size && k.has(field)) return true;
  }
  return false;
}

constexpr const char* kLaunchStats = "a report with the Launch Statistics section (ncu's default set has it; --section LaunchStats)";

std::string label(const NcuKernel& k) { return fmt::format("kernel {} ({})", k.id, InputError::printable(k.name)); }
std::string label(const NcuKernel& k, const std::string& name) { return fmt::format("kernel {} ({})", k.id, InputError::printable(name)); }

// --kernel-name: base in text and md (a table a screen wide), full in JSON and CSV (what scripts match).
NameBase name_base(const Args& args) {
  if (!args.has(kNameBase)) return args.for_people() ? NameBase::base : NameBase::full;
  const std::string& v = args.text(kNameBase);
  return v == "base" ? NameBase::base : v == "mangled" ? NameBase::mangled : NameBase::full;
}

void explain(const NcuKernel& k, const NcuCheck& c, const std::string& verdict, const Gpu& gpu, const std::string& path,
             Report& report) {
  std::vector<std::string>& e = report.explain;
  e.push_back(fmt::format("{}: line {} of {}: {} of {}, {} per thread, {} of shared memory per block (static + dynamic){}",
                          label(k), k.line, path, format_count(static_cast<double>(c.launch.blocks), "block"),
                          format_count(c.launch.threads, "thread"), format_count(c.launch.registers, "register"),
                          format_count(static_cast<double>(c.launch.shared_memory), "byte"),
                          c.launch.carveout >= 0 ? fmt::format(", carveout {} (Shared Memory Configuration Size, "
                                                               "preference {}%)",
                                                               format_count(static_cast<double>(c.launch.carveout), "byte"),
                                                               c.launch.carveout_percent)
                                                 : ""));
  for (std::string& n : ncu_words::launch_notes(c, gpu)) e.push_back(std::move(n));
  const OccupancyResult& r = c.occupancy;
  e.push_back(fmt::format("occupancy ({}): registers allow {}, shared memory {}, warps {}, the SM {}{}: {}, {} of {}, "
                          "so {}",
                          gpu.key, format_number(limit(r.limit_registers)), format_number(limit(r.limit_shared_memory_configured)),
                          r.limit_threads, r.limit_blocks,
                          r.limit_barriers != kNoLimit ? fmt::format(", barriers {}", r.limit_barriers) : "",
                          format_count(r.blocks_per_sm, "block"), format_count(r.warps_per_sm, "warp"),
                          gpu.max_threads_per_sm / gpu.warp_size, format_quantity(r.occupancy, Unit::fraction)));
  if (r.blocks_per_sm > 0) {
    e.push_back(fmt::format("waves = {} / ({} per SM x {}) = {}; {} whole, the last of {}",
                            format_count(static_cast<double>(c.launch.blocks), "block"), format_count(r.blocks_per_sm, "block"),
                            format_count(c.launch.sm_count, "SM"), format_number(c.waves.waves_exact), c.waves.waves,
                            format_count(static_cast<double>(c.waves.last_wave_blocks), "block")));
  }
  for (const NcuFigure& f : c.figures) {
    const std::string why = ncu_words::why(f, k, c, gpu);
    e.push_back(fmt::format("{}: gpucalc {}, ncu {}{}{}", ncu_field_name(f.field), format_number(f.gpucalc), format_number(f.ncu),
                            f.equal ? "" : " (FLAGGED)", why.empty() ? "" : ": " + why));
  }
  if (c.has_roofline) {
    e.push_back(fmt::format("roofline ({} {}): {} FLOP (FMA as 2) / {} DRAM bytes = {} FLOP/byte; {} in {}: {} of the attainable {}",
                            c.dtype, c.unit == ComputeUnit::tensor ? "tensor cores" : "CUDA cores", format_number(c.flops),
                            format_number(c.dram_bytes), format_number(c.roofline.intensity),
                            format_quantity(c.roofline.achieved, Unit::flops_per_second),
                            format_quantity(k.get(NcuField::duration), Unit::seconds),
                            format_quantity(c.roofline.achieved_fraction, Unit::fraction),
                            format_quantity(c.roofline.attainable, Unit::flops_per_second)));
  }
  if (c.has_roofline) {
    e.push_back(fmt::format("roofline at the profile's peaks: {} of the attainable {} (roofline_share_boost)",
                            format_quantity(c.roofline_boost.achieved_fraction, Unit::fraction),
                            format_quantity(c.roofline_boost.attainable, Unit::flops_per_second)));
  }
  for (std::string& n : ncu_words::clock_notes(c, gpu)) e.push_back(std::move(n));
  if (c.sol.measured) {
    std::vector<std::string> shares;
    for (const SolShare& x : c.sol.shares) {
      shares.push_back(fmt::format("{} {} ({})", sol_unit_word(x.unit), format_quantity(x.share, Unit::fraction), ncu_field_name(x.from)));
    }
    e.push_back(fmt::format("speed of light (each unit's share of its peak, as ncu measured it): {}; so {}", fmt::join(shares, ", "),
                            sol_unit_word(c.sol.unit)));
  }
  e.push_back("verdict: " + verdict);
}

// --kernel's pattern, compiled; refused with its reason and where (1-based, as people count).
std::optional<Pattern> kernel_pattern(const Args& args) {
  if (!args.has(kKernel)) return std::nullopt;
  try {
    return Pattern(args.text(kKernel));
  } catch (const PatternError& e) {
    throw InputError("--kernel", args.text(kKernel),
                     fmt::format("a regular expression that kernel names are searched for, {} ({}, at character {})",
                                 pattern_form(), e.what(), e.at() + 1));
  }
}

// Which kernels --kernel and --device choose. A report launches few kernels many times: each
// name is searched once (the first kNamesKept names remembered).
class Picker {
 public:
  explicit Picker(const Args& args) : device_(args.has(kDevice) ? args.text(kDevice) : "") {
    try {
      pattern_ = kernel_pattern(args);
    } catch (const InputError&) {
      bad_ = std::current_exception();  // refused after the report is read, whose own faults come first
    }
  }
  /// A refused --kernel, thrown.
  void check() const {
    if (bad_) std::rethrow_exception(bad_);
  }
  bool operator()(const NcuKernel& k) {
    if (bad_ || (!device_.empty() && k.device != device_)) return false;
    if (!pattern_) return true;
    if (const auto it = searched_.find(k.name); it != searched_.end()) return it->second;
    const bool found = pattern_->search(k.name);
    if (searched_.size() < kNamesKept) searched_.emplace(k.name, found);
    return found;
  }

 private:
  static constexpr std::size_t kNamesKept = 4096;
  std::optional<Pattern> pattern_;
  std::exception_ptr bad_;
  std::string device_;
  std::unordered_map<std::string, bool> searched_;
};

// A model's refused figure as the report writes numbers: 1,025 (a word as it is).
std::string shown_value(const FieldError& e) {
  const std::string& v = e.value();
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  return !v.empty() && end != nullptr && *end == '\0' ? format_number(x) : v;
}

// The line that refuses kernel `k`: the report's figure (Block Size) that is missing or out of
// range, with its reason. A missing figure has no value to quote: it is named as missing.
std::string refusal(const FieldError& e, const NcuKernel& k, const Gpu& gpu, const std::string& path) {
  const std::string what = e.rule() == Rule::required ? fmt::format("{} is not in the report", e.field())
                                                      : fmt::format("{}: invalid value '{}'", e.field(), shown_value(e));
  return fmt::format("{}: line {}: {}: {}: expected {}", InputError::printable(path), k.line, label(k), what,
                     accepted_form(e, &ncu_command(), &gpu));
}

// What the first pass over the report finds: its kernels counted, the chosen ones' architecture,
// and the first chosen kernel the models refuse (checked as soon as the profile is known).
struct Survey {
  std::size_t total = 0, chosen = 0;
  std::vector<std::string> devices;      // the first devices, for --device's message
  std::optional<NcuKernel> first, other;  // choose_gpu's
  std::optional<Gpu> gpu;                 // the profile, once known
  std::size_t unchecked = 0;              // chosen kernels that came before it
  std::string refusal;                    // the first refusal ("": none)
  std::size_t partial = 0;                // chosen kernels without a figure the models need
  std::string first_missing;              // the first of them, as a refusal (when every kernel lacks one)
  std::size_t partial_with_figures = 0;   // of them, those with figures of their own
  // The SM count ncu's waves imply, where no kernel gives # SMs (infer_sm_count).
  bool sm_count_given = false;
  bool waves_seen = false;
  SmCountRange sms{1, static_cast<int>(kProfileMaxCount)};
  int narrowest = 0;
  std::string how;
};

// ncu's blocks per SM: the smallest of the report's block limits (0: it gives none).
double ncu_blocks_per_sm(const NcuKernel& k) {
  double least = 0;
  for (const NcuField f : {NcuField::limit_sm, NcuField::limit_registers, NcuField::limit_smem, NcuField::limit_warps,
                           NcuField::limit_barriers}) {
    if (k.has(f) && (least == 0 || k.get(f) < least)) least = k.get(f);
  }
  return least;
}

// The whole SM counts a kernel's waves allow (over their print rounding), where ncu's blocks per SM
// are gpucalc's (else its waves would say more of the block limits than of the SMs), narrowed into
// the survey's; a kernel with # SMs ends the inference.
void narrow_sm_count(const NcuKernel& k, const NcuCheck& c, Survey& s) {
  if (k.has(NcuField::sm_count)) s.sm_count_given = true;
  const int per_sm = c.occupancy.blocks_per_sm;
  const double theirs = ncu_blocks_per_sm(k);
  if (s.sm_count_given || per_sm < 1 || (theirs > 0 && theirs != per_sm)) return;
  const SmCountRange r = sm_count_from_waves(k, per_sm, c.launch.blocks);
  if (r.empty()) return;
  // The narrowest interval shows the arithmetic (many waves: two decimals pin the count).
  if (!s.waves_seen || r.hi - r.lo < s.narrowest) {
    s.narrowest = r.hi - r.lo;
    const double blocks = static_cast<double>(c.launch.blocks);
    s.how = fmt::format("kernel {}: {} / ({} x {}) = {}", k.id, format_count(blocks, "block"), format_count(per_sm, "block"),
                        format_number(k.get(NcuField::waves)), format_number(blocks / (per_sm * k.get(NcuField::waves))));
  }
  s.sms.lo = std::max(s.sms.lo, r.lo);
  s.sms.hi = std::min(s.sms.hi, r.hi);
  s.waves_seen = true;
}

// The SM count the survey's kernels leave: one whole count, or none.
InferredSms infer_sm_count(const Survey& s) {
  if (s.sm_count_given || !s.waves_seen || s.sms.lo != s.sms.hi) return {};
  return {s.sms.lo, s.how};
}

// A kernel checked against the models: a figure out of range is a refusal (the report's, whole);
// a figure missing (a section not collected) leaves the kernel to its own figures (partial).
void survey_check(const NcuKernel& k, const Gpu& gpu, const std::string& path, Survey& s) {
  try {
    narrow_sm_count(k, check_ncu_kernel(k, gpu), s);
  } catch (const FieldError& e) {
    if (e.rule() == Rule::required) {
      if (s.partial++ == 0) s.first_missing = refusal(e, k, gpu, path);
      if (has_figures(k)) ++s.partial_with_figures;
    } else if (s.refusal.empty()) {
      s.refusal = refusal(e, k, gpu, path);
    }
  }
}

void run_report(const Args& args, const Gpu& given, std::istream& in, const Report& blank, RowSink& sink) {
  const std::string path = args.text(kReport);
  const NameBase base = name_base(args);
  Kernels report(path, in);
  Picker picked(args);
  // The first pass: the whole report read (a bad line refused before any output), the chosen
  // kernels counted and checked.
  Survey s;
  if (args.gpu_given()) s.gpu = given;
  report.pass(
      [&](const NcuKernel& k) {
        ++s.total;
        if (s.devices.size() < 8 && std::find(s.devices.begin(), s.devices.end(), k.device) == s.devices.end()) {
          s.devices.push_back(k.device.empty() ? "none named" : k.device);
        }
        if (!picked(k)) return;
        ++s.chosen;
        if (k.cc_major != 0) {
          if (!s.first) {
            s.first = k;
            if (!s.gpu) {
              try {
                s.gpu = choose_gpu(&*s.first, nullptr, args, given, path).gpu;
              } catch (const InputError&) {
                // Refused again after the pass, where the architectures are known.
              }
            }
          } else if (!s.other && (k.cc_major != s.first->cc_major || k.cc_minor != s.first->cc_minor)) {
            s.other = k;
          }
        }
        if (!s.gpu) {
          ++s.unchecked;
        } else {
          survey_check(k, *s.gpu, path, s);
        }
      },
      [&] {
        s = Survey{};
        if (args.gpu_given()) s.gpu = given;
      });
  picked.check();
  if (s.chosen == 0) {
    if (args.has(kDevice) && !args.has(kKernel)) {
      throw InputError("--device", args.text(kDevice), fmt::format("a device of the report's kernels (its Device: {})", fmt::join(s.devices, ", ")));
    }
    throw InputError("--kernel", args.text(kKernel),
                     fmt::format("a regular expression that matches one of the report's {}{}",
                                 format_count(static_cast<double>(s.total), "kernel name"),
                                 args.has(kDevice) ? fmt::format(" on device {}", args.text(kDevice)) : ""));
  }
  Chosen chosen = choose_gpu(s.first ? &*s.first : nullptr, s.other ? &*s.other : nullptr, args, given, path);
  Gpu& gpu = chosen.gpu;
  // Every kernel checked before the first row goes out: a bad one is refused with no output.
  if (s.unchecked > 0) {
    s.refusal.clear();
    s.partial = s.partial_with_figures = 0;
    s.sm_count_given = s.waves_seen = false;
    s.sms = {1, static_cast<int>(kProfileMaxCount)};
    report.pass(
        [&](const NcuKernel& k) {
          if (picked(k) && s.refusal.empty()) survey_check(k, gpu, path, s);
        },
        [] {});
  }
  if (!s.refusal.empty()) throw InputError(s.refusal);
  // No # SMs in the report: the count ncu's waves imply, which may pick another profile.
  if (const InferredSms inferred = infer_sm_count(s); inferred.count > 0) {
    chosen = choose_gpu(s.first ? &*s.first : nullptr, s.other ? &*s.other : nullptr, args, given, path, inferred);
  }
  // No kernel with the figures the models need, nor one with figures of its own: nothing to show.
  if (s.partial == s.chosen && s.partial_with_figures == 0) throw InputError(s.first_missing);
  if (s.partial > 0) {
    chosen.notes.push_back(fmt::format("{} of {} lack figures the models need ({}): their rows give the report's own figures",
                                       format_count(static_cast<double>(s.partial), "kernel"), s.chosen,
                                       kLaunchStats));
  }
  sink.profile(gpu);
  sink.begin(s.chosen);
  chosen.notes.insert(chosen.notes.begin(), fmt::format("{}: {}, {} of {}", InputError::printable(path),
                                                        ncu_words::format_name(report.format()),
                                                        format_count(static_cast<double>(s.chosen), "kernel"), s.total));
  // The rows, a second reading of the report.
  std::size_t i = 0;
  std::optional<NcuCheck> previous;  // the clocks of the last row: a clock note only where they change
  report.pass(
      [&](const NcuKernel& k) {
        if (!picked(k)) return;
        Report row = blank;
        row.model = "exact";
        const std::string name = kernel_name(k.name, base);
        row.label = label(k, name);
        if (i++ == 0) row.notes = chosen.notes;
        NcuCheck check;
        try {
          check = check_ncu_kernel(k, gpu);
        } catch (const FieldError& e) {
          // A figure missing (the survey refused every other fault): the report's own figures.
          const std::string verdict = fmt::format("{} is not in the report: not modelled", e.field());
          put_unmodelled_row(k, verdict, name, row);
          if (args.for_people()) {
            row.notes.push_back(fmt::format("{}: {}", row.label, verdict));
            row.explain.push_back(fmt::format("{}: line {} of {}: {} ({}); the report's own figures only", label(k), k.line,
                                              path, verdict, kLaunchStats));
          }
          sink.row(row);
          return;
        }
        const std::string verdict = ncu_words::verdict(k, check, gpu);
        put_row(k, check, verdict, name, row);
        if (args.for_people()) {
          if (!previous || !ncu_words::same_clocks(check, *previous)) {
            for (std::string& n : ncu_words::clock_notes(check, gpu)) row.notes.push_back(fmt::format("{}: {}", row.label, n));
          }
          previous = check;
          row.notes.push_back(fmt::format("{}: {}", row.label, verdict));
          for (const NcuFigure& f : check.figures) {
            if (!f.equal) {
              const std::string why = ncu_words::why(f, k, check, gpu);
              row.notes.push_back(fmt::format("{}: {} differs: gpucalc {}, ncu {}{}", row.label, ncu_field_name(f.field),
                                              format_number(f.gpucalc), format_number(f.ncu), why.empty() ? "" : " (" + why + ")"));
            }
          }
          explain(k, check, verdict, gpu, path, row);
        }
        sink.row(row);
      },
      [] {});
}

void run_without_report(const Args&, const Gpu&, Report&) {
  throw InputError(fmt::format("--report is required: {}; the first argument is the report: gpucalc ncu FILE", kAccepted));
}

}  // namespace

const Calculator& ncu_command() {
  static const Calculator calc{
      .name = "ncu",
      .options =
          {text_option(kReport, "report", "FILE (- for standard input): ncu --csv, ncu --csv --page raw or ncu's text report, pasted or "
                                 "not (a .ncu-rep: ncu --import FILE.ncu-rep --csv); also the first argument"),
           text_option(kKernel, "kernel",
                       "a regular expression (ECMAScript's common part: docs/ncu.md): only the kernels whose names it matches"),
           text_option(kDevice, "device", "only the kernels of this device (the report's Device)"),
           choice_option(kNameBase, "kernel-name",
                         "how kernel names are printed: full (as the report gives them), base (the function name and "
                         "its template head, without return type and parameters) or mangled (as the report gives "
                         "them: gpucalc does not mangle); default base in text and md, full in json and csv",
                         {"full", "base", "mangled"})},
      .results =
          {result(kKernelId, "kernel.id", Unit::text, "the kernel launch's ID in the report").in_rows(),
           result(kKernelName, "kernel.name", Unit::text, "the kernel's name (--kernel-name: as the report gives it, or its base)").in_rows(),
           result(kKernelProcess, "kernel.process", Unit::text, "the process the kernel ran in"),
           result(kKernelDevice, "kernel.device", Unit::text, "the device the kernel ran on (the report's Device)"),
           result(kLaunchGrid, "launch.grid", Unit::text, "the grid, (x, y, z)"),
           result(kLaunchBlock, "launch.block", Unit::text,
                  "the block, (x, y, z), or the total where the report gives only that").in_rows(),
           result(kLaunchCluster, "launch.cluster", Unit::count, "blocks a cluster (0: no cluster launch)"),
           result(kLaunchRegisters, "launch.registers", Unit::count, "registers per thread").in_rows(),
           result(kLaunchSharedMemory, "launch.shared_memory", Unit::onchip_bytes,
                  "shared memory per block, static + dynamic"),
           result(kLaunchSharedMemoryStatic, "launch.shared_memory_static", Unit::onchip_bytes,
                  "static shared memory per block"),
           result(kLaunchSharedMemoryDynamic, "launch.shared_memory_dynamic", Unit::onchip_bytes,
                  "dynamic shared memory per block"),
           result(kLaunchSharedMemoryDriver, "launch.shared_memory_driver", Unit::onchip_bytes,
                  "shared memory the driver reserves per block"),
           result(kLaunchCarveout, "launch.carveout", Unit::onchip_bytes,
                  "the shared-memory carveout the driver chose (Shared Memory Configuration Size)"),
           result(kBlocksPerSm, "blocks_per_sm", Unit::count,
                  "resident blocks per SM, by the exact occupancy model").in_rows(),
           result(kWarpsPerSm, "warps_per_sm", Unit::count, "resident warps per SM"),
           result(kOccupancy, "occupancy", Unit::fraction, "resident warps over the SM's maximum").in_rows(),
           result(kLimiter, "limiter", Unit::text, "the resource that limits blocks per SM").in_rows(),
           result(kLimitsRegisters, "limits.registers", Unit::count, "blocks per SM the registers allow"),
           result(kLimitsSharedMemory, "limits.shared_memory", Unit::count, "blocks per SM shared memory allows"),
           result(kLimitsWarps, "limits.warps", Unit::count, "blocks per SM the warp slots allow"),
           result(kLimitsBlocks, "limits.blocks", Unit::count, "the SM's block limit"),
           result(kLimitsBarriers, "limits.barriers", Unit::count, "blocks per SM the barriers allow"),
           result(kOneMoreBlockRegs, "one_more_block.regs", Unit::count,
                  "registers per thread at which one more block fits"),
           result(kOneMoreBlockSmem, "one_more_block.smem", Unit::onchip_bytes,
                  "shared memory per block at which one more block fits"),
           result(kOneMoreBlockThreads, "one_more_block.threads", Unit::count,
                  "threads per block at which one more block fits"),
           result(kWaves, "waves", Unit::count, "whole waves: ceil(blocks / (blocks per SM x SMs))").in_rows(),
           result(kFullWaves, "full_waves", Unit::count, "waves whose every slot is busy"),
           result(kLastWaveBlocks, "last_wave_blocks", Unit::count, "blocks in the last wave"),
           result(kLastWaveUtilization, "last_wave_utilization", Unit::fraction,
                  "the share of a wave the last wave fills"),
           result(kTailShare, "tail_share", Unit::fraction,
                  "1 / whole waves, what a partial last wave may cost (0: the last wave is full, or one wave)"),
           result(kSmCount, "sm_count", Unit::count, "SMs of the report's device (# SMs)"),
           result(kNcuBlockLimitSm, "ncu.block_limit_sm", Unit::count, "ncu's Block Limit SM"),
           result(kNcuBlockLimitRegisters, "ncu.block_limit_registers", Unit::count, "ncu's Block Limit Registers"),
           result(kNcuBlockLimitSharedMemory, "ncu.block_limit_shared_memory", Unit::count,
                  "ncu's Block Limit Shared Mem"),
           result(kNcuBlockLimitWarps, "ncu.block_limit_warps", Unit::count, "ncu's Block Limit Warps"),
           result(kNcuBlockLimitBarriers, "ncu.block_limit_barriers", Unit::count, "ncu's Block Limit Barriers"),
           result(kNcuWarpsTheoretical, "ncu.warps_theoretical", Unit::count, "ncu's Theoretical Active Warps per SM"),
           result(kNcuOccupancyTheoretical, "ncu.occupancy_theoretical", Unit::fraction,
                  "ncu's Theoretical Occupancy").in_rows(),
           result(kNcuOccupancyAchieved, "ncu.occupancy_achieved", Unit::fraction,
                  "ncu's Achieved Occupancy").in_rows(),
           result(kNcuWarpsAchieved, "ncu.warps_achieved", Unit::count, "ncu's Achieved Active Warps Per SM"),
           result(kNcuWaves, "ncu.waves", Unit::count, "ncu's Waves Per SM").in_rows(),
           result(kNcuDuration, "ncu.duration", Unit::seconds, "ncu's Duration").in_rows(),
           result(kClockSm, "clock.sm", Unit::count, "the SM clock the kernel ran at, Hz (SM Frequency)"),
           result(kClockDram, "clock.dram", Unit::count, "the DRAM clock the kernel ran at, Hz (DRAM Frequency)"),
           result(kDifferences, "differences", Unit::count, "figures where gpucalc and ncu differ").in_rows(),
           result(kFlagged, "flagged", Unit::text, "the figures that differ, or none"),
           result(kFlops, "flops", Unit::flops,
                  "FLOP of the precision with the most (FMA as 2), from the raw counters"),
           result(kDramBytes, "dram_bytes", Unit::bytes, "DRAM bytes read and written"),
           result(kAchievedFlops, "achieved_flops", Unit::flops_per_second, "FLOP / duration"),
           result(kDramBandwidth, "dram_bandwidth", Unit::bytes_per_second, "DRAM bytes / duration"),
           result(kIntensity, "intensity", Unit::flop_per_byte, "FLOP per DRAM byte"),
           result(kAttainable, "attainable", Unit::flops_per_second,
                  "the roofline's attainable FLOP/s at this intensity"),
           result(kRooflineShare, "roofline_share", Unit::fraction,
                  "achieved FLOP/s over the attainable, at the report's clocks (SM Frequency, DRAM Frequency)"),
           result(kRooflineShareBoost, "roofline_share_boost", Unit::fraction,
                  "achieved FLOP/s over the attainable at the profile's peaks (the clocks they hold at)"),
           result(kBound, "bound", Unit::text, "which roof bounds the kernel: memory or compute"),
           result(kPrecision, "precision", Unit::text,
                  "the dtype and unit of most FLOP, such as fp32 cuda or bf16 tensor"),
           result(kAccessSectorsPerLoad, "access.sectors_per_load", Unit::count, "global load sectors per request"),
           result(kAccessSectorsPerStore, "access.sectors_per_store", Unit::count, "global store sectors per request"),
           result(kAccessLoadExcess, "access.load_excess", Unit::fraction,
                  "the share of loaded sectors' bytes no lane asked for: 1 - b / 32"),
           result(kAccessLoadExcessBytes, "access.load_excess_bytes", Unit::bytes,
                  "loaded bytes no lane asked for: sectors x (32 - b)"),
           result(kAccessStoreExcess, "access.store_excess", Unit::fraction,
                  "the share of stored sectors' bytes no lane wrote"),
           result(kAccessStoreExcessBytes, "access.store_excess_bytes", Unit::bytes, "stored bytes no lane wrote"),
           result(kAccessSharedExcess, "access.shared_excess", Unit::fraction,
                  "the share of shared-memory wavefronts spent on bank conflicts"),
           result(kAccessSharedExcessBytes, "access.shared_excess_bytes", Unit::bytes,
                  "bytes of the bank conflicts' wavefronts (128 a wavefront)"),
           result(kSolUnit, "sol.unit", Unit::text,
                  "the unit nearest its peak: tensor, fma, alu, fp64, sfu, issue, shared, l1, l2, dram (sm, memory: "
                  "the report has no breakdown), or latency when none reaches 60%").in_rows(),
           result(kSolShare, "sol.share", Unit::fraction,
                  "that unit's share of its peak at the report's clock, as ncu measured it (latency: the highest share)").in_rows(),
           result(kVerdict, "verdict", Unit::text,
                  "what limits the kernel and the one change the models say buys the most")},
      .run = run_without_report,
      .rows_option = "report",
      .run_rows = run_report,
      .rows_columns = {},
      .positional = "report",
      // The report's launch figures the models need (ncu_check's refusals).
      .reasons = {
          {"Block Size", Rule::required, kLaunchStats},
          {"Grid Size", Rule::required, kLaunchStats},
          {"Registers Per Thread", Rule::required, kLaunchStats},
          {"Block Size", Rule::in_range, "{lo} to {hi} threads on {gpu}"},
          {"Grid Size", Rule::at_least, "at least 1 block"},
          {"Registers Per Thread", Rule::in_range, "{lo} to {hi} registers on {gpu}"},
      }};
  return calc;
}

}  // namespace gpucalc
