// Every subcommand registered as main registers it, read back from CLI11 with the values each
// option can take: a calculator option's from its declaration, the common options' from the
// profiles, the formats, the result keys and the sweep axes.
#include <CLI/CLI.hpp>

#include "commands/describe.h"

#include <algorithm>

#include "core/gpu.h"

namespace gpucalc {
namespace {

// The values of the options every calculator (and a tool) may take, by flag.
void add_common_values(OptionDoc& d, const Calculator* calc) {
  if (d.flag == "--gpu") {
    d.words = builtin_gpu_keys();
    d.files = "toml";
  } else if (d.flag == "--format") {
    d.words = format_names();
  } else if (d.flag == "--batch") {
    d.files = "csv";
  } else if (d.flag == "--plot") {
    d.files = "svg";
  } else if (d.flag == "--out") {
    d.files = "toml";
  } else if (d.flag == "--require" && calc != nullptr) {
    for (const ResultSpec* r : every_result(*calc)) d.words.push_back(r->key);
  } else if (d.flag == "--sweep" && calc != nullptr) {
    for (const OptionSpec* o : every_option(*calc)) {
      if (o->sweep != nullptr) d.words.push_back(o->name);
    }
  }
}

}  // namespace

std::vector<std::string> format_names() {
  std::vector<std::string> names;
  for (Format f : {Format::text, Format::json, Format::csv, Format::md}) names.emplace_back(format_name(f));
  return names;
}

std::vector<CommandDoc> describe_commands() {
  std::vector<CommandDoc> docs;
  for (const Command& c : commands()) {
    CLI::App app;
    CLI::App* sub = app.add_subcommand(c.name, c.help);
    Registered registered;
    const Calculator* calc = c.calculator != nullptr ? &c.calculator() : nullptr;
    if (calc != nullptr) {
      add_calculator(*sub, *calc, registered);
    } else {
      add_tool(*sub, c.tool);
    }
    CommandDoc doc;
    doc.command = &c;
    if (c.tool.words != nullptr) doc.words = c.tool.words();
    if (c.tool.profile_after != nullptr) doc.profile_after = c.tool.profile_after;
    for (const CLI::Option* o : sub->get_options()) {
      if (o->get_lnames().empty()) continue;  // a positional argument: the tool's words
      OptionDoc d;
      d.flag = "--" + o->get_lnames().front();
      d.help = o->get_description();
      d.takes_value = o->get_expected_max() > 0;
      d.repeatable = o->get_multi_option_policy() == CLI::MultiOptionPolicy::TakeAll ||
                     (o->get_expected_max() > 1 && o->get_multi_option_policy() != CLI::MultiOptionPolicy::TakeLast);
      if (calc != nullptr) {
        for (const OptionSpec* s : every_option(*calc)) {
          if (s->flag() != d.flag) continue;
          d.spec = s;
          d.words = s->choices;
        }
      }
      if (d.spec == nullptr) add_common_values(d, calc);
      // A tool's option that takes words (measure --preset): the tool says which.
      if (calc == nullptr && d.takes_value && d.words.empty() && c.tool.option_words != nullptr) {
        d.words = c.tool.option_words(d.flag);
      }
      doc.options.push_back(std::move(d));
    }
    docs.push_back(std::move(doc));
  }
  return docs;
}

namespace {

std::string trim(std::string_view s) {
  const auto first = s.find_first_not_of(' ');
  if (first == std::string_view::npos) return "";
  return std::string(s.substr(first, s.find_last_not_of(' ') - first + 1));
}

// The cells of one Markdown table row; a `|` inside backticks or written \| stays in its cell.
std::vector<std::string> cells(std::string_view line) {
  std::vector<std::string> out;
  std::string cell;
  bool code = false;
  for (std::size_t i = 1; i < line.size(); ++i) {  // after the leading '|'
    const char c = line[i];
    if (c == '\\' && i + 1 < line.size() && line[i + 1] == '|') {
      cell += '|';
      ++i;
    } else if (c == '`') {
      code = !code;
      cell += c;
    } else if (c == '|' && !code) {
      out.push_back(trim(cell));
      cell.clear();
    } else {
      cell += c;
    }
  }
  return out;
}

// Markdown to plain text: backticks dropped.
std::string plain(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c != '`') out += c;
  }
  return trim(out);
}

}  // namespace

std::vector<Example> examples_of(std::string_view subcommand) {
  std::vector<Example> out;
  const std::string_view text = readme_examples();
  const std::string prefix = "`gpucalc " + std::string(subcommand);
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    if (line.empty() || line[0] != '|') continue;
    const std::vector<std::string> row = cells(line);
    if (row.size() < 3 || row[1].rfind(prefix, 0) != 0) continue;
    const std::size_t close = row[1].find('`', 1);
    if (close == std::string::npos || (close != prefix.size() && row[1][prefix.size()] != ' ')) continue;
    Example e;
    e.command = row[1].substr(1, close - 1);
    const std::string note = plain(row[1].substr(close + 1));
    e.answer = plain(row[2]);
    if (!note.empty()) e.answer = note + ": " + e.answer;
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace gpucalc
