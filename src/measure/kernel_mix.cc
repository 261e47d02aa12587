// measure's kernels read from their SASS (measure/kernel_mix.h).
#include "measure/kernel_mix.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "measure/attention_ref.h"
#include "measure/kernels.h"

namespace gpucalc::cases {

namespace {

/// Opcodes (base) the FP32 pipe runs, and the integer pipe's.
const std::set<std::string> kFp32{"FFMA", "FMUL", "FADD"};
const std::set<std::string> kInteger{"IADD3", "LOP3", "SHF", "LEA", "ISETP", "IMNMX", "SEL", "IABS", "VIADD", "VIADDMNMX"};

/// Bits a count key's access moves a lane: LDS.128 128, LDS 32.
double key_bits(const std::string& key) {
  const std::size_t dot = key.find('.');
  return dot == std::string::npos ? 32 : std::stod(key.substr(dot + 1));
}

bool is_memory(const std::string& base) {
  return base == "LDS" || base == "STS" || base == "LDG" || base == "STG" || base == "LD" || base == "ST" || base == "SHFL";
}

const sass::Function& function_of(const std::vector<sass::Function>& code, int sm, const std::vector<std::string>& parts,
                                  const std::string& kernel) {
  if (code.empty()) throw NoSass{"this gpucalc-measure was built without cuobjdump: it has no SASS of its kernels to count"};
  const sass::Function* f = sass::find(code, sm, parts);
  if (f == nullptr) throw NoSass{fmt::format("no SASS of {} for sm_{} in this build", kernel, sm)};
  return *f;
}

/// A loop's counter step a trip; throws NoSass when the SASS shows none.
double step_of(const sass::Loop& l, const std::string& what) {
  if (!(l.step > 0)) throw NoSass{fmt::format("the {} loop's counter was not found in the SASS", what)};
  return l.step;
}

/// Trips of a loop: the source's range over the counter's step a trip.
double trips_of(const sass::Loop& l, double range, const std::string& what) { return range / step_of(l, what); }

}  // namespace

const std::vector<sass::Function>& kernel_functions() {
  static const std::vector<sass::Function> code = sass::parse(dev::kernel_sass());
  return code;
}

InstructionMix mix_of(const sass::Counts& counts, const std::function<double(const std::string&)>& wavefronts) {
  InstructionMix m;
  for (const auto& [key, n] : counts) {
    if (key == "all") {
      m.instructions = n;
      continue;
    }
    const std::string base = key.substr(0, key.find('.'));
    if (kFp32.count(base) > 0) m.fp32 += n;
    if (kInteger.count(base) > 0) m.integer += n;
    if (base == "MUFU") m.sfu += n;
    if (is_memory(base)) m.wavefronts += n * wavefronts(key);
  }
  return m;
}

double shared_wavefronts(int bytes, const std::function<std::int64_t(int)>& element) {
  SharedAccess a;
  a.element_bytes = bytes;
  for (int lane = 0; lane < 32; ++lane) {
    a.active[static_cast<std::size_t>(lane)] = true;
    a.element[static_cast<std::size_t>(lane)] = element(lane);
  }
  return banks(a).wavefronts;
}

namespace {

/// A global access or a shuffle: the bytes the warp moves through the data path / 128.
double moved_wavefronts(const std::string& key) { return data_path_wavefronts(32 * key_bits(key) / 8); }

}  // namespace

TiledStep tiled_step(const std::vector<sass::Function>& code, int tile, int sm) {
  const std::string kernel = fmt::format("tiled_matmul_kernel<{}>", tile);
  const sass::Function& f = function_of(code, sm, {"tiled_matmul_kernel", fmt::format("ILi{}E", tile)}, kernel);
  const std::vector<sass::Loop> loops = sass::loops(f);
  if (loops.empty()) throw NoSass{kernel + " has no loop in its SASS"};
  const sass::Loop& loop = loops.front();  // its only loop: the K loop
  TiledStep s;
  s.trip = sass::count(f, loop.first, loop.last);
  // the counter t runs over k by T a K step: K steps a trip = its step a trip / T
  s.steps_per_trip = step_of(loop, kernel + " K") / tile;
  const int t = tile;
  // warp 0 of the block: lane = tx + T ty, so tx = lane mod T, ty = lane / T
  // B's column: tb[i][tx] (4 bytes), A's row: ta[ty][i..i+3] (ptxas reads four k as one LDS.128),
  // a tile's store: ta[ty][tx] (the same pattern for tb)
  s.lds_wavefronts = shared_wavefronts(4, [t](int lane) { return lane % t; });
  s.lds128_wavefronts = shared_wavefronts(16, [t](int lane) { return lane / t * t / 4; });
  s.sts_wavefronts = shared_wavefronts(4, [t](int lane) { return lane / t * t + lane % t; });
  const InstructionMix trip = mix_of(s.trip, [&](const std::string& key) {
    if (key == "LDS") return s.lds_wavefronts;
    if (key == "LDS.128") return s.lds128_wavefronts;
    if (key == "STS") return s.sts_wavefronts;
    return moved_wavefronts(key);
  });
  s.step = (1.0 / s.steps_per_trip) * trip;
  return s;
}

TiledTime tiled_time(std::int64_t m, std::int64_t n, std::int64_t k, int tile, const TiledStep& step, int blocks_per_sm,
                     const Gpu& gpu) {
  TiledTime t;
  t.step_clocks = pipe_clocks(step.step, gpu).clocks;
  const double clock = gpu.boost_clock, sms = gpu.sm_count;
  if (!(clock > 0) || sms <= 0 || tile <= 0 || blocks_per_sm <= 0) return t;
  auto ceil_div = [](std::int64_t a, std::int64_t b) { return static_cast<double>((a + b - 1) / b); };
  const double steps = ceil_div(k, tile);
  // warps of 32 outputs x K steps x clocks a step / SMs / clock   [s]
  t.hidden = ceil_div(m * n, 32) * steps * t.step_clocks / sms / clock;
  // + block-steps an SM runs, in rounds of B, x one HBM round trip each / clock   [s]
  t.exposed = t.hidden + ceil_div(m, tile) * ceil_div(n, tile) / (sms * blocks_per_sm) * steps * gpu.latency_hbm_cycles / clock;
  return t;
}

AttentionTile attention_tile(const std::vector<sass::Function>& code, int head_dim, bool causal, int sm, const Gpu& gpu) {
  const std::string kernel = fmt::format("attention_fwd_kernel<{}>", head_dim);
  const sass::Function& f = function_of(code, sm, {"attention_fwd_kernel", fmt::format("ILi{}E", head_dim)}, kernel);
  const std::vector<sass::Loop> all = sass::loops(f);
  // the tile loop: the loop that holds the most others
  const sass::Loop* outer = nullptr;
  std::size_t most = 0;
  for (const sass::Loop& l : all) {
    const std::size_t n = static_cast<std::size_t>(std::count_if(all.begin(), all.end(), [&](const sass::Loop& o) { return l.contains(o); }));
    if (n > most) {
      most = n;
      outer = &l;
    }
  }
  if (outer == nullptr) throw NoSass{kernel + ": no tile loop with inner loops in its SASS"};
  std::vector<sass::Loop> inner;
  for (const sass::Loop& l : all) {
    if (outer->contains(l)) inner.push_back(l);
  }
  // the kernel's addressing (attention.cu), warp 0: tx = lane mod 16, ty = lane / 16
  const int d = head_dim, stride = attn::smem_stride(d), rows = attn::kRowsPerThread, cols = d / 64;
  auto tx = [](int lane) { return lane % 16; };
  auto ty = [](int lane) { return lane / 16; };
  // scores: per step of 4 k, `rows` float4 of Q (row ty x 4 + i) and 4 of K (row tx + 16 j)
  const double q_read = shared_wavefronts(16, [&](int lane) { return static_cast<std::int64_t>(ty(lane) * rows * stride / 4); });
  const double k_read = shared_wavefronts(16, [&](int lane) { return static_cast<std::int64_t>(tx(lane) * stride / 4); });
  const double scores_lds = (rows * q_read + 4 * k_read) / (rows + 4);
  // P V: per step of 4 keys, `rows` float4 of P (row ty x 4 + i) and 4 x D / 64 of V (columns 64 jj + 4 tx)
  const double p_read = shared_wavefronts(16, [&](int lane) { return static_cast<std::int64_t>(ty(lane) * rows * attn::kPStride / 4); });
  const double v_read = shared_wavefronts(16, [&](int lane) { return static_cast<std::int64_t>(tx(lane)); });
  const double pv_lds = (rows * p_read + 4.0 * cols * v_read) / (rows + 4.0 * cols);
  // a load trip's stores: thread i unpacks 8 bf16 of row i / (D / 8), column (i mod D / 8) x 8, as two STS.128
  const int chunks = d / 8;
  const double tile_store = shared_wavefronts(16, [&](int lane) { return static_cast<std::int64_t>((lane / chunks * stride + lane % chunks * 8) / 4); });
  // the softmax's P store: sp[(ty x 4 + i) x kPStride + tx + 16 j]
  const double p_store = shared_wavefronts(4, [&](int lane) { return static_cast<std::int64_t>(ty(lane) * rows * attn::kPStride + tx(lane)); });
  AttentionTile t;
  int ffma_loops = 0;
  auto add = [&](const std::string& what, double trips, const sass::Counts& c, double lds128) {
    TileSegment s;
    s.what = what;
    s.trips = trips;
    s.mix = mix_of(c, [&](const std::string& key) {
      if (key == "LDS.128") return lds128;
      if (key == "STS.128") return tile_store;
      if (key == "STS") return p_store;
      return moved_wavefronts(key);
    });
    // each segment at its own bound: trips x the busiest pipe's clocks a trip
    s.clocks = trips * pipe_clocks(s.mix, gpu).clocks;
    t.clocks += s.clocks;
    t.segments.push_back(s);
  };
  std::size_t at = outer->first;
  bool after_scores = false;
  for (const sass::Loop& l : inner) {
    if (l.first > at) {
      // the straight code before this loop: the shortest way through; with the mask, the block the
      // first branch after the scores skips (attention.cu applies the causal mask right there)
      sass::Counts c = sass::count_shortest(f, at, l.first - 1);
      if (after_scores) {
        const auto blocks = sass::skippable_blocks(f, at, l.first - 1);
        if (!blocks.empty()) {
          t.mask_instructions = static_cast<double>(blocks.front().second - blocks.front().first + 1);
          if (causal) {
            for (const auto& [key, n] : sass::count(f, blocks.front().first, blocks.front().second)) c[key] += n;
          }
        }
        after_scores = false;
      }
      add("straight", 1, c, 0);
    }
    const sass::Counts c = sass::count(f, l.first, l.last);
    const auto ffma = c.find("FFMA");
    if (c.count("LDG.128") > 0) {
      // a K or V tile: 64 rows x D / 8 chunks, the counter stepping by the chunks a trip covers
      const double trips = trips_of(l, attn::kTileKv * chunks, kernel + " K/V load");
      t.load_trips += trips;
      t.load_bytes_per_warp = c.at("LDG.128") * 32 * 16;
      add("K/V loads", trips, c, 0);
    } else if (ffma != c.end() && ffma_loops == 0) {
      ++ffma_loops;
      after_scores = true;
      add("scores", trips_of(l, d, kernel + " scores"), c, scores_lds);  // c over D
    } else if (ffma != c.end()) {
      ++ffma_loops;
      add("P V", trips_of(l, attn::kTileKv, kernel + " P V"), c, pv_lds);  // kk over Bc
    } else {
      add("loop", 1, c, 0);
    }
    at = l.last + 1;
  }
  if (at <= outer->last) add("straight", 1, sass::count_shortest(f, at, outer->last), 0);
  if (ffma_loops != 2 || t.load_trips <= 0) throw NoSass{kernel + ": its SASS does not show the load, scores and P V loops"};
  return t;
}

AccessLoop banks_loop(const std::vector<sass::Function>& code, int access, int sm, sass::Counts* trip) {
  const std::string kernel = fmt::format("banks_kernel<{}>", access == 0 ? "row" : access == 1 ? "column" : "swizzled");
  const sass::Function& f = function_of(code, sm, {"banks_kernel", fmt::format("BankAccessE{}E", access)}, kernel);
  // the read loop: the loop with the shared loads
  for (const sass::Loop& l : sass::loops(f)) {
    const sass::Counts c = sass::count(f, l.first, l.last);
    if (c.count("LDS") == 0) continue;
    // the counter `it` counts accesses: its step is the accesses a trip
    const double accesses = step_of(l, kernel + " read");
    const InstructionMix m = mix_of(c, [](const std::string&) { return 0.0; });
    if (trip != nullptr) *trip = c;
    return AccessLoop{c.at("LDS") / accesses, m.instructions / accesses, m.integer / accesses};
  }
  throw NoSass{kernel + ": no loop of shared loads in its SASS"};
}

OpsMix ops_mix(const std::vector<sass::Function>& code, const std::string& kernel, int sm) {
  const sass::Function& f = function_of(code, sm, {kernel}, kernel);
  std::size_t exit = 0;
  while (exit < f.code.size() && f.code[exit].base() != "EXIT") ++exit;
  if (exit == f.code.size()) throw NoSass{kernel + ": no EXIT in its SASS"};
  OpsMix m;
  std::size_t at = 0;
  for (const sass::Loop& l : sass::loops(f)) {
    if (l.last >= exit) break;
    // the stretch before the loop, once
    if (l.first > at) m.straight = m.straight + mix_of(sass::count_shortest(f, at, l.first - 1), moved_wavefronts);
    // the loop's trip covers `step` ops: its counts / step an op
    const double step = step_of(l, kernel + " op");
    m.per_op = m.per_op + (1.0 / step) * mix_of(sass::count(f, l.first, l.last), moved_wavefronts);
    ++m.loops;
    at = l.last + 1;
  }
  if (m.loops == 0) throw NoSass{kernel + ": no op loop before its first EXIT in its SASS"};
  if (at <= exit) m.straight = m.straight + mix_of(sass::count_shortest(f, at, exit), moved_wavefronts);
  m.per_op_instructions = m.per_op.instructions;
  return m;
}

}  // namespace gpucalc::cases
