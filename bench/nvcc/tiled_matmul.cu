// CUDA C equivalent of examples/tiled_matmul.tsr: 32 x 32 tiles, each of the 256 threads
// owning 4 elements of the CTA's C tile.
extern "C" __global__ void __launch_bounds__(256) tiled_matmul(const float* A, const float* B, float* C, int M, int K, int N) {
    __shared__ float As[32][32], Bs[32][32];
    int r = blockIdx.y * 32, c = blockIdx.x * 32;
    float acc[4] = {0, 0, 0, 0};
    for (int k0 = 0; k0 < K; k0 += 32) {
        for (int e = threadIdx.x; e < 1024; e += 256) {
            int i = e / 32, j = e % 32;
            As[i][j] = (r + i < M && k0 + j < K) ? A[(r + i) * K + k0 + j] : 0.0f;
            Bs[i][j] = (k0 + i < K && c + j < N) ? B[(k0 + i) * N + c + j] : 0.0f;
        }
        __syncthreads();
        for (int q = 0; q < 4; q++) {
            int e = threadIdx.x + q * 256, i = e / 32, j = e % 32;
            for (int k = 0; k < 32; k++) acc[q] += As[i][k] * Bs[k][j];
        }
        __syncthreads();
    }
    for (int q = 0; q < 4; q++) {
        int e = threadIdx.x + q * 256, i = e / 32, j = e % 32;
        if (r + i < M && c + j < N) C[(r + i) * N + c + j] = acc[q];
    }
}
