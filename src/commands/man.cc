// gpucalc man: the manual page gpucalc(1) as roff, printed from describe_commands() (options
// with their forms, ranges and defaults; result keys with units) and the README's examples.
#include <fmt/format.h>

#include <iostream>

#include <CLI/CLI.hpp>

#include "commands/describe.h"
#include "core/gpu.h"

namespace gpucalc {
namespace {

// Text for a roff text line: \ as \e, - as \-, non-ASCII as \[uXXXX], a leading . or ' guarded.
std::string roff(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else if (c < 0x80) {
      out += static_cast<char>(c);
    } else {
      // One UTF-8 sequence: 2 to 4 bytes.
      const int extra = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : 1;
      std::uint32_t code = c & (0x3Fu >> extra);
      for (int k = 0; k < extra && i + 1 < s.size(); ++k) code = (code << 6) | (static_cast<unsigned char>(s[++i]) & 0x3Fu);
      out += fmt::format("\\[u{:04X}]", code);
    }
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out.insert(0, "\\&");
  return out;
}

// Where the output device has no glyph for a character the page uses (-Tascii has no micro
// sign), what to print instead, so that groff and man render it without a warning.
std::string fallbacks(std::string_view page) {
  std::string out;
  std::size_t at = 0;
  while ((at = page.find("\\[u", at)) != std::string_view::npos) {
    const std::string_view glyph = page.substr(at, page.find(']', at) + 1 - at);
    at += glyph.size();
    const std::string line = fmt::format(".if !c {} .char {} {}\n", glyph, glyph, glyph == "\\[u00B5]" ? "u" : "?");
    if (out.find(line) == std::string::npos) out += line;
  }
  return out;
}

std::string bold(std::string_view s) { return "\\fB" + roff(s) + "\\fR"; }
std::string italic(std::string_view s) { return "\\fI" + roff(s) + "\\fR"; }

// The placeholder of an option's value: --threads N, --smem SIZE.
std::string placeholder(const OptionDoc& o) {
  if (o.spec == nullptr) {
    if (o.flag == "--gpu") return "NAME|FILE.toml";
    if (o.flag == "--require") return "KEY OP VALUE";
    if (o.flag == "--sweep") return "AXIS[=FROM:TO[:STEP]]";
    if (!o.files.empty()) return "FILE." + o.files;
    if (!o.words.empty()) return fmt::format("{}", fmt::join(o.words, "|"));
    return "VALUE";
  }
  if (o.spec->kind == OptionKind::choice) return fmt::format("{}", fmt::join(o.spec->choices, "|"));
  if (o.spec->kind == OptionKind::text || o.spec->kind == OptionKind::repeated) return "TEXT";
  return unit_info(o.spec->unit).placeholder;
}

void option_item(std::string& s, const OptionDoc& o, const Gpu& gpu) {
  s += ".TP\n";
  s += bold(o.flag);
  if (o.takes_value) {
    // A break point (\:) after each | of a list of words, so that a long one (decode --model's
    // presets) wraps where it must instead of overrunning the line.
    std::string form = italic(placeholder(o));
    for (std::size_t at = form.find('|'); at != std::string::npos; at = form.find('|', at + 3)) form.insert(at + 1, "\\:");
    s += " " + form;
  }
  s += "\n";
  if (o.spec == nullptr) {
    const bool says = o.help.find("repeatable") != std::string::npos;
    s += roff(o.help) + (o.repeatable && !says ? " (repeatable)" : "") + ".\n";
    return;
  }
  std::string text = o.spec->accepted(&gpu);
  if (!o.spec->fallback.empty()) text += fmt::format(". Default: {}", o.spec->fallback);
  if (o.spec->required) text += ". Required";
  if (o.spec->kind == OptionKind::repeated) text += ". Repeatable";
  if (o.spec->sweep != nullptr) text += fmt::format(". Sweepable (--sweep {})", o.spec->name);
  s += roff(text) + ".\n";
}

// A list of result keys under its heading, each with its unit and help.
void result_keys(std::string& s, const std::string& heading, const std::vector<ResultSpec>& results) {
  s += ".PP\n" + roff(heading) + "\n";
  // Each key with its help, as --help lists them.
  for (const ResultSpec& r : results) {
    const std::string unit = unit_info(r.unit).words;
    s += ".TP\n" + bold(r.key) + (unit.empty() ? "" : " (" + roff(unit) + ")") + "\n" + roff(r.help) + "\n";
  }
}

// One subcommand's section: its synopsis words, options, result keys and examples.
void subcommand_section(std::string& s, const CommandDoc& d, const Gpu& gpu) {
  const Command& c = *d.command;
  s += ".SS " + roff(c.name) + "\n" + roff(c.help) + ".\n";
  if (!d.words.empty()) {
    // A few words in the synopsis (hw list|show); a longer list (measure's cases) below it.
    const bool few = d.words.size() <= 3;
    s += ".PP\n" + bold(fmt::format("gpucalc {}", c.name)) + " " +
         italic(few ? fmt::format("{}", fmt::join(d.words, "|")) : std::string("WORD")) +
         (d.profile_after.empty() ? "" : " [" + italic("NAME") + "]") + " [" + italic("options") + "]\n";
    if (!few) s += ".br\n" + roff(fmt::format("WORD: one of {}.", fmt::join(d.words, ", "))) + "\n";
  }
  bool any = false;
  for (const OptionDoc& o : d.options) {
    if (c.calculator != nullptr && o.spec == nullptr) continue;  // the common options, above
    if (o.flag == "--help") continue;
    if (!any) s += ".PP\nOptions:\n";
    any = true;
    option_item(s, o, gpu);
  }
  if (c.calculator != nullptr) {
    const Calculator& calc = c.calculator();
    result_keys(s, "Result keys (JSON and CSV units in parentheses):", calc.results);
    for (const Form& f : calc.forms) {
      result_keys(s, fmt::format("With --{}, its own result keys:", f.option), f.declaration().results);
    }
  }
  const std::vector<Example> examples = examples_of(c.name);
  if (!examples.empty()) s += ".PP\nExamples (H100 unless named):\n";
  for (const Example& e : examples) s += ".TP\n" + bold(e.command) + "\n" + roff(e.answer) + "\n";
}

std::string page() {
  const std::vector<CommandDoc> docs = describe_commands();
  const Gpu gpu = load_gpu("h100");
  std::string s = fmt::format(".TH GPUCALC 1 \"\" \"gpucalc {}\" \"User Commands\"\n", version_number());
  s += R"(.nh
.SH NAME
gpucalc \- a performance calculator for GPU kernel design
.SH SYNOPSIS
\fBgpucalc\fR \fIsubcommand\fR [\fIoptions\fR]
.br
\fBgpucalc \-\-version\fR
.SH DESCRIPTION
\fBgpucalc\fR answers, in about a millisecond and with no GPU, the questions of GPU kernel design:
how many blocks fit on an SM, how many 32\-byte sectors a warp touches, how many ways a
shared\-memory access conflicts, what fusing a chain of kernels buys, what tiling a matrix
product buys, how many waves a launch takes, and whether a kernel is compute\- or memory\-bound.
\fBgpucalc measure\fR runs the matching CUDA kernel on a real GPU and prints the prediction
beside what the hardware achieved.
.PP
Every calculator prints every one of its result keys, always in the same order: a table with
units (text), one JSON object, a CSV header and row, or Markdown.
JSON and CSV numbers are in base units (bytes, seconds, bytes/s, FLOP, FLOP/s, fractions 0 to 1).
.SH QUANTITIES
Options take the forms people type:
)";
  for (Unit unit : {Unit::count, Unit::onchip_bytes, Unit::bytes, Unit::seconds, Unit::bytes_per_second, Unit::fraction}) {
    s += ".IP \\(bu 2\n" + roff(accepted_forms(unit)) + "\n";
  }
  s += ".PP\nTimes and bandwidths need their unit. Ranges below are those of the default profile, " + bold(gpu.key) +
       "; with \\fB\\-\\-gpu\\fR they are the chosen profile's.\n";
  // The options every calculator takes, from the first calculator's registration.
  s += ".SH OPTIONS OF EVERY CALCULATOR\n";
  for (const CommandDoc& d : docs) {
    if (d.command->calculator == nullptr) continue;
    for (const OptionDoc& o : d.options) {
      if (o.spec == nullptr && o.flag != "--help") option_item(s, o, gpu);
    }
    break;
  }
  s += ".PP\n\\fB\\-\\-sweep\\fR is offered by the calculators that have a sweepable option.\n";
  s += ".SH SUBCOMMANDS\n";
  for (const CommandDoc& d : docs) subcommand_section(s, d, gpu);
  s += R"(.SH EXIT STATUS
.TP
0
success
.TP
1
a \fB\-\-require\fR failed (each failure on standard error: requirement failed: occupancy >= 0.5 (got 0.375))
.TP
2
bad input: one line on standard error naming the option, the value and the accepted form
.TP
3
\fBmeasure\fR cannot run here (built without CUDA, no device), with the reason
.TP
4
a measurement failed on the device (a CUDA error, or an output that did not match its host reference)
.TP
5
an internal error (a bug)
.SH FILES
.TP
\fIshare/gpucalc/hw/*.toml\fR
under the installation prefix (\fI/usr\fR for the Debian package): the built\-in hardware profiles,
)";
  s += roff(fmt::format("{}", fmt::join(builtin_gpu_keys(), ", ")));
  s += R"(, as files for reference; they are compiled into the binary.
A file of the same form is read with \fB\-\-gpu\fR \fIFILE.toml\fR.
.SH SEE ALSO
\fBgpucalc completion bash|zsh|fish\fR prints a completion script;
\fBgpucalc\fR \fIsubcommand\fR \fB\-\-help\fR lists a subcommand's options.
)";
  return s;
}

}  // namespace

int run_man(const ToolValues&) {
  const std::string text = page();
  const std::size_t body = text.find('\n') + 1;  // after .TH
  std::cout << text.substr(0, body) << fallbacks(text) << text.substr(body);
  return 0;
}

}  // namespace gpucalc
