// Kernels that spill under -maxrregcount=32: a local array indexed at run time, and many live
// values. Test data for `gpucalc occupancy --from` (see README.md in this folder).
__global__ void local_array(const int* __restrict__ idx, float* __restrict__ out, int n) {
  float scratch[64];  // indexed at run time: local memory (a stack frame), whatever the registers
  for (int i = 0; i < 64; ++i) scratch[i] = out[i] * static_cast<float>(i);
  float acc = 0;
  for (int i = 0; i < n; ++i) acc += scratch[idx[i] & 63];
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// 48 accumulators live at once: more than 32 registers hold, so some spill.
__global__ void many_live(const float4* __restrict__ in, float* __restrict__ out, int n) {
  float acc[48];
#pragma unroll
  for (int j = 0; j < 48; ++j) acc[j] = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    const float4 v = in[i];
#pragma unroll
    for (int j = 0; j < 48; ++j) acc[j] = acc[j] * v.x + v.y * static_cast<float>(j) + v.z * acc[(j + 1) % 48] - v.w;
  }
  float s = 0;
#pragma unroll
  for (int j = 0; j < 48; ++j) s += acc[j] * acc[(j * 7) % 48];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
