// main's own errors: the subcommand, flags given values, and the exit codes.
#include <doctest/doctest.h>

#include "commands/commands.h"
#include "../verify_helpers.h"

using gpucalc::testing::run_gpucalc;

TEST_CASE("a flag given a value is refused, naming the flag") {
  for (const char* flag : {"--explain=3", "--explain=no"}) {
    auto r = run_gpucalc({"occupancy", "--threads", "256", "--regs", "64", flag});
    INFO(flag);
    CHECK(r.exit_code == 2);
    REQUIRE(r.err_lines().size() == 1);
    CHECK(r.err_lines()[0] == "gpucalc: occupancy: --explain: a flag takes no value: expected --explain alone");
    CHECK(r.out.empty());
  }
  auto strict = run_gpucalc({"occupancy", "--batch", "-", "--strict=1"});
  CHECK(strict.exit_code == 2);
  CHECK(strict.err.find("--strict") != std::string::npos);
}

TEST_CASE("an unknown or missing subcommand lists the known ones") {
  auto r = run_gpucalc({"occupncy", "--threads", "256"});
  CHECK(r.exit_code == 2);
  REQUIRE(r.err_lines().size() == 1);
  CHECK(r.err_lines()[0].find("unknown subcommand 'occupncy'") != std::string::npos);
  CHECK(r.err_lines()[0].find("did you mean 'occupancy'") != std::string::npos);
  auto none = run_gpucalc({});
  CHECK(none.exit_code == 2);
  CHECK(none.err.find("occupancy, little, sectors") != std::string::npos);
}

TEST_CASE("each common option reads the same from a plain call and through CLI11") {
  // A plain call (`--name VALUE`) is read by main without CLI11; `--threads=256` sends the same
  // call through CLI11. Both read kCommonOptions, so each row must give the same answer.
  const std::vector<std::string> base = {"occupancy", "--regs", "64"};
  for (const gpucalc::CommonOption& o : gpucalc::kCommonOptions) {
    INFO(o.name);
    const std::string flag = std::string("--") + o.name;
    // Each row is on --help, with its help text.
    auto help = run_gpucalc({"occupancy", "--help"});
    CHECK(help.out.find(flag) != std::string::npos);
    CHECK(help.out.find(o.help) != std::string::npos);
    std::vector<std::string> given;
    if (o.flag != nullptr) given = {flag};
    if (o.text == &gpucalc::CommonOptions::gpu) given = {flag, "a100"};
    if (o.text == &gpucalc::CommonOptions::format) given = {flag, "json"};
    if (o.text == &gpucalc::CommonOptions::sweep) given = {flag, "regs"};
    if (o.text == &gpucalc::CommonOptions::sms) given = {flag, "66"};
    if (given.empty()) continue;  // --require, --batch, --plot: other inputs (cli_test, batch_test)
    std::vector<std::string> plain = base, through_cli11 = base;
    plain.insert(plain.end(), {"--threads", "256"});
    through_cli11.push_back("--threads=256");
    plain.insert(plain.end(), given.begin(), given.end());
    through_cli11.insert(through_cli11.end(), given.begin(), given.end());
    auto a = run_gpucalc(plain);
    auto b = run_gpucalc(through_cli11);
    CHECK(a.exit_code == b.exit_code);
    CHECK(a.out == b.out);
    CHECK(a.err == b.err);
    CHECK((a.exit_code != 0 || !a.out.empty()));
  }
}

TEST_CASE("hw list and hw show read without CLI11 answer as through CLI11") {
  // `--format=F` sends the same call through CLI11; the plain reader takes `--format F`.
  for (const char* format : {"text", "json", "csv", "md", "toml", "xml"}) {
    for (std::vector<std::string> words : {std::vector<std::string>{"list"}, {"show", "h100"}, {"show", "H100-SXM"},
                                           {"show", "hw/t4.toml"}, {"show", "nosuch"}}) {
      INFO(format, " ", words.back());
      std::vector<std::string> plain = {"hw"}, through_cli11 = {"hw", std::string("--format=") + format};
      plain.insert(plain.end(), words.begin(), words.end());
      through_cli11.insert(through_cli11.end(), words.begin(), words.end());
      plain.insert(plain.end(), {"--format", format});
      auto a = run_gpucalc(plain);
      auto b = run_gpucalc(through_cli11);
      CHECK(a.exit_code == b.exit_code);
      CHECK(a.out == b.out);
      CHECK(a.err == b.err);
    }
  }
}
