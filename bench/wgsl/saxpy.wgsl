// saxpy as a WebGPU programmer writes it: one invocation an element.
// Bindings as Tessera lays out examples/saxpy.tsr: X, Y, then the uniforms (N, alpha).
struct Params {
    N: i32,
    alpha: f32,
}

@group(0) @binding(0) var<storage, read> X: array<f32>;
@group(0) @binding(1) var<storage, read_write> Y: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

@compute @workgroup_size(128)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i >= u32(params.N) {
        return;
    }
    Y[i] = fma(params.alpha, X[i], Y[i]);
}
