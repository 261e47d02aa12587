// Template kernels whose mangled names are long: namespaces, functors, non-type parameters.
// Test data for `gpucalc occupancy --from` (see README.md in this folder).
namespace gpucalc_test {
namespace ops {
struct Plus {
  template <typename T>
  __device__ T operator()(T a, T b) const { return a + b; }
};
struct Max {
  template <typename T>
  __device__ T operator()(T a, T b) const { return a > b ? a : b; }
};
}  // namespace ops

// Block-wide reduction through static shared memory: BLOCK elements of T.
template <typename T, int BLOCK, typename Op>
__global__ void block_reduce(const T* __restrict__ in, T* __restrict__ out, int n, Op op) {
  __shared__ T partial[BLOCK];
  const int i = blockIdx.x * BLOCK + threadIdx.x;
  partial[threadIdx.x] = i < n ? in[i] : T(0);
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) partial[threadIdx.x] = op(partial[threadIdx.x], partial[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}

// A tiled matrix multiply: TILE x TILE tiles of A and B in static shared memory.
template <int TILE, typename T>
__global__ void tiled_matmul(const T* a, const T* b, T* c, int n) {
  __shared__ T ta[TILE][TILE];
  __shared__ T tb[TILE][TILE + 1];
  const int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  T acc = 0;
  for (int k0 = 0; k0 < n; k0 += TILE) {
    ta[threadIdx.y][threadIdx.x] = a[row * n + k0 + threadIdx.x];
    tb[threadIdx.y][threadIdx.x] = b[(k0 + threadIdx.y) * n + col];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; ++k) acc += ta[threadIdx.y][k] * tb[k][threadIdx.x];
    __syncthreads();
  }
  c[row * n + col] = acc;
}

template __global__ void block_reduce<float, 256, ops::Plus>(const float*, float*, int, ops::Plus);
template __global__ void block_reduce<double, 512, ops::Max>(const double*, double*, int, ops::Max);
template __global__ void tiled_matmul<16, float>(const float*, const float*, float*, int);
template __global__ void tiled_matmul<32, double>(const double*, const double*, double*, int);
}  // namespace gpucalc_test
