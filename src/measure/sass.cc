// A kernel's SASS counted (measure/sass.h).
#include "measure/sass.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

namespace gpucalc::sass {

namespace {

std::string trim(std::string_view s) {
  const std::size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string_view::npos) return "";
  const std::size_t b = s.find_last_not_of(" \t\r");
  return std::string(s.substr(a, b - a + 1));
}

/// The operands split at commas, each trimmed, without .reuse.
std::vector<std::string> operand_list(const std::string& operands) {
  std::vector<std::string> out;
  std::stringstream in(operands);
  for (std::string part; std::getline(in, part, ',');) {
    std::string t = trim(part);
    const std::size_t reuse = t.find(".reuse");
    if (reuse != std::string::npos) t.erase(reuse);
    out.push_back(t);
  }
  return out;
}

/// The immediate of an operand such as 0x20 or -0x1 (nullopt-like: false when it is none).
bool immediate(const std::string& s, double& value) {
  if (s.empty() || (s[0] != '-' && !(s[0] >= '0' && s[0] <= '9'))) return false;
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 0);
  if (end == s.c_str() || *end != '\0') return false;
  value = static_cast<double>(v);
  return true;
}

/// The loop counter's step: the predicate of the branch at `last`, the compare that last sets it
/// in the body, and the immediate some add of the body gives to one of its operands.
double counter_step(const Function& f, std::size_t first, std::size_t last) {
  const Instruction& branch = f.code[last];
  if (!branch.predicated) return 0;
  // the predicate register of "@!P1 BRA ..." is in the operands' prefix (kept in opcode parsing)
  const std::string predicate = branch.operands.substr(0, branch.operands.find(' '));
  for (std::size_t i = last; i-- > first;) {
    const Instruction& c = f.code[i];
    if (c.base() != "ISETP") continue;
    const std::vector<std::string> ops = operand_list(c.operands);
    if (ops.size() < 4 || ops[0] != predicate) continue;
    for (std::size_t k = 2; k <= 3; ++k) {
      const std::string& reg = ops[k];
      for (std::size_t j = first; j < last; ++j) {
        const Instruction& a = f.code[j];
        const std::string b = a.base();
        if (b != "IADD3" && b != "UIADD3" && b != "VIADD") continue;
        const std::vector<std::string> ao = operand_list(a.operands);
        if (ao.size() < 3 || ao[0] != reg || ao[1] != reg) continue;
        double step = 0;
        if (immediate(ao[2], step)) return step;
      }
    }
    return 0;
  }
  return 0;
}

int width_bits(const std::string& opcode) {
  for (int w : {128, 64, 16, 8}) {
    if (opcode.find("." + std::to_string(w)) != std::string::npos) return w;
  }
  if (opcode.find(".U8") != std::string::npos || opcode.find(".S8") != std::string::npos) return 8;
  if (opcode.find(".U16") != std::string::npos || opcode.find(".S16") != std::string::npos) return 16;
  return 32;
}

}  // namespace

std::string Instruction::base() const { return opcode.substr(0, opcode.find('.')); }

int Instruction::target() const {
  if (base() != "BRA") return -1;
  const std::size_t x = operands.rfind("0x");
  if (x == std::string::npos) return -1;
  return static_cast<int>(std::strtol(operands.c_str() + x, nullptr, 16));
}

std::vector<Function> parse(std::string_view listing) {
  std::vector<Function> out;
  int sm = 0;
  std::size_t at = 0;
  while (at < listing.size()) {
    const std::size_t end = std::min(listing.find('\n', at), listing.size());
    const std::string line = trim(listing.substr(at, end - at));
    at = end + 1;
    if (line.rfind("arch = sm_", 0) == 0) {
      sm = std::atoi(line.c_str() + 10);
      continue;
    }
    if (line.rfind("Function : ", 0) == 0) {
      out.push_back({trim(line.substr(11)), sm, {}});
      continue;
    }
    // /*0570*/ [@P0] OPCODE operands ;   (a second line /* 0x... */ holds the encoding)
    if (out.empty() || line.rfind("/*", 0) != 0 || line.rfind("/* 0x", 0) == 0) continue;
    const std::size_t close = line.find("*/");
    const std::size_t semicolon = line.find(';');
    if (close == std::string::npos || semicolon == std::string::npos || semicolon < close) continue;
    Instruction ins;
    ins.address = static_cast<int>(std::strtol(line.c_str() + 2, nullptr, 16));
    std::string rest = trim(line.substr(close + 2, semicolon - close - 2));
    std::string predicate;
    if (!rest.empty() && rest[0] == '@') {
      const std::size_t sp = rest.find(' ');
      predicate = rest.substr(1, sp - 1);
      rest = trim(rest.substr(sp));
      ins.predicated = true;
    }
    const std::size_t sp = rest.find(' ');
    ins.opcode = rest.substr(0, sp);
    ins.operands = sp == std::string::npos ? "" : trim(rest.substr(sp));
    // a predicated branch keeps its predicate register first: "P1 0x570" (counter_step reads it)
    if (ins.predicated && ins.base() == "BRA") ins.operands = predicate.substr(predicate[0] == '!' ? 1 : 0) + " " + ins.operands;
    out.back().code.push_back(ins);
  }
  return out;
}

const Function* find(const std::vector<Function>& functions, int sm, const std::vector<std::string>& parts) {
  const Function* best = nullptr;
  for (const Function& f : functions) {
    const bool named = std::all_of(parts.begin(), parts.end(), [&](const std::string& p) { return f.name.find(p) != std::string::npos; });
    if (!named || f.sm > sm) continue;
    if (best == nullptr || f.sm > best->sm) best = &f;
  }
  return best;
}

std::vector<Loop> loops(const Function& f) {
  std::vector<Loop> out;
  for (std::size_t i = 0; i < f.code.size(); ++i) {
    const int target = f.code[i].target();
    if (target < 0 || target >= f.code[i].address) continue;
    Loop l;
    l.first = index_at(f, target);
    l.last = i;
    l.step = counter_step(f, l.first, l.last);
    out.push_back(l);
  }
  std::sort(out.begin(), out.end(), [](const Loop& a, const Loop& b) { return a.first < b.first || (a.first == b.first && a.last > b.last); });
  return out;
}

std::string count_key(const Instruction& i) {
  const std::string b = i.base();
  if (b == "LDS" || b == "STS" || b == "LDG" || b == "STG" || b == "LD" || b == "ST" || b == "LDSM") {
    const int w = width_bits(i.opcode);
    return w == 32 ? b : b + "." + std::to_string(w);
  }
  return b;
}

Counts count(const Function& f, std::size_t first, std::size_t last) {
  Counts c;
  for (std::size_t i = first; i <= last && i < f.code.size(); ++i) {
    c[count_key(f.code[i])] += 1;
    c["all"] += 1;
  }
  return c;
}

Counts count_shortest(const Function& f, std::size_t first, std::size_t last) {
  Counts c;
  const int end = last < f.code.size() ? f.code[last].address : -1;
  std::size_t i = first;
  while (i <= last && i < f.code.size()) {
    const Instruction& ins = f.code[i];
    c[count_key(ins)] += 1;
    c["all"] += 1;
    const int target = ins.target();
    if (target > ins.address && target <= end) {
      i = index_at(f, target);
      continue;
    }
    ++i;
  }
  return c;
}

std::vector<std::pair<std::size_t, std::size_t>> skippable_blocks(const Function& f, std::size_t first, std::size_t last) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  const int end = last < f.code.size() ? f.code[last].address : -1;
  for (std::size_t i = first; i <= last && i < f.code.size(); ++i) {
    const Instruction& ins = f.code[i];
    const int target = ins.target();
    if (!ins.predicated || target <= ins.address || target > end) continue;
    out.emplace_back(i + 1, index_at(f, target) - 1);
  }
  return out;
}

std::size_t index_at(const Function& f, int address) {
  const auto it = std::lower_bound(f.code.begin(), f.code.end(), address, [](const Instruction& i, int a) { return i.address < a; });
  return static_cast<std::size_t>(it - f.code.begin());
}

}  // namespace gpucalc::sass
