// __launch_bounds__, constant memory, dynamic shared memory and an extern "C" name.
// Test data for `gpucalc occupancy --from` (see README.md in this folder).
__constant__ float coefficients[256];

__global__ void __launch_bounds__(128, 4) bounded_128x4(const float* __restrict__ in, float* __restrict__ out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = 0;
#pragma unroll 8
  for (int k = 0; k < 256; ++k) acc += coefficients[k] * in[(i + k) % n];
  out[i] = acc;
}

__global__ void __launch_bounds__(1024) bounded_1024(float* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = data[i] * 2.0f + coefficients[i & 255];
}

extern "C" __global__ void plain_c_name(float* data, float scale, int n) {
  extern __shared__ float staged[];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  staged[threadIdx.x] = i < n ? data[i] : 0.0f;
  __syncthreads();
  if (i < n) data[i] = staged[blockDim.x - 1 - threadIdx.x] * scale;
}

// A 12 KB static tile of a transpose, padded against bank conflicts.
__global__ void transpose_padded(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[32][33 * 3];
  const int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
  __syncthreads();
  const int tx = blockIdx.y * 32 + threadIdx.x, ty = blockIdx.x * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8) out[(ty + j) * n + tx] = tile[threadIdx.x][threadIdx.y + j];
}
