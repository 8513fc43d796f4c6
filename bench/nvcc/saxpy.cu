// CUDA C equivalent of examples/saxpy.tsr, for `scripts/bench-ptx.sh`.
extern "C" __global__ void __launch_bounds__(128) saxpy(float alpha, const float* X, float* Y, int N) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;
    Y[i] = fmaf(alpha, X[i], Y[i]);
}
