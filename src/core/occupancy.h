// Occupancy: how many blocks of a kernel are resident on one SM, and what limits them.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

#include "core/gpu.h"

namespace gpucalc {

enum class OccupancyModel {
  exact,   // NVIDIA's rules (cuda_occupancy.h): allocation units, reserved memory, carveout
  simple,  // the lessons' formula: min(R/(t r), S/s, T/t, B)
};

struct OccupancyInput {
  int threads = 0;                 // threads per block
  int registers = 0;               // registers per thread
  std::int64_t shared_memory = 0;  // bytes per block, static plus dynamic
  int carveout_percent = -1;       // preferred shared-memory carveout; -1: the driver's default
  OccupancyModel model = OccupancyModel::exact;
};

/// What limits the blocks an SM holds (or of which not even one block fits). Its word in results:
/// limiter_word.
enum class Limiter : std::uint8_t {
  none,
  registers,
  shared_memory,
  threads,
  blocks,
  barriers,
  launch_bounds,  // a kernel's __launch_bounds__ below the block (occupancy --from)
  tensor_memory,  // sm_100's accumulators (pipeline)
};
/// The word a result key gives a limiter: registers, shared_memory, threads, ... ("" for none).
const char* limiter_word(Limiter limiter);

/// "No limit" for a resource the kernel does not use.
inline constexpr int kNoLimit = std::numeric_limits<int>::max();

struct OccupancyResult {
  int blocks_per_sm = 0;
  int warps_per_sm = 0;
  int threads_per_sm = 0;
  double occupancy = 0;            // resident warps / max warps, 0..1
  Limiter limiter = Limiter::none;  // registers, shared_memory, threads, blocks (or barriers)
  int limit_registers = 0;         // blocks each resource allows
  int limit_shared_memory = 0;     // at the largest carveout the preference allows (the driver grows to it)
  int limit_shared_memory_configured = 0;  // at the carveout the SM runs with (ncu's Block Limit Shared Mem)
  int limit_threads = 0;
  int limit_blocks = 0;
  int limit_barriers = kNoLimit;
  std::int64_t registers_per_block = 0;      // as allocated
  std::int64_t shared_memory_per_block = 0;  // as allocated, reserved part included
  // The carveout the SM runs with. With no preference the driver's choice, as measured on an
  // H100 (docs/device-runs/issue36-carveout): at least the smallest size that holds the resident
  // blocks, which is what this is; the driver took more in 4 of 21 cases.
  std::int64_t shared_memory_per_sm = 0;
  bool fits = true;
  // When not even one block fits: the resource (registers or shared_memory), what one block
  // needs of it (registers as the hardware checks them, bytes as allocated or asked) and what a
  // block may have.
  Limiter does_not_fit = Limiter::none;
  std::int64_t needed = 0, allowed = 0;
};

/// Resident blocks per SM. Throws FieldError for threads, registers or shared memory out of
/// the profile's range.
OccupancyResult occupancy(const OccupancyInput& input, const Gpu& gpu);

/// The smallest change of each input that raises the occupancy (resident warps; resident threads
/// under the simple model, which counts occupancy so), one input at a time: the nearest smaller
/// value that does, and the blocks per SM it gives; none at full occupancy. Fewer registers or
/// less shared memory keep a block's warps, so there "raises the occupancy" is "buys a block"; a
/// smaller block may buy a block and still hold fewer warps, and is then no answer (see
/// smaller_block_buying_a_block). `shared_memory_per_thread` is the part of input.shared_memory
/// that grows with the block (--smem-per-thread): a smaller block has less of it, and
/// shared_memory answers the rest (what --smem means then).
struct OneMoreBlock {
  int registers = 0;                // at most this many registers per thread (0: no fewer raises it)
  std::int64_t shared_memory = -1;  // at most this many bytes per block, the per-thread part aside (-1: none)
  int threads = 0;                  // a block of this many threads, whole warps (0: none)
  int blocks_at_registers = 0;      // the blocks per SM each answer gives (0 with no answer)
  int blocks_at_shared_memory = 0;
  int blocks_at_threads = 0;
};
OneMoreBlock one_more_block(const OccupancyInput& input, const Gpu& gpu, std::int64_t shared_memory_per_thread = 0);
/// The same from `base`, occupancy(input, gpu) as the caller already has it.
OneMoreBlock one_more_block(const OccupancyInput& input, const OccupancyResult& base, const Gpu& gpu,
                            std::int64_t shared_memory_per_thread = 0);

/// The largest smaller block (whole warps) that buys a block, whatever warps it then holds, and
/// the blocks per SM it gives ({0, 0}: none): what the advice says of a block that buys a block
/// but does not raise the occupancy.
struct SmallerBlock {
  int threads = 0;
  int blocks = 0;
};
SmallerBlock smaller_block_buying_a_block(const OccupancyInput& input, const OccupancyResult& base, const Gpu& gpu,
                                          std::int64_t shared_memory_per_thread = 0);

/// occupancy() of a launch, exact model: shared memory above the opt-in maximum is a block that
/// does not fit (the runtime's answer for it), not an input error; registers 0 (an empty kernel)
/// count as 1, which limits nothing. Throws FieldError for threads or registers out of range.
OccupancyResult launch_occupancy(const OccupancyInput& input, const Gpu& gpu);

/// What cudaOccupancyMaxPotentialBlockSize is asked: a kernel's registers and shared memory, the
/// dynamic part possibly growing with the block (the runtime's block-size-to-dynamic-smem
/// function, here linear: shared_memory + shared_memory_per_thread x block size).
struct SuggestInput {
  int registers = 0;
  std::int64_t shared_memory = 0;             // bytes per block whatever its size (static + fixed dynamic)
  std::int64_t shared_memory_per_thread = 0;  // dynamic bytes per thread of the block
  int max_threads = 0;        // blockSizeLimit (and the kernel's __launch_bounds__); 0: the profile's
  int carveout_percent = -1;
};

struct Suggestion {
  int block_size = 0;     // 0: no block size fits
  int min_grid_size = 0;  // blocks per SM at block_size x SMs: the smallest grid that fills the GPU
  std::int64_t shared_memory = 0;  // bytes per block at block_size (static + dynamic)
  int block_sizes_tried = 0;
  OccupancyResult at;     // the occupancy at block_size (at the largest size tried when none fits)
};

/// The block size with the most resident threads per SM, as cudaOccupancyMaxPotentialBlockSize
/// finds it (cuda_occupancy.h cudaOccMaxPotentialOccupancyBlockSize): sizes from the limit
/// rounded up to a warp, down in steps of a warp (the first clamped to the limit); the first
/// size reaching the highest count wins, so ties go to the larger block; the search stops at
/// full occupancy. A size whose shared memory exceeds the opt-in maximum fits no block (the
/// kernel is assumed opted in to the maximum, cudaFuncAttributeMaxDynamicSharedMemorySize).
/// Throws FieldError for inputs out of range.
Suggestion suggest_block_size(const SuggestInput& input, const Gpu& gpu);

/// cudaOccupancyAvailableDynamicSMemPerBlock: the dynamic shared memory per block the runtime says
/// still allows `blocks_per_sm` blocks of `threads` x `registers` with `static_shared_memory`.
struct AvailableSmemInput {
  int threads = 0;
  int registers = 0;
  std::int64_t static_shared_memory = 0;
  int blocks_per_sm = 0;
  int carveout_percent = -1;
};
struct AvailableSmem {
  std::int64_t bytes = 0;      // the runtime's answer (cuda_occupancy.h's arithmetic)
  std::int64_t per_sm = 0;     // the shared memory it divides: the carveout, or the block limit for 1 block
  int blocks_at_bytes = 0;     // blocks per SM that static + bytes actually give (the occupancy model)
};
/// Throws FieldError("target_blocks") when even without dynamic shared memory fewer blocks fit
/// (the runtime returns an error then).
AvailableSmem available_dynamic_smem(const AvailableSmemInput& input, const Gpu& gpu);

}  // namespace gpucalc
