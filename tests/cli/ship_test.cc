// What ships with the binary: --version, the completion scripts (run in bash as bash runs
// them), the manual page (rendered by groff with every warning on), and the README examples
// the manual carries.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "commands/describe.h"
#include "../verify_helpers.h"
#include "../file_text.h"

namespace gpucalc {
namespace {

namespace fs = std::filesystem;
using testing::shell_quote;

/// Runs `command` with /bin/sh; stdout, stderr and the exit code.
testing::Ran sh(const std::string& command) { return testing::run_shell(command); }

bool have(const std::string& program) { return sh("command -v " + program + " >/dev/null").code == 0; }

std::string read_file(const fs::path& path) {
  return testing::file_text(path.string());
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::set<std::string> set_of(const std::string& text) {
  std::vector<std::string> l = lines_of(text);
  return {l.begin(), l.end()};
}

const fs::path kBuild = GPUCALC_BUILD_DIR;
const fs::path kBashScript = kBuild / "share/bash-completion/completions/gpucalc";

/// What bash's completion offers for the command line `words` (the last one is being typed),
/// run from `dir`: the installed script sourced, COMP_WORDS and COMP_CWORD set, _gpucalc called.
std::set<std::string> bash_complete(const std::vector<std::string>& words, const fs::path& dir = kBuild) {
  std::string script = "source " + shell_quote(kBashScript.string()) + " && COMP_WORDS=(";
  for (const std::string& w : words) script += shell_quote(w) + " ";
  script += ") && COMP_CWORD=" + std::to_string(words.size() - 1) + " && _gpucalc && printf '%s\\n' \"${COMPREPLY[@]}\"";
  testing::Ran r = sh("cd " + shell_quote(dir.string()) + " && bash -c " + shell_quote(script));
  INFO("bash: " << script << "\nstderr: " << r.err);
  REQUIRE(r.code == 0);
  CHECK(r.err.empty());
  std::set<std::string> out = set_of(r.out);
  out.erase("");
  return out;
}

using Words = std::set<std::string>;

std::string fmt_words(const Words& w) {
  std::string s;
  for (const std::string& x : w) s += x + " ";
  return s;
}

TEST_CASE("--version: the version, the commit it was built from, and whether measure has CUDA") {
  testing::Run r = testing::run_gpucalc({"--version"});
  REQUIRE(r.exit_code == 0);
  const std::vector<std::string> lines = lines_of(r.out);
  REQUIRE(lines.size() == 3);
  CHECK(lines[0] == std::string("gpucalc ") + GPUCALC_VERSION);
  CHECK(lines[0] == std::string("gpucalc ") + version_number());
  // The commit: git's HEAD of the source folder when it is a checkout of its own, else unknown.
  std::string commit = "unknown";
  const std::string git = "git -C " + shell_quote(GPUCALC_SOURCE_DIR);
  testing::Ran top = sh(git + " rev-parse --show-toplevel");
  if (top.code == 0 && fs::equivalent(fs::path(lines_of(top.out).at(0)), fs::path(GPUCALC_SOURCE_DIR))) {
    commit = lines_of(sh(git + " rev-parse --short=12 HEAD").out).at(0);
    CHECK(commit.size() == 12);
  }
  CHECK(lines[1] == "commit: " + commit);
#ifdef GPUCALC_HAVE_CUDA
  CHECK(lines[2].rfind("measure: built with CUDA", 0) == 0);
#else
  CHECK(lines[2].rfind("measure: built without CUDA (gpucalc measure exits 3", 0) == 0);
  // ... and measure says so.
  testing::Run m = testing::run_gpucalc({"measure", "occupancy"});
  CHECK(m.exit_code == 3);
  CHECK(m.err.find("built without CUDA") != std::string::npos);
#endif
}

TEST_CASE("completion: the scripts the build installs are what gpucalc completion prints") {
  for (const auto& [shell, path] : {std::pair{"bash", "share/bash-completion/completions/gpucalc"},
                                    std::pair{"zsh", "share/zsh/site-functions/_gpucalc"},
                                    std::pair{"fish", "share/fish/vendor_completions.d/gpucalc.fish"}}) {
    const std::string shell_name = shell;
    CAPTURE(shell_name);
    testing::Run r = testing::run_gpucalc({"completion", shell});
    REQUIRE(r.exit_code == 0);
    CHECK(r.err.empty());
    CHECK(r.out == read_file(kBuild / path));
  }
  testing::Run bad = testing::run_gpucalc({"completion", "tcsh"});
  CHECK(bad.exit_code == 2);
  CHECK(bad.err == "gpucalc: completion: invalid value 'tcsh': expected bash, zsh or fish\n");
  testing::Run none = testing::run_gpucalc({"completion"});
  CHECK(none.exit_code == 2);
  CHECK(none.err.find("shell") != std::string::npos);
}

TEST_CASE("bash completion: subcommands, options, choices, profiles, files") {
  CHECK(bash_complete({"gpucalc", "occ"}) == Words{"occupancy"});
  CHECK(bash_complete({"gpucalc", "--v"}) == Words{"--version"});
  CHECK(bash_complete({"gpucalc", "banks", "--access", ""}) == Words{"row", "column", "diagonal", "word"});
  CHECK(bash_complete({"gpucalc", "sectors", "--access", ""}) == Words{"row", "column"});
  CHECK(bash_complete({"gpucalc", "banks", "--access", "d"}) == Words{"diagonal"});
  CHECK(bash_complete({"gpucalc", "fusion", "--dtype", ""}) ==
        Words{"fp64", "fp32", "tf32", "bf16", "fp16", "fp8_e4m3", "fp8_e5m2", "fp8", "int8"});
  CHECK(bash_complete({"gpucalc", "fusion", "--preset", ""}) == Words{"unary", "binary", "rmsnorm", "swiglu", "softmax", "layernorm", "custom"});
  CHECK(bash_complete({"gpucalc", "occupancy", "--model", ""}) == Words{"exact", "simple"});
  CHECK(bash_complete({"gpucalc", "occupancy", "--format", ""}) == Words{"text", "json", "csv", "md"});
  CHECK(bash_complete({"gpucalc", "occupancy", "--sweep", ""}) == Words{"threads", "regs", "smem"});
  CHECK(bash_complete({"gpucalc", "occupancy", "--require", "occ"}) == Words{"occupancy"});
  CHECK(bash_complete({"gpucalc", "occupancy", "--th"}) == Words{"--threads"});
  CHECK(bash_complete({"gpucalc", "occupancy", "--threads", "256", "--r"}) == Words{"--regs", "--require"});
  // An option's value that is a number: nothing to offer.
  CHECK(bash_complete({"gpucalc", "occupancy", "--threads", ""}).empty());
  CHECK(bash_complete({"gpucalc", "hw", ""}) == Words{"list", "show", "new"});
  CHECK(bash_complete({"gpucalc", "completion", ""}) == Words{"bash", "zsh", "fish"});
  CHECK(bash_complete({"gpucalc", "measure", "occ"}) == Words{"occupancy", "occupancy-suggest"});
  // measure's options named as a calculator's choice option take its choices.
  CHECK(bash_complete({"gpucalc", "measure", "banks", "--access", ""}) == Words{"row", "column", "diagonal", "word"});
  // measure --preset: only the presets measure runs (the registry's subset of fusion's), not swiglu or custom.
  CHECK(bash_complete({"gpucalc", "measure", "fusion", "--preset", ""}) == Words{"unary", "binary", "rmsnorm"});
  CHECK(bash_complete({"gpucalc", "measure", "little", "--loads", ""}) == Words{"1", "2", "4", "8"});

  // Profiles, and .toml files beside them; --batch and --plot: their files and folders.
  const fs::path dir = fs::temp_directory_path() / ("gpucalc_completion_" + std::to_string(::getpid()));
  fs::create_directories(dir / "runs");
  for (const char* name : {"mine.toml", "cases.csv", "notes.txt", "chart.svg"}) std::ofstream(dir / name) << "x\n";
  CHECK(bash_complete({"gpucalc", "occupancy", "--gpu", ""}, dir) == Words{"a10", "a100", "a100-40gb-sxm", "a100-pcie", "b200", "b300", "h100", "h100-nvl", "h100-pcie", "h200", "jetson-agx-orin", "l4", "l40s", "rtx4090", "rtx5090", "t4", "v100", "mine.toml", "runs"});
  CHECK(bash_complete({"gpucalc", "occupancy", "--gpu", "h1"}, dir) == Words{"h100", "h100-nvl", "h100-pcie"});
  CHECK(bash_complete({"gpucalc", "occupancy", "--gpu", "=", "a"}, dir) == Words{"a10", "a100", "a100-40gb-sxm", "a100-pcie"});  // --gpu=a
  CHECK(bash_complete({"gpucalc", "hw", "show", ""}, dir) == Words{"a10", "a100", "a100-40gb-sxm", "a100-pcie", "b200", "b300", "h100", "h100-nvl", "h100-pcie", "h200", "jetson-agx-orin", "l4", "l40s", "rtx4090", "rtx5090", "t4", "v100", "mine.toml", "runs"});
  CHECK(bash_complete({"gpucalc", "waves", "--batch", ""}, dir) == Words{"cases.csv", "runs"});
  CHECK(bash_complete({"gpucalc", "roofline", "--plot", ""}, dir) == Words{"chart.svg", "runs"});
  fs::remove_all(dir);
}

TEST_CASE("bash completion offers every option each subcommand's --help lists") {
  const std::regex flag(R"(^\s+(?:-[a-z],\s*)?(--[a-z][a-z0-9-]*))");
  for (const CommandDoc& d : describe_commands()) {
    const std::string name = d.command->name;
    CAPTURE(name);
    testing::Run help = testing::run_gpucalc({d.command->name, "--help"});
    REQUIRE(help.exit_code == 0);
    Words listed;
    for (const std::string& line : lines_of(help.out)) {
      std::smatch m;
      if (std::regex_search(line, m, flag)) listed.insert(m[1]);
    }
    CHECK(listed.count("--help") == 1);
    const Words offered = bash_complete({"gpucalc", d.command->name, "--"});
    CHECK_MESSAGE(offered == listed, "offered: " << fmt_words(offered) << "; --help lists: " << fmt_words(listed));
  }
}

TEST_CASE("zsh and fish completion scripts parse (when zsh and fish are here)") {
  if (have("zsh")) {
    testing::Ran r = sh("zsh -n " + shell_quote((kBuild / "share/zsh/site-functions/_gpucalc").string()));
    CHECK_MESSAGE(r.code == 0, r.err);
  } else {
    MESSAGE("zsh is not installed: the zsh script's parse check is skipped");
  }
  if (have("fish")) {
    testing::Ran r = sh("fish --no-execute " + shell_quote((kBuild / "share/fish/vendor_completions.d/gpucalc.fish").string()));
    CHECK_MESSAGE(r.code == 0, r.err);
  } else {
    MESSAGE("fish is not installed: the fish script's parse check is skipped");
  }
}

TEST_CASE("gpucalc man: the page the build installs, rendered by groff without a warning") {
  testing::Run r = testing::run_gpucalc({"man"});
  REQUIRE(r.exit_code == 0);
  const fs::path page = kBuild / "share/man/man1/gpucalc.1";
  CHECK(r.out == read_file(page));
  CHECK(r.out.rfind(std::string(".TH GPUCALC 1 \"\" \"gpucalc ") + GPUCALC_VERSION + "\"", 0) == 0);
  if (!have("groff")) {
    MESSAGE("groff is not installed (scripts/setup installs groff-base): the manual page is not rendered");
    return;
  }
  testing::Ran warn = sh("groff -ww -z -man -Tutf8 " + shell_quote(page.string()));
  CHECK(warn.code == 0);
  CHECK_MESSAGE(warn.err.empty(), warn.err);
  // As a reader sees it: plain ASCII, no bold.
  testing::Ran text = sh("groff -man -Tascii -rLL=250n -P-cbou " + shell_quote(page.string()));
  REQUIRE(text.code == 0);
  const std::string& t = text.out;
  for (const char* expected :
       {"SUBCOMMANDS", "EXIT STATUS", "FILES",
        // A declared option with its form, range from the default profile, default.
        "--threads N", "1 to 1,024, threads per block (h100). Sweepable (--sweep threads).", "--model exact|simple", "Default: exact",
        "--smem SIZE", "Sweepable (--sweep smem)",
        // Result keys with their units.
        "blocks_per_sm", "occupancy (a fraction, 0 to 1)", "fused_time (seconds)",
        // The common options, the tools' options, the README's examples and their answers.
        "--gpu NAME|FILE.toml", "--format text|json|csv|md", "--require KEY OP VALUE", "--plot FILE.svg", "--list",
        "--out", "3.6us, 3.6us, 2ms or 672cyc", "gpucalc measure WORD [options]", "WORD: one of copy, occupancy,",
        // README's `gpucalc little` (no options) and a note in the command cell.
        "gpucalc little\n", "1.34 MB, 10.2 KB and 79 loads per SM", "(--elem 2): 32 sectors, 12.5%",
        "gpucalc occupancy --threads 256 --regs 64 --smem 40KB",
        "4 blocks, 32 warps, 50%, limited by registers",
        "gpucalc banks --words \"33*t+5\"", "share/gpucalc/hw/*.toml"}) {
    const std::string text_expected = expected;
    CAPTURE(text_expected);
    CHECK(t.find(expected) != std::string::npos);
  }
  if (have("man")) {
    testing::Ran m = sh("MANPAGER=cat MANWIDTH=100 man --warnings=all -l " + shell_quote(page.string()));
    CHECK(m.code == 0);
    CHECK_MESSAGE(m.err.empty(), m.err);
    CHECK(m.out.find("occupancy") != std::string::npos);
  }
}

TEST_CASE("every calculator's --help and the manual list its result keys with their help, from the declaration") {
  const testing::Run man = testing::run_gpucalc({"man"});
  REQUIRE(man.exit_code == 0);
  // The roff of plain ASCII help: a hyphen escaped.
  auto roff = [](const std::string& text) {
    std::string out;
    for (char c : text) out += c == '-' ? std::string("\\-") : std::string(1, c);
    return out;
  };
  for (const Command& c : commands()) {
    if (c.calculator == nullptr) continue;
    const std::string name = c.name;
    CAPTURE(name);
    const testing::Run help = testing::run_gpucalc({c.name, "--help"});
    REQUIRE(help.exit_code == 0);
    const std::size_t results = help.out.find("Result keys (");
    REQUIRE(results != std::string::npos);
    for (const ResultSpec& r : c.calculator().results) {
      CAPTURE(r.key);
      // Its line: the key, then its unit and help (none: the line ends).
      std::size_t at = help.out.find("\n  " + r.key + " ", results);
      if (at == std::string::npos) at = help.out.find("\n  " + r.key + "\n", results);
      REQUIRE(at != std::string::npos);
      CHECK(man.out.find("\\fB" + r.key + "\\fR") != std::string::npos);
      if (r.help.empty()) continue;  // occupancy's, declared without help yet
      CHECK(help.out.find(r.help, at) == help.out.find('\n', at + 1) - r.help.size());
      CHECK(man.out.find(roff(r.help) + "\n") != std::string::npos);
    }
  }
}

TEST_CASE("the manual's examples are the README's, and each runs") {
  int total = 0;
  for (const CommandDoc& d : describe_commands()) {
    if (d.command->calculator == nullptr) continue;
    const std::vector<Example> examples = examples_of(d.command->name);
    const std::string name = d.command->name;
    CAPTURE(name);
    CHECK(!examples.empty());
    for (const Example& e : examples) {
      CAPTURE(e.command);
      CHECK(!e.answer.empty());
      CHECK(e.answer.find('`') == std::string::npos);
      const std::string alone = "gpucalc " + name;
      REQUIRE((e.command == alone || e.command.rfind(alone + " ", 0) == 0));
      // Paths in the examples (tests/data/...) are the source tree's.
      std::string args = e.command.substr(8);
      for (std::size_t at = args.find("tests/data/"); at != std::string::npos; at = args.find("tests/data/", at + 1)) {
        if (at == 0 || args[at - 1] == ' ') {
          args.insert(at, std::string(GPUCALC_SOURCE_DIR) + "/");
          at += std::string(GPUCALC_SOURCE_DIR).size() + 1;
        }
      }
      testing::Ran r = testing::run_gpucalc_shell(args + " --format json");
      CHECK(r.code == 0);
      CHECK(r.err.empty());
      ++total;
    }
  }
  CHECK(total >= 19);
  const std::vector<Example> occupancy = examples_of("occupancy");
  REQUIRE(occupancy.size() >= 2);
  CHECK(occupancy[0].command == "gpucalc occupancy --threads 256 --regs 64 --smem 40KB");
  CHECK(occupancy[0].answer ==
        "4 blocks, 32 warps, 50%, limited by registers; higher occupancy with --regs 48 (5 blocks, 62.5%); --threads 192 buys a block but lowers occupancy");
  // A note in the command cell goes before the answer.
  const std::vector<Example> sectors = examples_of("sectors");
  REQUIRE(sectors.size() >= 2);
  CHECK(sectors[1].answer.rfind("(--elem 2): 32 sectors, 12.5%", 0) == 0);
}

}  // namespace
}  // namespace gpucalc
