// The sentences of gpucalc ncu, from the check's figures (core/ncu_check.h).
#include "commands/ncu_words.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "commands/ncu_sol_words.h"
#include "parse/quantity.h"

namespace gpucalc::ncu_words {
namespace {

std::string blocks_words(std::int64_t n) { return format_count(static_cast<double>(n), "block"); }

// ncu's blocks per SM: the smallest of the report's block limits (0: it gives none), and which.
double ncu_blocks_per_sm(const NcuKernel& k, NcuField& which) {
  double least = 0;
  for (const NcuField f : {NcuField::limit_sm, NcuField::limit_registers, NcuField::limit_smem, NcuField::limit_warps,
                           NcuField::limit_barriers}) {
    if (k.has(f) && (least == 0 || k.get(f) < least)) {
      least = k.get(f);
      which = f;
    }
  }
  return least;
}

// Whether `x` is what ncu printed as `printed` (two decimals: within its rounding, and a hair).
bool as_printed(double x, double printed) { return std::fabs(x - printed) <= 0.005 + 1e-9 * std::fabs(printed); }

// A limiter in words: shared_memory -> shared memory, blocks -> the SM's block limit.
std::string words(Limiter limiter) {
  if (limiter == Limiter::blocks) return "the SM's block limit";
  if (limiter == Limiter::threads) return "the SM's warps";
  std::string key = limiter_word(limiter);
  std::replace(key.begin(), key.end(), '_', ' ');
  return key;
}

// How a report's numbers may be written (ncu_value's form).
constexpr const char* kNumberForm =
    ", such as 1,024 or 29.82 (a point before the fraction, commas only between thousands: a report of a locale with a "
    "decimal comma is not read; run ncu with LC_ALL=C)";

}  // namespace

const char* format_name(NcuFormat format) {
  switch (format) {
    case NcuFormat::details_csv: return "ncu --csv (details page)";
    case NcuFormat::raw_csv: return "ncu --csv --page raw";
    case NcuFormat::text: return "ncu's text report";
    case NcuFormat::markdown: return "Markdown tables of ncu's figures";
  }
  return "";
}

std::string report_problem(const NcuReportError& e) {
  // Appended piece by piece: GCC 12 at -O3 warns falsely (-Wstringop-overflow) on "'" + std::string.
  std::string quoted(1, '\'');
  quoted += InputError::printable(e.text);
  quoted += '\'';
  const auto count = static_cast<long long>(e.count), limit = static_cast<long long>(e.limit);
  std::string what;
  switch (e.problem) {
    case NcuProblem::long_line: what = fmt::format("{} bytes, more than the {} a line of a report may have", count, limit); break;
    case NcuProblem::many_columns: what = fmt::format("a header of {} columns, more than the {} a report may have", count, limit); break;
    case NcuProblem::no_kernel_columns:
      what = "a CSV header without the columns \"ID\" and \"Kernel Name\": expected the header ncu --csv writes "
             "(\"ID\",\"Process ID\",...,\"Kernel Name\",...)";
      break;
    case NcuProblem::half_metric_columns:
      what = "a details-page header needs both \"Metric Name\" and \"Metric Value\" columns (ncu --csv)";
      break;
    case NcuProblem::bad_capability: what = fmt::format("CC {}: expected a compute capability such as 9.0", quoted); break;
    case NcuProblem::bad_dimension:
      // CUDA's launch limits (core/ncu_report.cc cites them).
      what = fmt::format("kernel {}: {} {}: expected {}", InputError::printable(e.kernel), e.name, quoted,
                         e.name == "Block Size"
                             ? "(x, y, z) of whole numbers, x and y from 1 to 1,024, z from 1 to 64, at most 1,024 threads "
                               "(CUDA's block limits), or that total"
                             : "(x, y, z) of whole numbers, x from 1 to 2,147,483,647, y and z from 1 to 65,535 (CUDA's grid "
                               "limits), or that total");
      break;
    case NcuProblem::many_kernels:
      what = fmt::format("more than {} kernels: split the report (ncu --launch-count, --kernel-name)", limit);
      break;
    case NcuProblem::not_csv: what = fmt::format("not a CSV record: {}", e.text); break;
    case NcuProblem::short_record:
      what = fmt::format("a record of {} cells where the header has {} (a truncated or cut line?)", count, limit);
      break;
    case NcuProblem::bad_value:
      what = fmt::format("{} {}{}: expected a number{}{}", e.name, quoted,
                         e.unit.empty() ? "" : fmt::format(" in '{}'", InputError::printable(e.unit)),
                         e.family == "bytes"      ? " of bytes (byte, Kbyte, Mbyte, ...)"
                         : e.family == "time"     ? " of time (nsecond, usecond, msecond, second)"
                         : e.family == "fraction" ? " in %"
                                                  : "",
                         kNumberForm);
      break;
    case NcuProblem::out_of_range: {
      // The range in the unit ncu prints: a fraction as %, bytes as bytes.
      const bool percent = e.family == "fraction";
      auto shown = [&](double v) {
        if (percent) return format_number(v * 100) + "%";
        // The one bound past 10^15, the grid's (core/ncu_report.cc): as CUDA's limits give it.
        if (v >= 1e15) return std::string("2,147,483,647 x 65,535 x 65,535 blocks (CUDA's grid limits)");
        return format_number(v);
      };
      what = fmt::format("kernel {}: {} {}{}: expected {} from {} to {}{}", InputError::printable(e.kernel), e.name, quoted,
                         e.unit.empty() ? "" : fmt::format(" in '{}'", InputError::printable(e.unit)),
                         e.whole ? "a whole number" : "a number", shown(e.lo), shown(e.hi),
                         e.family == "bytes" ? " bytes" : "");
      break;
    }
    case NcuProblem::bad_table_row: what = fmt::format("a row of a metrics table {} that is not NAME UNIT VALUE", quoted); break;
    case NcuProblem::table_before_kernel: what = "a metrics table before any kernel's first line (NAME (grid)x(block), ...)"; break;
    case NcuProblem::summary_table:
      what = "a summary table (Minimum, Maximum, Average: ncu --print-summary): gpucalc reads a row per launch, the report "
             "without --print-summary";
      break;
    case NcuProblem::no_kernel:
      return fmt::format("no kernel in its {} lines: expected what ncu writes: ncu --csv (\"ID\",...,\"Kernel Name\",... "
                         "\"Metric Name\",\"Metric Unit\",\"Metric Value\"), ncu --csv --page raw, or the text report (a line "
                         "NAME (grid)x(block), Context N, Stream N, Device N, CC X.Y, then Section: tables)",
                         count);
  }
  return fmt::format("line {}: {}", e.line, what);
}

std::string verdict(const NcuKernel& k, const NcuCheck& c, const Gpu& gpu) {
  const OccupancyResult& r = c.occupancy;
  std::vector<std::string> parts;
  if (!r.fits) return fmt::format("does not fit on {}: {}", gpu.key, words(r.limiter));
  const bool full = r.warps_per_sm * gpu.warp_size >= gpu.max_threads_per_sm;
  const WavesResult& w = c.waves;
  std::string occ = fmt::format("occupancy {} ({} per SM, {})", format_quantity(r.occupancy, Unit::fraction),
                                blocks_words(r.blocks_per_sm), full ? "the most the SM holds" : "limited by " + words(r.limiter));
  if (k.has(NcuField::occupancy_achieved)) {
    occ += fmt::format(", achieved {}", format_quantity(k.get(NcuField::occupancy_achieved), Unit::fraction));
  }
  parts.push_back(occ);
  if (w.waves_exact > 0 && w.waves_exact < 1) {
    parts.push_back(fmt::format("{}: the grid of {} fills {} of the GPU", format_count(std::round(w.waves_exact * 100) / 100, "wave"),
                                blocks_words(c.launch.blocks), format_quantity(w.waves_exact, Unit::fraction)));
  } else if (c.tail_share > 0) {
    parts.push_back(fmt::format("{} and a last of {} ({} full) that may cost up to {} of the time",
                                format_count(static_cast<double>(w.waves - 1), "full wave"),
                                blocks_words(w.last_wave_blocks), format_quantity(w.last_wave_utilization, Unit::fraction),
                                format_quantity(c.tail_share, Unit::fraction)));
  }
  // What the report measured nearest its peak (ncu_sol_words.cc), and what the models say of it.
  if (std::string limiter = limiter_phrase(k, c, gpu); !limiter.empty()) parts.push_back(std::move(limiter));
  // What buys the most, as the models see it.
  std::string advice;
  if (w.waves_exact > 0 && w.waves_exact < 1) {
    advice = fmt::format("a grid of at least a wave ({}) fills the GPU", blocks_words(w.blocks_per_wave));
  } else if (c.tail_share >= 0.2) {
    advice = fmt::format("a grid of a whole number of waves ({} a wave)", blocks_words(w.blocks_per_wave));
  } else if (!full && c.one_more.registers > 0 && r.limiter == Limiter::registers) {
    advice = fmt::format("{} per thread (from {}) buys a block", format_count(c.one_more.registers, "register"), c.launch.registers);
  } else if (!full && c.one_more.shared_memory >= 0 && r.limiter == Limiter::shared_memory) {
    advice = fmt::format("{} of shared memory per block (from {}) buys a block",
                         format_count(static_cast<double>(c.one_more.shared_memory), "byte"), c.launch.shared_memory);
  } else if (!full && c.one_more.threads > 0) {
    advice = fmt::format("blocks of {} (from {}) raise the occupancy", format_count(c.one_more.threads, "thread"), c.launch.threads);
  }
  std::string line = fmt::format("{}", fmt::join(parts, "; "));
  if (!advice.empty()) line += "; the models say: " + advice;
  if (c.differences > 0) {
    line += fmt::format("; {} from ncu's", c.differences == 1 ? "1 figure differs" : format_count(c.differences, "figure") + " differ");
  }
  return line;
}

std::string why(const NcuFigure& f, const NcuKernel& k, const NcuCheck& c, const Gpu& gpu) {
  const OccupancyResult& r = c.occupancy;
  if (f.both_capped) return fmt::format("both at or above the {} an SM holds: neither limits", blocks_words(gpu.max_blocks_per_sm));
  if (f.equal) return {};
  switch (f.field) {
    case NcuField::limit_registers:
      if (!k.has(NcuField::registers)) return {};
      return fmt::format("{} per thread, allocated per warp in units of {} over {} of {}",
                         format_count(c.launch.registers, "register"), gpu.register_allocation_unit,
                         format_count(gpu.register_sub_partitions, "sub-partition"),
                         format_count(gpu.registers_per_sm / gpu.register_sub_partitions, "register"));
    case NcuField::limit_smem:
      return fmt::format("{} per block as allocated against a carveout of {}{}",
                         format_count(static_cast<double>(r.shared_memory_per_block), "byte"),
                         format_count(static_cast<double>(r.shared_memory_per_sm), "byte"),
                         c.launch.shared_memory_driver >= 0 && c.launch.shared_memory_driver != gpu.shared_memory_reserved_per_block
                             ? fmt::format("; the report's driver shared memory is {}, the profile reserves {}",
                                           format_count(static_cast<double>(c.launch.shared_memory_driver), "byte"),
                                           gpu.shared_memory_reserved_per_block)
                             : "");
    case NcuField::limit_barriers:
      // ncu counts the kernel's named barriers (CUTLASS uses several); the report gives no count.
      if (!(f.ncu > 0) || r.limit_barriers == kNoLimit) return {};
      return fmt::format("gpucalc counts one barrier a block ({} per SM); ncu's {} {} about {} a block "
                         "(the kernel's named barriers; the report gives no count)",
                         gpu.barriers_per_sm, format_count(f.ncu, "block"), f.ncu == 1 ? "means" : "mean",
                         format_count(gpu.barriers_per_sm / std::max(1, static_cast<int>(f.ncu)), "barrier"));
    case NcuField::waves: {
      // Which input explains ncu's figure: its own blocks per SM (the smallest of its block limits)
      // where they differ from gpucalc's, a block limit's note saying why; else the SM count, which
      // ncu's figure implies only where the report gives none (waves = blocks / (blocks per SM x SMs)).
      const double blocks = static_cast<double>(c.launch.blocks);
      const std::string ours = fmt::format("{} / ({} per SM x {}{})", blocks_words(c.launch.blocks), blocks_words(r.blocks_per_sm),
                                           format_count(c.launch.sm_count, "SM"),
                                           k.has(NcuField::sm_count) ? "" : ", the profile's: the report gives no SM count (# SMs)");
      NcuField which = NcuField::limit_sm;
      const double theirs_per_sm = ncu_blocks_per_sm(k, which);
      if (theirs_per_sm >= 1 && theirs_per_sm != r.blocks_per_sm) {
        const double theirs = blocks / (theirs_per_sm * c.launch.sm_count);
        return fmt::format("{}; ncu's block limits allow {} per SM ({}), not {}: {} / ({} x {}) = {}{}", ours,
                           format_count(theirs_per_sm, "block"), ncu_field_name(which), format_number(r.blocks_per_sm),
                           format_number(blocks), format_number(theirs_per_sm), c.launch.sm_count, format_number(theirs),
                           as_printed(theirs, f.ncu) ? ", ncu's figure: the block limit explains the waves, not the SM count"
                                                     : ", not ncu's figure either");
      }
      if (k.has(NcuField::sm_count)) {
        return fmt::format("{}; at the report's SM count and the same blocks per SM, ncu's {} is not this formula's", ours,
                           format_number(f.ncu));
      }
      const double implied = blocks / (f.ncu * r.blocks_per_sm);
      return fmt::format("{}; ncu's {} implies {}", ours, format_number(f.ncu),
                         f.ncu > 0 ? format_count(std::round(implied), "SM") : "no SM count");
    }
    default: return {};
  }
}

std::vector<std::string> launch_notes(const NcuCheck& c, const Gpu& gpu) {
  std::vector<std::string> notes;
  for (const NcuRounded& s : c.launch.rounded) {
    notes.push_back(fmt::format("{}: the report gives {}, rounded to {}; taken as {} (a multiple of {})", ncu_field_name(s.field),
                                format_count(s.reported, "byte"), format_count(s.step, "byte"), format_count(s.taken, "byte"),
                                format_number(s.unit)));
  }
  if (c.launch.carveout_unmatched >= 0) {
    notes.push_back(fmt::format("Shared Memory Configuration Size {} is none of {}'s carveouts ({}): the model "
                                "takes the driver's default",
                                format_count(static_cast<double>(c.launch.carveout_unmatched), "byte"), gpu.key, fmt::join(gpu.shared_memory_carveouts, ", ")));
  }
  return notes;
}

}  // namespace gpucalc::ncu_words
