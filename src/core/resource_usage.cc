#include "core/resource_usage.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <tuple>
#include <unordered_set>

#include "core/error.h"

namespace gpucalc {
namespace {

// Names longer than this are shown as given: the demangler recurses on nesting.
constexpr std::size_t kMaxDemangleBytes = 16 * 1024;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// What a number read may be: counts (registers, barriers: a thread has at most 255 registers,
// an SM 65,536), sizes in bytes (no GPU gives a thread or a block 1 TiB), and launch bounds
// (PTX allows at most 2^24 threads in a block's bound, as the occupancy options do).
constexpr std::int64_t kMaxCount = 65536;
constexpr std::int64_t kMaxBytes = std::int64_t{1} << 40;
constexpr std::int64_t kMaxBound = std::int64_t{1} << 24;

struct Reader {
  std::string origin;
  long line = 0;

  // The problem at this line; `text` kept to 80 characters.
  ResourceUsageError problem(UsageProblem what, UsageForm form, std::string_view text = {}, std::string_view name = {}) const {
    ResourceUsageError e(origin, line, what, form);
    e.text = std::string(text.substr(0, 80));
    e.name = std::string(name.substr(0, 40));
    return e;
  }
  // `token`, a whole number from `min` to `max`; `name` says what it counts.
  std::int64_t number(std::string_view token, std::int64_t min, std::int64_t max, std::string_view name, UsageForm form) const {
    token = trim(token);
    if (token.empty()) throw problem(UsageProblem::no_number, form, {}, name);
    std::int64_t v = 0;
    for (char c : token) {
      if (!is_digit(c)) throw problem(UsageProblem::not_whole, form, token.substr(0, 40), name);
      if (v <= max) v = v * 10 + (c - '0');  // past max it only grows; max < 2^62 keeps it from overflow
    }
    if (v < min || v > max) {
      ResourceUsageError e = problem(UsageProblem::out_of_range, form, token.substr(0, 40), name);
      e.lo = static_cast<double>(min);
      e.hi = static_cast<double>(max);
      throw e;
    }
    return v;
  }
  // `total` + `n` where `total` < 0 means none yet, refused past kMaxBytes (constant banks added up).
  std::int64_t add_bytes(std::int64_t total, std::int64_t n, UsageForm form) const {
    const std::int64_t sum = (total < 0 ? 0 : total) + n;  // each at most 2^40: no overflow
    if (sum > kMaxBytes) {
      ResourceUsageError e = problem(UsageProblem::constant_too_large, form);
      e.value = static_cast<double>(sum);
      e.hi = static_cast<double>(kMaxBytes);
      throw e;
    }
    return sum;
  }
};

// One comma-separated part of a ptxas line: "16640 bytes smem" -> its number and what it counts.
// A part with no number first ("used" alone, a word ptxas may add) has no `what`.
struct Part {
  std::string_view number, what;
};
Part split_part(std::string_view part) {
  part = trim(part);
  if (part.empty() || !(is_digit(part[0]) || part[0] == '-' || part[0] == '+' || part[0] == '.')) return {};
  const std::size_t space = part.find_first_of(" \t");
  if (space == std::string_view::npos) return {part, {}};
  return {part.substr(0, space), trim(part.substr(space))};
}

// "Used 32 registers, used 1 barriers, 16640 bytes smem, 380 bytes cmem[0], 8 bytes lmem, 200
// bytes cumulative stack size": the first part is the registers, each other part a number and
// what it counts. A part whose count gpucalc does not read (textures on old GPUs) is skipped;
// a number that is not a whole one is refused.
void read_used(std::string_view text, KernelResources& k, const Reader& r) {
  const std::string_view line = trim(text).substr(0, 80);
  std::size_t start = 0;
  bool first = true;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    std::string_view part = trim(text.substr(start, comma - start));
    start = comma + 1;
    if (starts_with(part, "Used ") || starts_with(part, "used ")) part.remove_prefix(5);
    const Part p = split_part(part);
    if (first) {
      if (p.what != "registers") throw r.problem(UsageProblem::not_usage_line, UsageForm::used, line);
      k.registers = static_cast<int>(r.number(p.number, 0, kMaxCount, "registers", UsageForm::used));
      first = false;
      continue;
    }
    if (p.number.empty()) continue;  // a part ptxas may add that is not a count
    if (p.what.empty()) throw r.problem(UsageProblem::counts_nothing, UsageForm::used, line, part);
    if (p.what == "barriers") {
      k.barriers = static_cast<int>(r.number(p.number, 0, kMaxCount, "barriers", UsageForm::used));
      continue;
    }
    const std::int64_t n = r.number(p.number, 0, kMaxBytes, p.what, UsageForm::used);
    if (p.what == "bytes smem") {
      k.shared_memory = n;
    } else if (p.what == "bytes lmem") {
      k.local_memory = n;
    } else if (starts_with(p.what, "bytes cmem[")) {
      k.constant_memory = r.add_bytes(k.constant_memory, n, UsageForm::used);
    } else if (p.what == "bytes cumulative stack size") {
      if (k.stack_frame < 0) k.stack_frame = n;
    }
  }
}

// "    192 bytes stack frame, 508 bytes spill stores, 440 bytes spill loads"
bool read_properties(std::string_view text, KernelResources& k, const Reader& r) {
  text = trim(text);
  if (text.find("bytes stack frame") == std::string_view::npos) return false;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    const Part p = split_part(text.substr(start, comma - start));
    start = comma + 1;
    if (p.number.empty()) continue;
    const std::int64_t n = r.number(p.number, 0, kMaxBytes, p.what, UsageForm::properties);
    if (p.what == "bytes stack frame") k.stack_frame = n;
    if (p.what == "bytes spill stores") k.spill_stores = n;
    if (p.what == "bytes spill loads") k.spill_loads = n;
  }
  return true;
}

// "REG:17 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:336 CONSTANT[2]:60 TEXTURE:0 SURFACE:0 SAMPLER:0"
void read_cuobjdump_usage(std::string_view text, KernelResources& k, const Reader& r) {
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r')) ++i;
    std::size_t end = i;
    while (end < text.size() && text[end] != ' ' && text[end] != '\t' && text[end] != '\r') ++end;
    std::string_view token = text.substr(i, end - i);
    i = end;
    const std::size_t colon = token.rfind(':');
    if (colon == std::string_view::npos) continue;
    std::string_view key = token.substr(0, colon);
    if (key == "REG") {
      k.registers = static_cast<int>(r.number(token.substr(colon + 1), 0, kMaxCount, "REG (registers)", UsageForm::cuobjdump));
      continue;
    }
    const std::int64_t n = r.number(token.substr(colon + 1), 0, kMaxBytes, key, UsageForm::cuobjdump);
    if (key == "STACK") {
      k.stack_frame = n;
    } else if (key == "SHARED") {
      k.shared_memory = n;
    } else if (key == "LOCAL") {
      k.local_memory = n;
    } else if (starts_with(key, "CONSTANT")) {
      k.constant_memory = r.add_bytes(k.constant_memory, n, UsageForm::cuobjdump);
    }
  }
}

// The text between the first pair of single quotes after `from`.
std::string_view quoted(std::string_view s, std::size_t from = 0) {
  const std::size_t a = s.find('\'', from);
  if (a == std::string_view::npos) return {};
  const std::size_t b = s.find('\'', a + 1);
  if (b == std::string_view::npos) return {};
  return s.substr(a + 1, b - a - 1);
}

// PTX launch bounds: ".maxntid 128, 1, 1" -> 128: one to three whole numbers, their product
// checked before it is formed.
int thread_product(std::string_view list, const Reader& r) {
  list = trim(list);
  if (list.empty()) throw r.problem(UsageProblem::bound_without_threads, UsageForm::bound);
  std::int64_t product = 1;
  std::size_t start = 0;
  for (int parts = 0; start <= list.size(); ++parts) {
    if (parts == 3) throw r.problem(UsageProblem::bound_dimensions, UsageForm::bound, list);
    std::size_t comma = list.find(',', start);
    if (comma == std::string_view::npos) comma = list.size();
    const std::int64_t n = r.number(list.substr(start, comma - start), 1, kMaxBound, "threads", UsageForm::bound);
    start = comma + 1;
    if (n > kMaxBound / product) {
      ResourceUsageError e = r.problem(UsageProblem::bound_too_large, UsageForm::bound);
      e.hi = static_cast<double>(kMaxBound);
      throw e;
    }
    product *= n;
  }
  return static_cast<int>(product);
}

struct Bounds {
  int max_threads = 0;
  int min_blocks = 0;
};

}  // namespace

bool parse_arch(std::string_view arch, int& major, int& minor) {
  if (!starts_with(arch, "sm_")) return false;
  arch.remove_prefix(3);
  if (!arch.empty() && (arch.back() == 'a' || arch.back() == 'f')) arch.remove_suffix(1);
  if (arch.size() < 2 || arch.size() > 3) return false;
  int v = 0;
  for (char c : arch) {
    if (!is_digit(c)) return false;
    v = v * 10 + (c - '0');
  }
  major = v / 10;
  minor = v % 10;
  return true;
}

std::string demangle(const std::string& name) {
  if (!starts_with(name, "_Z") || name.size() > kMaxDemangleBytes) return name;
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && out ? std::string(out.get()) : name;
}

namespace {

// sm_90 and later: cuobjdump's SHARED is the size of the kernel's shared-memory section, and the
// compiler lays the 1 KiB the system reserves per block (.nv.reservedSmem) at the start of it for
// every kernel that uses shared memory (and for many that do not). ptxas's "bytes smem" and the
// runtime's sharedSizeBytes count the kernel's own bytes only, and the occupancy model adds the
// reserved 1 KiB itself; so SHARED >= 1 KiB is read as SHARED - 1 KiB. Seen with CUDA 13.0 on the GPU
// machine (docs/device-runs/smem-probe-2026-11-30): every sm_90/sm_90a SHARED of 5 probe kernels
// under 5 sets of nvcc flags and of the 10 test kernels was 0 or the kernel's own bytes + 1,024,
// and the runtime's sharedSizeBytes was the kernel's own; sm_80 objects hold no reserved area.
void without_reserved_area(KernelResources& k) {
  int major = 0, minor = 0;
  parse_arch(k.arch, major, minor);
  if (major >= 9 && k.shared_memory >= kCuobjdumpReservedShared) {
    k.shared_memory -= kCuobjdumpReservedShared;
    k.reserved_in_shared = kCuobjdumpReservedShared;
  }
}

// How many kernels `text` can hold at most (each has one of these lines), up to one past kMaxKernels.
std::size_t kernel_lines(std::string_view text) {
  std::size_t count = 0;
  for (std::string_view mark : {std::string_view("REG:"), std::string_view("Compiling entry function")}) {
    for (std::size_t at = text.find(mark); at != std::string_view::npos && count <= kMaxKernels; at = text.find(mark, at + 1)) {
      ++count;
    }
  }
  return std::min(count, kMaxKernels + 1);
}

// PTX: ".visible .entry NAME(" then .maxntid / .reqntid / .minnctapersm before the body `{`.
void read_ptx_line(std::string_view t, std::string& ptx_entry, std::map<std::string, Bounds>& bounds, const Reader& r) {
  const std::size_t dot_entry = t.find(".entry ");
  if (dot_entry != std::string_view::npos && (dot_entry == 0 || t[dot_entry - 1] == ' ')) {
    std::string_view name = trim(t.substr(dot_entry + 7));
    const std::size_t paren = name.find('(');
    ptx_entry = std::string(trim(paren == std::string_view::npos ? name : name.substr(0, paren)));
    return;
  }
  if (ptx_entry.empty()) return;
  if (starts_with(t, ".maxntid") || starts_with(t, ".reqntid")) {
    bounds[ptx_entry].max_threads = thread_product(t.substr(8), r);
  } else if (starts_with(t, ".minnctapersm")) {
    bounds[ptx_entry].min_blocks = static_cast<int>(r.number(t.substr(13), 1, kMaxBound, "blocks", UsageForm::min_blocks));
  } else if (starts_with(t, "{")) {
    ptx_entry.clear();
  }
}

// Launch bounds from PTX belong to the kernel of that name, whatever the architecture; a kernel
// without a Used line (ptxas prints none for an empty kernel) has 0 registers.
void finish_kernels(std::vector<KernelResources>& kernels, const std::map<std::string, Bounds>& bounds) {
  for (KernelResources& k : kernels) {
    auto b = bounds.find(k.name);
    if (b != bounds.end()) {
      k.max_threads = b->second.max_threads;
      k.min_blocks = b->second.min_blocks;
    }
    if (k.registers < 0) k.registers = 0;
    k.demangled = demangle(k.name);
  }
}

// One log may hold a file twice (a rebuild): an exact repeat is kept once.
void drop_repeats(std::vector<KernelResources>& kernels) {
  // The kernels are compared where they lie (by index), so no copy of their names is made.
  auto fields = [](const KernelResources& k) {
    return std::tie(k.name, k.arch, k.source, k.registers, k.shared_memory, k.stack_frame, k.spill_stores, k.spill_loads);
  };
  auto hash = [&](std::size_t i) {
    const KernelResources& k = kernels[i];
    return std::hash<std::string>()(k.name) ^ (std::hash<std::string>()(k.arch) * 31) ^
           std::hash<std::int64_t>()(std::int64_t{k.registers} * 1000003 + k.shared_memory);
  };
  auto same = [&](std::size_t a, std::size_t b) { return fields(kernels[a]) == fields(kernels[b]); };
  std::vector<bool> repeat(kernels.size());
  {
    std::unordered_set<std::size_t, decltype(hash), decltype(same)> seen(kernels.size(), hash, same);
    for (std::size_t i = 0; i < kernels.size(); ++i) repeat[i] = !seen.insert(i).second;
  }
  std::size_t kept = 0;
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    if (repeat[i]) continue;
    if (kept != i) kernels[kept] = std::move(kernels[i]);
    ++kept;
  }
  kernels.resize(kept);
  kernels.shrink_to_fit();
}

}  // namespace

std::vector<KernelResources> parse_resource_usage(std::string_view text, const std::string& origin) {
  Reader r{origin, 0};
  std::vector<KernelResources> kernels;
  // Room for every kernel at once: a vector grown by doubling would hold up to twice the room,
  // and both copies while it moves.
  kernels.reserve(kernel_lines(text));
  std::map<std::string, Bounds> bounds;  // PTX entry -> its launch bounds
  // ptxas: the entry being described and the function whose properties come next.
  long entry = -1;
  std::string properties_of;
  // cuobjdump: the section's architecture and the function whose usage line comes next.
  std::string arch;
  std::string function;
  // PTX: the entry whose directives come before its body.
  std::string ptx_entry;
  auto add = [&](KernelResources k) {
    if (kernels.size() >= kMaxKernels) {
      ResourceUsageError e = r.problem(UsageProblem::many_kernels, UsageForm::any);
      e.hi = static_cast<double>(kMaxKernels);
      throw e;
    }
    parse_arch(k.arch, k.cc_major, k.cc_minor);
    k.line = r.line;
    kernels.push_back(std::move(k));
    return static_cast<long>(kernels.size()) - 1;
  };
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++r.line;
    if (line.size() > kMaxResourceLineBytes) {
      ResourceUsageError e = r.problem(UsageProblem::long_line, UsageForm::any);
      e.hi = static_cast<double>(kMaxResourceLineBytes);
      throw e;
    }
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);

    // ptxas, possibly behind a prefix (MSBuild's "1>  "): "ptxas info    : ..."
    const std::size_t info = line.find("ptxas info");
    if (info != std::string_view::npos) {
      std::string_view rest = line.substr(info + 10);
      const std::size_t colon = rest.find(':');
      if (colon == std::string_view::npos) continue;
      rest = trim(rest.substr(colon + 1));
      if (starts_with(rest, "Compiling entry function")) {
        const std::string_view name = quoted(rest);
        const std::size_t after = rest.find("' for ");
        KernelResources k;
        k.name = std::string(name);
        k.arch = after == std::string_view::npos ? "" : std::string(quoted(rest, after + 5));
        k.source = "ptxas";
        if (k.name.empty()) throw r.problem(UsageProblem::entry_without_name, UsageForm::entry);
        entry = add(std::move(k));
        properties_of.clear();
      } else if (starts_with(rest, "Function properties for ")) {
        properties_of = std::string(trim(rest.substr(24)));
      } else if (starts_with(rest, "Used ") && entry >= 0 && kernels[entry].registers < 0) {
        read_used(rest, kernels[entry], r);
      }
      continue;
    }
    if (entry >= 0 && !properties_of.empty() && properties_of == kernels[entry].name &&
        read_properties(line, kernels[entry], r)) {
      properties_of.clear();
      continue;
    }

    std::string_view t = trim(line);
    // cuobjdump --dump-resource-usage
    if (starts_with(t, "Fatbin elf code:") || starts_with(t, "Fatbin ptx code:")) {
      arch.clear();
      function.clear();
      continue;
    }
    if (starts_with(t, "arch = ")) {
      arch = std::string(trim(t.substr(7)));
      continue;
    }
    if (starts_with(t, "Function ") && t.back() == ':') {
      function = std::string(t.substr(9, t.size() - 10));
      continue;
    }
    if (!function.empty() && starts_with(t, "REG:")) {
      KernelResources k;
      k.name = function;
      k.arch = arch;
      k.source = "cuobjdump";
      read_cuobjdump_usage(t, k, r);
      without_reserved_area(k);
      add(std::move(k));
      function.clear();
      continue;
    }
    read_ptx_line(t, ptx_entry, bounds, r);
  }
  finish_kernels(kernels, bounds);
  drop_repeats(kernels);
  return kernels;
}

}  // namespace gpucalc
