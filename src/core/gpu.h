// Hardware profiles: one value type per GPU, its field table, and the profiles compiled in
// (hw/*.toml). The TOML text of a profile is read and written by profile_toml.h.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <functional>
#include <string_view>
#include <variant>
#include <vector>

#include "core/dtype.h"
#include "core/unit.h"

namespace gpucalc {

/// Where a profile value comes from.
struct Provenance {
  std::string kind;    // "spec", "measured" or "derived"
  std::string source;  // document, measurement or derivation
#if __cplusplus >= 202002L  // the measure kernels (.cu) include this header as C++17
  bool operator==(const Provenance&) const = default;
#endif
};

/// Why a field an older profile format left out takes the value it does (profile_defaults.h).
enum class DefaultReason : std::uint8_t {
  no_fp4_path,    // before sm_100 there is no FP4 tensor-core path: 0 is the GPU's own figure
  fp4_not_known,  // sm_100 and later have one, its peak not given: 0 keeps fp4 rooflines refused
};

/// A field left out of a file of an older format, and what its value means.
struct Defaulted {
  std::string key;  // the profile field: peak_tensor_fp4
  int format = 0;   // the file's format
  DefaultReason why = DefaultReason::no_fp4_path;
#if __cplusplus >= 202002L  // the measure kernels (.cu) include this header as C++17
  bool operator==(const Defaulted&) const = default;
#endif
};

/// One GPU. All sizes in bytes, rates in base units (bytes/s, FLOP/s, Hz), times in seconds.
struct Gpu {
  std::string key;   // short name: h100
  std::string name;  // NVIDIA H100 SXM5 80GB
  std::vector<std::string> aliases;
  std::string origin;  // "built-in" or the file it was read from
  int cc_major = 0;
  int cc_minor = 0;

  int sm_count = 0;
  int warp_size = 32;
  int max_threads_per_sm = 0;
  int max_threads_per_block = 0;
  int max_blocks_per_sm = 0;
  int registers_per_sm = 0;
  int registers_per_block = 0;
  int max_registers_per_thread = 0;
  int register_allocation_unit = 0;  // registers per warp are rounded up to this
  int register_sub_partitions = 0;   // registers are allocated per sub-partition
  int barriers_per_sm = 0;           // named block barriers (one per block on sm_90)

  std::int64_t shared_memory_per_sm = 0;
  std::int64_t shared_memory_per_block = 0;        // without opting in
  std::int64_t shared_memory_per_block_optin = 0;  // the opt-in maximum
  std::int64_t shared_memory_reserved_per_block = 0;
  std::int64_t shared_memory_allocation_unit = 0;
  std::vector<std::int64_t> shared_memory_carveouts;  // the sizes the carveout rounds up to

  std::int64_t l1_size_per_sm = 0;
  std::int64_t l2_size = 0;
  std::int64_t memory_size = 0;
  double memory_bandwidth = 0;  // bytes/s
  double l2_bandwidth = 0;      // bytes/s
  std::int64_t dram_granularity = 0;  // bytes DRAM moves for a scattered 32-byte sector
  double boost_clock = 0;       // Hz

  std::map<std::string, double> peak_cuda;    // dtype -> FLOP/s on the CUDA cores (dense)
  std::map<std::string, double> peak_tensor;  // dtype -> FLOP/s on the tensor cores (dense)
  // Optional (0: boost_clock): the clock at which the peak_cuda_* and the peak_tensor_* figures hold.
  // Datasheets quote the tensor peaks of the H100 family at a lower clock than the CUDA cores'
  // (the H100 whitepaper's table 3: 1,830 MHz for the SXM5's FP8/FP16/BF16/TF32 tensor ops against
  // its 1,980 MHz maximum boost); an answer that puts a per-clock rate beside a peak takes it at
  // that peak's clock (peak_clock), so all its rates hold at one clock.
  double peak_cuda_clock = 0;    // Hz
  double peak_tensor_clock = 0;  // Hz

  double latency_l1_cycles = 0;
  double latency_shared_cycles = 0;
  double latency_l2_cycles = 0;
  double latency_hbm_cycles = 0;
  double launch_overhead = 0;  // seconds per kernel, back to back
  // Optional (0: not known): one launch of an empty kernel and its synchronize on an idle GPU,
  // by the host clock (measure calibrate's "launch + synchronize"): what the first kernel of a
  // chain timed from an idle stream costs before the back-to-back rate applies.
  double launch_latency = 0;  // seconds
  // Optional (0: not known): the per-kernel cost of empty kernels replayed from a CUDA graph
  // (measure calibrate's "launch overhead, CUDA graph"): launches queued ahead of the GPU.
  double launch_overhead_graph = 0;  // seconds
  // Optional (0: not known): the rate at which the L2 serves scattered 32-byte sectors, one
  // sector per 128-byte line (a column of a row-major matrix), in bytes/s of sectors.
  double l2_sector_bandwidth = 0;
  // Optional (0: not known): the rate at which HBM serves scattered 64-byte granules, one granule
  // per DRAM page (pages not reused), in bytes/s of granules (measure calibrate). A read whose
  // granules miss the L2 scattered, as a column read past the L2, runs at this, not the streaming
  // memory_bandwidth: each granule costs a page activation.
  double dram_scattered_bandwidth = 0;

  // SMs in each GPC (graphics processing cluster): a thread-block cluster runs within one GPC.
  // Optional: datasheets do not give it; `measure calibrate` finds it (empty: not known).
  std::vector<std::int64_t> gpc_sms;

  // Special-function (MUFU: exp2, rsqrt, sin, ...) results per clock per SM, the softmax's
  // exponentials in attention. Optional (0: not known for this GPU).
  int sfu_ops_per_sm_per_cycle = 0;
  // Tensor memory per SM in bytes (sm_100: 128 lanes x 512 columns of 32 bits). Optional: 0 where
  // the GPU has none (before sm_100) or the profile does not say.
  std::int64_t tensor_memory_per_sm = 0;
  // What memory achieves beside the datasheet's memory_bandwidth, and the loaded-latency model's
  // constants (docs/little.md). Optional (0: not known for this GPU).
  double memory_bandwidth_achievable = 0;  // bytes/s, read + write: cudaMemcpy device to device
  double memory_read_bandwidth = 0;        // bytes/s: a read-only kernel, where the queue diverges
  double latency_queue_time = 0;           // s of L(X) = L0 + burst / r + s rho / (1 - rho), seconds
  double warp_return_bandwidth = 0;        // r: the rate one warp's burst of loads drains at, bytes/s

  // What the kernels that exist reach (issue 38's achievable ceilings), measured by
  // scripts/device-calibrate with random inputs at sustained clocks; the expected times
  // (core/expected.h) take them. Optional (0: not measured on this GPU: no expected times).
  double tensor_achievable = 0;            // FLOP/s, bf16 dense: cuBLAS at 4096^3 to 16384^3
  double attention_wgmma_achievable = 0;   // FLOP/s: cuDNN's fused attention (FA3 class), head dim 128
  double attention_mma_achievable = 0;     // FLOP/s: FlashAttention 2 (mma.sync), head dim 128
  double attention_wgmma_kv_bandwidth = 0; // bytes/s of K and V: one query a sequence (decode), cuDNN
  double attention_mma_kv_bandwidth = 0;   // bytes/s of K and V: one query a sequence, FlashAttention 2
  double gemm_fixed_time = 0;              // s: a library kernel's time beyond its bytes or FLOPs at these rates
  double row_kernel_bandwidth = 0;         // bytes/s, read + write: ATen's two-pass row kernels (layer and RMS norm)
  double launch_overhead_eager = 0;        // s: the host's cost of one eager framework op (PyTorch)
  double graph_replay_host = 0;            // s: the host's cost of one CUDA graph replay from PyTorch (a floor)
  double graph_replay_start = 0;           // s: a graph replay's own cost on the GPU beyond its kernels'

  // Set by with_sm_count: the SM count of the profile this one was made from (0: the profile's
  // own count, not replaced). Not a profile field: no file holds it.
  int sm_count_of_profile = 0;

  // The links between GPUs (issue 40: gpucalc collective, decode --tp). Optional (0: not known, or
  // none: a card without NVLink). Bandwidths per direction, bytes/s.
  int nvlink_generation = 0;       // 2 (V100) to 5 (B200, B300)
  int nvlink_links = 0;            // NVLink links a GPU has
  double nvlink_bandwidth = 0;     // all its links together, one direction
  int nvlink_domain = 0;           // GPUs its NVLink connects at that bandwidth: 8 on an HGX board, 2 bridged
  int nvswitch = 0;                // 1: the NVLink domain is switched (NVSwitch), any GPU to any at full rate
  int nvls = 0;                    // 1: the switch reduces and multicasts (NVLink SHARP, from Hopper's NVSwitch)
  int pcie_generation = 0;
  double pcie_bandwidth = 0;       // the host link, x16, one direction
  double network_bandwidth = 0;    // a node's network for collectives (all its compute NICs), one direction

  std::map<std::string, Provenance> provenance;  // field -> where its value comes from
  // What reading the profile took on its own (a field an older format leaves out, set to the
  // value that format meant): the engine words these as notes (profile_notes, engine/profiles.h).
  std::vector<Defaulted> defaulted;

  /// Peak FLOP/s of `unit` for `dtype` (a dtype name: fp8_e5m2 runs at the fp8 peak); 0 when the
  /// unit has no such path.
  double peak(ComputeUnit unit, const std::string& dtype) const;
  /// The clock at which `unit`'s peaks hold [Hz]: peak_cuda_clock or peak_tensor_clock, else boost_clock.
  double peak_clock(ComputeUnit unit) const;
  /// The dtypes `unit` runs on this GPU (a peak above 0), in known_dtypes() order.
  std::vector<std::string> dtypes_with_peak(ComputeUnit unit) const;

  /// Every field and every provenance equal (key and origin included).
#if __cplusplus >= 202002L  // the measure kernels (.cu) include this header as C++17
  bool operator==(const Gpu&) const = default;
#endif
};

/// `gpu` with `sm_count` SMs in place of its own (a hypothetical GPU, Stream-K's 4 SMs): every
/// per-SM figure as the profile's, and each peak FLOP/s, the sum of its SMs' rates, scaled by
/// sm_count / gpu.sm_count. Memory (bandwidths, sizes), the L2, the clocks and the latencies are
/// not per SM and stay the profile's; the GPC layout (gpc_sms) is not known for another count and
/// is left empty. sm_count_of_profile records the profile's count. Throws FieldError("sm_count")
/// for a count below 1 or above kMaxSmCount, or a profile without SMs.
Gpu with_sm_count(const Gpu& gpu, int sm_count);
/// The most SMs with_sm_count takes: 1,024, six times the largest GPU of hw/ (the RTX 5090's 170),
/// room for hypothetical GPUs while any count typed by mistake (132000) is refused.
inline constexpr int kMaxSmCount = 1024;

/// The largest whole number a count field may hold: 2^24 is far above any real count and keeps
/// the models' int arithmetic (threads + 31, warps x registers, ...) exact.
inline constexpr double kProfileMaxCount = 16777216.0;  // 2^24
/// The largest size in bytes: 2^50 keeps sums and products of sizes inside int64.
inline constexpr double kProfileMaxSize = 1125899906842624.0;  // 2^50

/// What a profile field holds: how it is read, checked and written.
enum class FieldKind {
  text,       // a non-empty string
  text_list,  // an array of strings
  version,    // a compute capability, "major.minor"
  integer,    // a count (threads, registers, blocks)
  size,       // bytes, a whole number
  size_list,  // byte sizes in increasing order
  count_list, // whole numbers, in any order (SMs per GPC)
  rate,       // per second: bytes/s, FLOP/s, Hz
  cycles,     // a latency in clock cycles
  time,       // seconds
};

/// A field's value as TOML holds it: text, a list of text, a whole number, a list of whole
/// numbers or a number.
using FieldValue =
    std::variant<std::string, std::vector<std::string>, std::int64_t, std::vector<std::int64_t>, double>;

/// One profile field. profile_fields() is the one list of them: the TOML parser, the TOML writer,
/// `hw show` and `measure calibrate` all read it, so a field is added in one place.
struct ProfileField {
  std::string_view key;   // the TOML key: sm_count
  FieldKind kind;
  std::string_view unit;  // what one of it is: bytes, bytes/s, FLOP/s, Hz, s, cycles, threads, ...
  Unit quantity;          // how `hw show` prints it
  // The accepted range of a number (of each element of a list): 0, or from `min` to `max`.
  bool zero_ok;
  double min;
  double max;
  std::function<FieldValue(const Gpu&)> get;        // where it lives in Gpu
  std::function<void(Gpu&, const FieldValue&)> set;
  bool optional = false;  // may be left out of a profile (then empty: not known)
};
const std::vector<ProfileField>& profile_fields();

/// A profile compiled into the binary: hw/KEY.toml, parsed and checked when gpucalc was built
/// (src/tools/embed_profiles.cc), so that using it parses no TOML.
struct BuiltinProfile {
  const char* key;
  Gpu (*make)();
  /// The same profile with only key, origin, name, aliases, compute_capability, sm_count and
  /// memory_bandwidth set (the rest as a default Gpu, provenance of those fields only): what
  /// `hw list` prints and finding a profile by an alias reads, for a fraction of make's work.
  Gpu (*brief)();
};
const std::vector<BuiltinProfile>& builtin_profiles();

/// Keys of the built-in profiles, sorted.
std::vector<std::string> builtin_gpu_keys();

/// The built-in profile whose key or one of whose aliases is `name` (letters compared without
/// case), or null.
const BuiltinProfile* find_builtin_profile(std::string_view name);

}  // namespace gpucalc
