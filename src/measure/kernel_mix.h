// What measure's modelled kernels do, read from their own SASS (dev::kernel_sass(), cuobjdump at
// build time): the tiled matmul's K step, the attention forward's tile (its loops and the straight
// code between them), the banks reads' loop and the fusion chain's unary and binary kernels (a
// warp's instructions for k ops), each as a mix of warp instructions for the SM's
// pipes (core/pipes.h). Loop trips come from the source's range over the loop counter's step in
// the SASS; each shared access's wavefronts from the banks model (core/banks.h) on the kernel's
// own addressing. Nothing here is a count typed in by hand.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/banks.h"
#include "core/pipes.h"
#include "measure/sass.h"

namespace gpucalc::cases {

/// The parsed SASS of measure's modelled kernels in this binary (empty when it was built without
/// cuobjdump); sm picks the architecture's code (the device's compute capability x 10).
const std::vector<sass::Function>& kernel_functions();

/// Thrown when the SASS of a kernel cannot be read (a build without cuobjdump, a loop whose
/// counter was not found): the case prints no SASS-based prediction and says why.
struct NoSass {
  std::string why;
};

/// A mix from the counts of some code: every instruction issued, FP32 / integer / SFU by opcode;
/// each load, store or shuffle at the wavefronts `wavefronts(key)` gives (a warp access's).
InstructionMix mix_of(const sass::Counts& counts, const std::function<double(const std::string&)>& wavefronts);

/// The wavefronts a warp access takes: the banks model of `bytes`-byte elements at element(lane).
double shared_wavefronts(int bytes, const std::function<std::int64_t(int)>& element);

// ---------------------------------------------------------------------------------------------
// tiled_matmul_kernel<T> (compute.cu): a warp's K step

struct TiledStep {
  InstructionMix step;       // a warp's K step of T
  double steps_per_trip = 0; // the loop counter's step / T (ptxas unrolls T = 16 four K steps a trip)
  sass::Counts trip;         // the loop's counts, for the notes
  double lds_wavefronts = 0, lds128_wavefronts = 0, sts_wavefronts = 0;  // B's column read, A's row read, a tile's store
};
/// Throws NoSass.
TiledStep tiled_step(const std::vector<sass::Function>& code, int tile, int sm);

/// The tiled kernel's time at the boost clock, a range over the blocks' phases, which gpucalc does
/// not know: `hidden`, every load covered by the SM's other blocks' compute (M N / 32 warps x
/// ceil(K / T) steps x the step's clocks / SMs), to `exposed`, the SM's B blocks loading at once
/// behind the K step's barrier and waiting one HBM round trip (latency_hbm_cycles) a round of B
/// block-steps: + ceil(M / T) ceil(N / T) / (SMs B) x ceil(K / T) x latency.
struct TiledTime {
  double step_clocks = 0;  // pipe_clocks(step).clocks
  double hidden = 0, exposed = 0;  // [s]
};
TiledTime tiled_time(std::int64_t m, std::int64_t n, std::int64_t k, int tile, const TiledStep& step, int blocks_per_sm,
                     const Gpu& gpu);

// ---------------------------------------------------------------------------------------------
// attention_fwd_kernel<D> (attention.cu): a warp's 64-key tile

/// One loop of the tile, or the straight code between two, at its own bound.
struct TileSegment {
  std::string what;     // "K/V loads", "scores", "P V", "straight"
  double trips = 0;     // a tile's
  InstructionMix mix;   // a trip's
  double clocks = 0;    // trips x pipe_clocks(mix).clocks
};
struct AttentionTile {
  std::vector<TileSegment> segments;  // in code order
  double clocks = 0;                  // the sum: a warp-tile with the segments in sequence
  double load_trips = 0;              // the K and V load loops' trips a tile
  double load_bytes_per_warp = 0;     // a load trip's bytes a warp (LDG.128 x 32 x 16 B)
  double mask_instructions = 0;       // the causal mask's (counted when causal)
};
/// Throws NoSass.
AttentionTile attention_tile(const std::vector<sass::Function>& code, int head_dim, bool causal, int sm, const Gpu& gpu);

// ---------------------------------------------------------------------------------------------
// banks_kernel<access> (memory.cu): its read loop per warp access

/// Throws NoSass. `access`: "E0" row, "E1" column, "E2" swizzled (BankAccess's mangled value).
AccessLoop banks_loop(const std::vector<sass::Function>& code, int access, int sm, sass::Counts* trip = nullptr);

// ---------------------------------------------------------------------------------------------
// unary_kernel and binary_kernel (compute.cu): a warp's instructions for a chain of ops

/// A warp's instructions in unary_kernel or binary_kernel running `ops` ops: its straight code once
/// (the shortest way through each stretch between the op loops, which is the way of an op count
/// that is a multiple of the loops' unrolling) and each op's share of the op loops (every loop
/// before the first EXIT, a trip's counts over its counter's step; one loop for each float4 of a
/// lane's kUnroll). The scalar tail after that EXIT runs only in block 0, for n mod 4 lanes: left out.
struct OpsMix {
  InstructionMix straight;  // a warp's, once
  InstructionMix per_op;    // a warp's, each op
  int loops = 0;            // the op loops read
  double per_op_instructions = 0;  // per_op.instructions, for the notes
  InstructionMix of(int ops) const { return straight + static_cast<double>(ops) * per_op; }
};
/// `kernel`: "unary_kernel" or "binary_kernel". Throws NoSass.
OpsMix ops_mix(const std::vector<sass::Function>& code, const std::string& kernel, int sm);

}  // namespace gpucalc::cases
