#include "commands/commands.h"

#include <string_view>

namespace gpucalc {

const std::vector<Command>& commands() {
  static const std::vector<Command> table = {
      {"occupancy", "resident blocks and warps per SM, the limiting resource, the next block", occupancy_command, {}},
      {"little", "Little's law: bytes in flight to keep HBM busy; the warp-scheduler form", little_command, {}},
      {"sectors", "32-byte sectors and efficiency of one warp-wide global load", sectors_command, {}},
      {"banks", "shared-memory bank conflicts (ways, wavefronts) of one warp-wide access", banks_command, {}},
      {"fusion", "HBM traffic and time of an unfused kernel chain against the fused kernel", fusion_command, {}},
      {"tiling", "HBM traffic of a naive against a tiled matmul; tile size against shared memory", tiling_command, {}},
      {"waves", "waves of resident blocks, the tail effect, last-wave utilisation", waves_command, {}},
      {"roofline", "intensity, ridge, attainable FLOP/s and the bound of a kernel", roofline_command, {}},
      {"attention", "attention's FLOPs, exponentials and HBM bytes (standard against FlashAttention), its bound and tiles", attention_command, {}},
      {"decode", "LLM decode: weights and KV cache against memory, step time, tokens/s, the compute-bound batch", decode_command, {}},
      {"collective", "an NCCL collective over GPUs and nodes: algbw and busbw as nccl-tests gives them, time by ring, tree or NVLS; --from reads nccl-tests' output", collective_command, {}},
      {"pipeline", "a Hopper/Blackwell GEMM mainloop: stages, warpgroup registers, MMA shape, tensor memory, TMA", pipeline_command, {}},
      {"ncu", "an Nsight Compute report (text or CSV): a row per kernel, gpucalc's models beside ncu's counts", ncu_command, {}},
      {"hw", "list the hardware profiles or show one with its sources", nullptr,
       {.options = [] {
          return std::vector<ToolOption>{
              {.name = "action", .help = "list, show NAME, or new --from NAME", .kind = ToolOption::Kind::words},
              {.name = "--from", .help = "with new: the profile to start from (a name or FILE.toml)"},
              {.name = "--format", .help = "text, json, csv or md; show also toml", .kind = ToolOption::Kind::format}};
        },
        .run = run_hw,
        .words = [] { return std::vector<std::string>{"list", "show", "new"}; },
        .profile_after = "show",
        .plain = plain_hw}},
      {"measure", "run the matching CUDA kernel on GPU 0: predicted against achieved", nullptr,
       {.options = [] {
          return measure_options({
              {.name = "case", .help = "a case (gpucalc measure --list), all, or calibrate", .kind = ToolOption::Kind::words},
              {.name = "--list", .help = "list the cases", .kind = ToolOption::Kind::flag},
              {.name = "--format", .kind = ToolOption::Kind::format},
              {.name = "--gpu", .help = "the profile predictions use (default: the one matching GPU 0), a name or FILE.toml"},
              {.name = "--out", .help = "calibrate: the profile TOML to write (default: KEY-calibrated.toml)"},
          });
        },
        .run = run_measure,
        .words = measure_words,
        .option_words = measure_option_words,
        .plain = plain_measure}},
      {"completion", "print a completion script for bash, zsh or fish", nullptr,
       {.options = [] {
          return std::vector<ToolOption>{
              {.name = "shell", .help = "bash, zsh or fish", .kind = ToolOption::Kind::word, .required = true}};
        },
        .run = run_completion,
        .words = [] { return std::vector<std::string>{"bash", "zsh", "fish"}; },
        .plain = plain_measure_description}},
      {"man", "print the manual page gpucalc(1) as roff (man -l <(gpucalc man))", nullptr,
       {.options = [] { return std::vector<ToolOption>{}; }, .run = run_man, .plain = plain_measure_description}},
  };
  return table;
}

bool plain_word(std::string_view arg) {
  if (arg.empty() || arg[0] == '-') return false;
  for (const Command& c : commands()) {
    if (arg == c.name) return false;
  }
  return true;
}

}  // namespace gpucalc
