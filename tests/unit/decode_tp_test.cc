// decode --tp: tensor-parallel decode (Megatron-LM, Shoeybi et al. 2019: the weights split by
// columns then rows, two all-reduces a layer of the activations), against the scaling book's
// tensor-parallel cost on GPUs ("How to Think About GPUs", "Tensor Parallelism") and by hand.
#include <doctest/doctest.h>

#include "../approx.h"
#include "../decode_helpers.h"
#include "core/collective.h"
#include "core/decode.h"
#include "engine/profiles.h"

namespace gpucalc {
namespace {

DecodeInput tp_case(const Gpu& gpu, std::int64_t tp, std::int64_t batch) {
  DecodeInput in = preset("llama-3-70b", 4096, batch);
  in.tp = tp;
  LinkKind kind = LinkKind::none;
  in.links = profile_links(gpu, tp, kind);
  return in;
}

TEST_CASE("tp: each all-reduce is batch x hidden x 2 bytes, its bandwidth term the scaling book's 2 x 2BD / W") {
  const Gpu h100 = load_gpu("h100");
  for (std::int64_t batch : {1, 64, 512}) {
    INFO("batch ", batch);
    const DecodeResult r = decode(tp_case(h100, 8, batch), h100);
    // Llama 3 70B: hidden 8192 (config.json), bf16 activations
    const double b = static_cast<double>(batch), d = 8192;
    CHECK(r.allreduce_bytes == b * d * 2);
    // the scaling book: T_comms = 2 x 2 BD / W_collective for a block's AllGather + ReduceScatter of
    // bf16[B, D] (an all-reduce), W = 450e9 on an H100 node; the ring's exact (n-1)/n of it
    const AlgoTime ring = collective_time(
        [&] {
          CollectiveInput c;
          c.size = r.allreduce_bytes;
          c.gpus = 8;
          c.links = tp_case(h100, 8, batch).links;
          return c;
        }(),
        CollectiveAlgo::ring);
    CHECK(ring.bandwidth_time == gpucalc::testing::approx(2.0 * 2 * b * d / 450e9 * 7 / 8));
    // a step: 2 all-reduces a layer over 80 layers (Megatron-LM), each the fastest algorithm's time
    CHECK(r.comm_time == gpucalc::testing::approx(2 * 80 * r.allreduce.chosen.time));
    CHECK(r.step_time == gpucalc::testing::approx(r.linear_time + r.attention_time + r.comm_time));
  }
}

TEST_CASE("tp: the scaling book's alpha = C / W = 990e12 / 450e9, about 2200, from the h100 profile") {
  // "Within a node, this gives us about F / 2200": Y < F W / C; for Llama 3's F = 28,672 that is 13
  // (the book, with F = 28,000, says "about 11-way TP")
  const Gpu h100 = load_gpu("h100");
  const double alpha = h100.peak(ComputeUnit::tensor, "bf16") / h100.nvlink_bandwidth;
  CHECK(alpha == gpucalc::testing::approx(2200).epsilon(0.001));
  CHECK(28672 / alpha == gpucalc::testing::approx(13.0).epsilon(0.005));
}

TEST_CASE("tp: a GPU holds its share of the weights and of the cache, the KV heads bound the cache's split") {
  const Gpu h100 = load_gpu("h100");
  const DecodeResult one = decode(tp_case(h100, 1, 64), h100);
  const DecodeResult eight = decode(tp_case(h100, 8, 64), h100);
  // 8 KV heads over 8 GPUs: weights / 8 + KV / 8
  CHECK(eight.memory_needed == gpucalc::testing::approx(one.weight_bytes / 8 + one.kv_bytes / 8));
  CHECK_FALSE(one.fits);  // 141 GB of weights on one 80 GB H100
  CHECK(eight.fits);
  // 16 GPUs: the weights / 16, the cache still / 8 (GQA's 8 KV heads are copied, as vLLM does)
  DecodeInput sixteen = tp_case(h100, 16, 64);
  sixteen.links.link_bandwidth = 450e9;
  CHECK(decode(sixteen, h100).memory_needed == gpucalc::testing::approx(one.weight_bytes / 16 + one.kv_bytes / 8));
  // the memory-bound step's weights over 8 GPUs: 1/8 of the time to read them
  CHECK(eight.linear_time == gpucalc::testing::approx(one.linear_time / 8));
  // heads not divisible: refused
  DecodeInput three = tp_case(h100, 3, 1);
  CHECK_THROWS_AS(decode(three, h100), FieldError);
}

TEST_CASE("tp: latency-bound at batch 1, by hand") {
  // batch 1: an all-reduce of 8192 x 2 = 16 KiB over 8 H100: ring 6.6 us + 14 x 0.6 us = 15 us plus
  // 2 x 7/8 x 16384 / 450e9 = 63.7 ns; 160 of them a step: 2.41 ms
  const Gpu h100 = load_gpu("h100");
  const DecodeResult r = decode(tp_case(h100, 8, 1), h100);
  CHECK(r.allreduce.chosen.algo == CollectiveAlgo::ring);
  CHECK(r.allreduce.chosen.time == gpucalc::testing::approx(15.0e-6 + 2.0 * 7 / 8 * 16384 / 450e9));
  CHECK(r.comm_time == gpucalc::testing::approx(160 * (15.0e-6 + 2.0 * 7 / 8 * 16384 / 450e9)));
}

}  // namespace
}  // namespace gpucalc
