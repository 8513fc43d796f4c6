// A CTA's sum (examples/block_sum.tsr): each subgroup adds its values, the first subgroup adds
// the subgroups' sums from workgroup memory.
enable subgroups;
diagnostic(off, subgroup_uniformity);

struct Params {
    N: i32,
    B: i32,
}

@group(0) @binding(0) var<storage, read> X: array<f32>;
@group(0) @binding(1) var<storage, read_write> Partial: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

// One slot a subgroup: 256 invocations in subgroups of at least 4.
var<workgroup> sums: array<f32, 64>;

@compute @workgroup_size(256)
fn main(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) width: u32,
) {
    var x = 0.0;
    if id.x < u32(params.N) {
        x = X[id.x];
    }
    let s = subgroupAdd(x);
    if lane == 0u {
        sums[local / width] = s;
    }
    workgroupBarrier();
    let count = 256u / width;
    if local < width {
        var y = 0.0;
        for (var k = lane; k < count; k += width) {
            y += sums[k];
        }
        let total = subgroupAdd(y);
        if local == 0u {
            Partial[group.x] = total;
        }
    }
}
