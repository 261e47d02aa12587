#include "core/resource_usage.h"

#include <cxxabi.h>
#include <fmt/format.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <set>

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

struct Reader {
  std::string origin;
  long line = 0;

  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(fmt::format("--from {}: line {}: {}", origin, line, what));
  }
  // A whole number of at most 15 digits (sizes and counts fit well inside).
  std::int64_t number(std::string_view digits) const {
    digits = trim(digits);
    if (digits.empty() || digits.size() > 15) fail(fmt::format("expected a whole number, got '{}'", InputError::printable(std::string(digits.substr(0, 40)))));
    std::int64_t v = 0;
    for (char c : digits) {
      if (!is_digit(c)) fail(fmt::format("expected a whole number, got '{}'", InputError::printable(std::string(digits.substr(0, 40)))));
      v = v * 10 + (c - '0');
    }
    return v;
  }
};

// "Used 32 registers, used 1 barriers, 16640 bytes smem, 380 bytes cmem[0], 8 bytes lmem, 200
// bytes cumulative stack size": each comma-separated part is a number and what it counts.
void read_used(std::string_view text, KernelResources& k, const Reader& r) {
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    std::string_view part = trim(text.substr(start, comma - start));
    start = comma + 1;
    if (part.empty()) continue;
    if (starts_with(part, "Used ") || starts_with(part, "used ")) part.remove_prefix(5);
    std::size_t digits = 0;
    while (digits < part.size() && is_digit(part[digits])) ++digits;
    if (digits == 0) continue;  // a part ptxas may add that is not a count
    const std::int64_t n = r.number(part.substr(0, digits));
    std::string_view what = trim(part.substr(digits));
    if (what == "registers") {
      k.registers = static_cast<int>(n);
    } else if (what == "barriers") {
      k.barriers = static_cast<int>(n);
    } else if (what == "bytes smem") {
      k.shared_memory = n;
    } else if (what == "bytes lmem") {
      k.local_memory = n;
    } else if (starts_with(what, "bytes cmem[")) {
      k.constant_memory = (k.constant_memory < 0 ? 0 : k.constant_memory) + n;
    } else if (what == "bytes cumulative stack size") {
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
    std::string_view part = trim(text.substr(start, comma - start));
    start = comma + 1;
    std::size_t digits = 0;
    while (digits < part.size() && is_digit(part[digits])) ++digits;
    if (digits == 0) continue;
    const std::int64_t n = r.number(part.substr(0, digits));
    std::string_view what = trim(part.substr(digits));
    if (what == "bytes stack frame") k.stack_frame = n;
    if (what == "bytes spill stores") k.spill_stores = n;
    if (what == "bytes spill loads") k.spill_loads = n;
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
    const std::int64_t n = r.number(token.substr(colon + 1));
    if (key == "REG") {
      k.registers = static_cast<int>(n);
    } else if (key == "STACK") {
      k.stack_frame = n;
    } else if (key == "SHARED") {
      k.shared_memory = n;
    } else if (key == "LOCAL") {
      k.local_memory = n;
    } else if (starts_with(key, "CONSTANT")) {
      k.constant_memory = (k.constant_memory < 0 ? 0 : k.constant_memory) + n;
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

// PTX launch bounds: ".maxntid 128, 1, 1" -> 128.
int thread_product(std::string_view list, const Reader& r) {
  std::int64_t product = 1;
  std::size_t start = 0;
  int parts = 0;
  while (start <= list.size() && parts < 3) {
    std::size_t comma = list.find(',', start);
    if (comma == std::string_view::npos) comma = list.size();
    std::string_view part = trim(list.substr(start, comma - start));
    start = comma + 1;
    if (part.empty()) break;
    product *= r.number(part);
    ++parts;
    if (product > (1 << 24)) r.fail("a launch bound of more than 2^24 threads");
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

}  // namespace

std::vector<KernelResources> parse_resource_usage(std::string_view text, const std::string& origin) {
  Reader r{origin, 0};
  std::vector<KernelResources> kernels;
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
    if (kernels.size() >= kMaxKernels) r.fail(fmt::format("more than {} kernels", kMaxKernels));
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
      r.fail(fmt::format("a line of more than {} bytes: expected the text of ptxas -v or cuobjdump --dump-resource-usage",
                         kMaxResourceLineBytes));
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
        if (k.name.empty()) r.fail("expected Compiling entry function 'NAME' for 'sm_XY'");
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
    // PTX: ".visible .entry NAME(" then .maxntid / .reqntid / .minnctapersm before the body.
    const std::size_t dot_entry = t.find(".entry ");
    if (dot_entry != std::string_view::npos && (dot_entry == 0 || t[dot_entry - 1] == ' ')) {
      std::string_view name = trim(t.substr(dot_entry + 7));
      const std::size_t paren = name.find('(');
      ptx_entry = std::string(trim(paren == std::string_view::npos ? name : name.substr(0, paren)));
      continue;
    }
    if (!ptx_entry.empty()) {
      if (starts_with(t, ".maxntid") || starts_with(t, ".reqntid")) {
        bounds[ptx_entry].max_threads = thread_product(t.substr(8), r);
      } else if (starts_with(t, ".minnctapersm")) {
        bounds[ptx_entry].min_blocks = static_cast<int>(std::min<std::int64_t>(r.number(t.substr(13)), 1 << 24));
      } else if (starts_with(t, "{")) {
        ptx_entry.clear();
      }
    }
  }
  // Launch bounds from PTX belong to the kernel of that name, whatever the architecture.
  for (KernelResources& k : kernels) {
    auto b = bounds.find(k.name);
    if (b != bounds.end()) {
      k.max_threads = b->second.max_threads;
      k.min_blocks = b->second.min_blocks;
    }
    if (k.registers < 0) k.registers = 0;  // ptxas prints no "Used" line for an empty kernel
    k.demangled = demangle(k.name);
  }
  // One log may hold a file twice (a rebuild): an exact repeat is kept once.
  std::vector<KernelResources> unique;
  std::set<std::string> seen;
  for (KernelResources& k : kernels) {
    const std::string key = fmt::format("{}\n{}\n{} {} {} {} {} {}", k.name, k.arch, k.source, k.registers, k.shared_memory,
                                        k.stack_frame, k.spill_stores, k.spill_loads);
    if (seen.insert(key).second) unique.push_back(std::move(k));
  }
  return unique;
}

}  // namespace gpucalc
