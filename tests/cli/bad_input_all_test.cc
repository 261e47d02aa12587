// Bad input to every option of every subcommand, through the binary: each case exits 2 with
// exactly one line on stderr that names the option and the accepted form, and nothing on
// stdout. A second test reads each subcommand's --help so that an option added later without a
// row here fails the suite.
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>
#include "../verify_helpers.h"
#include "commands/commands.h"

namespace {

struct BadInput {
  std::vector<std::string> args;
  const char* option;    // the option (or word) the message must name
  const char* accepted;  // a piece of the accepted form the message must give
};

// The tables, one a subcommand: generated from runs of every option with values that are out of
// range, malformed, of the wrong unit, NaN, infinite or too large, then each message read and
// checked by hand.

/// The rows of gpucalc occupancy.
const std::vector<BadInput>& occupancy_rows() {
  static const std::vector<BadInput> rows = {
    {{"occupancy", "--threads", "256", "--regs", "64", "--gpu", "h1000"}, "--gpu", "one of a10, a100, a100-40gb-sxm"},
    {{"occupancy", "--threads", "256", "--regs", "64", "--sms", "0"}, "--sms", "invalid value '0': expected a whole number of SMs from 1 to 1,024, such as 4 or 66"},
    {{"occupancy", "--threads", "256", "--regs", "64", "--sms", "-1"}, "--sms", "invalid value '-1': expected a whole number of SMs from 1 to 1,024, such as 4 or 66"},
    {{"occupancy", "--threads", "256", "--regs", "64", "--sms", "2.5"}, "--sms", "invalid value '2.5': expected a whole number of SMs from 1 to 1,024, such as 4 or 66"},
    {{"occupancy", "--threads", "256", "--regs", "64", "--sms", "1025"}, "--sms", "invalid value '1025': expected a whole number of SMs from 1 to 1,024, such as 4 or 66"},
    {{"occupancy", "--threads", "256", "--regs", "64", "--sms", "abc"}, "--sms", "invalid value 'abc': expected a whole number of SMs from 1 to 1,024, such as 4 or 66"},
    {{"occupancy", "--threads", "256", "--regs", "64", "--cluster", "2", "--sms", "4"}, "--sms", "'4' is refused here: with --cluster, residency depends on the GPC layout"},
    {{"occupancy", "--threads", "256", "--regs", "64", "--sms", ""}, "--sms", "invalid value '': expected a whole number of SMs from 1 to 1,024"},
    {{"occupancy", "--threads", "256", "--regs", "64", "--sms"}, "--sms", "--help"},
    {{"occupancy", "--threads", "256", "--regs", "64", "--gpu", "/nonexistent.toml"}, "--gpu", "a readable profile .toml"},
    {{"occupancy", "--threads", "256", "--regs", "64", "--format", "yaml"}, "--format", "one of text, json"},
    {{"occupancy", "--threads", "256", "--regs", "64", "--require", "occupancy>>0.5"}, "--require", "invalid value 'occupancy>>0.5': expected a value for occupancy"},
    {{"occupancy", "--threads", "256", "--regs", "64", "--require", "nokey>=1"}, "--require", "a results key of"},
    {{"occupancy", "--threads", "256", "--regs", "64", "--batch", "/nonexistent.csv"}, "--batch", "a readable CSV file"},
    {{"occupancy", "--threads", "256", "--regs", "64", "--bogus", "1"}, "--bogus", "accepted options"},
    {{"occupancy", "--threads", "0", "--regs", "64"}, "--threads", "'0' is out of range: expected a whole number, 1 to 1,024"},
    {{"occupancy", "--threads", "1025", "--regs", "64"}, "--threads", "'1025' is out of range: expected a whole number, 1 to 1,024"},
    {{"occupancy", "--threads", "abc", "--regs", "64"}, "--threads", "invalid value 'abc': expected a whole number (256 or 0xff), 1 to 1,024"},
    {{"occupancy", "--threads", "2.5", "--regs", "64"}, "--threads", "invalid value '2.5': expected a whole number (256 or 0xff), 1 to 1,024"},
    {{"occupancy", "--threads", "256", "--regs", "0"}, "--regs", "'0' is out of range: expected a whole number, 1 to 255"},
    {{"occupancy", "--threads", "256", "--regs", "256"}, "--regs", "'256' is out of range: expected a whole number, 1 to 255"},
    {{"occupancy", "--threads", "256", "--regs", "x"}, "--regs", "invalid value 'x': expected a whole number (0xff), 1 to 255"},
    {{"occupancy", "--threads", "256", "--regs", "64", "--smem", "-1"}, "--smem", "'-1' is out of range: expected a size (KB = KiB = 1024 bytes), 0 B to 227 KiB"},
    {{"occupancy", "--threads", "256", "--regs", "64", "--smem", "1TB"}, "--smem", "a size such as"},
    {{"occupancy", "--threads", "256", "--regs", "64", "--smem", "40QB"}, "--smem", "a size such as"},
    {{"occupancy", "--threads", "256", "--regs", "64", "--carveout", "101"}, "--carveout", "'101' is out of range: expected a fraction, 0% to 100%"},
    {{"occupancy", "--threads", "256", "--regs", "64", "--carveout", "-5"}, "--carveout", "'-5' is out of range: expected a fraction, 0% to 100%"},
    {{"occupancy", "--threads", "256", "--regs", "64", "--carveout", "abc"}, "--carveout", "a fraction such as"},
    {{"occupancy", "--suggest", "--regs", "32", "--smem-per-thread", "4QB"}, "--smem-per-thread", "a size such as 40KB"},
    {{"occupancy", "--suggest", "--regs", "32", "--smem-per-thread", "-1"}, "--smem-per-thread", "'-1' is out of range"},
    {{"occupancy", "--suggest", "--regs", "32", "--max-threads", "2000"}, "--max-threads", "'2000' is out of range: expected a whole number, 1 to 1,024"},
    {{"occupancy", "--suggest", "--regs", "32", "--max-threads", "x"}, "--max-threads", "a whole number"},
    {{"occupancy", "--threads", "256", "--regs", "32", "--target-blocks", "40"}, "--target-blocks", "1 to 32"},
    {{"occupancy", "--threads", "256", "--regs", "32", "--target-blocks", "9"}, "--target-blocks", "a whole number from 1 to 8"},
    {{"occupancy", "--threads", "256", "--regs", "32", "--cluster", "20"}, "--cluster", "1 to 16"},
    {{"occupancy", "--threads", "256", "--regs", "32", "--cluster", "2.5"}, "--cluster", "a whole number"},
    {{"occupancy", "--from", "/nonexistent", "--threads", "256"}, "--from", "(this one cannot be opened)"},
    {{"occupancy", "--from", "tests/data/v100.toml", "--threads", "256"}, "--from", "this one has none"},
    {{"occupancy", "--from", "tests/data/kernels/spill.ptxas.txt", "--threads", "256", "--arch", "sm9"}, "--arch", "an architecture such as sm_90"},
    {{"occupancy", "--threads", "256", "--regs", "64", "--model", "exactly"}, "--model", "invalid value 'exactly': expected exact, simple: exact (NVIDIA's rules, cuda_occupancy.h) or simple (min of R / (t r), S / s, T / t, B: no allocation units) (did you mean 'exact'?)"},
    {{"occupancy", "--threads", "256", "--regs", "64", "--sweep", "foo"}, "--sweep", "invalid value 'foo': expected AXIS, AXIS=FROM:TO, AXIS=FROM:TO:STEP or AXIS=FROM:TO:xFACTOR with AXIS one of threads, regs, smem"},
    {{"occupancy", "--threads", "256", "--regs", "64", "--sweep", "threads=10:1"}, "--sweep", "invalid value 'threads=10:1': expected FROM at most TO"},
    {{"occupancy", "--threads", "256", "--regs", "64", "--sweep", "threads=1:2:0"}, "--sweep", "invalid value 'threads=1:2:0': expected a STEP greater than 0"},
    {{"occupancy", "--threads"}, "--threads", "--help"},
    {{"occupancy", "--threads", "256", "--regs", "64", "--plot", "/nonexistent/x.svg"}, "--plot", "a path to an"},
    {{"occupancy", "--threads", "256", "--regs", "64", "--gpu"}, "--gpu", "--help"},
    {{"occupancy", "--threads", "256", "--regs", "64", "--require", "occupancy>=nan"}, "--require", "invalid value 'occupancy>=nan': expected a value for occupancy: a fraction such as 0.5 or 50%"},
    {{"occupancy", "--threads", "256", "--regs", "64", "--smem", "1e-31"}, "--smem", "a size such as"},
    // Options the engine added: its sweep axes, banks --mask, --strict (a flag).
    {{"occupancy", "--threads", "256", "--regs", "64", "--strict=yes"}, "--strict", "a flag takes no value: expected --strict alone"},
  };
  return rows;
}

/// The rows of gpucalc little.
const std::vector<BadInput>& little_rows() {
  static const std::vector<BadInput> rows = {
    {{"little", "--gpu", "h1000"}, "--gpu", "one of a10, a100, a100-40gb-sxm"},
    {{"little", "--sms", "0"}, "--sms", "invalid value '0': expected a whole number of SMs from 1 to 1,024, such as 4 or 66"},
    {{"little", "--gpu", "/nonexistent.toml"}, "--gpu", "a readable profile .toml"},
    {{"little", "--format", "yaml"}, "--format", "one of text, json"},
    {{"little", "--require", "occupancy>>0.5"}, "--require", "a results key of"},
    {{"little", "--require", "nokey>=1"}, "--require", "a results key of"},
    {{"little", "--batch", "/nonexistent.csv"}, "--batch", "a readable CSV file"},
    {{"little", "--bogus", "1"}, "--bogus", "accepted options"},
    {{"little", "--bandwidth", "0"}, "--bandwidth", "a bandwidth with a"},
    {{"little", "--bandwidth", "fast"}, "--bandwidth", "a bandwidth with a"},
    {{"little", "--bandwidth", "3.35TB"}, "--bandwidth", "a bandwidth with a"},
    {{"little", "--latency", "0"}, "--latency", "a time with a"},
    {{"little", "--latency", "400"}, "--latency", "a time with a"},
    {{"little", "--latency", "-1ns"}, "--latency", "a time with a"},
    {{"little", "--bytes-per-load", "0"}, "--bytes-per-load", "a size (KB = KiB = 1024 bytes), greater than 0 B"},
    {{"little", "--bytes-per-load", "x"}, "--bytes-per-load", "a size such as"},
    {{"little", "--issue-cycles", "4", "--wait-cycles", "400", "--warps", "0"}, "--warps", "a number, greater than 0"},
    {{"little", "--issue-cycles", "4", "--wait-cycles", "400", "--warps", "x"}, "--warps", "a number such as"},
    {{"little", "--warps", "4", "--wait-cycles", "400", "--issue-cycles", "0"}, "--issue-cycles", "a number of cycles"},
    {{"little", "--warps", "4", "--wait-cycles", "400", "--issue-cycles", "x"}, "--issue-cycles", "a number of cycles"},
    {{"little", "--warps", "4", "--issue-cycles", "4", "--wait-cycles", "-1"}, "--wait-cycles", "a number of cycles"},
    {{"little", "--warps", "4", "--issue-cycles", "4", "--wait-cycles", "x"}, "--wait-cycles", "a number of cycles"},
    {{"little", "--sweep", "latency=10:1"}, "--sweep", "invalid value 'latency=10:1': expected FROM, TO and STEP as --latency takes them: a time with a unit"},
    {{"little", "--sweep", "bandwidth=1:2"}, "--sweep", "invalid value 'bandwidth=1:2': expected AXIS, AXIS=FROM:TO, AXIS=FROM:TO:STEP or AXIS=FROM:TO:xFACTOR with AXIS one of latency"},
    {{"little", "--plot", "/nonexistent/x.svg"}, "--plot", "a path to an"},
    {{"little", "--latency", "1e-31s"}, "--latency", "a time with a"},
    // Under load (docs/little.md).
    {{"little", "--gpu", "h200", "--warps-per-sm", "0"}, "--warps-per-sm", "a whole number, 1 to 1,024"},
    {{"little", "--gpu", "h200", "--warps-per-sm", "x"}, "--warps-per-sm", "a whole number (256 or 0xff)"},
    {{"little", "--gpu", "h200", "--warps-per-sm", "4", "--loads-per-warp", "65"}, "--loads-per-warp", "a whole number, 1 to 64"},
    {{"little", "--gpu", "h200", "--warps-per-sm", "4", "--bytes-per-lane", "0"}, "--bytes-per-lane", "above 0 B to 64 B"},
    {{"little", "--gpu", "h200", "--warps-per-sm", "4", "--bytes-per-lane", "128"}, "--bytes-per-lane", "above 0 B to 64 B"},
    // Options the engine added: its sweep axes, banks --mask, --strict (a flag).
    {{"little", "--sweep", "latency=1ns:1ms:0ns"}, "--sweep", "invalid value 'latency=1ns:1ms:0ns': expected a STEP greater than 0"},
  };
  return rows;
}

/// The rows of gpucalc sectors.
const std::vector<BadInput>& sectors_rows() {
  static const std::vector<BadInput> rows = {
    {{"sectors", "--stride", "2", "--gpu", "h1000"}, "--gpu", "one of a10, a100, a100-40gb-sxm"},
    {{"sectors", "--stride", "2", "--sms", "-4"}, "--sms", "invalid value '-4': expected a whole number of SMs from 1 to 1,024, such as 4 or 66"},
    {{"sectors", "--stride", "2", "--gpu", "/nonexistent.toml"}, "--gpu", "a readable profile .toml"},
    {{"sectors", "--stride", "2", "--format", "yaml"}, "--format", "one of text, json"},
    {{"sectors", "--stride", "2", "--require", "occupancy>>0.5"}, "--require", "a results key of"},
    {{"sectors", "--stride", "2", "--require", "nokey>=1"}, "--require", "a results key of"},
    {{"sectors", "--stride", "2", "--batch", "/nonexistent.csv"}, "--batch", "a readable CSV file"},
    {{"sectors", "--stride", "2", "--plot", "out.png"}, "--plot", "invalid value 'out.png': expected a file name ending in .svg"},
    {{"sectors", "--stride", "2", "--bogus", "1"}, "--bogus", "accepted options"},
    {{"sectors", "--stride", "-1"}, "--stride", "'-1' is out of range: expected a whole number, 0 to 549,755,813,888"},
    {{"sectors", "--stride", "x"}, "--stride", "invalid value 'x': expected a whole number (256, 2^24, 16,384 or 0xff), 0 to 549,755,813,888"},
    {{"sectors", "--stride", "2^70"}, "--stride", "'2^70' is out of range: expected a whole number, 0 to 549,755,813,888"},
    {{"sectors", "--stride", "2", "--elem", "3"}, "--elem", "an element size in"},
    {{"sectors", "--stride", "2", "--elem", "0"}, "--elem", "an element size in"},
    {{"sectors", "--stride", "2", "--elem", "32"}, "--elem", "an element size in"},
    {{"sectors", "--stride", "2", "--offset", "-1"}, "--offset", "'-1' is out of range: expected a size (KB = KiB = 1024 bytes), 0 B to 268,435,456 MiB"},
    {{"sectors", "--stride", "2", "--offset", "x"}, "--offset", "a size such as"},
    {{"sectors", "--stride", "2", "--active", "0"}, "--active", "'0' is out of range: expected a whole number, 1 to 32"},
    {{"sectors", "--stride", "2", "--active", "33"}, "--active", "'33' is out of range: expected a whole number, 1 to 32"},
    {{"sectors", "--stride", "2", "--mask", "0xfffffffff"}, "--mask", "'0xfffffffff' is out of range: expected a whole number, 1 to 4,294,967,295"},
    {{"sectors", "--stride", "2", "--mask", "zz"}, "--mask", "invalid value 'zz': expected a whole number (256, 2^24, 16,384 or 0xff), 1 to 4,294,967,295"},
    {{"sectors", "--addresses", "1,2,x"}, "--addresses", "a comma list of"},
    {{"sectors", "--addresses", "t/0"}, "--addresses", "an integer expression in"},
    {{"sectors", "--addresses", "-1"}, "--addresses", "values from 0 to"},
    {{"sectors", "--access", "row", "--cols", "0"}, "--cols", "'0' is out of range: expected a whole number, 1 to 17,592,186,044,416"},
    {{"sectors", "--access", "row", "--cols", "x"}, "--cols", "invalid value 'x': expected a whole number (256, 2^24, 16,384 or 0xff), 1 to 17,592,186,044,416"},
    {{"sectors", "--cols", "4096", "--access", "diagonal"}, "--access", "invalid value 'diagonal': expected row, column: lane t reads (i, t)"},
    {{"sectors", "--cols", "4096", "--access", "row", "--row", "-1"}, "--row", "'-1' is out of range: expected a whole number, 0 to 17,592,186,044,416"},
    {{"sectors", "--cols", "4096", "--access", "row", "--row", "x"}, "--row", "invalid value 'x': expected a whole number (256, 2^24, 16,384 or 0xff), 0 to 17,592,186,044,416"},
    {{"sectors", "--cols", "4096", "--access", "column", "--col", "-1"}, "--col", "'-1' is out of range: expected a whole number, 0 to 17,592,186,044,415"},
    {{"sectors", "--cols", "4096", "--access", "column", "--col", "4096"}, "--col", "invalid value '4096': expected a column from 0 to 4,095 (the matrix has 4,096 columns)"},
    {{"sectors", "--stride", "2", "--gpu"}, "--gpu", "--help"},
    {{"sectors", "--stride", "2", "--require", "occupancy>=nan"}, "--require", "a results key of"},
    {{"sectors", "--stride", "2", "--mask", "0"}, "--mask", "'0' is out of range: expected a whole number, 1 to 4,294,967,295"},
    {{"sectors", "--cols", "4096", "--access", "column", "--rows", "0"}, "--rows", "'0' is out of range: expected a whole number, 1 to 17,592,186,044,416"},
    {{"sectors", "--stride", "2", "--rows", "1024"}, "--rows", "invalid value '1024': expected a matrix's rows with --cols N --access column"},
    // Options the engine added: its sweep axes, banks --mask, --strict (a flag).
    {{"sectors", "--sweep", "bogus"}, "--sweep", "invalid value 'bogus': expected AXIS, AXIS=FROM:TO, AXIS=FROM:TO:STEP or AXIS=FROM:TO:xFACTOR with AXIS one of stride"},
    {{"sectors", "--sweep", "stride=abc:4"}, "--sweep", "invalid value 'stride=abc:4': expected FROM, TO and STEP as --stride takes them: a whole number (256, 2^24, 16,384 or 0xff), 0 to 549,755,813,888"},
    {{"sectors", "--sweep", "stride=-1:4"}, "--sweep", "'stride=-1:4' leaves the range of --stride: expected a whole number (256, 2^24, 16,384 or 0xff), 0 to 549,755,813,888"},
  };
  return rows;
}

/// The rows of gpucalc banks.
const std::vector<BadInput>& banks_rows() {
  static const std::vector<BadInput> rows = {
    {{"banks", "--width", "33", "--access", "column", "--gpu", "h1000"}, "--gpu", "one of a10, a100, a100-40gb-sxm"},
    {{"banks", "--width", "33", "--access", "column", "--sms", "4.5"}, "--sms", "invalid value '4.5': expected a whole number of SMs from 1 to 1,024, such as 4 or 66"},
    {{"banks", "--width", "33", "--access", "column", "--gpu", "/nonexistent.toml"}, "--gpu", "a readable profile .toml"},
    {{"banks", "--width", "33", "--access", "column", "--format", "yaml"}, "--format", "one of text, json"},
    {{"banks", "--width", "33", "--access", "column", "--require", "occupancy>>0.5"}, "--require", "a results key of"},
    {{"banks", "--width", "33", "--access", "column", "--require", "nokey>=1"}, "--require", "a results key of"},
    {{"banks", "--width", "33", "--access", "column", "--batch", "/nonexistent.csv"}, "--batch", "a readable CSV file"},
    {{"banks", "--width", "33", "--access", "column", "--plot", "out.png"}, "--plot", "invalid value 'out.png': expected a file name ending in .svg"},
    {{"banks", "--width", "33", "--access", "column", "--bogus", "1"}, "--bogus", "accepted options"},
    {{"banks", "--width", "0", "--access", "column"}, "--width", "'0' is out of range: expected a whole number, 1 to 1,048,576"},
    {{"banks", "--width", "x", "--access", "column"}, "--width", "invalid value 'x': expected a whole number (256, 16,384 or 0xff), 1 to 1,048,576"},
    {{"banks", "--width", "33", "--access", "column", "--rows", "0"}, "--rows", "'0' is out of range: expected a whole number, 1 to 1,048,576"},
    {{"banks", "--width", "33", "--access", "column", "--rows", "x"}, "--rows", "invalid value 'x': expected a whole number (256, 16,384 or 0xff), 1 to 1,048,576"},
    {{"banks", "--width", "33", "--access", "column", "--elem", "3"}, "--elem", "an element size in"},
    {{"banks", "--width", "33", "--access", "column", "--elem", "6"}, "--elem", "an element size in bytes of 1, 2, 4, 8 or 16"},
    {{"banks", "--width", "33", "--access", "zigzag"}, "--access", "invalid value 'zigzag': expected row, column, diagonal, word: "},
    {{"banks", "--width", "32", "--access", "row", "--row", "-1"}, "--row", "'-1' is out of range: expected a whole number, 0 to 1,048,576"},
    {{"banks", "--width", "32", "--access", "row", "--row", "32"}, "--row", "invalid value '32': expected a row from 0 to 31"},
    {{"banks", "--width", "32", "--access", "column", "--col", "-1"}, "--col", "'-1' is out of range: expected a whole number, 0 to 1,048,576"},
    {{"banks", "--width", "32", "--access", "column", "--col", "32"}, "--col", "invalid value '32': expected a column from 0 to 31"},
    {{"banks", "--width", "32", "--access", "row", "--active", "0"}, "--active", "'0' is out of range: expected a whole number, 1 to 32"},
    {{"banks", "--width", "32", "--access", "row", "--active", "33"}, "--active", "'33' is out of range"},
    {{"banks", "--width", "32", "--access", "row", "--active", "4", "--mask", "0xf"}, "--mask", "invalid value '0xf': expected either --active N or --mask BITS, not both"},
    {{"banks", "--words", "t/0"}, "--words", "an integer expression in"},
    {{"banks", "--words", "x+1"}, "--words", "an integer expression in"},
    {{"banks", "--width", "33", "--access", "column", "--pad", "-1"}, "--pad", "'-1' is out of range: expected a whole number, 0 to 1,024"},
    {{"banks", "--width", "33", "--access", "column", "--pad", "x"}, "--pad", "invalid value 'x': expected a whole number (256 or 0xff), 0 to 1,024"},
    {{"banks", "--width", "33", "--access", "column", "--swizzle", "rot"}, "--swizzle", "invalid value 'rot': expected xor, none: "},
    {{"banks", "--width", "33", "--access", "column", "--gpu"}, "--gpu", "--help"},
    {{"banks", "--width", "33", "--access", "column", "--require", "occupancy>=nan"}, "--require", "a results key of"},
    {{"banks", "--width", "33", "--access", "column", "--swizzle", "xor", "--pad", "1e31"}, "--pad", "invalid value '1e31': expected a whole number (256 or 0xff), 0 to 1,024"},
    // Options the engine added: its sweep axes, banks --mask, --strict (a flag).
    {{"banks", "--access", "column", "--mask", "0"}, "--mask", "'0' is out of range: expected a whole number, 1 to 4,294,967,295"},
    {{"banks", "--access", "column", "--lds", "0"}, "--lds", "'0' is out of range: expected a number, 0.001 to 1,000,000"},
    {{"banks", "--access", "column", "--instructions", "2e6"}, "--instructions", "'2e6' is out of range: expected a number, 0.001 to 1,000,000"},
    {{"banks", "--access", "column", "--lds", "2", "--instructions", "1"}, "--instructions", "invalid value '1': expected warp instructions per access of at least --lds (2)"},
    {{"banks", "--access", "column", "--instructions", "1", "--integer", "2"}, "--integer", "invalid value '2': expected integer-pipe instructions per access of at most --instructions (1)"},
    {{"banks", "--access", "column", "--integer", "-0.5"}, "--integer", "'-0.5' is out of range: expected a number, 0 to 1,000,000"},
    {{"banks", "--access", "column", "--mask", "0x1ffffffff"}, "--mask", "'0x1ffffffff' is out of range: expected a whole number, 1 to 4,294,967,295"},
    {{"banks", "--access", "column", "--mask", "zz"}, "--mask", "invalid value 'zz': expected a whole number (256, 2^24, 16,384 or 0xff), 1 to 4,294,967,295"},
    {{"banks", "--access", "column", "--sweep", "foo"}, "--sweep", "invalid value 'foo': expected AXIS, AXIS=FROM:TO, AXIS=FROM:TO:STEP or AXIS=FROM:TO:xFACTOR with AXIS one of width, pad"},
    {{"banks", "--access", "column", "--sweep", "width=0:64"}, "--sweep", "'width=0:64' leaves the range of --width: expected a whole number (256, 16,384 or 0xff), 1 to 1,048,576"},
    {{"banks", "--access", "column", "--sweep", "pad=0:2000"}, "--sweep", "'pad=0:2000' leaves the range of --pad: expected a whole number (256 or 0xff), 0 to 1,024"},
  };
  return rows;
}

/// The rows of gpucalc fusion.
const std::vector<BadInput>& fusion_rows() {
  static const std::vector<BadInput> rows = {
    {{"fusion", "--preset", "unary", "--ops", "4", "--n", "1e8", "--gpu", "h1000"}, "--gpu", "one of a10, a100, a100-40gb-sxm"},
    {{"fusion", "--preset", "unary", "--ops", "4", "--n", "1e8", "--sms", "1e31"}, "--sms", "invalid value '1e31': expected a whole number of SMs from 1 to 1,024, such as 4 or 66"},
    {{"fusion", "--preset", "unary", "--ops", "4", "--n", "1e8", "--gpu", "/nonexistent.toml"}, "--gpu", "a readable profile .toml"},
    {{"fusion", "--preset", "unary", "--ops", "4", "--n", "1e8", "--format", "yaml"}, "--format", "one of text, json"},
    {{"fusion", "--preset", "unary", "--ops", "4", "--n", "1e8", "--require", "occupancy>>0.5"}, "--require", "a results key of"},
    {{"fusion", "--preset", "unary", "--ops", "4", "--n", "1e8", "--require", "nokey>=1"}, "--require", "a results key of"},
    {{"fusion", "--preset", "unary", "--ops", "4", "--n", "1e8", "--batch", "/nonexistent.csv"}, "--batch", "a readable CSV file"},
    {{"fusion", "--preset", "unary", "--ops", "4", "--n", "1e8", "--bogus", "1"}, "--bogus", "accepted options"},
    {{"fusion", "--preset", "ternary", "--ops", "4", "--n", "1e8"}, "--preset", "unary, binary, rmsnorm, swiglu"},
    {{"fusion", "--preset", "unary", "--ops", "4", "--n", "1e8", "--gpu", "h200", "--warps-per-sm", "0"}, "--warps-per-sm", "'0' is out of range: expected a whole number, 1 to 1,024"},
    {{"fusion", "--preset", "unary", "--ops", "4", "--n", "1e8", "--gpu", "h200", "--warps-per-sm", "65"}, "--warps-per-sm", "expected at most 64 (h200's max_threads_per_sm / 32)"},
    {{"fusion", "--preset", "unary", "--ops", "4", "--n", "1e8", "--warps-per-sm", "16"}, "--gpu", "a profile with memory_read_bandwidth, latency_queue_time and warp_return_bandwidth"},
    {{"fusion", "--preset", "unary", "--ops", "4", "--n", "1e8", "--gpu", "h200", "--warps-per-sm", "16", "--loads-per-warp", "0"}, "--loads-per-warp", "'0' is out of range: expected a whole number, 1 to 64"},
    {{"fusion", "--preset", "unary", "--ops", "4", "--n", "1e8", "--gpu", "h200", "--loads-per-warp", "4"}, "--loads-per-warp", "--loads-per-warp only with --warps-per-sm W"},
    {{"fusion", "--preset", "unary", "--ops", "0", "--n", "1e8"}, "--ops", "invalid value '0': expected a whole number of ops from 1 to 10,000, or op names such as sin,cos,exp"},
    {{"fusion", "--preset", "unary", "--ops", "x", "--n", "1e8"}, "--ops", "invalid value 'x': expected op names separated by commas (add, sub, mul, div, neg, abs, exp, log, sin, cos, tanh, sigmoid, silu, gelu, relu, rsqrt, pow), or a count from 1 to 10,000"},
    {{"fusion", "--preset", "unary", "--ops", "4", "--n", "0"}, "--n", "'0' is out of range: expected a whole number, 1 to 100,000,000,000,000"},
    {{"fusion", "--preset", "unary", "--ops", "4", "--n", "-5"}, "--n", "'-5' is out of range: expected a whole number, 1 to 100,000,000,000,000"},
    {{"fusion", "--preset", "unary", "--ops", "4", "--n", "1e31"}, "--n", "invalid value '1e31': expected a whole number (256, 2^24, 16,384 or 0xff), 1 to 100,000,000,000,000"},
    {{"fusion", "--preset", "rmsnorm", "--rows", "0", "--cols", "4096"}, "--rows", "'0' is out of range: expected a whole number, 1 to 1,099,511,627,776"},
    {{"fusion", "--preset", "rmsnorm", "--rows", "x", "--cols", "4096"}, "--rows", "invalid value 'x': expected a whole number (256, 2^24, 16,384 or 0xff), 1 to 1,099,511,627,776"},
    {{"fusion", "--preset", "rmsnorm", "--rows", "16384", "--cols", "0"}, "--cols", "'0' is out of range: expected a whole number, 1 to 1,099,511,627,776"},
    {{"fusion", "--preset", "rmsnorm", "--rows", "16384", "--cols", "x"}, "--cols", "invalid value 'x': expected a whole number (256, 2^24, 16,384 or 0xff), 1 to 1,099,511,627,776"},
    {{"fusion", "--preset", "unary", "--ops", "4", "--n", "1e8", "--dtype", "fp12"}, "--dtype", "invalid value 'fp12': expected fp64, fp32, tf32, bf16, fp16, fp8_e4m3, fp8_e5m2, fp8, int8: the element type (did you mean 'fp32'?)"},
    {{"fusion", "--preset", "unary", "--ops", "4", "--n", "1e8", "--launch", "0"}, "--launch", "eager, graph, cuda or a time per kernel"},
    {{"fusion", "--preset", "unary", "--ops", "4", "--n", "1e8", "--launch", "3.6"}, "--launch", "eager, graph, cuda or a time per kernel"},
    {{"fusion", "--preset", "unary", "--ops", "4", "--n", "1e8", "--bandwidth", "0"}, "--bandwidth", "a bandwidth with a"},
    {{"fusion", "--preset", "unary", "--ops", "4", "--n", "1e8", "--bandwidth", "x"}, "--bandwidth", "a bandwidth with a"},
    {{"fusion", "--preset", "custom", "--n", "1e8", "--kernel", "1", "--kernel", "1,1", "--fused", "1,1"}, "--kernel", "READS,WRITES in units of"},
    {{"fusion", "--preset", "custom", "--n", "1e8", "--kernel", "a,b", "--kernel", "1,1", "--fused", "1,1"}, "--kernel", "READS,WRITES in units of"},
    {{"fusion", "--preset", "custom", "--n", "1e8", "--kernel", "1,1", "--kernel", "1,1", "--fused", "1"}, "--fused", "READS,WRITES in units of"},
    {{"fusion", "--preset", "custom", "--n", "1e8", "--kernel", "1,1", "--kernel", "1,1", "--fused", "x,1"}, "--fused", "READS,WRITES in units of"},
    {{"fusion", "--preset", "unary", "--ops", "4", "--n", "1e8", "--sweep", "n=10:1"}, "--sweep", "invalid value 'n=10:1': expected FROM at most TO"},
    {{"fusion", "--preset", "unary", "--ops", "4", "--n", "1e8", "--sweep", "m=1:10"}, "--sweep", "invalid value 'm=1:10': expected AXIS, AXIS=FROM:TO, AXIS=FROM:TO:STEP or AXIS=FROM:TO:xFACTOR with AXIS one of n, rows"},
    {{"fusion", "--preset", "unary", "--ops", "4", "--n", "1e8", "--plot", "/nonexistent/x.svg"}, "--plot", "a path to an"},
    {{"fusion", "--preset", "unary", "--ops", "4", "--n", "1e8", "--sweep", "n=1e3:1e9:0"}, "--sweep", "invalid value 'n=1e3:1e9:0': expected a STEP greater than 0"},
  };
  return rows;
}

/// The rows of gpucalc tiling.
const std::vector<BadInput>& tiling_rows() {
  static const std::vector<BadInput> rows = {
    {{"tiling", "--m", "4096", "--n", "4096", "--k", "4096", "--tile", "128", "--gpu", "h1000"}, "--gpu", "one of a10, a100, a100-40gb-sxm"},
    {{"tiling", "--m", "4096", "--n", "4096", "--k", "4096", "--tile", "128", "--sms", "nan"}, "--sms", "invalid value 'nan': expected a whole number of SMs from 1 to 1,024, such as 4 or 66"},
    {{"tiling", "--m", "4096", "--n", "4096", "--k", "4096", "--tile", "128", "--gpu", "/nonexistent.toml"}, "--gpu", "a readable profile .toml"},
    {{"tiling", "--m", "4096", "--n", "4096", "--k", "4096", "--tile", "128", "--format", "yaml"}, "--format", "one of text, json"},
    {{"tiling", "--m", "4096", "--n", "4096", "--k", "4096", "--tile", "128", "--require", "occupancy>>0.5"}, "--require", "a results key of"},
    {{"tiling", "--m", "4096", "--n", "4096", "--k", "4096", "--tile", "128", "--require", "nokey>=1"}, "--require", "a results key of"},
    {{"tiling", "--m", "4096", "--n", "4096", "--k", "4096", "--tile", "128", "--batch", "/nonexistent.csv"}, "--batch", "a readable CSV file"},
    {{"tiling", "--m", "4096", "--n", "4096", "--k", "4096", "--tile", "128", "--plot", "/nonexistent/x.svg"}, "--plot", "expected a"},
    {{"tiling", "--m", "4096", "--n", "4096", "--k", "4096", "--tile", "128", "--launch", "later"}, "--launch", "invalid value 'later': expected eager, graph, cuda or a time per kernel from 0 to 1s, such as 3.6us"},
    {{"tiling", "--m", "4096", "--n", "4096", "--k", "4096", "--tile", "128", "--sweep", "foo"}, "--sweep", "invalid value 'foo': expected AXIS, AXIS=FROM:TO, AXIS=FROM:TO:STEP or AXIS=FROM:TO:xFACTOR with AXIS one of tile"},
    {{"tiling", "--m", "4096", "--n", "4096", "--k", "4096", "--tile", "128", "--sweep", "tile=128:64"}, "--sweep", "invalid value 'tile=128:64': expected FROM at most TO"},
    {{"tiling", "--m", "4096", "--n", "4096", "--k", "4096", "--tile", "128", "--sweep", "tile=64:128:0"}, "--sweep", "invalid value 'tile=64:128:0': expected a STEP greater than 0"},
    {{"tiling", "--m", "4096", "--n", "4096", "--k", "4096", "--tile", "128", "--bogus", "1"}, "--bogus", "accepted options"},
    {{"tiling", "--m", "0", "--n", "4096", "--k", "4096", "--tile", "128"}, "--m", "'0' is out of range: expected a whole number, 1 to 1,099,511,627,776"},
    {{"tiling", "--m", "x", "--n", "4096", "--k", "4096", "--tile", "128"}, "--m", "invalid value 'x': expected a whole number (256, 2^24, 16,384 or 0xff), 1 to 1,099,511,627,776"},
    {{"tiling", "--m", "2^63", "--n", "4096", "--k", "4096", "--tile", "128"}, "--m", "'2^63' is out of range: expected a whole number, 1 to 1,099,511,627,776"},
    {{"tiling", "--m", "4096", "--n", "0", "--k", "4096", "--tile", "128"}, "--n", "'0' is out of range: expected a whole number, 1 to 1,099,511,627,776"},
    {{"tiling", "--m", "4096", "--n", "x", "--k", "4096", "--tile", "128"}, "--n", "invalid value 'x': expected a whole number (256, 2^24, 16,384 or 0xff), 1 to 1,099,511,627,776"},
    {{"tiling", "--m", "4096", "--n", "4096", "--k", "0", "--tile", "128"}, "--k", "'0' is out of range: expected a whole number, 1 to 1,099,511,627,776"},
    {{"tiling", "--m", "4096", "--n", "4096", "--k", "x", "--tile", "128"}, "--k", "invalid value 'x': expected a whole number (256, 2^24, 16,384 or 0xff), 1 to 1,099,511,627,776"},
    {{"tiling", "--m", "4096", "--n", "4096", "--k", "4096", "--tile", "0"}, "--tile", "'0' is out of range: expected a whole number, 1 to 1,048,576"},
    {{"tiling", "--m", "4096", "--n", "4096", "--k", "4096", "--tile", "x"}, "--tile", "invalid value 'x': expected a whole number (256, 16,384 or 0xff), 1 to 1,048,576"},
    {{"tiling", "--m", "4096", "--n", "4096", "--k", "4096", "--tile", "128", "--tile-m", "0"}, "--tile-m", "'0' is out of range: expected a whole number, 1 to 1,048,576"},
    {{"tiling", "--m", "4096", "--n", "4096", "--k", "4096", "--tile", "128", "--tile-n", "0"}, "--tile-n", "'0' is out of range: expected a whole number, 1 to 1,048,576"},
    {{"tiling", "--m", "4096", "--n", "4096", "--k", "4096", "--tile", "128", "--tile-k", "0"}, "--tile-k", "'0' is out of range: expected a whole number, 1 to 1,048,576"},
    {{"tiling", "--m", "4096", "--n", "4096", "--k", "4096", "--tile", "128", "--dtype", "fp12"}, "--dtype", "invalid value 'fp12': expected fp64, fp32, tf32, bf16, fp16, fp8_e4m3, fp8_e5m2, fp8, int8: the element type (did you mean 'fp32'?)"},
    {{"tiling", "--m", "4096", "--n", "4096", "--k", "4096", "--tile", "128", "--unit", "gpu"}, "--unit", "invalid value 'gpu': expected cuda, tensor: "},
    {{"tiling", "--m", "4096", "--n", "4096", "--k", "4096", "--tile", "128", "--peak", "0"}, "--peak", "a rate with a"},
    {{"tiling", "--m", "4096", "--n", "4096", "--k", "4096", "--tile", "128", "--peak", "x"}, "--peak", "a rate with a"},
    {{"tiling", "--m", "4096", "--n", "4096", "--k", "4096", "--tile", "128", "--bandwidth", "0"}, "--bandwidth", "a bandwidth with a"},
    {{"tiling", "--m", "4096", "--n", "4096", "--k", "4096", "--tile", "128", "--bandwidth", "x"}, "--bandwidth", "a bandwidth with a"},
    {{"tiling", "--m", "4096", "--n", "4096", "--k", "4096", "--tile", "128", "--dtype-a", "fp12"}, "--dtype-a", "invalid value 'fp12': expected"},
    {{"tiling", "--m", "4096", "--n", "4096", "--k", "4096", "--tile", "128", "--dtype-b", "fp12"}, "--dtype-b", "invalid value 'fp12': expected"},
    {{"tiling", "--m", "4096", "--n", "4096", "--k", "4096", "--tile", "128", "--dtype-c", "fp12"}, "--dtype-c", "invalid value 'fp12': expected"},
    {{"tiling", "--m", "4096", "--n", "4096", "--k", "4096", "--tile", "128", "--beta", "x"}, "--beta", "invalid value 'x': expected"},
    {{"tiling", "--m", "4096", "--n", "4096", "--k", "4096", "--tile", "128", "--group-m", "0"}, "--group-m", "'0' is out of range: expected a whole number, 1 to 1,048,576"},
    {{"tiling", "--m", "4096", "--n", "4096", "--k", "4096", "--tile", "128", "--gpu"}, "--gpu", "--help"},
    {{"tiling", "--m", "4096", "--n", "4096", "--k", "4096", "--tile", "128", "--require", "occupancy>=nan"}, "--require", "a results key of"},
    {{"tiling", "--m", "4096", "--n", "4096", "--k", "4096", "--tile", "128", "--tile-m", "x"}, "--tile-m", "invalid value 'x': expected a whole number (256, 16,384 or 0xff), 1 to 1,048,576"},
    {{"tiling", "--m", "4096", "--n", "4096", "--k", "4096", "--tile", "128", "--tile-n", "2^63"}, "--tile-n", "'2^63' is out of range: expected a whole number, 1 to 1,048,576"},
    {{"tiling", "--m", "4096", "--n", "4096", "--k", "4096", "--tile", "128", "--tile-k", "-1"}, "--tile-k", "'-1' is out of range: expected a whole number, 1 to 1,048,576"},
    // Options the engine added: its sweep axes, banks --mask, --strict (a flag).
    {{"tiling", "--m", "4096", "--n", "4096", "--k", "4096", "--tile", "128", "--sweep", "tile=0:64"}, "--sweep", "'tile=0:64' leaves the range of --tile: expected a whole number (256, 16,384 or 0xff), 1 to 1,048,576"},
  };
  return rows;
}

/// The rows of gpucalc waves.
const std::vector<BadInput>& waves_rows() {
  static const std::vector<BadInput> rows = {
    {{"waves", "--blocks", "265", "--blocks-per-sm", "1", "--gpu", "h1000"}, "--gpu", "one of a10, a100, a100-40gb-sxm"},
    {{"waves", "--blocks", "265", "--blocks-per-sm", "1", "--sms", "0"}, "--sms", "invalid value '0': expected a whole number of SMs from 1 to 1,024, such as 4 or 66"},
    {{"waves", "--blocks", "265", "--blocks-per-sm", "1", "--sms", "4KB"}, "--sms", "invalid value '4KB': expected a whole number of SMs from 1 to 1,024, such as 4 or 66"},
    {{"waves", "--blocks", "265", "--blocks-per-sm", "1", "--sms", "2000"}, "--sms", "invalid value '2000': expected a whole number of SMs from 1 to 1,024, such as 4 or 66"},
    {{"waves", "--blocks", "265", "--blocks-per-sm", "1", "--sms", "1/3"}, "--sms", "invalid value '1/3': expected a whole number of SMs from 1 to 1,024, such as 4 or 66"},
    {{"waves", "--blocks", "265", "--blocks-per-sm", "1", "--gpu", "/nonexistent.toml"}, "--gpu", "a readable profile .toml"},
    {{"waves", "--blocks", "265", "--blocks-per-sm", "1", "--format", "yaml"}, "--format", "one of text, json"},
    {{"waves", "--blocks", "265", "--blocks-per-sm", "1", "--require", "occupancy>>0.5"}, "--require", "a results key of"},
    {{"waves", "--blocks", "265", "--blocks-per-sm", "1", "--require", "nokey>=1"}, "--require", "a results key of"},
    {{"waves", "--blocks", "265", "--blocks-per-sm", "1", "--batch", "/nonexistent.csv"}, "--batch", "a readable CSV file"},
    {{"waves", "--blocks", "265", "--blocks-per-sm", "1", "--bogus", "1"}, "--bogus", "accepted options"},
    {{"waves", "--blocks", "0", "--blocks-per-sm", "1"}, "--blocks", "'0' is out of range: expected a whole number, 1 to 1,000,000,000,000"},
    {{"waves", "--blocks", "x", "--blocks-per-sm", "1"}, "--blocks", "invalid value 'x': expected a whole number (256, 2^24, 16,384 or 0xff), 1 to 1,000,000,000,000"},
    {{"waves", "--threads", "256", "--regs", "64", "--elements", "0"}, "--elements", "'0' is out of range: expected a whole number, 1 to 100,000,000,000,000"},
    {{"waves", "--threads", "256", "--regs", "64", "--elements", "x"}, "--elements", "invalid value 'x': expected a whole number (256, 2^24, 16,384 or 0xff), 1 to 100,000,000,000,000"},
    {{"waves", "--blocks", "265", "--blocks-per-sm", "0"}, "--blocks-per-sm", "'0' is out of range: expected a whole number, 1 to 32"},
    {{"waves", "--blocks", "265", "--blocks-per-sm", "33"}, "--blocks-per-sm", "'33' is out of range: expected a whole number, 1 to 32"},
    {{"waves", "--blocks", "265", "--threads", "0", "--regs", "64"}, "--threads", "'0' is out of range: expected a whole number, 1 to 1,024"},
    {{"waves", "--blocks", "265", "--threads", "2000", "--regs", "64"}, "--threads", "'2000' is out of range: expected a whole number, 1 to 1,024"},
    {{"waves", "--blocks", "265", "--threads", "256", "--regs", "0"}, "--regs", "'0' is out of range: expected a whole number, 1 to 255"},
    {{"waves", "--blocks", "265", "--threads", "256", "--regs", "300"}, "--regs", "'300' is out of range: expected a whole number, 1 to 255"},
    {{"waves", "--blocks", "265", "--threads", "256", "--regs", "64", "--smem", "-1"}, "--smem", "'-1' is out of range: expected a size (KB = KiB = 1024 bytes), 0 B to 227 KiB"},
    {{"waves", "--blocks", "265", "--threads", "256", "--regs", "64", "--smem", "1TB"}, "--smem", "a size such as"},
    {{"waves", "--blocks", "265", "--blocks-per-sm", "1", "--block-time", "0"}, "--block-time", "a time with a"},
    {{"waves", "--blocks", "265", "--blocks-per-sm", "1", "--block-time", "x"}, "--block-time", "a time with a"},
    {{"waves", "--blocks", "265", "--blocks-per-sm", "1", "--sweep", "blocks=10:1"}, "--sweep", "invalid value 'blocks=10:1': expected FROM at most TO"},
    {{"waves", "--blocks", "265", "--blocks-per-sm", "1", "--sweep", "threads=1:2"}, "--sweep", "invalid value 'threads=1:2': expected AXIS, AXIS=FROM:TO, AXIS=FROM:TO:STEP or AXIS=FROM:TO:xFACTOR with AXIS one of blocks"},
    {{"waves", "--gemm", "1,2,3,4", "--tile", "128x256"}, "--gemm", "invalid value '1,2,3,4': expected M,N or M,N,K"},
    {{"waves", "--gemm", "4096,4096", "--tile", "128x0"}, "--tile", "invalid value '128x0': expected TMxTN"},
    {{"waves", "--gemm", "4096,4096", "--tile", "128x256", "--split-k", "0"}, "--split-k", "'0' is out of range: expected a whole number, 1 to 1,048,576"},
    {{"waves", "--blocks", "265", "--blocks-per-sm", "1", "--plot", "/nonexistent/x.svg"}, "--plot", "a path to an"},
    {{"waves", "--blocks", "265", "--blocks-per-sm", "1", "--block-time", "inf"}, "--block-time", "a time with a"},
    // Options the engine added: its sweep axes, banks --mask, --strict (a flag).
    {{"waves", "--blocks", "265", "--blocks-per-sm", "1", "--sweep", "blocks=0:10"}, "--sweep", "'blocks=0:10' leaves the range of --blocks: expected a whole number (256, 2^24, 16,384 or 0xff), 1 to 1,000,000,000,000"},
    {{"waves", "--blocks", "265", "--blocks-per-sm", "1", "--strict=1"}, "--strict", "a flag takes no value: expected --strict alone"},
  };
  return rows;
}

/// The rows of gpucalc roofline.
const std::vector<BadInput>& roofline_rows() {
  static const std::vector<BadInput> rows = {
    {{"roofline", "--flops", "1.37e11", "--bytes", "101MB", "--gpu", "h1000"}, "--gpu", "one of a10, a100, a100-40gb-sxm"},
    {{"roofline", "--flops", "1.37e11", "--bytes", "101MB", "--sms", "inf"}, "--sms", "invalid value 'inf': expected a whole number of SMs from 1 to 1,024, such as 4 or 66"},
    {{"roofline", "--flops", "1.37e11", "--bytes", "101MB", "--gpu", "/nonexistent.toml"}, "--gpu", "a readable profile .toml"},
    {{"roofline", "--flops", "1.37e11", "--bytes", "101MB", "--format", "yaml"}, "--format", "one of text, json"},
    {{"roofline", "--flops", "1.37e11", "--bytes", "101MB", "--require", "occupancy>>0.5"}, "--require", "a results key of"},
    {{"roofline", "--flops", "1.37e11", "--bytes", "101MB", "--require", "nokey>=1"}, "--require", "a results key of"},
    {{"roofline", "--flops", "1.37e11", "--bytes", "101MB", "--batch", "/nonexistent.csv"}, "--batch", "a readable CSV file"},
    {{"roofline", "--flops", "1.37e11", "--bytes", "101MB", "--bogus", "1"}, "--bogus", "accepted options"},
    {{"roofline", "--flops", "-1", "--bytes", "101MB"}, "--flops", "a FLOP count, 0 FLOP or more"},
    {{"roofline", "--flops", "x", "--bytes", "101MB"}, "--flops", "a FLOP count such"},
    {{"roofline", "--flops", "1.37e11", "--bytes", "0"}, "--bytes", "a size (KB, MB, GB decimal; KiB, MiB, GiB binary), greater than 0 B"},
    {{"roofline", "--flops", "1.37e11", "--bytes", "x"}, "--bytes", "a size such as"},
    {{"roofline", "--intensity", "0"}, "--intensity", "an intensity in FLOP/byte"},
    {{"roofline", "--intensity", "x"}, "--intensity", "an intensity in FLOP/byte"},
    {{"roofline", "--flops", "1.37e11", "--bytes", "101MB", "--dtype", "fp12"}, "--dtype", "invalid value 'fp12': expected fp64, fp32, tf32, bf16, fp16, fp8_e4m3, fp8_e5m2, fp8, fp4, int8, int4: the element type (did you mean 'fp32'?)"},
    {{"roofline", "--flops", "1.37e11", "--bytes", "101MB", "--unit", "gpu"}, "--unit", "invalid value 'gpu': expected cuda, tensor: "},
    {{"roofline", "--flops", "1.37e11", "--bytes", "101MB", "--peak", "0"}, "--peak", "a rate with a"},
    {{"roofline", "--flops", "1.37e11", "--bytes", "101MB", "--peak", "x"}, "--peak", "a rate with a"},
    {{"roofline", "--flops", "1.37e11", "--bytes", "101MB", "--bandwidth", "0"}, "--bandwidth", "a bandwidth with a"},
    {{"roofline", "--flops", "1.37e11", "--bytes", "101MB", "--bandwidth", "x"}, "--bandwidth", "a bandwidth with a"},
    {{"roofline", "--flops", "1.37e11", "--bytes", "101MB", "--dtype", "fp32", "--op", "div"}, "--op", "invalid value 'div': expected fma, add, mul: "},
    {{"roofline", "--flops", "1.37e11", "--bytes", "101MB", "--op", "add"}, "--op", "with --unit cuda only"},
    {{"roofline", "--flops", "1.37e11", "--bytes", "2^24", "--elem", "0"}, "--elem", "1 B to 1 KiB (1,024 bytes)"},
    {{"roofline", "--flops", "1.37e11", "--bytes", "101MB", "--elem", "4"}, "--bytes", "with --elem, a number of elements"},
    {{"roofline", "--flops", "1.37e11", "--bytes", "101MB", "--time", "1.2"}, "--time", "a time with a unit such as"},
    {{"roofline", "--flops", "1.37e11", "--bytes", "101MB", "--time", "0ms"}, "--time", "a time with a unit, greater than 0 s"},
    {{"roofline", "--intensity", "64", "--time", "1ms"}, "--time", "with --flops and --bytes"},
    {{"roofline", "--intensity", "10", "--sparse", "--unit", "cuda"}, "--sparse", "expected --unit tensor: 2:4 structured sparsity"},
    {{"roofline", "--intensity", "10", "--sparse", "--gpu", "t4", "--dtype", "fp16"}, "--sparse", "compute capability 8.0 and later; t4 is 7.5"},
    {{"roofline", "--intensity", "10", "--gpu", "a100", "--dtype", "fp4"}, "--dtype", "expected a dtype the tensor cores of a100"},
    {{"roofline", "--intensity", "64", "--plot", "/nonexistent/x.svg"}, "--plot", "a path to an"},
    {{"roofline", "--intensity", "nan"}, "--intensity", "an intensity in FLOP/byte"},
    // Options the engine added: its sweep axes, banks --mask, --strict (a flag).
    {{"roofline", "--intensity", "64", "--sweep", "flops"}, "--sweep", "invalid value 'flops': expected AXIS, AXIS=FROM:TO, AXIS=FROM:TO:STEP or AXIS=FROM:TO:xFACTOR with AXIS one of intensity"},
    {{"roofline", "--intensity", "64", "--sweep", "intensity=1:1e6:x1"}, "--sweep", "invalid value 'intensity=1:1e6:x1': expected a FACTOR above 1 after x (n=1e3:1e9:x10)"},
  };
  return rows;
}

/// The rows of pipeline.
const std::vector<BadInput>& pipeline_rows() {
  static const std::vector<BadInput> rows = {
    {{"pipeline", "--tile", "128x256x64", "--gpu", "h1000"}, "--gpu", "one of a10, a100, a100-40gb-sxm"},
    {{"pipeline", "--tile", "128x256x64", "--sms", "-132"}, "--sms", "invalid value '-132': expected a whole number of SMs from 1 to 1,024, such as 4 or 66"},
    {{"pipeline", "--tile", "128x256x64", "--gpu", "l4"}, "--gpu", "an sm_90 (H100, H200), sm_100 (B200) or sm_120/sm_121 (RTX 5090) profile"},
    {{"pipeline", "--tile", "128x256x64", "--format", "yaml"}, "--format", "one of text, json"},
    {{"pipeline", "--tile", "128x256x64", "--require", "nokey>=1"}, "--require", "a results key of"},
    {{"pipeline", "--tile", "128x256x64", "--batch", "/nonexistent.csv"}, "--batch", "a readable CSV file"},
    {{"pipeline", "--tile", "128x256x64", "--sweep", "foo"}, "--sweep", "with AXIS one of"},
    {{"pipeline", "--tile", "128x256x64", "--plot", "out.svg"}, "--plot", "a calculator with a chart"},
    {{"pipeline", "--tile", "128x256x64", "--preset", "fa4"}, "--preset", "expected cutlass-cooperative, cutlass-pingpong, fa3-fwd, sm100-1sm, sm100-2sm"},
    {{"pipeline", "--tile", "128x256"}, "--tile", "MxNxK, three whole numbers of 1 to 4096"},
    {{"pipeline", "--tile", "128x252x64"}, "--tile", "N a multiple of 8 (wgmma: N 8 to 256 in steps of 8)"},
    {{"pipeline", "--tile", "128x256x64", "--dtype", "fp5"}, "--dtype", "expected fp64, fp32, tf32, bf16, fp16"},
    {{"pipeline", "--tile", "128x256x64", "--dtype-a", "fp5"}, "--dtype-a", "expected fp64, fp32, tf32, bf16, fp16"},
    {{"pipeline", "--tile", "128x256x64", "--dtype-b", "int8"}, "--dtype-b", "wgmma and tcgen05.mma take A and B of one kind"},
    {{"pipeline", "--tile", "128x256x64", "--acc", "fp64"}, "--acc", "expected fp32, fp16, int32"},
    {{"pipeline", "--tile", "128x256x64", "--stages", "5"}, "--stages", "auto or 2 to 4"},
    {{"pipeline", "--tile", "128x256x64", "--epilogue-smem", "-1"}, "--epilogue-smem", "out of range"},
    {{"pipeline", "--tile", "128x256x64", "--epilogue-tile", "128"}, "--epilogue-tile", "MxN, two whole numbers"},
    {{"pipeline", "--tile", "128x256x64", "--epilogue-tile", "128x32", "--epilogue-dtype", "fp5"}, "--epilogue-dtype", "expected fp64, fp32, tf32, bf16"},
    {{"pipeline", "--tile", "128x256x64", "--epilogue-tile", "128x32", "--epilogue-stages", "0"}, "--epilogue-stages", "out of range"},
    {{"pipeline", "--tile", "128x256x64", "--warpgroups", "1-2"}, "--warpgroups", "P+C, producer and consumer warpgroups"},
    {{"pipeline", "--tile", "128x256x64", "--regs", "40,233"}, "--regs", "setmaxnreg counts of 24 to 256 in steps of 8"},
    {{"pipeline", "--tile", "128x256x64", "--launch-regs", "0"}, "--launch-regs", "out of range"},
    {{"pipeline", "--tile", "128x256x64", "--schedule", "ring"}, "--schedule", "expected auto, cooperative, pingpong"},
    {{"pipeline", "--tile", "128x256x64", "--gpu", "b200", "--acc-stages", "0"}, "--acc-stages", "out of range"},
    {{"pipeline", "--tile", "128x256x64", "--gpu", "b200", "--cta-group", "3"}, "--cta-group", "expected 1, 2"},
    {{"pipeline", "--tile", "128x256x64", "--cluster", "0x1"}, "--cluster", "MxN CTAs"},
    {{"pipeline", "--tile", "128x256x64", "--swizzle", "256"}, "--swizzle", "expected 0, 32, 64, 128"},
    {{"pipeline", "--tile", "128x256x64", "--box", "128x64"}, "--box", "at most 128 bytes with 128-byte swizzle"},
    {{"pipeline", "--tile", "128x256x64", "--bandwidth", "-1TB/s"}, "--bandwidth", "out of range"},
    {{"pipeline", "--tile", "128x256x64", "--latency", "0ns"}, "--latency", "above 0 s to 1.00 ms"},
    {{"pipeline", "--tile", "128x256x64", "--latency", "2ms"}, "--latency", "above 0 s to 1.00 ms"},
  };
  return rows;
}

/// The rows of ncu (tests/data/ncu; its own bad reports: ncu_test.cc).
const std::vector<BadInput>& ncu_rows() {
  static const std::vector<BadInput> rows = {
    {{"ncu", "--report", "/nonexistent.csv"}, "--report", "an Nsight Compute report as text"},
    {{"ncu", "tests/data/ncu/softmax-sm86.txt", "--kernel", "("}, "--kernel", "a regular expression"},
    {{"ncu", "tests/data/ncu/softmax-sm86.txt", "--kernel", "gemm"}, "--kernel", "matches one of the report's 3 kernel names"},
    {{"ncu", "tests/data/ncu/softmax-sm86.txt", "--device", "3"}, "--device", "a device of the report's kernels (its Device: 0)"},
    {{"ncu", "tests/data/ncu/softmax-sm86.txt", "--kernel-name", "short"}, "--kernel-name", "expected full, base, mangled: how kernel names are printed"},
    {{"ncu", "tests/data/ncu/softmax-sm86.txt", "--gpu", "h1000"}, "--gpu", "one of a10, a100, a100-40gb-sxm"},
    {{"ncu", "tests/data/ncu/softmax-sm86.txt", "--gpu", "/nonexistent.toml"}, "--gpu", "a readable profile .toml"},
    {{"ncu", "tests/data/ncu/softmax-sm86.txt", "--format", "yaml"}, "--format", "one of text, json"},
    {{"ncu", "tests/data/ncu/softmax-sm86.txt", "--require", "bogus>1"}, "--require", "a results key of ncu"},
    // ncu takes no --batch or --plot (its report makes its rows: tests/cli/ncu_command_test.cc).
    {{"ncu", "--batch", "/nonexistent.csv"}, "--batch", "unknown option '--batch'; see 'gpucalc ncu --help'"},
    {{"ncu", "tests/data/ncu/softmax-sm86.txt", "--plot", "x.svg"}, "--plot", "unknown option '--plot'; see 'gpucalc ncu --help'"},
    // Reports people paste that gpucalc cannot read (the layouts' truncations: ncu_layouts_cli_test.cc).
    {{"ncu", "tests/data/ncu/flash-attention-sm89-columns.md", "--gpu", "rtx4090"}, "Static Shared Memory Per Block '43.78'",
     "expected a whole number from 0 to 4,294,967,295 bytes"},
    // vectoradd-annotated.md (Speed Of Light alone) is read since issue 37: its sol.unit
    // (ncu_layouts_cli_test.cc, "a report of Speed Of Light alone").
  };
  return rows;
}

/// The rows of attention: a malformed value of each option (generated from runs, each message read).
const std::vector<BadInput>& attention_rows() {
  static const std::vector<BadInput> rows = {
    {{"attention", "--heads", "32", "--seq", "4096", "--head-dim", "128", "--batch-size", "x!y"}, "--batch-size", "a whole number (256, 16,384 or 0xff), 1 to"},
    {{"attention", "--heads", "32", "--seq", "4096", "--head-dim", "128", "--sms", "0x0"}, "--sms", "invalid value '0x0': expected a whole number of SMs from 1 to 1,024, such as 4 or 66"},
    {{"attention", "--seq", "4096", "--head-dim", "128", "--heads", "x!y"}, "--heads", "a whole number (256 or 0xff), 1 to 1,024"},
    {{"attention", "--heads", "32", "--seq", "4096", "--head-dim", "128", "--impl", "fa1"}, "--impl", "invalid value 'fa1': expected fa2, fa3"},
    {{"attention", "--heads", "32", "--seq", "4096", "--head-dim", "128", "--kv-heads", "x!y"}, "--kv-heads", "a whole number (256 or 0xff), 1 to 1,024"},
    {{"attention", "--heads", "32", "--head-dim", "128", "--seq", "x!y"}, "--seq", "a whole number (256, 2^24, 16,384 or 0xff)"},
    {{"attention", "--heads", "32", "--seq", "4096", "--head-dim", "128", "--seq-q", "x!y"}, "--seq-q", "a whole number (256, 2^24, 16,384 or 0xff)"},
    {{"attention", "--heads", "32", "--seq", "4096", "--head-dim", "128", "--seq-kv", "x!y"}, "--seq-kv", "a whole number (256, 2^24, 16,384 or 0xff)"},
    {{"attention", "--heads", "32", "--seq", "4096", "--head-dim", "x!y"}, "--head-dim", "a whole number (256 or 0xff), 8 to 512, head"},
    {{"attention", "--heads", "32", "--seq", "4096", "--head-dim", "128", "--v-dim", "x!y"}, "--v-dim", "a whole number (256 or 0xff), 8 to 512, head"},
    {{"attention", "--heads", "32", "--seq", "4096", "--head-dim", "128", "--dtype", "x!y"}, "--dtype", "bf16, fp16, fp8_e4m3, fp8_e5m2, fp8: the"},
    {{"attention", "--heads", "32", "--seq", "4096", "--head-dim", "128", "--pass", "x!y"}, "--pass", "fwd, bwd, fwd+bwd: forward, backward or both"},
    {{"attention", "--heads", "32", "--seq", "4096", "--head-dim", "128", "--tile", "x!y"}, "--tile", "BRxBC (query rows x key rows of a tile, such"},
    {{"attention", "--heads", "32", "--seq", "4096", "--head-dim", "128", "--stages", "x!y"}, "--stages", "a whole number, 1 to 8, buffers of the"},
    {{"attention", "--heads", "32", "--seq", "4096", "--head-dim", "128", "--warps", "x!y"}, "--warps", "a whole number, 1 to 32, warps per block;"},
    {{"attention", "--heads", "32", "--seq", "4096", "--head-dim", "128", "--regs", "x!y"}, "--regs", "a whole number (0xff), 1 to 255, registers"},
    {{"attention", "--heads", "32", "--seq", "4096", "--head-dim", "128", "--gpu", "x!y"}, "--gpu", "one of a10, a100, a100-40gb-sxm, a100-pcie"},
    {{"attention", "--heads", "32", "--seq", "4096", "--head-dim", "128", "--format", "x!y"}, "--format", "one of text, json, csv, md"},
    {{"attention", "--heads", "32", "--seq", "4096", "--head-dim", "128", "--require", "x!y"}, "--require", "KEY OP VALUE with OP one of >= <= > < == !="},
    {{"attention", "--heads", "32", "--seq", "4096", "--head-dim", "128", "--batch", "x!y"}, "--batch", "a readable CSV file, or - for standard input"},
    {{"attention", "--heads", "32", "--seq", "4096", "--head-dim", "128", "--sweep", "x!y"}, "--sweep", "AXIS, AXIS=FROM:TO, AXIS=FROM:TO:STEP or"},
    {{"attention", "--heads", "32", "--seq", "4096", "--head-dim", "128", "--plot", "x!y"}, "--plot", "a file name ending in .svg (gpucalc writes"},
  };
  return rows;
}

/// The rows of decode: a malformed value of each option (generated from runs, each message read).
const std::vector<BadInput>& decode_rows() {
  static const std::vector<BadInput> rows = {
    {{"decode", "--model", "x!y"}, "--model", "llama-2-7b, llama-2-13b, llama-2-70b"},
    {{"decode", "--model", "llama-2-7b", "--sms", "2^20"}, "--sms", "invalid value '2^20': expected a whole number of SMs from 1 to 1,024, such as 4 or 66"},
    {{"decode", "--model", "llama-3-8b", "--params", "x!y"}, "--params", "a number such as 256, 1e8, 2^24, 3*2^20 or"},
    {{"decode", "--model", "llama-3-8b", "--active-params", "x!y"}, "--active-params", "a number such as 256, 1e8, 2^24, 3*2^20 or"},
    {{"decode", "--model", "llama-3-8b", "--embedding-params", "x!y"}, "--embedding-params", "a number such as 256, 1e8, 2^24, 3*2^20 or"},
    {{"decode", "--model", "llama-3-8b", "--layers", "x!y"}, "--layers", "a whole number (256 or 0xff), 1 to 4,096"},
    {{"decode", "--model", "llama-3-8b", "--heads", "x!y"}, "--heads", "a whole number (256 or 0xff), 1 to 4,096"},
    {{"decode", "--model", "llama-3-8b", "--kv-heads", "x!y"}, "--kv-heads", "a whole number (256 or 0xff), 1 to 4,096"},
    {{"decode", "--model", "llama-3-8b", "--head-dim", "x!y"}, "--head-dim", "a whole number (256 or 0xff), 1 to 4,096"},
    {{"decode", "--model", "llama-3-8b", "--v-dim", "x!y"}, "--v-dim", "a whole number (256 or 0xff), 1 to 4,096"},
    {{"decode", "--model", "llama-3-8b", "--latent", "x!y"}, "--latent", "a whole number (256, 16,384 or 0xff), 1 to"},
    {{"decode", "--model", "llama-3-8b", "--rope-dim", "x!y"}, "--rope-dim", "a whole number (256 or 0xff), 1 to 4,096"},
    {{"decode", "--model", "llama-3-8b", "--experts", "x!y"}, "--experts", "a whole number (256, 16,384 or 0xff), 1 to"},
    {{"decode", "--model", "llama-3-8b", "--experts-per-token", "x!y"}, "--experts-per-token", "a whole number (256, 16,384 or 0xff), 1 to"},
    {{"decode", "--model", "llama-3-8b", "--window", "x!y"}, "--window", "a whole number (256, 2^24, 16,384 or 0xff)"},
    {{"decode", "--model", "llama-3-8b", "--dtype", "x!y"}, "--dtype", "fp64, fp32, tf32, bf16, fp16, fp8_e4m3"},
    {{"decode", "--model", "llama-3-8b", "--kv-dtype", "x!y"}, "--kv-dtype", "fp64, fp32, tf32, bf16, fp16, fp8_e4m3"},
    {{"decode", "--model", "llama-3-8b", "--compute-dtype", "x!y"}, "--compute-dtype", "fp64, fp32, tf32, bf16, fp16, fp8_e4m3"},
    {{"decode", "--model", "llama-3-8b", "--context", "x!y"}, "--context", "a whole number (256, 2^24, 16,384 or 0xff)"},
    {{"decode", "--model", "llama-3-8b", "--batch-size", "x!y"}, "--batch-size", "a whole number (256, 16,384 or 0xff), 1 to"},
    {{"decode", "--model", "llama-3-8b", "--prefill", "x!y"}, "--prefill", "a whole number (256, 2^24, 16,384 or 0xff)"},
    {{"decode", "--model", "llama-3-8b", "--bandwidth", "x!y"}, "--bandwidth", "a bandwidth with a unit such as 3.35TB/s or"},
    {{"decode", "--model", "llama-3-8b", "--peak", "x!y"}, "--peak", "a rate with a unit such as 989TFLOP/s or"},
    {{"decode", "--model", "llama-3-8b", "--memory", "x!y"}, "--memory", "a size such as 101MB, 2.15GB, 64KiB or 4096"},
    {{"decode", "--model", "llama-3-8b", "--hidden", "x!y"}, "--hidden", "a whole number (256, 16,384 or 0xff), 1 to"},
    {{"decode", "--model", "llama-3-8b", "--tp", "x!y"}, "--tp", "a whole number (256 or 0xff), 1 to 1,024"},
    {{"decode", "--model", "llama-3-8b", "--tp", "8", "--link", "x!y"}, "--link", "a bandwidth with a unit such as 3.35TB/s or"},
    {{"decode", "--model", "llama-3-8b", "--tp", "8", "--link-latency", "x!y"}, "--link-latency", "400ns, 3.6us"},
    {{"decode", "--model", "llama-3-8b", "--launch", "x!y"}, "--launch", "expected eager, graph, cuda or a time per kernel from 0 to 1s, such as 3.6us"},
    {{"decode", "--model", "llama-3-8b", "--impl", "x!y"}, "--impl", "expected fa3, fa2: the attention kernel class"},
    {{"decode", "--model", "llama-3-8b", "--kernels-per-layer", "x!y"}, "--kernels-per-layer", "a whole number (256, 16,384 or 0xff), 1 to 65,536"},
    {{"decode", "--model", "llama-3-8b", "--gpu", "x!y"}, "--gpu", "one of a10, a100, a100-40gb-sxm, a100-pcie"},
    {{"decode", "--model", "llama-3-8b", "--format", "x!y"}, "--format", "one of text, json, csv, md"},
    {{"decode", "--model", "llama-3-8b", "--require", "x!y"}, "--require", "KEY OP VALUE with OP one of >= <= > < == !="},
    {{"decode", "--model", "llama-3-8b", "--batch", "x!y"}, "--batch", "a readable CSV file, or - for standard input"},
    {{"decode", "--model", "llama-3-8b", "--sweep", "x!y"}, "--sweep", "AXIS, AXIS=FROM:TO, AXIS=FROM:TO:STEP or"},
    {{"decode", "--model", "llama-3-8b", "--plot", "x!y"}, "--plot", "a file name ending in .svg (gpucalc writes"},
  };
  return rows;
}

/// The rows of collective: a malformed value of each option.
const std::vector<BadInput>& collective_rows() {
  static const std::vector<BadInput> rows = {
    {{"collective", "--size", "1MB", "--op", "x!y"}, "--op", "allreduce, allgather, reducescatter, alltoall, broadcast, reduce"},
    {{"collective", "--size", "1MB", "--sms", "0"}, "--sms", "invalid value '0': expected a whole number of SMs from 1 to 1,024, such as 4 or 66"},
    {{"collective", "--size", "x!y"}, "--size", "a size such as 101MB, 2.15GB, 64KiB or 4096"},
    {{"collective", "--size", "1MB", "--gpus", "x!y"}, "--gpus", "a whole number (256, 16,384 or 0xff), 2 to 1,048,576"},
    {{"collective", "--size", "1MB", "--nodes", "x!y"}, "--nodes", "a whole number (256, 16,384 or 0xff), 1 to 1,048,576"},
    {{"collective", "--size", "1MB", "--gpus-per-node", "x!y"}, "--gpus-per-node", "a whole number (256, 16,384 or 0xff), 1 to"},
    {{"collective", "--size", "1MB", "--algo", "x!y"}, "--algo", "auto, ring, tree, nvls"},
    {{"collective", "--size", "1MB", "--dtype", "x!y"}, "--dtype", "fp64, fp32, tf32, bf16, fp16, fp8_e4m3"},
    {{"collective", "--size", "1MB", "--link", "x!y"}, "--link", "a bandwidth with a unit such as 3.35TB/s or"},
    {{"collective", "--size", "1MB", "--link-latency", "x!y"}, "--link-latency", "400ns, 3.6us"},
    {{"collective", "--size", "1MB", "--network", "x!y"}, "--network", "a bandwidth with a unit such as 3.35TB/s or"},
    {{"collective", "--from", "x!y"}, "--from", "nccl-tests' text output"},
    {{"collective", "--from", "tests/data/nccl/a3mega-h100x16-all-reduce.txt", "--op", "allreduce", "--tolerance", "x!y"}, "--tolerance", "a fraction such as 0.5 or 50%"},
    {{"collective", "--size", "1MB", "--gpu", "x!y"}, "--gpu", "one of a10, a100, a100-40gb-sxm, a100-pcie"},
    {{"collective", "--size", "1MB", "--format", "x!y"}, "--format", "one of text, json, csv, md"},
    {{"collective", "--size", "1MB", "--require", "x!y"}, "--require", "KEY OP VALUE with OP one of >= <= > < == !="},
    {{"collective", "--size", "1MB", "--batch", "x!y"}, "--batch", "a readable CSV file, or - for standard input"},
    {{"collective", "--size", "1MB", "--sweep", "x!y"}, "--sweep", "AXIS, AXIS=FROM:TO, AXIS=FROM:TO:STEP or"},
    {{"collective", "--size", "1MB", "--plot", "x!y"}, "--plot", "a file name ending in .svg (gpucalc writes"},
  };
  return rows;
}

/// The rows of the unknown subcommand and hw.
const std::vector<BadInput>& hw_rows() {
  static const std::vector<BadInput> rows = {
    {{"hw", "show", "h1000"}, "--gpu", "one of a10, a100, a100-40gb-sxm"},
    {{"hw", "frobnicate"}, "hw", "'list', 'show NAME' or 'new --from NAME'"},
    {{"hw", "list", "--format", "yaml"}, "--format", "one of text, json"},
    {{"hw", "show"}, "hw", "'list', 'show NAME' or 'new --from NAME'"},
    {{"hw", "new"}, "hw new", "--from is missing: expected gpucalc hw new --from NAME > mine.toml"},
    {{"hw", "new", "--from", "h1000"}, "--from", "one of a10, a100, a100-40gb-sxm"},
    {{"hw", "list", "--from", "h100"}, "--from", "only with 'hw new'"},
    {{"frobnicate"}, "subcommand", "one of occupancy"},
    {{"hw", "list", "--bogus"}, "--bogus", "accepted options"},
    {{"hw", "show", "h100", "--format", "yaml"}, "--format", "one of text, json"},
  };
  return rows;
}

/// Every row: the calculators' tables one after another.
const std::vector<BadInput>& table() {
  static const std::vector<BadInput> rows = [] {
    std::vector<BadInput> all;
    for (const std::vector<BadInput>* part : {&occupancy_rows(), &little_rows(), &sectors_rows(), &banks_rows(),
                                              &fusion_rows(), &tiling_rows(), &waves_rows(), &roofline_rows(),
                                              &pipeline_rows(), &attention_rows(), &decode_rows(), &collective_rows(), &ncu_rows(),
                                              &hw_rows()}) {
      all.insert(all.end(), part->begin(), part->end());
    }
    return all;
  }();
  return rows;
}

using Outcome = gpucalc::testing::Run;
Outcome run_binary(const std::vector<std::string>& args) { return gpucalc::testing::run_gpucalc(args); }

// The options a subcommand's --help lists that take a value (flags and --help excluded).
std::vector<std::string> options_taking_values(const std::string& subcommand) {
  std::vector<std::string> names;
  std::istringstream help(run_binary({subcommand, "--help"}).out);
  for (std::string line; std::getline(help, line);) {
    std::size_t at = line.find("--");
    if (at == std::string::npos || line.find_first_not_of(' ') != at) continue;
    std::string name = line.substr(at, line.find_first_of(" =", at) - at);
    std::string rest = line.substr(at + name.size());
    if (rest.rfind(" TEXT", 0) == 0 || rest.rfind("=", 0) == 0) names.push_back(name);
  }
  return names;
}

}  // namespace

TEST_CASE("bad input to any option: exit 2, one line naming the option and the accepted form, empty stdout") {
  CHECK(table().size() >= 100);
  for (const BadInput& row : table()) {
    Outcome o = run_binary(row.args);
    std::string command = "gpucalc";
    for (const std::string& a : row.args) command += " " + a;
    INFO(command << "\nstdout: " << o.out << "\nstderr: " << o.err);
    CHECK(o.exit_code == 2);
    CHECK(o.out.empty());
    CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);
    CHECK(o.err.rfind("gpucalc: ", 0) == 0);
    CHECK(o.err.find(row.option) != std::string::npos);
    CHECK(o.err.find(row.accepted) != std::string::npos);
  }
}

TEST_CASE("every option of every calculator has a bad-input row") {
  // Every calculator of the command table, and hw; measure is left out: without a CUDA build every
  // measure command exits 3 (its own tests).
  std::vector<std::string> subcommands = {"hw"};
  for (const gpucalc::Command& c : gpucalc::commands()) {
    if (c.calculator != nullptr) subcommands.emplace_back(c.name);
  }
  for (const std::string& subcommand : subcommands) {
    std::vector<std::string> options = options_taking_values(subcommand);
    INFO(subcommand);
    CHECK(options.size() >= 1);
    for (const std::string& option : options) {
      bool covered = std::any_of(table().begin(), table().end(), [&](const BadInput& row) {
        return row.args.front() == subcommand && row.option == option;
      });
      CHECK_MESSAGE(covered, "no bad-input row for gpucalc " << subcommand << " " << option);
    }
  }
}
