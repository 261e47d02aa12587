// The printers' JSON writer against nlohmann-json's own objects (the library gpucalc reads JSON
// with): dotted keys nest, a repeated key keeps its first place and its last value, a value where
// an object stands replaces it and the other way round, strings escaped as the library escapes.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "report/printer.h"

#include <cstdio>

namespace gpucalc {
namespace {

using ordered = nlohmann::ordered_json;

// The object nlohmann builds of `values`, key by key, dumped as gpucalc writes JSON.
std::string library_object(const std::vector<Value>& values) {
  ordered out = ordered::object();
  for (const Value& v : values) {
    ordered* at = &out;
    std::size_t start = 0;
    for (std::size_t dot = v.key.find('.'); dot != std::string::npos; dot = v.key.find('.', start)) {
      ordered& child = (*at)[v.key.substr(start, dot - start)];
      if (!child.is_object()) child = ordered::object();
      at = &child;
      start = dot + 1;
    }
    ordered value;
    if (v.missing) {
      value = nullptr;
    } else if (v.unit == Unit::text) {
      value = v.text;
    } else if (v.unit == Unit::boolean) {
      value = v.flag;
    } else if (!std::isfinite(v.number)) {
      value = nullptr;  // no limit included: a numeric key stays a number or null (issue 36)
    } else if (v.number == std::floor(v.number) && std::fabs(v.number) < 9e15) {
      value = static_cast<long long>(v.number);
    } else {
      value = v.number;
    }
    (*at)[v.key.substr(start)] = value;
  }
  return out.dump(-1, ' ', false, ordered::error_handler_t::replace);
}

}  // namespace

TEST_CASE("a JSON object of values is the library's, whatever its keys") {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<std::vector<Value>> cases = {
      {},
      {Value::num("blocks_per_sm", 4), Value::num("occupancy", 0.375, Unit::fraction), Value::word("limiter", "registers")},
      {Value::num("limits.registers", 4), Value::num("limits.smem", inf), Value::boolean("fits", true),
       Value::num("limits.threads", 8), Value::none("one_more_block.smem")},
      {Value::num("a", 1), Value::num("a", 2), Value::num("b", 3)},          // repeated: first place, last value
      {Value::num("a", 1), Value::num("a.b", 2), Value::num("c", 3)},        // a value becomes an object
      {Value::num("a.b", 1), Value::num("c", 2), Value::num("a", 3)},        // an object becomes a value
      {Value::word("q\"uote", "tab\there"), Value::word("µs", "bad \xff byte"), Value::num("x", -0.0)},
      {Value::num("x.y.z", 1e-9), Value::num("x.y.w", -1e300), Value::num("x.v", std::nan(""))},
  };
  for (const std::vector<Value>& values : cases) {
    std::string got;
    append_json_values(got, values);
    const std::string want = library_object(values);
    CHECK(got == want);
    // A shape made once writes the same object again and again.
    JsonShape shape = JsonShape::of(values);
    CHECK(shape.fits(values));
    std::string twice;
    shape.write(twice, values);
    shape.write(twice, values);
    CHECK(twice == want + want);
  }
}

TEST_CASE("the JSON writer nests objects and arrays with commas between their members") {
  std::string out;
  JsonWriter json(out);
  json.begin_object();
  json.string("command", "measure");
  json.fields({Value::word("device.name", "H200"), Value::num("device.sm_count", 132)});
  json.begin_array("tables");
  for (int i = 0; i < 2; ++i) {
    json.begin_object();
    json.value("n", Value::num("n", i));
    json.strings("notes", {});
    json.end_object();
  }
  json.end_array();
  json.strings("messages", {"a", "b\n"});
  json.end_object();
  CHECK(out == R"({"command":"measure","device":{"name":"H200","sm_count":132},"tables":[{"n":0,"notes":[]},)"
               R"({"n":1,"notes":[]}],"messages":["a","b\n"]})");
}

TEST_CASE("a table prints its columns by format: people's, csv's and json's") {
  const Table table{.columns = {{.key = "field", .right = false},
                                {.key = "value", .right = false, .csv = false, .json = false},
                                {.key = "value", .people = false},
                                {.key = "aliases", .right = false, .list = true}},
                    .json_key = "fields",
                    .keyed = true};
  auto printed = [&](Format format) {
    std::ostringstream out;
    const std::unique_ptr<Printer> printer = make_printer(format, out);
    printer->begin({.title = "head", .fields = {Value::word("key", "k")}});
    printer->table(table);
    print_row(*printer, {Value::word("field", "clock"), Value::word("value", "1980 MHz"), Value::num("value", 1980),
                         Value::word("aliases", "a, b")});
    printer->end_table();
    printer->notes({"a note"});
    printer->end();
    return out.str();
  };
  CHECK(printed(Format::text) == "head\nfield  value     aliases\nclock  1980 MHz  a, b\nnote: a note\n");
  CHECK(printed(Format::md) == "| field | value | aliases |\n| --- | --- | --- |\n| clock | 1980 MHz | a, b |\n\n> a note\n");
  CHECK(printed(Format::csv) == "field,value,aliases\nclock,1980,\"a, b\"\n");
  CHECK(printed(Format::json) == R"({"key":"k","fields":{"clock":{"value":1980,"aliases":["a","b"]}},"notes":["a note"]})"
                                 "\n");
}

}  // namespace gpucalc
