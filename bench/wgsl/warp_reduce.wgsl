// A warp's sum, max and min with subgroup operations (examples/warp_reduce.tsr): a warp is the
// device's subgroup, as in Tessera's subgroup mode.
enable subgroups;

struct Params {
    N: i32,
    W: i32,
}

@group(0) @binding(0) var<storage, read> X: array<i32>;
@group(0) @binding(1) var<storage, read_write> Sum: array<i32>;
@group(0) @binding(2) var<storage, read_write> Max: array<i32>;
@group(0) @binding(3) var<storage, read_write> Min: array<i32>;
@group(0) @binding(4) var<uniform> params: Params;

@compute @workgroup_size(128)
fn main(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) width: u32,
) {
    var x = 0i;
    if id.x < u32(params.N) {
        x = X[id.x];
    }
    let s = subgroupAdd(x);
    let hi = subgroupMax(x);
    let lo = subgroupMin(x);
    let w = group.x * (128u / width) + local / width;
    if lane == 0u && w < u32(params.W) {
        Sum[w] = s;
        Max[w] = hi;
        Min[w] = lo;
    }
}
