// CUDA C equivalent of examples/tiled_transpose.tsr.
extern "C" __global__ void __launch_bounds__(256) tiled_transpose(const float* In, float* Out, int R, int C) {
    __shared__ float t[32][32];
    int r = blockIdx.y * 32, c = blockIdx.x * 32;
    for (int e = threadIdx.x; e < 1024; e += 256) {
        int i = e / 32, j = e % 32;
        t[i][j] = (r + i < R && c + j < C) ? In[(r + i) * C + c + j] : 0.0f;
    }
    __syncthreads();
    for (int e = threadIdx.x; e < 1024; e += 256) {
        int i = e / 32, j = e % 32;
        if (c + i < C && r + j < R) Out[(c + i) * R + r + j] = t[j][i];
    }
}
