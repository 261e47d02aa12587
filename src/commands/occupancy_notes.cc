// The occupancy calculator's notes, each sentence from the case's numbers and the profile's rules.
#include "commands/occupancy_notes.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "parse/quantity.h"

namespace gpucalc::occupancy_notes {

// An on-chip size as the lessons write it: whole KiB as "41 KiB", else bytes ("41,856 B").
std::string size_text(std::int64_t bytes) {
  if (bytes >= 1024 && bytes % 1024 == 0) return format_number(static_cast<double>(bytes / 1024)) + " KiB";
  return format_number(static_cast<double>(bytes)) + " B";
}

// "1 block", "4 blocks".
std::string blocks_text(int n) { return fmt::format("{} block{}", n, n == 1 ? "" : "s"); }

std::string limiter_words(Limiter limiter) {
  std::string words = limiter_word(limiter);
  std::replace(words.begin(), words.end(), '_', ' ');
  return words;
}

std::string does_not_fit_text(const OccupancyInput& in, const OccupancyResult& r, const Gpu& g) {
  switch (r.does_not_fit) {
    case Limiter::registers: {
      if (in.model == OccupancyModel::simple) {
        return fmt::format("registers: {} threads x {} registers = {}, more than the {} of an SM", format_number(in.threads),
                           in.registers, format_number(static_cast<double>(r.needed)), format_number(static_cast<double>(r.allowed)));
      }
      // Per warp as allocated; the warps as the hardware counts them, spread over the sub-partitions.
      const int warps = (in.threads + g.warp_size - 1) / g.warp_size;
      const std::int64_t raw = std::int64_t{in.registers} * g.warp_size;
      const std::int64_t per_warp = r.registers_per_block / warps;
      const std::int64_t counted = r.needed / per_warp;
      return fmt::format(
          "registers: {} x {} = {} per warp{}; {} warps{} x {} = {}, more than the {} a block may use", in.registers,
          g.warp_size, format_number(static_cast<double>(raw)),
          per_warp == raw ? std::string() : fmt::format(", rounded up to {}", format_number(static_cast<double>(per_warp))),
          warps,
          counted == warps ? std::string()
                           : fmt::format(" (counted as {}: the hardware spreads a block over {} sub-partitions)", counted,
                                         g.register_sub_partitions),
          format_number(static_cast<double>(per_warp)), format_number(static_cast<double>(r.needed)),
          format_number(static_cast<double>(r.allowed)));
    }
    case Limiter::shared_memory:
      // Against the block limit as allocated (the reserved part, the allocation unit), or as asked
      // against the opt-in maximum (a launch's dynamic shared memory).
      return fmt::format("shared memory: {} bytes per block{}, more than the {} a block may use",
                         format_number(static_cast<double>(r.needed)),
                         r.allowed == g.shared_memory_per_block_optin + g.shared_memory_reserved_per_block ? " as allocated" : "",
                         format_number(static_cast<double>(r.allowed)));
    case Limiter::launch_bounds:
      return fmt::format("launch bounds: the kernel allows at most {} threads per block", format_number(static_cast<double>(r.allowed)));
    default: return {};
  }
}

namespace {

// Why the exact model's limit of one resource differs from the lessons' formula, from the
// case's numbers and the profile's rules (what the exact model adds that applies here).
std::string exact_rules(Limiter resource, const OccupancyInput& in, const OccupancyResult& e, const Gpu& g) {
  const int warps = (in.threads + g.warp_size - 1) / g.warp_size;
  std::vector<std::string> why;
  if (in.threads % g.warp_size != 0 && resource != Limiter::shared_memory) {
    why.push_back(fmt::format("a block of {} threads takes {} whole warps", format_number(in.threads), warps));
  }
  if (resource == Limiter::registers) {
    const std::int64_t raw = std::int64_t{in.registers} * g.warp_size;
    const std::int64_t per_warp = e.registers_per_block / warps;
    if (per_warp != raw) {
      why.push_back(fmt::format("{} x {} = {} registers a warp are allocated as {} (a multiple of {})", in.registers, g.warp_size,
                                format_number(static_cast<double>(raw)), format_number(static_cast<double>(per_warp)),
                                g.register_allocation_unit));
    }
    const std::int64_t per_partition = g.registers_per_sm / g.register_sub_partitions;
    if (per_warp > 0 && per_partition / per_warp * g.register_sub_partitions != g.registers_per_sm / per_warp) {
      why.push_back(fmt::format("whole warps in each of {} sub-partitions of {} registers ({} warps each)", g.register_sub_partitions,
                                format_number(static_cast<double>(per_partition)), per_partition / per_warp));
    }
  } else if (resource == Limiter::shared_memory) {
    if (g.shared_memory_reserved_per_block > 0) {
      why.push_back(fmt::format("{} reserved per block", size_text(g.shared_memory_reserved_per_block)));
    }
    if (e.shared_memory_per_block != in.shared_memory + g.shared_memory_reserved_per_block) {
      why.push_back(fmt::format("allocated in units of {} B: {} a block", g.shared_memory_allocation_unit, size_text(e.shared_memory_per_block)));
    }
    // A preference's carveout: the limit is at it (with none, at all of the SM's).
    if (in.carveout_percent >= 0 && e.shared_memory_per_sm != g.shared_memory_per_sm) {
      why.push_back(fmt::format("a carveout of {}, not all {}", size_text(e.shared_memory_per_sm), size_text(g.shared_memory_per_sm)));
    }
  }
  return why.empty() ? std::string("the allocation rules (--explain)") : fmt::format("{}", fmt::join(why, ", "));
}

// A size as --smem takes it: "37KB", else bytes.
std::string smem_option_text(std::int64_t bytes) {
  return bytes % 1024 == 0 ? fmt::format("{}KB", bytes / 1024) : fmt::format("{}", bytes);
}

// Occupancy as the model counts it: resident warps (exact), resident threads (simple).
std::string resident_text(const OccupancyInput& in, std::int64_t warps, std::int64_t threads) {
  return in.model == OccupancyModel::exact ? fmt::format("{} warps", format_number(static_cast<double>(warps)))
                                           : fmt::format("{} threads", format_number(static_cast<double>(threads)));
}

}  // namespace

// The two models: say when the lessons' formula gives another answer, and which of the exact
// model's rules make the difference for this case.
void add_other_model_note(Report& report, const OccupancyInput& in, const OccupancyResult& r, const Gpu& gpu) {
  OccupancyInput other = in;
  other.model = in.model == OccupancyModel::exact ? OccupancyModel::simple : OccupancyModel::exact;
  const OccupancyResult o = occupancy(other, gpu);
  if (o.blocks_per_sm == r.blocks_per_sm) return;
  const bool exact_asked = in.model == OccupancyModel::exact;
  const OccupancyResult& e = exact_asked ? r : o;
  const OccupancyResult& s = exact_asked ? o : r;
  // The limits that differ and set the count in either model.
  std::vector<std::string> reasons;
  auto compare = [&](Limiter resource, int exact_limit, int simple_limit) {
    if (exact_limit == simple_limit || (exact_limit != e.blocks_per_sm && simple_limit != s.blocks_per_sm)) return;
    auto text = [](int limit) { return limit == kNoLimit ? std::string("no limit") : fmt::format("{}", limit); };
    reasons.push_back(fmt::format("{}: {} in the exact model, {} in the simple: {}", limiter_words(resource),
                                  exact_limit == kNoLimit ? std::string("no limit") : blocks_text(exact_limit),
                                  text(simple_limit), exact_rules(resource, in, e, gpu)));
  };
  compare(Limiter::registers, e.limit_registers, s.limit_registers);
  compare(Limiter::shared_memory, e.limit_shared_memory, s.limit_shared_memory);
  compare(Limiter::threads, e.limit_threads, s.limit_threads);
  if (e.limit_barriers != s.limit_barriers && e.limit_barriers == e.blocks_per_sm) {
    reasons.push_back(fmt::format("barriers: {} in the exact model, one of the SM's {} a block", blocks_text(e.limit_barriers), gpu.barriers_per_sm));
  }
  report.notes.push_back(fmt::format("the {} model gives {} per SM ({}); {}", exact_asked ? "simple" : "exact",
                                     blocks_text(o.blocks_per_sm), format_quantity(o.occupancy, Unit::fraction),
                                     reasons.empty() ? std::string("the exact model follows NVIDIA's calculator (cuda_occupancy.h)")
                                                     : fmt::format("{}", fmt::join(reasons, "; "))));
}

// The smallest change of each input that raises the occupancy, each with the blocks and the
// occupancy the model gives at it; a smaller block that buys a block but holds no more warps is
// said to, and not advised. `per_thread`: --smem-per-thread, the part of the block's shared
// memory that --smem leaves out and a smaller block has less of.
void add_one_more_block_note(Report& report, const OccupancyInput& in, std::int64_t per_thread, const OccupancyResult& r,
                             const OneMoreBlock& next, const Gpu& gpu) {
  const std::int64_t smem_option = in.shared_memory - per_thread * in.threads;
  auto at = [&](int threads, int registers, std::int64_t smem) {
    OccupancyInput c = in;
    c.threads = threads;
    c.registers = registers;
    c.shared_memory = smem + per_thread * threads;
    return occupancy(c, gpu);
  };
  const std::string now = resident_text(in, r.warps_per_sm, r.threads_per_sm);
  const std::string most = resident_text(in, gpu.max_threads_per_sm / gpu.warp_size, gpu.max_threads_per_sm);
  if (now == most) {
    report.notes.push_back(fmt::format("occupancy is 100% ({}, all the SM holds): no change raises it", now));
    return;
  }
  auto gives = [&](const OccupancyResult& a) { return fmt::format("{}, {}", blocks_text(a.blocks_per_sm), format_quantity(a.occupancy, Unit::fraction)); };
  std::vector<std::string> words;
  if (next.registers > 0) {
    words.push_back(fmt::format("--regs {} (from {}) gives {}", next.registers, in.registers, gives(at(in.threads, next.registers, smem_option))));
  }
  if (next.shared_memory >= 0) {
    words.push_back(fmt::format("--smem {} (from {}) gives {}", smem_option_text(next.shared_memory), smem_option_text(smem_option),
                                gives(at(in.threads, in.registers, next.shared_memory))));
  }
  if (next.threads > 0) {
    words.push_back(fmt::format("--threads {} (from {}) gives {}", next.threads, in.threads, gives(at(next.threads, in.registers, smem_option))));
  }
  const std::string occupancy_now = fmt::format("{} ({}, {})", format_quantity(r.occupancy, Unit::fraction), blocks_text(r.blocks_per_sm), now);
  if (words.empty()) {
    report.notes.push_back(fmt::format("no single smaller input raises occupancy above {}", occupancy_now));
  } else {
    report.notes.push_back(fmt::format("higher occupancy than {}: {}", occupancy_now, fmt::join(words, "; or ")));
  }
  // A nearer smaller block that buys a block only: fewer warps a block, more blocks, no more warps.
  const SmallerBlock block = smaller_block_buying_a_block(in, r, gpu, per_thread);
  if (block.threads > next.threads) {
    const OccupancyResult a = at(block.threads, in.registers, smem_option);
    const std::string held = resident_text(in, a.warps_per_sm, a.threads_per_sm);
    const bool fewer = in.model == OccupancyModel::exact ? a.warps_per_sm < r.warps_per_sm : a.threads_per_sm < r.threads_per_sm;
    report.notes.push_back(fmt::format("--threads {} (from {}) would give {} but {}, {} the {} now ({}): not advised", block.threads,
                                       in.threads, blocks_text(a.blocks_per_sm), held, fewer ? "fewer than" : "as many as", now,
                                       format_quantity(a.occupancy, Unit::fraction)));
  }
}

}  // namespace gpucalc::occupancy_notes
