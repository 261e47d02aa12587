// wgmma m64nNk16 bf16 -> fp32 through inline PTX, shared by the sm_90a-only files
// (wgmma_sm90a.cu, pipeline_sm90a.cu): the instruction with its 64 or 128 accumulator operands,
// and the register pin that keeps the compiler from moving accumulator reads across it.
// PTX ISA, "wgmma.mma_async": d, a-desc, b-desc, scale-d, imm-scale-a, imm-scale-b, imm-trans-a,
// imm-trans-b; transpose 0 is K-major for both operands.
#pragma once

#include <cstdint>

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define GPUCALC_HAVE_WGMMA 1
#endif

namespace gpucalc::dev {

// The accumulator operands of a wgmma: "+f"(d[b]) to "+f"(d[b + 63]), 64 fp32 registers.
#define GPUCALC_D8(b)                                                                                     \
  "+f"(d[(b)]), "+f"(d[(b) + 1]), "+f"(d[(b) + 2]), "+f"(d[(b) + 3]), "+f"(d[(b) + 4]), "+f"(d[(b) + 5]), \
      "+f"(d[(b) + 6]), "+f"(d[(b) + 7])
#define GPUCALC_D64(b)                                                                                  \
  GPUCALC_D8(b), GPUCALC_D8((b) + 8), GPUCALC_D8((b) + 16), GPUCALC_D8((b) + 24), GPUCALC_D8((b) + 32), \
      GPUCALC_D8((b) + 40), GPUCALC_D8((b) + 48), GPUCALC_D8((b) + 56)
// Their references in the instruction's text: %0 to %63, then %64 to %127.
#define GPUCALC_REFS_0_63                                                                                        \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, "         \
  "%22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, "         \
  "%42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define GPUCALC_REFS_64_127                                                                                   \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, " \
  "%85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, " \
  "%105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, "    \
  "%122, %123, %124, %125, %126, %127"
// The instruction: a predicate p = true (scale-d 1: accumulate), then the wgmma on the
// accumulators `refs` with the A and B descriptors `descs`; no negation, no transpose.
#define GPUCALC_WGMMA(shape, refs, descs)                                                           \
  "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"                                                        \
  "wgmma.mma_async.sync.aligned." shape ".f32.bf16.bf16 {" refs "}, " descs ", p, 1, 1, 0, 0;\n}\n"

// One wgmma m64nNk16, N 256 or 128: D (64 x N fp32, N / 2 registers a thread) += A B, A and B
// bf16 in shared memory (descriptors).
template <int N>
__device__ __forceinline__ void wgmma_step(float (&d)[N / 2], std::uint64_t desc_a, std::uint64_t desc_b) {
  static_assert(N == 256 || N == 128, "wgmma_step: N is 256 or 128");
  if constexpr (N == 256) {
    asm volatile(GPUCALC_WGMMA("m64n256k16", GPUCALC_REFS_0_63 ", " GPUCALC_REFS_64_127, "%128, %129")
                 : GPUCALC_D64(0), GPUCALC_D64(64)
                 : "l"(desc_a), "l"(desc_b));
  } else {
    asm volatile(GPUCALC_WGMMA("m64n128k16", GPUCALC_REFS_0_63, "%64, %65") : GPUCALC_D64(0) : "l"(desc_a), "l"(desc_b));
  }
}
#undef GPUCALC_WGMMA
#undef GPUCALC_REFS_64_127
#undef GPUCALC_REFS_0_63
#undef GPUCALC_D64
#undef GPUCALC_D8

// Keeps the compiler from moving accumulator reads or writes across the asynchronous wgmmas.
template <int R>
__device__ __forceinline__ void pin_registers(float (&d)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

}  // namespace gpucalc::dev
