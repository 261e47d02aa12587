// The published architectures `decode --model` names. Every number is its config.json's (the
// Hugging Face model repository of the model card) or its paper's; parameter counts are the sum
// config.json's shapes give (embeddings, attention, MLP or experts, norms), which is also the
// model card's safetensors total; tests/{unit,cli}/decode_test.cc redoes each sum.
#include "core/decode.h"

namespace gpucalc {

const std::vector<DecodeModel>& decode_presets() {
  static const std::vector<DecodeModel> presets = {
      {.name = "llama-2-7b", .params = 6738415616, .embedding_params = 32000.0 * 4096,
       .layers = 32, .heads = 32, .kv_heads = 32, .head_dim = 128,
       .hidden = 4096,
       .source = "meta-llama/Llama-2-7b-hf config.json: hidden 4096, intermediate 11008, 32 layers, 32 heads, "
                 "32 KV heads (MHA), vocab 32000; Touvron et al. 2023, Table 1"},
      {.name = "llama-2-13b", .params = 13015864320, .embedding_params = 32000.0 * 5120,
       .layers = 40, .heads = 40, .kv_heads = 40, .head_dim = 128,
       .hidden = 5120,
       .source = "meta-llama/Llama-2-13b-hf config.json: hidden 5120, intermediate 13824, 40 layers, 40 heads, "
                 "40 KV heads (MHA), vocab 32000; the scaling book's inference chapter uses it"},
      {.name = "llama-2-70b", .params = 68976648192, .embedding_params = 32000.0 * 8192,
       .layers = 80, .heads = 64, .kv_heads = 8, .head_dim = 128,
       .hidden = 8192,
       .source = "meta-llama/Llama-2-70b-hf config.json: hidden 8192, intermediate 28672, 80 layers, 64 heads, "
                 "8 KV heads (GQA), vocab 32000; Touvron et al. 2023, section 2.2 (GQA for 34B and 70B)"},
      {.name = "llama-3-8b", .params = 8030261248, .embedding_params = 128256.0 * 4096,
       .layers = 32, .heads = 32, .kv_heads = 8, .head_dim = 128,
       .hidden = 4096,
       .source = "meta-llama/Meta-Llama-3-8B config.json: hidden 4096, intermediate 14336, 32 layers, 32 heads, "
                 "8 KV heads (GQA), vocab 128256"},
      {.name = "llama-3-70b", .params = 70553706496, .embedding_params = 128256.0 * 8192,
       .layers = 80, .heads = 64, .kv_heads = 8, .head_dim = 128,
       .hidden = 8192,
       .source = "meta-llama/Meta-Llama-3-70B config.json: hidden 8192, intermediate 28672, 80 layers, 64 heads, "
                 "8 KV heads (GQA), vocab 128256"},
      {.name = "mistral-7b", .params = 7241732096, .embedding_params = 32000.0 * 4096,
       .layers = 32, .heads = 32, .kv_heads = 8, .head_dim = 128, .window = 4096,
       .hidden = 4096,
       .source = "mistralai/Mistral-7B-v0.1 config.json: hidden 4096, intermediate 14336, 32 layers, 32 heads, "
                 "8 KV heads, vocab 32000, sliding_window 4096; Jiang et al. 2023, Table 1 and section 2 (rolling "
                 "buffer cache of W = 4096 tokens)"},
      {.name = "mixtral-8x7b", .params = 46702792704, .active_params = 12879925248, .embedding_params = 32000.0 * 4096,
       .layers = 32, .heads = 32, .kv_heads = 8, .head_dim = 128, .experts = 8, .experts_per_token = 2,
       .hidden = 4096,
       .source = "mistralai/Mixtral-8x7B-v0.1 config.json: hidden 4096, intermediate 14336, 32 layers, 32 heads, "
                 "8 KV heads, 8 local experts, 2 a token, vocab 32000; Jiang et al. 2024: 47B parameters, 13B active"},
      {.name = "deepseek-v3", .params = 671e9, .active_params = 37e9, .embedding_params = 129280.0 * 7168,
       .layers = 61, .heads = 128, .kv_heads = 128, .head_dim = 192, .v_dim = 128, .latent = 512, .rope_dim = 64,
       .experts = 256, .experts_per_token = 8,
       .hidden = 7168,
       .source = "DeepSeek-V3 technical report (2024), section 4.2: 61 layers, hidden 7168, 128 heads, MLA with KV "
                 "compression 512 and a decoupled RoPE key of 64 (head dims 128 + 64 for Q, K; 128 for V), 256 routed "
                 "experts with 8 a token plus 1 shared, 671B parameters with 37B active; config.json: vocab 129280"},
  };
  return presets;
}

}  // namespace gpucalc
