#include "core/occupancy.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.h"
#include "core/quantity.h"

namespace gpucalc {
namespace {

std::int64_t round_up(std::int64_t x, std::int64_t unit) { return (x + unit - 1) / unit * unit; }
std::int64_t divide_round_up(std::int64_t x, std::int64_t unit) { return (x + unit - 1) / unit; }
// Blocks a resource allows, clamped to int: a profile's 2^50-byte SM must not wrap around. A block
// that uses none of it (no shared memory on sm_70, where nothing is reserved) is not limited.
int blocks_allowed(std::int64_t resource, std::int64_t per_block) {
  if (per_block == 0) return kNoLimit;
  return static_cast<int>(std::min<std::int64_t>(resource / per_block, kNoLimit));
}

void check_input(const OccupancyInput& in, const Gpu& gpu) {
  if (in.threads < 1 || in.threads > gpu.max_threads_per_block) {
    throw FieldError("threads", std::to_string(in.threads),
                     fmt::format("a whole number from 1 to {} (threads per block on {})", format_number(gpu.max_threads_per_block), gpu.key));
  }
  if (in.registers < 1 || in.registers > gpu.max_registers_per_thread) {
    throw FieldError("regs", std::to_string(in.registers),
                     fmt::format("a whole number from 1 to {} (registers per thread on {})", gpu.max_registers_per_thread, gpu.key));
  }
  if (in.shared_memory < 0 || in.shared_memory > gpu.shared_memory_per_block_optin) {
    throw FieldError("smem", std::to_string(in.shared_memory),
                     fmt::format("a size from 0 to {} bytes ({}, the opt-in maximum per block on {})",
                                 format_number(static_cast<double>(gpu.shared_memory_per_block_optin)),
                                 format_quantity(static_cast<double>(gpu.shared_memory_per_block_optin), Unit::onchip_bytes),
                                 gpu.key));
  }
  if (in.carveout_percent < -1 || in.carveout_percent > 100) {
    throw FieldError("carveout", std::to_string(in.carveout_percent), "a percentage from 0 to 100");
  }
}

// The carveout sizes round a preference up to the next size the architecture offers.
std::int64_t align_to_carveout(std::int64_t bytes, const Gpu& gpu) {
  for (std::int64_t size : gpu.shared_memory_carveouts) {
    if (bytes <= size) return size;
  }
  return gpu.shared_memory_carveouts.back();
}

// The exact model's register use of a block: per warp, rounded up to the allocation unit (256),
// allocated per sub-partition.
struct RegisterUse {
  std::int64_t per_warp = 0;
  std::int64_t per_block = 0;
  std::int64_t assumed = 0;  // as the hardware checks it: warps spread over all sub-partitions
  int limit = 0;             // blocks per SM; 0 when a block does not fit
};

RegisterUse exact_registers(int threads, int registers, const Gpu& gpu) {
  RegisterUse u;
  const int warps_per_block = static_cast<int>(divide_round_up(threads, gpu.warp_size));
  u.per_warp = round_up(std::int64_t{registers} * gpu.warp_size, gpu.register_allocation_unit);
  u.per_block = u.per_warp * warps_per_block;
  u.assumed = u.per_warp * round_up(warps_per_block, gpu.register_sub_partitions);
  if (u.assumed > gpu.registers_per_block || u.per_block > gpu.registers_per_block) return u;
  const std::int64_t per_partition = gpu.registers_per_sm / gpu.register_sub_partitions;
  const std::int64_t warps_per_partition = per_partition / u.per_warp;
  u.limit = static_cast<int>(warps_per_partition * gpu.register_sub_partitions / warps_per_block);
  return u;
}

// The exact model's shared memory of a block: static + dynamic + the reserved 1 KB, in 128-byte
// units, against the carveout.
struct SharedMemoryUse {
  std::int64_t per_block = 0;    // as allocated
  std::int64_t per_sm = 0;       // the carveout
  std::int64_t block_limit = 0;  // the most a block may use
  int limit = 0;                 // blocks per SM; 0 when a block does not fit
};

SharedMemoryUse exact_shared_memory(std::int64_t shared_memory, int carveout_percent, const Gpu& gpu) {
  SharedMemoryUse u;
  const std::int64_t used = shared_memory + gpu.shared_memory_reserved_per_block;
  u.per_block = round_up(used, gpu.shared_memory_allocation_unit);
  u.block_limit = gpu.shared_memory_per_block_optin + gpu.shared_memory_reserved_per_block;
  std::int64_t preference = carveout_percent < 0 ? gpu.shared_memory_per_sm : carveout_percent * gpu.shared_memory_per_sm / 100;
  preference = align_to_carveout(preference, gpu);
  // A preference smaller than one block is overridden: the driver picks the next size up.
  u.per_sm = preference >= u.per_block ? preference : align_to_carveout(u.per_block, gpu);
  if (u.per_block <= u.block_limit) u.limit = blocks_allowed(u.per_sm, u.per_block);
  return u;
}

// Threads: warp slots per SM / warps per block.
int exact_threads_limit(int threads, const Gpu& gpu) {
  return gpu.max_threads_per_sm / gpu.warp_size / static_cast<int>(divide_round_up(threads, gpu.warp_size));
}

OccupancyResult exact(const OccupancyInput& in, const Gpu& gpu) {
  OccupancyResult r;
  const int warps_per_block = static_cast<int>(divide_round_up(in.threads, gpu.warp_size));
  r.limit_threads = exact_threads_limit(in.threads, gpu);
  r.limit_blocks = gpu.max_blocks_per_sm;

  const RegisterUse regs = exact_registers(in.threads, in.registers, gpu);
  r.registers_per_block = regs.per_block;
  r.limit_registers = regs.limit;
  if (regs.limit == 0) {
    r.fits = false;
    const std::int64_t regs_per_warp = regs.per_warp;
    const std::int64_t counted = round_up(warps_per_block, gpu.register_sub_partitions);
    if (in.for_people) r.does_not_fit = fmt::format(
        "registers: {} x {} = {} per warp{}; {} warps{} x {} = {}, more than the {} a block may use",
        in.registers, gpu.warp_size, format_number(in.registers * gpu.warp_size),
        regs_per_warp == in.registers * gpu.warp_size
            ? std::string()
            : fmt::format(", rounded up to {}", format_number(static_cast<double>(regs_per_warp))),
        warps_per_block,
        counted == warps_per_block ? std::string()
                                   : fmt::format(" (counted as {}: the hardware spreads a block over {} sub-partitions)",
                                                 counted, gpu.register_sub_partitions),
        format_number(static_cast<double>(regs_per_warp)), format_number(static_cast<double>(std::max(regs.assumed, regs.per_block))),
        format_number(gpu.registers_per_block));
  }

  const SharedMemoryUse smem = exact_shared_memory(in.shared_memory, in.carveout_percent, gpu);
  r.shared_memory_per_block = smem.per_block;
  r.shared_memory_per_sm = smem.per_sm;
  r.limit_shared_memory = smem.limit;
  if (smem.per_block > smem.block_limit) {
    r.fits = false;
    if (in.for_people) r.does_not_fit = fmt::format("shared memory: {} bytes per block as allocated, more than the {} a block may use",
                                 format_number(static_cast<double>(smem.per_block)),
                                 format_number(static_cast<double>(smem.block_limit)));
  }

  // Barriers (sm_90): each block uses one of the SM's named barriers.
  if (gpu.cc_major >= 9) r.limit_barriers = gpu.barriers_per_sm;
  return r;
}

// The lessons' formula, one resource at a time: blocks = min(R / (t r), S / s, T / t, B).
int simple_registers_limit(int threads, int registers, const Gpu& gpu) {
  return static_cast<int>(gpu.registers_per_sm / (std::int64_t{threads} * registers));
}
int simple_shared_memory_limit(std::int64_t shared_memory, const Gpu& gpu) {
  return shared_memory == 0 ? kNoLimit : blocks_allowed(gpu.shared_memory_per_sm, shared_memory);
}
int simple_threads_limit(int threads, const Gpu& gpu) { return gpu.max_threads_per_sm / threads; }

OccupancyResult simple(const OccupancyInput& in, const Gpu& gpu) {
  OccupancyResult r;
  r.limit_registers = simple_registers_limit(in.threads, in.registers, gpu);
  r.limit_shared_memory = simple_shared_memory_limit(in.shared_memory, gpu);
  r.limit_threads = simple_threads_limit(in.threads, gpu);
  r.limit_blocks = gpu.max_blocks_per_sm;
  r.registers_per_block = std::int64_t{in.threads} * in.registers;
  r.shared_memory_per_block = in.shared_memory;
  r.shared_memory_per_sm = gpu.shared_memory_per_sm;
  if (r.limit_registers == 0) {
    r.fits = false;
    if (in.for_people) r.does_not_fit = fmt::format("registers: {} threads x {} registers = {}, more than the {} of an SM",
                                 format_number(in.threads), in.registers,
                                 format_number(static_cast<double>(r.registers_per_block)),
                                 format_number(gpu.registers_per_sm));
  }
  return r;
}

// The limiter, the counts and the occupancy from the limits a model computed.
OccupancyResult finish(OccupancyResult r, const OccupancyInput& input, const Gpu& gpu) {
  // The tightest resource sets the count; ties name the first of registers, shared memory,
  // threads, blocks.
  const std::pair<const char*, int> limits[] = {{"registers", r.limit_registers},
                                                {"shared_memory", r.limit_shared_memory},
                                                {"threads", r.limit_threads},
                                                {"blocks", r.limit_blocks},
                                                {"barriers", r.limit_barriers}};
  r.blocks_per_sm = kNoLimit;
  for (const auto& [name, limit] : limits) {
    if (limit < r.blocks_per_sm) {
      r.blocks_per_sm = limit;
      r.limiter = name;
    }
  }
  const int warps_per_block = (input.threads + gpu.warp_size - 1) / gpu.warp_size;
  r.warps_per_sm = r.blocks_per_sm * warps_per_block;
  r.threads_per_sm = r.blocks_per_sm * input.threads;
  // occupancy = resident warps / max warps per SM; the simple model counts t/32 warps a block, as
  // the lessons do (blocks t / 32 / 64), so that its floor(2048 / t) blocks never exceed 100%.
  r.occupancy = input.model == OccupancyModel::simple
                    ? static_cast<double>(r.threads_per_sm) / gpu.max_threads_per_sm
                    : static_cast<double>(r.warps_per_sm) / (gpu.max_threads_per_sm / gpu.warp_size);
  if (r.blocks_per_sm == 0) r.fits = false;
  return r;
}

// The blocks one resource allows under the input's model, as occupancy() counts them: the
// searches of one_more_block change one input at a time and recompute only the limits it sets.
int registers_limit(const OccupancyInput& in, const Gpu& gpu) {
  return in.model == OccupancyModel::exact ? exact_registers(in.threads, in.registers, gpu).limit
                                           : simple_registers_limit(in.threads, in.registers, gpu);
}
int shared_memory_limit(const OccupancyInput& in, const Gpu& gpu) {
  return in.model == OccupancyModel::exact ? exact_shared_memory(in.shared_memory, in.carveout_percent, gpu).limit
                                           : simple_shared_memory_limit(in.shared_memory, gpu);
}
int threads_limit(const OccupancyInput& in, const Gpu& gpu) {
  return in.model == OccupancyModel::exact ? exact_threads_limit(in.threads, gpu) : simple_threads_limit(in.threads, gpu);
}

}  // namespace

OccupancyResult occupancy(const OccupancyInput& input, const Gpu& gpu) {
  check_input(input, gpu);
  return finish(input.model == OccupancyModel::exact ? exact(input, gpu) : simple(input, gpu), input, gpu);
}

OneMoreBlock one_more_block(const OccupancyInput& input, const Gpu& gpu) {
  return one_more_block(input, occupancy(input, gpu), gpu);
}

OneMoreBlock one_more_block(const OccupancyInput& input, const OccupancyResult& base, const Gpu& gpu) {
  OneMoreBlock out;
  const int now = base.blocks_per_sm;
  // Blocks per SM when one input is smaller (so still in range): the limits that input does not
  // set stay the base's (the block and barrier limits never move).
  auto blocks = [&](int registers, int shared_memory, int threads) {
    return std::min({kNoLimit, registers, shared_memory, threads, base.limit_blocks, base.limit_barriers});
  };
  auto at_registers = [&](std::int64_t r) {
    OccupancyInput c = input;
    c.registers = static_cast<int>(r);
    return blocks(registers_limit(c, gpu), base.limit_shared_memory, base.limit_threads);
  };
  auto at_shared_memory = [&](std::int64_t s) {
    OccupancyInput c = input;
    c.shared_memory = s;
    return blocks(base.limit_registers, shared_memory_limit(c, gpu), base.limit_threads);
  };
  // A smaller block, in whole warps (threads set the warp and register limits).
  auto at_warps = [&](std::int64_t w) {
    OccupancyInput c = input;
    c.threads = static_cast<int>(w) * gpu.warp_size;
    return blocks(registers_limit(c, gpu), base.limit_shared_memory, threads_limit(c, gpu));
  };
  // A smaller input only raises the limit of the resource it uses, so only a resource whose
  // limit is the current count can buy a block; blocks never fall as an input falls, so the
  // inputs that buy one form a range [smallest, largest]: binary search for the largest.
  auto largest_that_buys = [&](std::int64_t lo, std::int64_t hi, auto blocks_at) {
    // Invariant: `lo` buys a block; every value above `hi` does not.
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo + 1) / 2;
      // Either end moves, chosen without a branch: which one is as good as a coin toss.
      const bool buys = blocks_at(mid) > now;
      lo = buys ? mid : lo;
      hi = buys ? hi : mid - 1;
    }
    return lo;
  };
  if (base.limit_registers == now && input.registers > 1 && at_registers(1) > now) {
    out.registers = static_cast<int>(largest_that_buys(1, input.registers - 1, at_registers));
  }
  if (base.limit_shared_memory == now && input.shared_memory > 0 && at_shared_memory(0) > now) {
    out.shared_memory = largest_that_buys(0, input.shared_memory - 1, at_shared_memory);
  }
  const std::int64_t fewer_warps = (input.threads - 1) / gpu.warp_size;  // whole warps below the block
  if ((base.limit_registers == now || base.limit_threads == now) && fewer_warps >= 1 && at_warps(1) > now) {
    out.threads = static_cast<int>(largest_that_buys(1, fewer_warps, at_warps)) * gpu.warp_size;
  }
  return out;
}

namespace {

// The exact model at a block whose shared memory may exceed the opt-in maximum: no block fits
// then (the runtime's check of the dynamic part against the kernel's maximum).
OccupancyResult exact_or_none(int threads, int registers, std::int64_t shared_memory, int carveout, const Gpu& gpu) {
  OccupancyInput in;
  in.threads = threads;
  in.registers = registers;
  in.carveout_percent = carveout;
  in.shared_memory = std::min(shared_memory, gpu.shared_memory_per_block_optin);
  OccupancyResult r = exact(in, gpu);
  if (shared_memory > gpu.shared_memory_per_block_optin) {
    r.limit_shared_memory = 0;
    r.fits = false;
    r.does_not_fit = fmt::format("shared memory: {} bytes per block, more than the {} a block may use",
                                 format_number(static_cast<double>(shared_memory)),
                                 format_number(static_cast<double>(gpu.shared_memory_per_block_optin)));
  }
  return finish(r, in, gpu);
}

void check_registers_and_carveout(int registers, int carveout, const Gpu& gpu) {
  OccupancyInput probe;
  probe.threads = 1;
  probe.registers = registers;
  probe.carveout_percent = carveout;
  check_input(probe, gpu);
}

}  // namespace

OccupancyResult launch_occupancy(const OccupancyInput& input, const Gpu& gpu) {
  const int registers = std::max(input.registers, 1);
  check_registers_and_carveout(registers, input.carveout_percent, gpu);
  OccupancyInput probe = input;
  probe.registers = registers;
  probe.shared_memory = 0;
  check_input(probe, gpu);
  return exact_or_none(input.threads, registers, input.shared_memory, input.carveout_percent, gpu);
}

Suggestion suggest_block_size(const SuggestInput& in, const Gpu& gpu) {
  check_registers_and_carveout(in.registers, in.carveout_percent, gpu);
  const std::int64_t optin = gpu.shared_memory_per_block_optin;
  if (in.shared_memory < 0 || in.shared_memory > optin) {
    throw FieldError("smem", std::to_string(in.shared_memory),
                     fmt::format("a size from 0 to {} bytes (the opt-in maximum per block on {})", format_number(static_cast<double>(optin)), gpu.key));
  }
  if (in.shared_memory_per_thread < 0 || in.shared_memory_per_thread > optin) {
    throw FieldError("smem_per_thread", std::to_string(in.shared_memory_per_thread),
                     fmt::format("a size from 0 to {} bytes per thread", format_number(static_cast<double>(optin))));
  }
  if (in.max_threads < 0 || in.max_threads > gpu.max_threads_per_block) {
    throw FieldError("max_threads", std::to_string(in.max_threads),
                     fmt::format("a whole number from 1 to {} (threads per block on {})", format_number(gpu.max_threads_per_block), gpu.key));
  }
  // blockSizeLimit = min(the device's, the kernel's); sizes from it rounded up to a warp, down by a warp.
  const int limit = in.max_threads == 0 ? gpu.max_threads_per_block : in.max_threads;
  const int step = gpu.warp_size;
  const int limit_aligned = static_cast<int>(round_up(limit, step));
  Suggestion best;
  int best_threads = 0;  // resident threads per SM at the best size
  for (int aligned = limit_aligned; aligned > 0; aligned -= step) {
    const int size = std::min(limit, aligned);
    // Shared memory at this size: fixed + per thread x size (over the opt-in maximum: no block fits).
    std::int64_t smem = optin + 1;
    if (in.shared_memory_per_thread == 0 || size <= (optin - in.shared_memory) / in.shared_memory_per_thread) {
      smem = in.shared_memory + in.shared_memory_per_thread * size;
    }
    const OccupancyResult r = exact_or_none(size, in.registers, smem, in.carveout_percent, gpu);
    ++best.block_sizes_tried;
    if (best.block_sizes_tried == 1) {
      best.at = r;  // shown when no size fits
      best.shared_memory = smem;
    }
    // occupancy in threads = size x blocks; only a strictly higher count replaces the best.
    const int threads = size * r.blocks_per_sm;
    if (threads > best_threads) {
      best_threads = threads;
      best.block_size = size;
      best.at = r;
      best.shared_memory = smem;
    }
    if (best_threads == gpu.max_threads_per_sm) break;  // full occupancy: no size can do better
  }
  // minGridSize = blocks per SM x SMs: one full wave.
  best.min_grid_size = best.block_size == 0 ? 0 : best.at.blocks_per_sm * gpu.sm_count;
  return best;
}

AvailableSmem available_dynamic_smem(const AvailableSmemInput& in, const Gpu& gpu) {
  OccupancyInput base;
  base.threads = in.threads;
  base.registers = in.registers;
  base.shared_memory = in.static_shared_memory;
  base.carveout_percent = in.carveout_percent;
  const OccupancyResult without = occupancy(base, gpu);
  if (in.blocks_per_sm < 1 || in.blocks_per_sm > without.blocks_per_sm) {
    throw FieldError("target_blocks", std::to_string(in.blocks_per_sm),
                     without.blocks_per_sm == 0
                         ? std::string("a kernel that fits: not even one block does without dynamic shared memory")
                         : fmt::format("a whole number from 1 to {} (the blocks of {} threads x {} registers{} that fit "
                                       "without dynamic shared memory, limited by {})",
                                       without.blocks_per_sm, in.threads, in.registers,
                                       in.static_shared_memory > 0 ? fmt::format(" with {} bytes static", in.static_shared_memory) : "",
                                       without.limiter));
  }
  AvailableSmem out;
  const std::int64_t unit = gpu.shared_memory_allocation_unit;
  // The block limit: the opt-in maximum plus the reserved part (the kernel opted in).
  const std::int64_t block_limit = gpu.shared_memory_per_block_optin + gpu.shared_memory_reserved_per_block;
  if (in.blocks_per_sm == 1) {
    // One block may use all a block may have, whatever the carveout preference.
    out.per_sm = block_limit;
  } else {
    // The carveout preference (the driver's default: all of it), rounded up to a size the SM
    // offers; a preference of 0 counts as the smallest non-zero size.
    std::int64_t preference = in.carveout_percent < 0 ? gpu.shared_memory_per_sm
                                                      : in.carveout_percent * gpu.shared_memory_per_sm / 100;
    preference = align_to_carveout(preference == 0 ? 1 : preference, gpu);
    out.per_sm = preference;
  }
  // bytes = floor(per SM / blocks) to the allocation unit, at most the block limit, less the
  // static part, at most the kernel's dynamic maximum (opt-in maximum - static). The reserved
  // 1 KB per block is not subtracted: cuda_occupancy.h does not.
  std::int64_t bytes = out.per_sm / in.blocks_per_sm / unit * unit;
  bytes = std::min(bytes, block_limit);
  const std::int64_t dynamic_max = gpu.shared_memory_per_block_optin - in.static_shared_memory;
  bytes = bytes >= in.static_shared_memory ? std::min(bytes - in.static_shared_memory, dynamic_max) : dynamic_max;
  out.bytes = bytes;
  OccupancyInput at = base;
  at.shared_memory = std::min(in.static_shared_memory + bytes, gpu.shared_memory_per_block_optin);
  out.blocks_at_bytes = occupancy(at, gpu).blocks_per_sm;
  return out;
}

}  // namespace gpucalc
