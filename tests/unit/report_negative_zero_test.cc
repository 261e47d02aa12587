// -0 prints as 0 in every writer (text, md, csv, json; a value, a document, a table) and in
// `hw show` of a profile whose field is -0.0.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <unistd.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "report/printer.h"

#include <nlohmann/json.hpp>

#include "../report_negative_zero_helpers.h"

namespace gpucalc {
namespace {

// Every unit a number can carry, for a -0 of each.
const std::vector<Unit> kNumberUnits = {Unit::count,        Unit::fraction, Unit::flop_per_byte, Unit::cycles,
                                        Unit::seconds,      Unit::bytes,    Unit::onchip_bytes,  Unit::bytes_per_second,
                                        Unit::flops,        Unit::flops_per_second};

TEST_CASE("-0 is 0 in each cell writer, for every unit") {
  CHECK(has_negative_zero("-0 FLOP/s"));
  CHECK_FALSE(has_negative_zero("-0.5 s, 1e-05, 10-05"));
  for (Unit unit : kNumberUnits) {
    const Value v = Value::num("x", -0.0, unit);
    const Value zero = Value::num("x", 0.0, unit);
    INFO(static_cast<int>(unit) << ": " << text_cell(v));
    CHECK(text_cell(v) == text_cell(zero));
    CHECK_FALSE(has_negative_zero(text_cell(v)));
    CHECK(csv_cell(v) == "0");
    std::string json_text;
    append_json_value(json_text, v);
    CHECK(json_text == "0");
  }
  CHECK(text_cell(Value::num("x", -0.0, Unit::flops_per_second)) == "0 FLOP/s");
  CHECK(text_cell(Value::num("x", -0.0, Unit::fraction)) == "0%");
  CHECK(raw_number(-0.0) == "0");
}

TEST_CASE("-0 is 0 in a whole case and a table, in every format") {
  Row row;
  row.inputs = {Value::num("flops", -0.0, Unit::flops)};
  row.results = {Value::num("attainable", -0.0, Unit::flops_per_second), Value::num("share", -0.0, Unit::fraction)};
  for (Format format : {Format::text, Format::json, Format::csv, Format::md}) {
    std::ostringstream case_out;
    {
      const std::unique_ptr<Printer> printer = make_printer(format, case_out);
      printer->begin({.title = "roofline on NVIDIA H100 (h100)", .fields = {Value::word("command", "roofline")}});
      printer->record(row);
      printer->end();
    }
    INFO(format_name(format) << ":\n" << case_out.str());
    CHECK_FALSE(has_negative_zero(case_out.str()));
    std::ostringstream table_out;
    {
      const std::unique_ptr<Printer> printer = make_printer(format, table_out);
      printer->begin({.object = true});
      printer->table({.columns = {{.key = "attainable"}, {.key = "share"}}, .json_key = "rows"});
      print_row(*printer, row.results);
      printer->end_table();
      printer->end();
    }
    INFO(table_out.str());
    CHECK_FALSE(has_negative_zero(table_out.str()));
    CHECK(table_out.str().find('0') != std::string::npos);
  }
}

}  // namespace
}  // namespace gpucalc
