// CUDA C equivalent of examples/warp_reduce.tsr.
extern "C" __global__ void __launch_bounds__(128) warp_reduce(const int* X, int* Sum, int* Max, int* Min, int N, int W) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int w = blockIdx.x * 4 + threadIdx.x / 32;
    int x = i < N ? X[i] : 0;
    int s = __reduce_add_sync(0xffffffffu, x);
    int hi = __reduce_max_sync(0xffffffffu, x);
    int lo = __reduce_min_sync(0xffffffffu, x);
    if (threadIdx.x % 32 == 0 && w < W) { Sum[w] = s; Max[w] = hi; Min[w] = lo; }
}
