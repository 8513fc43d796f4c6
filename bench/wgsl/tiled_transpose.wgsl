// The classic tiled transpose: a 32 x 32 tile in workgroup memory (a column of padding against
// bank conflicts), 256 invocations, each moving 4 elements in and 4 out.
struct Params {
    R: i32,
    C: i32,
}

@group(0) @binding(0) var<storage, read> In: array<f32>;
@group(0) @binding(1) var<storage, read_write> Out: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

var<workgroup> tile: array<f32, 1056>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let rows = u32(params.R);
    let cols = u32(params.C);
    let x = local % 32u;
    let y = local / 32u;
    let r0 = group.y * 32u;
    let c0 = group.x * 32u;
    for (var j = 0u; j < 32u; j += 8u) {
        let r = r0 + y + j;
        let c = c0 + x;
        if r < rows && c < cols {
            tile[(y + j) * 33u + x] = In[r * cols + c];
        }
    }
    workgroupBarrier();
    for (var j = 0u; j < 32u; j += 8u) {
        let r = c0 + y + j;
        let c = r0 + x;
        if r < cols && c < rows {
            Out[r * rows + c] = tile[x * 33u + y + j];
        }
    }
}
