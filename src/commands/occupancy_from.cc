// gpucalc occupancy --from FILE: a row per kernel of a build (ptxas -v, --resource-usage,
// cuobjdump --dump-resource-usage, or a CUDA binary through cuobjdump), each kernel's own
// registers and static shared memory at --threads (or --suggest): a form of occupancy with its
// own results (kernel.*).
#include <fmt/format.h>

#include <algorithm>
#include <istream>

#include "commands/commands.h"
#include "commands/kernel_file.h"
#include "commands/occupancy_case.h"
#include "commands/occupancy_notes.h"
#include "commands/resource_words.h"
#include "core/error.h"
#include "core/resource_usage.h"

namespace gpucalc {
namespace {

using occupancy_case::explain_exact;
using occupancy_case::need;
using occupancy_case::put_results;
using occupancy_case::read_carveout;
using occupancy_notes::does_not_fit_text;
using occupancy_notes::size_text;

// The handles of the options and results, in the order occupancy_from_command declares them: its
// own options (no --regs: each kernel's), the block shape's results (occupancy_case.h), then the
// launch's and the kernel's.
enum Option : Place { kThreads, kSmem, kSmemPerThread, kCarveout, kSuggest, kMaxThreads, kFrom, kArch };
enum Result : Place {
  kRowBlockSize = occupancy_case::kShapeResults, kRowMinGridSize, kKernelName, kKernelMangled, kKernelArch,
  kKernelRegisters, kKernelSharedMemory, kKernelSpillStores, kKernelSpillLoads, kKernelStackFrame, kKernelLocalMemory,
  kKernelConstantMemory, kKernelBarriers, kKernelMaxThreads, kKernelMinBlocks, kKernelSource,
};

void put_kernel(const KernelResources& k, Report& report) {
  // A count the file does not give (-1) stays missing.
  auto count = [&report](Result at, std::int64_t v) {
    if (v >= 0) report.num(at, static_cast<double>(v));
  };
  report.word(kKernelName, k.demangled);
  report.word(kKernelMangled, k.name);
  if (!k.arch.empty()) report.word(kKernelArch, k.arch);
  count(kKernelRegisters, k.registers);
  count(kKernelSharedMemory, k.shared_memory);
  count(kKernelSpillStores, k.spill_stores);
  count(kKernelSpillLoads, k.spill_loads);
  count(kKernelStackFrame, k.stack_frame);
  count(kKernelLocalMemory, k.local_memory);
  count(kKernelConstantMemory, k.constant_memory);
  count(kKernelBarriers, k.barriers);
  if (k.max_threads > 0) report.num(kKernelMaxThreads, k.max_threads);
  if (k.min_blocks > 0) report.num(kKernelMinBlocks, k.min_blocks);
  report.word(kKernelSource, k.source);
}

std::string cc_text(int major, int minor) { return fmt::format("sm_{}{}", major, minor); }

// The kernels of the rows: the profile's architecture, or the one --arch names, or all.
std::vector<KernelResources> select_arch(std::vector<KernelResources> kernels, const Args& args, const Gpu& gpu,
                                         const std::string& path, std::vector<std::string>& notes) {
  std::string want = args.has(kArch) ? args.text(kArch) : "";
  int major = gpu.cc_major, minor = gpu.cc_minor;
  if (!want.empty() && want != "all" && !parse_arch(want, major, minor)) {
    throw InputError("--arch", want, "an architecture such as sm_90 or sm_80 (the file's rows for it), or all");
  }
  std::vector<std::string> present;
  for (const KernelResources& k : kernels) {
    const std::string a = k.arch.empty() ? "an unnamed architecture" : k.arch;
    if (std::find(present.begin(), present.end(), a) == present.end()) present.push_back(a);
  }
  // The rows kept move down in place: a second vector of every kernel would double the memory.
  std::size_t kept = 0;
  int unnamed = 0;
  for (KernelResources& k : kernels) {
    const bool match = want == "all" || (k.cc_major == major && k.cc_minor == minor);
    if (k.arch.empty() && want != "all") ++unnamed;  // cuobjdump of a bare cubin may not say: taken as the profile's
    if (match || (k.arch.empty() && want != "all")) {
      if (&k != &kernels[kept]) kernels[kept] = std::move(k);
      ++kept;
    }
  }
  kernels.resize(kept);
  if (kernels.empty()) {
    throw InputError("--from", path,
                     fmt::format("kernels compiled for {} ({}): this file has {} only; use the --gpu profile of that "
                                 "architecture, or --arch to name it (or all) and compute them on {}",
                                 cc_text(major, minor),
                                 want.empty() ? fmt::format("the architecture of the profile {}", gpu.key) : "--arch",
                                 fmt::join(present, ", "), gpu.key));
  }
  const auto reserved = std::count_if(kernels.begin(), kernels.end(), [](const KernelResources& k) { return k.reserved_in_shared > 0; });
  if (reserved > 0) {
    // The bytes taken out, as the reader took them (the same for every such kernel).
    const std::int64_t bytes = std::find_if(kernels.begin(), kernels.end(), [](const KernelResources& k) { return k.reserved_in_shared > 0; })->reserved_in_shared;
    notes.push_back(fmt::format("cuobjdump's SHARED of {} sm_90+ kernel{} includes the {} the system reserves per block: "
                                "read as SHARED - {} (the kernel's own bytes, as ptxas and cudaFuncGetAttributes count them)",
                                reserved, reserved == 1 ? "" : "s", size_text(bytes), size_text(bytes)));
  }
  if (unnamed > 0) notes.push_back(fmt::format("{} kernel{} without an architecture in the file: taken as {}", unnamed,
                                               unnamed == 1 ? "" : "s", cc_text(major, minor)));
  if ((want == "all" || (!want.empty() && (major != gpu.cc_major || minor != gpu.cc_minor)))) {
    notes.push_back(fmt::format("every row is computed with the {} profile (compute capability {}.{}), whatever the "
                                "architecture it was compiled for",
                                gpu.key, gpu.cc_major, gpu.cc_minor));
  } else if (present.size() > 1) {
    std::vector<std::string> skipped;
    for (const std::string& a : present) {
      int ma = 0, mi = 0;
      if (parse_arch(a, ma, mi) && (ma != major || mi != minor)) skipped.push_back(a);
    }
    if (!skipped.empty()) {
      notes.push_back(fmt::format("rows for {} only (the {} profile); also in the file: {} (--arch all for every row)",
                                  cc_text(major, minor), gpu.key, fmt::join(skipped, ", ")));
    }
  }
  return kernels;
}

std::string kernel_label(const KernelResources& k) {
  return fmt::format("kernel {} ({})", k.demangled, k.arch.empty() ? "no architecture given" : k.arch);
}

// Every kernel checked before the first row goes out: a bad one is refused with no output.
void check_kernels_fit(const std::vector<KernelResources>& kernels, const Gpu& gpu, const std::string& path) {
  for (const KernelResources& k : kernels) {
    if (k.registers > gpu.max_registers_per_thread) {
      throw InputError(fmt::format("--from {}: line {}: {} uses {} registers, more than the {} a thread may have on {}",
                                   path, k.line, kernel_label(k), k.registers, gpu.max_registers_per_thread, gpu.key));
    }
    if (k.shared_memory > gpu.shared_memory_per_block_optin) {
      throw InputError(fmt::format("--from {}: line {}: {} uses {} bytes of static shared memory, more than the {} a block "
                                   "may have on {}",
                                   path, k.line, kernel_label(k), k.shared_memory, gpu.shared_memory_per_block_optin, gpu.key));
    }
  }
}

void run_from(const Args& args, const Gpu& gpu, std::istream& in, const Report& blank, RowSink& sink) {
  const std::string path = args.text(kFrom);
  std::vector<std::string> notes;
  std::vector<KernelResources> kernels;
  try {
    kernels = parse_resource_usage(read_kernel_text(path, in), "--from " + path);
  } catch (const ResourceUsageError& e) {
    throw InputError(resource_usage_problem(e));
  }
  if (kernels.empty()) {
    throw InputError("--from", path,
                     "text with at least one kernel: the output of nvcc -Xptxas -v (ptxas info : Compiling entry function "
                     "... / Used N registers ...) or of cuobjdump --dump-resource-usage (Function NAME: / REG:N ...); "
                     "this one has none");
  }
  kernels = select_arch(std::move(kernels), args, gpu, path, notes);
  const bool suggest = args.flag(kSuggest);
  if (!suggest) need(args, kThreads, gpu);
  const int threads = suggest ? 0 : args.count(kThreads);
  const std::int64_t dynamic = args.integer(kSmem);
  const std::int64_t per_thread = args.given(kSmemPerThread) ? args.integer(kSmemPerThread) : 0;
  const int max_threads = suggest && args.given(kMaxThreads) ? args.count(kMaxThreads) : 0;
  const int carveout = read_carveout(args, kCarveout);
  check_kernels_fit(kernels, gpu, path);
  sink.begin(kernels.size());
  for (const KernelResources& k : kernels) {
    Report report = blank;
    report.model = "exact";
    report.label = kernel_label(k);
    if (&k == &kernels.front()) report.notes = notes;  // the file's notes, once, before the row's own
    OccupancyResult r;
    int block = threads;
    int tried = threads;  // the block the row's occupancy is of (suggest: the size it shows when none fits)
    std::int64_t smem = 0;
    if (suggest) {
      SuggestInput s;
      s.registers = std::max(k.registers, 1);
      s.shared_memory = std::min(k.shared_memory + dynamic, gpu.shared_memory_per_block_optin);
      s.shared_memory_per_thread = per_thread;
      s.max_threads = max_threads == 0 ? k.max_threads
                      : k.max_threads == 0 ? max_threads
                                           : std::min(max_threads, k.max_threads);
      s.max_threads = std::min(s.max_threads, gpu.max_threads_per_block);
      s.carveout_percent = carveout;
      Suggestion best = suggest_block_size(s, gpu);
      tried = s.max_threads == 0 ? gpu.max_threads_per_block : s.max_threads;  // the first size tried
      r = best.at;
      block = best.block_size;
      smem = best.shared_memory;
    } else {
      smem = k.shared_memory + dynamic + per_thread * threads;
      OccupancyInput o;
      o.threads = threads;
      o.registers = k.registers;
      o.shared_memory = smem;
      o.carveout_percent = carveout;
      r = launch_occupancy(o, gpu);
      if (k.max_threads > 0 && threads > k.max_threads) {
        // __launch_bounds__ / .maxntid: a larger block cannot launch at all.
        r.blocks_per_sm = r.warps_per_sm = r.threads_per_sm = 0;
        r.occupancy = 0;
        r.fits = false;
        r.limiter = r.does_not_fit = Limiter::launch_bounds;
        r.allowed = k.max_threads;
      }
    }
    put_results(r, gpu.cc_major >= 9, report);
    if (block > 0) report.num(kRowBlockSize, block);
    report.num(kRowMinGridSize, static_cast<double>(r.blocks_per_sm) * gpu.sm_count);
    put_kernel(k, report);
    if (!r.fits) {
      OccupancyInput at;
      at.threads = block > 0 ? block : tried;
      at.registers = std::max(k.registers, 1);
      report.notes.push_back(fmt::format("{}: not even one block fits: {}", report.label, does_not_fit_text(at, r, gpu)));
    }
    if (k.spill_stores > 0 || k.spill_loads > 0) {
      report.notes.push_back(fmt::format("{} spills: {} bytes stored, {} loaded per thread", report.label,
                                         std::max<std::int64_t>(k.spill_stores, 0), std::max<std::int64_t>(k.spill_loads, 0)));
    }
    if (k.min_blocks > 0 && r.fits && r.blocks_per_sm < k.min_blocks) {
      report.notes.push_back(fmt::format("{} asks for {} blocks per SM (__launch_bounds__ / .minnctapersm) and gets {}",
                                         report.label, k.min_blocks, r.blocks_per_sm));
    }
    report.explain.push_back(fmt::format("{}: {} registers, {} static shared memory{} (line {} of {}, {})", report.label,
                                         std::max(k.registers, 0), size_text(k.shared_memory),
                                         k.max_threads > 0 ? fmt::format(", at most {} threads per block", k.max_threads) : "",
                                         k.line, path, k.source));
    if (block > 0 && r.limiter != Limiter::launch_bounds) {
      OccupancyInput at;
      at.threads = block;
      at.registers = std::max(k.registers, 1);
      at.shared_memory = std::min(smem, gpu.shared_memory_per_block_optin);
      at.carveout_percent = carveout;
      for (std::string& step : explain_exact(at, r, gpu)) report.explain.push_back(std::move(step));
    }
    sink.row(report);
  }
}

}  // namespace

const Calculator& occupancy_from_command() {
  static const Calculator calc{
      .name = "occupancy",
      .options =
          {occupancy_case::threads_option(kThreads), occupancy_case::smem_option(kSmem),
           occupancy_case::smem_per_thread_option(kSmemPerThread), occupancy_case::carveout_option(kCarveout),
           occupancy_case::suggest_option(kSuggest), occupancy_case::max_threads_option(kMaxThreads),
           text_option(kFrom, "from", "FILE (- for standard input): nvcc -Xptxas -v / --resource-usage or cuobjdump --dump-resource-usage output, or a CUDA binary (read through cuobjdump): a row per kernel at --threads (or --suggest), --smem as dynamic shared memory"),
           text_option(kArch, "arch", "with --from: the architecture whose kernels make the rows, sm_XY or all (default: the profile's)")},
      .results = occupancy_case::results(
          {occupancy_case::shape_results(), occupancy_case::launch_results(kRowBlockSize, kRowMinGridSize),
           {result(kKernelName, "kernel.name", Unit::text, "the kernel's name, demangled"),
            result(kKernelMangled, "kernel.mangled", Unit::text, "the kernel's name as the file gives it"),
            result(kKernelArch, "kernel.arch", Unit::text, "the architecture it was compiled for, sm_XY"),
            result(kKernelRegisters, "kernel.registers", Unit::count, "registers per thread"),
            result(kKernelSharedMemory, "kernel.shared_memory", Unit::onchip_bytes, "static shared memory per block"),
            result(kKernelSpillStores, "kernel.spill_stores", Unit::onchip_bytes, "bytes of spill stores per thread"),
            result(kKernelSpillLoads, "kernel.spill_loads", Unit::onchip_bytes, "bytes of spill loads per thread"),
            result(kKernelStackFrame, "kernel.stack_frame", Unit::onchip_bytes, "the stack frame per thread"),
            result(kKernelLocalMemory, "kernel.local_memory", Unit::onchip_bytes, "local memory per thread"),
            result(kKernelConstantMemory, "kernel.constant_memory", Unit::onchip_bytes,
                   "constant memory, every bank added up"),
            result(kKernelBarriers, "kernel.barriers", Unit::count, "barriers the kernel uses (ptxas: Used N barriers)"),
            result(kKernelMaxThreads, "kernel.max_threads", Unit::count,
                   "its launch bound on threads per block (__launch_bounds__, .maxntid)"),
            result(kKernelMinBlocks, "kernel.min_blocks", Unit::count,
                   "the blocks per SM it asks for (__launch_bounds__, .minnctapersm)"),
            result(kKernelSource, "kernel.source", Unit::text, "the tool whose output gave it: ptxas or cuobjdump")}}),
      .run = nullptr,  // a form of rows only: --from is always given
      .rows_option = "from",
      .run_rows = run_from,
      .rows_columns = {"kernel.name", "kernel.arch", "kernel.registers", "kernel.shared_memory", "kernel.spill_stores", "block_size"},
      .reasons = occupancy_case::reasons({{"max_threads", Rule::in_range, "{rule} (threads per block on {gpu})"}})};
  return calc;
}

}  // namespace gpucalc
