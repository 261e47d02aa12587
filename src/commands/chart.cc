#include "commands/chart.h"

#include <cmath>

namespace gpucalc {
namespace {

double number_of(const std::vector<Value>& values, const std::string& key) {
  const Value* v = find_value(values, key);
  return v != nullptr && !v->missing ? v->number : std::nan("");
}

}  // namespace

plot::Series column(const ChartData& d, const std::string& key, const std::string& name, const std::string& style) {
  plot::Series s;
  s.name = name;
  s.style = style;
  std::string axis = d.axis;
  for (char& c : axis) c = c == '-' ? '_' : c;
  for (const Row& row : d.points) s.points.emplace_back(number_of(row.inputs, axis), number_of(row.results, key));
  return s;
}

double base_result(const ChartData& d, const std::string& key) { return number_of(d.base.results, key); }
double base_input(const ChartData& d, const std::string& key) { return number_of(d.base.inputs, key); }

}  // namespace gpucalc
