// The classic tiled matmul: a 32 x 32 block of C a workgroup of 256 invocations, each computing
// 4 elements of a column; 32 x 32 tiles of A and B in workgroup memory.
struct Params {
    M: i32,
    K: i32,
    N: i32,
}

@group(0) @binding(0) var<storage, read> A: array<f32>;
@group(0) @binding(1) var<storage, read> B: array<f32>;
@group(0) @binding(2) var<storage, read_write> C: array<f32>;
@group(0) @binding(3) var<uniform> params: Params;

var<workgroup> As: array<f32, 1024>;
var<workgroup> Bs: array<f32, 1024>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let m = u32(params.M);
    let k_len = u32(params.K);
    let n = u32(params.N);
    let x = local % 32u;
    let y = local / 32u;
    let row0 = group.y * 32u;
    let col = group.x * 32u + x;
    var acc = array<f32, 4>(0.0, 0.0, 0.0, 0.0);
    for (var k0 = 0u; k0 < k_len; k0 += 32u) {
        for (var j = 0u; j < 4u; j++) {
            let r = y + 8u * j;
            var a = 0.0;
            if row0 + r < m && k0 + x < k_len {
                a = A[(row0 + r) * k_len + k0 + x];
            }
            As[r * 32u + x] = a;
            var b = 0.0;
            if k0 + r < k_len && col < n {
                b = B[(k0 + r) * n + col];
            }
            Bs[r * 32u + x] = b;
        }
        workgroupBarrier();
        for (var k = 0u; k < 32u; k++) {
            let b = Bs[k * 32u + x];
            for (var j = 0u; j < 4u; j++) {
                acc[j] += As[(y + 8u * j) * 32u + k] * b;
            }
        }
        workgroupBarrier();
    }
    for (var j = 0u; j < 4u; j++) {
        let r = row0 + y + 8u * j;
        if r < m && col < n {
            C[r * n + col] = acc[j];
        }
    }
}
