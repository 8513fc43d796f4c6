// CUDA C equivalent of examples/block_sum.tsr (a CTA's sum), for `scripts/bench-ptx.sh`: each
// warp adds its lanes by shuffles, lane 0 of each writes shared memory, warp 0 adds those.
extern "C" __global__ void __launch_bounds__(256) block_sum(const float* X, float* Partial, int N, int B) {
    __shared__ float sums[8];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    float x = i < N ? X[i] : 0.0f;
    for (int o = 16; o > 0; o /= 2) x += __shfl_xor_sync(0xffffffffu, x, o);
    if (lane == 0) sums[warp] = x;
    __syncthreads();
    if (warp == 0) {
        float y = lane < 8 ? sums[lane] : 0.0f;
        for (int o = 16; o > 0; o /= 2) y += __shfl_xor_sync(0xffffffffu, y, o);
        if (threadIdx.x == 0) Partial[blockIdx.x] = y;
    }
}
