// CUDA C equivalent of examples/matvec.tsr, for `scripts/bench-ptx.sh`.
extern "C" __global__ void __launch_bounds__(256) mv(const float* A, const float* W, float* C, int K, int N) {
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    int col = blockIdx.x * 8 + warp;
    if (col < N) {
        float acc = 0.0f;
        for (int k = lane; k < K; k += 32) acc += W[col * K + k] * A[k];
        for (int o = 16; o > 0; o /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, o);
        if (lane == 0) C[col] = acc;
    }
}
