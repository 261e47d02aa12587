// Host-side helpers of measure that need no GPU (and are unit-tested without one): result
// checks against a host reference, the residency count from block records, medians.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cmath>
#include <cstddef>
#include <string>
#include <thread>
#include <vector>

#include "measure/kernels.h"

namespace gpucalc {

/// One element that differs from the host reference.
struct Mismatch {
  std::size_t index = 0;
  double got = 0;
  double want = 0;
};

/// The outcome of comparing every element.
struct CheckResult {
  std::size_t checked = 0;
  std::size_t wrong = 0;
  std::vector<Mismatch> first;  // the first few, by index
};

/// Compares got(i) with want(i) for every i < n: |got - want| <= atol + rtol |want|; NaN
/// never passes. Runs on the host's threads.
template <class Got, class Want>
CheckResult compare_elements(std::size_t n, Got got, Want want, double rtol, double atol) {
  constexpr std::size_t kKeep = 5;
  unsigned threads = std::max(1u, std::min(32u, std::thread::hardware_concurrency()));
  if (n < (1u << 16)) threads = 1;
  std::vector<CheckResult> parts(threads);
  auto work = [&](unsigned t) {
    CheckResult& r = parts[t];
    std::size_t begin = n / threads * t;
    std::size_t end = t + 1 == threads ? n : n / threads * (t + 1);
    for (std::size_t i = begin; i < end; ++i) {
      double g = static_cast<double>(got(i));
      double w = static_cast<double>(want(i));
      bool ok = std::fabs(g - w) <= atol + rtol * std::fabs(w);  // false for NaN
      if (!ok) {
        if (r.first.size() < kKeep) r.first.push_back({i, g, w});
        ++r.wrong;
      }
    }
    r.checked = end - begin;
  };
  if (threads == 1) {
    work(0);
  } else {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work, t);
    for (std::thread& th : pool) th.join();
  }
  CheckResult all;
  for (const CheckResult& r : parts) {
    all.checked += r.checked;
    all.wrong += r.wrong;
    for (const Mismatch& m : r.first) {
      if (all.first.size() < kKeep) all.first.push_back(m);
    }
  }
  return all;
}

/// Throws DeviceError ("WHAT: K of N elements differ from the host reference; [i] got x,
/// expected y; ...") when any element differs.
void require_match(const std::string& what, const CheckResult& result);

/// The most blocks resident at once on one SM, from each block's SM and [start, end) times
/// (a block that starts when another ends does not overlap it); `sms_at_max` counts the SMs
/// that reached it.
int max_resident_per_sm(const std::vector<dev::BlockRecord>& records, int* sms_at_max = nullptr);

/// The median of the timings after dropping the first (the first run pays for warm caches,
/// clocks and lazy loading); throws std::invalid_argument for fewer than two.
double median_after_first(std::vector<double> seconds);

/// One field of every row of a table, in the table's order: column(kRows, &Row::name).
template <class Row, std::size_t N, class Field>
std::vector<Field> column(const Row (&rows)[N], Field Row::*field) {
  std::vector<Field> out;
  out.reserve(N);
  for (const Row& row : rows) out.push_back(row.*field);
  return out;
}

}  // namespace gpucalc

namespace gpucalc {
/// The sum (mod 2^32) of inputs::word(seed, i) for i < n, on the host's threads.
std::uint32_t sum_of_words(std::uint32_t seed, std::size_t n);
}  // namespace gpucalc
