#include "core/occupancy.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string_view>

#include "core/error.h"

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

// The error of an input out of range: only when one is (a hot path checks and calls nothing).
[[noreturn]] [[gnu::cold]] [[gnu::noinline]] void refuse_input(const OccupancyInput& in, const Gpu& gpu) {
  if (in.threads < 1 || in.threads > gpu.max_threads_per_block) {
    throw FieldError("threads", in.threads, Rule::in_range).range(1, gpu.max_threads_per_block);
  }
  if (in.registers < 1 || in.registers > gpu.max_registers_per_thread) {
    throw FieldError("regs", in.registers, Rule::in_range).range(1, gpu.max_registers_per_thread);
  }
  if (in.shared_memory < 0 || in.shared_memory > gpu.shared_memory_per_block_optin) {
    throw FieldError("smem", static_cast<double>(in.shared_memory), Rule::in_range)
        .range(0, static_cast<double>(gpu.shared_memory_per_block_optin));
  }
  throw FieldError("carveout", in.carveout_percent, Rule::in_range).range(0, 100);
}

void check_input(const OccupancyInput& in, const Gpu& gpu) {
  if (in.threads < 1 || in.threads > gpu.max_threads_per_block || in.registers < 1 ||
      in.registers > gpu.max_registers_per_thread || in.shared_memory < 0 ||
      in.shared_memory > gpu.shared_memory_per_block_optin || in.carveout_percent < -1 || in.carveout_percent > 100) {
    refuse_input(in, gpu);
  }
}

// The carveout sizes round a preference up to the next size the architecture offers.
std::int64_t align_to_carveout(std::int64_t bytes, const Gpu& gpu) {
  const std::vector<std::int64_t>& sizes = gpu.shared_memory_carveouts;
  // The driver's default asks for all the SM has: the largest size, found without a search.
  if (bytes >= sizes.back()) return sizes.back();
  for (std::int64_t size : sizes) {
    if (bytes <= size) return size;
  }
  return sizes.back();
}

// The carveout a preference asks for (-1: none, all of it, as cuda_occupancy.h takes it: the SM may
// grow to it), before a block overrides it.
std::int64_t preferred_carveout(int carveout_percent, const Gpu& gpu) {
  return align_to_carveout(carveout_percent < 0 ? gpu.shared_memory_per_sm : carveout_percent * gpu.shared_memory_per_sm / 100, gpu);
}

int warps_per_block(int threads, const Gpu& gpu) { return static_cast<int>(divide_round_up(threads, gpu.warp_size)); }

// The exact model's register use of a block: per warp, rounded up to the allocation unit (256),
// allocated per sub-partition.
struct RegisterUse {
  std::int64_t per_warp = 0;
  std::int64_t per_block = 0;
  std::int64_t assumed = 0;  // as the hardware checks it: warps spread over all sub-partitions
  int limit = 0;             // blocks per SM; 0 when a block does not fit
};

RegisterUse exact_registers(int warps_per_block, int registers, const Gpu& gpu) {
  RegisterUse u;
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

// Inlined (as exact() and finish() are) into occupancy(), the hot path of a batch: a call costs as
// much as the arithmetic.
[[gnu::always_inline]] inline SharedMemoryUse exact_shared_memory(std::int64_t shared_memory, int carveout_percent, const Gpu& gpu) {
  SharedMemoryUse u;
  const std::int64_t used = shared_memory + gpu.shared_memory_reserved_per_block;
  u.per_block = round_up(used, gpu.shared_memory_allocation_unit);
  u.block_limit = gpu.shared_memory_per_block_optin + gpu.shared_memory_reserved_per_block;
  const std::int64_t preference = preferred_carveout(carveout_percent, gpu);
  // A preference smaller than one block is overridden: the driver picks the next size up.
  u.per_sm = preference >= u.per_block ? preference : align_to_carveout(u.per_block, gpu);
  if (u.per_block <= u.block_limit) u.limit = blocks_allowed(u.per_sm, u.per_block);
  return u;
}

// Threads: warp slots per SM / warps per block.
int exact_threads_limit(int warps_per_block, const Gpu& gpu) {
  return gpu.max_threads_per_sm / gpu.warp_size / warps_per_block;
}

[[gnu::always_inline]] inline void exact(OccupancyResult& r, const OccupancyInput& in, const Gpu& gpu) {
  const int warps = warps_per_block(in.threads, gpu);
  r.limit_threads = exact_threads_limit(warps, gpu);
  r.limit_blocks = gpu.max_blocks_per_sm;

  const RegisterUse regs = exact_registers(warps, in.registers, gpu);
  r.registers_per_block = regs.per_block;
  r.limit_registers = regs.limit;
  if (regs.limit == 0) {
    r.fits = false;
    r.does_not_fit = Limiter::registers;
    r.needed = std::max(regs.assumed, regs.per_block);
    r.allowed = gpu.registers_per_block;
  }

  const SharedMemoryUse smem = exact_shared_memory(in.shared_memory, in.carveout_percent, gpu);
  r.shared_memory_per_block = smem.per_block;
  r.shared_memory_per_sm = smem.per_sm;
  r.limit_shared_memory = smem.limit;
  if (smem.per_block > smem.block_limit) {
    r.fits = false;
    r.does_not_fit = Limiter::shared_memory;
    r.needed = smem.per_block;
    r.allowed = smem.block_limit;
  }

  // Barriers (sm_90): each block uses one of the SM's named barriers.
  if (gpu.cc_major >= 9) r.limit_barriers = gpu.barriers_per_sm;
}

// The lessons' formula, one resource at a time: blocks = min(R / (t r), S / s, T / t, B).
int simple_registers_limit(int threads, int registers, const Gpu& gpu) {
  return static_cast<int>(gpu.registers_per_sm / (std::int64_t{threads} * registers));
}
int simple_shared_memory_limit(std::int64_t shared_memory, const Gpu& gpu) {
  return shared_memory == 0 ? kNoLimit : blocks_allowed(gpu.shared_memory_per_sm, shared_memory);
}
int simple_threads_limit(int threads, const Gpu& gpu) { return gpu.max_threads_per_sm / threads; }

void simple(OccupancyResult& r, const OccupancyInput& in, const Gpu& gpu) {
  r.limit_registers = simple_registers_limit(in.threads, in.registers, gpu);
  r.limit_shared_memory = simple_shared_memory_limit(in.shared_memory, gpu);
  r.limit_threads = simple_threads_limit(in.threads, gpu);
  r.limit_blocks = gpu.max_blocks_per_sm;
  r.registers_per_block = std::int64_t{in.threads} * in.registers;
  r.shared_memory_per_block = in.shared_memory;
  r.shared_memory_per_sm = gpu.shared_memory_per_sm;
  if (r.limit_registers == 0) {
    r.fits = false;
    r.does_not_fit = Limiter::registers;
    r.needed = r.registers_per_block;
    r.allowed = gpu.registers_per_sm;
  }
}

// The limiter, the counts and the occupancy from the limits a model computed.
[[gnu::always_inline]] inline void finish(OccupancyResult& r, const OccupancyInput& input, const Gpu& gpu) {
  // The tightest resource sets the count; ties name the first of registers, shared memory,
  // threads, blocks, barriers (no resource below "no limit": no limiter).
  Limiter limiter = Limiter::none;
  int blocks = kNoLimit;
  auto tighter = [&](int limit, Limiter name) {
    if (limit < blocks) {
      blocks = limit;
      limiter = name;
    }
  };
  tighter(r.limit_registers, Limiter::registers);
  tighter(r.limit_shared_memory, Limiter::shared_memory);
  tighter(r.limit_threads, Limiter::threads);
  tighter(r.limit_blocks, Limiter::blocks);
  tighter(r.limit_barriers, Limiter::barriers);
  r.blocks_per_sm = blocks;
  if (limiter != Limiter::none) r.limiter = limiter;
  r.warps_per_sm = r.blocks_per_sm * warps_per_block(input.threads, gpu);
  r.threads_per_sm = r.blocks_per_sm * input.threads;
  // occupancy = resident warps / max warps per SM; the simple model counts t/32 warps a block, as
  // the lessons do (blocks t / 32 / 64), so that its floor(2048 / t) blocks never exceed 100%.
  r.occupancy = input.model == OccupancyModel::simple
                    ? static_cast<double>(r.threads_per_sm) / gpu.max_threads_per_sm
                    : static_cast<double>(r.warps_per_sm) / (gpu.max_threads_per_sm / gpu.warp_size);
  if (r.blocks_per_sm == 0) r.fits = false;
  r.limit_shared_memory_configured = r.limit_shared_memory;
  // No preference: the driver configures at least the smallest carveout that holds the resident
  // blocks (H100, driver 580: that size in 17 of 21 launches, about twice it in 4, never less;
  // docs/device-runs/issue36-carveout). cuda_occupancy.h takes the largest.
  if (input.model == OccupancyModel::exact && input.carveout_percent < 0 && r.blocks_per_sm > 0 &&
      r.shared_memory_per_block > 0) {
    r.shared_memory_per_sm = align_to_carveout(r.blocks_per_sm * r.shared_memory_per_block, gpu);
    r.limit_shared_memory_configured = blocks_allowed(r.shared_memory_per_sm, r.shared_memory_per_block);
  }
}

// ---- one_more_block: the largest fewer registers or bytes that allow `wanted` blocks, in closed form ----
// A smaller input only raises the limit of the resource it uses, and a limit falls (never rises)
// as its input grows (shared memory: where no carveout is more than twice the one below it, as on
// every profile), so the values allowing `wanted` blocks are all those up to a largest one; each
// function below returns that largest value (below 1, or below 0 for bytes: none).

// Exact model, registers per thread r of a block of `warps`: floor(floor(P / pw) x S / warps) >=
// wanted <=> pw <= floor(P / ceil(wanted x warps / S)), with P the registers of a sub-partition and
// pw = r x 32 rounded up to the allocation unit; the block fits <=> pw x (warps rounded up to S) <=
// the registers a block may use; and pw <= X <=> r x 32 <= X rounded down to the unit.
std::int64_t exact_registers_allowing(std::int64_t wanted, int warps, const Gpu& gpu) {
  const std::int64_t partitions = gpu.register_sub_partitions;
  const std::int64_t per_partition = gpu.registers_per_sm / partitions;
  const std::int64_t warps_needed = divide_round_up(wanted * warps, partitions);  // per sub-partition
  const std::int64_t per_warp = std::min(per_partition / warps_needed, gpu.registers_per_block / round_up(warps, partitions));
  return per_warp / gpu.register_allocation_unit * gpu.register_allocation_unit / gpu.warp_size;
}

// Exact model, bytes of shared memory per block. A block of pb bytes as allocated (at most the block
// limit) runs with the preferred carveout when it holds the block, else with the next size up; so
// floor(carveout / pb) >= wanted holds for pb <= floor(preference / wanted), or, with a preference
// of 0, pb <= floor(first size above 0 / wanted) (a block larger than the preference gets 1 block
// of the next size: its half is smaller than the size below it). One block (wanted 1) fits up to
// the block limit. Returns nothing when a larger block could also allow `wanted` (a size more
// than `wanted` times the one below it, above the preference: no built-in profile has one), and
// the caller searches instead.
std::optional<std::int64_t> exact_shared_memory_allowing(std::int64_t wanted, int carveout_percent, const Gpu& gpu) {
  const std::vector<std::int64_t>& sizes = gpu.shared_memory_carveouts;
  const std::int64_t block_limit = gpu.shared_memory_per_block_optin + gpu.shared_memory_reserved_per_block;
  std::int64_t largest = std::min(block_limit, sizes.back());  // as allocated
  if (wanted > 1) {
    const std::int64_t preference = preferred_carveout(carveout_percent, gpu);
    std::int64_t carveout = preference;
    if (preference == 0) {
      for (std::int64_t size : sizes) {
        if (size > 0) {
          carveout = size;
          break;
        }
      }
    }
    // The sizes above the carveout, from the largest down (none with the driver's default).
    for (std::size_t i = sizes.size() - 1; i > 0 && sizes[i - 1] >= carveout && sizes[i - 1] > 0; --i) {
      if (sizes[i] / wanted > sizes[i - 1]) return std::nullopt;
    }
    largest = std::min(largest, carveout / wanted);
  }
  // pb = bytes + reserved rounded up to the unit: pb <= largest <=> bytes <= largest to the unit - reserved.
  const std::int64_t unit = gpu.shared_memory_allocation_unit;
  return largest / unit * unit - gpu.shared_memory_reserved_per_block;
}

// The blocks one resource allows under the input's model, as occupancy() counts them: the
// fallback search of one_more_block changes one input at a time and recomputes only its limit.
int shared_memory_limit(const OccupancyInput& in, const Gpu& gpu) {
  return in.model == OccupancyModel::exact ? exact_shared_memory(in.shared_memory, in.carveout_percent, gpu).limit
                                           : simple_shared_memory_limit(in.shared_memory, gpu);
}

// A profile whose carveouts leave gaps (the limit is then not monotone in the bytes): the largest
// smaller size that buys a block, by binary search from 0 (-1 when 0 does not buy one).
[[gnu::noinline]] std::int64_t searched_shared_memory(const OccupancyInput& input, int now, const Gpu& gpu) {
  OccupancyInput c = input;
  auto buys = [&](std::int64_t s) {
    c.shared_memory = s;
    return shared_memory_limit(c, gpu) > now;
  };
  if (!buys(0)) return -1;
  std::int64_t lo = 0, hi = input.shared_memory - 1;  // `lo` buys a block; every value above `hi` does not
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo + 1) / 2;
    if (buys(mid)) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

}  // namespace

OccupancyResult occupancy(const OccupancyInput& input, const Gpu& gpu) {
  check_input(input, gpu);
  OccupancyResult r;
  if (input.model == OccupancyModel::exact) {
    exact(r, input, gpu);
  } else {
    simple(r, input, gpu);
  }
  finish(r, input, gpu);
  return r;
}

namespace {

// What a block of fewer whole warps gives, the other inputs as the case has them: its shared
// memory loses `per_thread` bytes for each thread the block loses (--smem-per-thread).
struct SmallerBlocks {
  const OccupancyInput& in;
  const OccupancyResult& base;
  const Gpu& gpu;
  std::int64_t per_thread;
  bool exact = in.model == OccupancyModel::exact;
  // The limits no block size moves (shared memory's too, without a per-thread part).
  std::int64_t fixed = std::min({base.limit_blocks, base.limit_barriers, per_thread == 0 ? base.limit_shared_memory : kNoLimit});
  // Occupancy counted as the model counts it: warps (exact), threads (simple, 32 a warp).
  std::int64_t per_warp = exact ? 1 : gpu.warp_size;
  std::int64_t now = exact ? base.warps_per_sm : base.threads_per_sm;

  int blocks(int warps) const {
    const int threads = warps * gpu.warp_size;
    std::int64_t b = fixed;
    if (exact) {
      b = std::min<std::int64_t>({b, exact_registers(warps, in.registers, gpu).limit, exact_threads_limit(warps, gpu)});
    } else {
      b = std::min<std::int64_t>({b, simple_registers_limit(threads, in.registers, gpu), simple_threads_limit(threads, gpu)});
    }
    if (per_thread > 0) {
      OccupancyInput c = in;
      c.shared_memory = std::max<std::int64_t>(in.shared_memory - per_thread * (in.threads - threads), 0);
      b = std::min<std::int64_t>(b, shared_memory_limit(c, gpu));
    }
    return static_cast<int>(b);
  }
  // The most that blocks of any size can hold, counted as `now`: the warps the register file
  // holds at these registers a thread, and the SM's warp slots.
  std::int64_t most() const {
    if (!exact) return std::min<std::int64_t>(gpu.max_threads_per_sm, gpu.registers_per_sm / in.registers);
    const std::int64_t per_warp_registers = round_up(std::int64_t{in.registers} * gpu.warp_size, gpu.register_allocation_unit);
    const std::int64_t by_registers = gpu.registers_per_sm / gpu.register_sub_partitions / per_warp_registers * gpu.register_sub_partitions;
    return std::min<std::int64_t>(gpu.max_threads_per_sm / gpu.warp_size, by_registers);
  }
};

// The largest block of fewer whole warps holding more than the case: blocks(w) x w > now. Not
// monotone in w (fewer warps a block may lose more than the block they buy), so each size is
// tried, from the largest down, while `fixed` blocks of it could hold more.
void smaller_block_raising(const SmallerBlocks& s, OneMoreBlock& out) {
  if (s.most() <= s.now) return;
  for (int w = (s.in.threads - 1) / s.gpu.warp_size; w >= 1 && s.fixed * w * s.per_warp > s.now; --w) {
    const int b = s.blocks(w);
    if (b * s.per_warp * w > s.now) {
      out.threads = w * s.gpu.warp_size;
      out.blocks_at_threads = b;
      return;
    }
  }
}

}  // namespace

OneMoreBlock one_more_block(const OccupancyInput& input, const Gpu& gpu, std::int64_t shared_memory_per_thread) {
  return one_more_block(input, occupancy(input, gpu), gpu, shared_memory_per_thread);
}

OneMoreBlock one_more_block(const OccupancyInput& input, const OccupancyResult& base, const Gpu& gpu,
                            std::int64_t shared_memory_per_thread) {
  OneMoreBlock out;
  const int now = base.blocks_per_sm;
  if (now == kNoLimit) return out;  // nothing allows more
  const bool exact = input.model == OccupancyModel::exact;
  // Full occupancy: nothing raises it.
  if (exact ? base.warps_per_sm >= gpu.max_threads_per_sm / gpu.warp_size : base.threads_per_sm >= gpu.max_threads_per_sm) return out;
  // Fewer registers or bytes keep the block's warps: what buys a block raises the occupancy. A
  // smaller input only raises the limit of the resource it uses, so only a resource whose limit
  // is the current count can buy a block, and only when every other limit allows one more.
  const std::int64_t wanted = std::int64_t{now} + 1;
  const int fixed = std::min(base.limit_blocks, base.limit_barriers);  // no input moves these
  if (base.limit_registers == now && input.registers > 1 && std::min({fixed, base.limit_shared_memory, base.limit_threads}) > now) {
    const int warps = warps_per_block(input.threads, gpu);
    // simple: floor(R / (t r)) >= wanted <=> r <= floor(R / (t x wanted))
    const std::int64_t most = exact ? exact_registers_allowing(wanted, warps, gpu)
                                    : gpu.registers_per_sm / (std::int64_t{input.threads} * wanted);
    if (most >= 1) {
      out.registers = static_cast<int>(std::min<std::int64_t>(most, input.registers - 1));
      const int limit = exact ? exact_registers(warps, out.registers, gpu).limit
                              : simple_registers_limit(input.threads, out.registers, gpu);
      out.blocks_at_registers = std::min({fixed, base.limit_shared_memory, base.limit_threads, limit});
    }
  }
  // Shared memory: the block's bytes, the per-thread part included; the answer leaves it out.
  const std::int64_t grows = shared_memory_per_thread * input.threads;
  if (base.limit_shared_memory == now && input.shared_memory > grows && std::min({fixed, base.limit_registers, base.limit_threads}) > now) {
    // simple: floor(S / s) >= wanted (or s = 0) <=> s <= floor(S / wanted)
    const std::optional<std::int64_t> allowing =
        exact ? exact_shared_memory_allowing(wanted, input.carveout_percent, gpu) : gpu.shared_memory_per_sm / wanted;
    const std::int64_t most = std::min(allowing ? *allowing : searched_shared_memory(input, now, gpu), input.shared_memory - 1);
    if (most >= grows) {
      out.shared_memory = most - grows;
      OccupancyInput at = input;
      at.shared_memory = most;
      out.blocks_at_shared_memory = std::min({fixed, base.limit_registers, base.limit_threads, shared_memory_limit(at, gpu)});
    }
  }
  smaller_block_raising(SmallerBlocks{input, base, gpu, shared_memory_per_thread}, out);
  return out;
}

SmallerBlock smaller_block_buying_a_block(const OccupancyInput& input, const OccupancyResult& base, const Gpu& gpu,
                                          std::int64_t shared_memory_per_thread) {
  const SmallerBlocks s{input, base, gpu, shared_memory_per_thread};
  // From the largest size down: the first that buys one.
  for (int w = (input.threads - 1) / gpu.warp_size; w >= 1 && s.fixed > base.blocks_per_sm; --w) {
    const int b = s.blocks(w);
    if (b > base.blocks_per_sm) return {w * gpu.warp_size, b};
  }
  return {};
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
  OccupancyResult r;
  exact(r, in, gpu);
  if (shared_memory > gpu.shared_memory_per_block_optin) {
    r.limit_shared_memory = 0;
    r.fits = false;
    r.does_not_fit = Limiter::shared_memory;
    r.needed = shared_memory;
    r.allowed = gpu.shared_memory_per_block_optin;
  }
  finish(r, in, gpu);
  return r;
}

void check_registers_and_carveout(int registers, int carveout, const Gpu& gpu) {
  OccupancyInput probe;
  probe.threads = 1;
  probe.registers = registers;
  probe.carveout_percent = carveout;
  check_input(probe, gpu);
}

}  // namespace

const char* limiter_word(Limiter limiter) {
  switch (limiter) {
    case Limiter::none: return "";
    case Limiter::registers: return "registers";
    case Limiter::shared_memory: return "shared_memory";
    case Limiter::threads: return "threads";
    case Limiter::blocks: return "blocks";
    case Limiter::barriers: return "barriers";
    case Limiter::launch_bounds: return "launch_bounds";
    case Limiter::tensor_memory: return "tensor_memory";
  }
  return "";
}

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
    throw FieldError("smem", static_cast<double>(in.shared_memory), Rule::in_range).range(0, static_cast<double>(optin));
  }
  if (in.shared_memory_per_thread < 0 || in.shared_memory_per_thread > optin) {
    throw FieldError("smem_per_thread", static_cast<double>(in.shared_memory_per_thread), Rule::in_range).range(0, static_cast<double>(optin));
  }
  if (in.max_threads < 0 || in.max_threads > gpu.max_threads_per_block) {
    throw FieldError("max_threads", in.max_threads, Rule::in_range).range(1, gpu.max_threads_per_block);
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
  OccupancyInput at{.threads = in.threads,
                    .registers = in.registers,
                    .shared_memory = in.static_shared_memory,
                    .carveout_percent = in.carveout_percent};
  const OccupancyResult without = occupancy(at, gpu);
  if (in.blocks_per_sm < 1 || in.blocks_per_sm > without.blocks_per_sm) {
    // The blocks that fit without dynamic shared memory, and what limits them.
    throw FieldError("target_blocks", in.blocks_per_sm, Rule::in_range)
        .range(1, without.blocks_per_sm)
        .aspect(without.blocks_per_sm == 0 ? "none_fits" : in.static_shared_memory > 0 ? "static" : "")
        .fact("threads", in.threads)
        .fact("regs", in.registers)
        .fact("static", static_cast<double>(in.static_shared_memory))
        .fact("limiter", limiter_word(without.limiter));
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
  at.shared_memory = std::min(in.static_shared_memory + bytes, gpu.shared_memory_per_block_optin);
  out.blocks_at_bytes = occupancy(at, gpu).blocks_per_sm;
  return out;
}

}  // namespace gpucalc
