//! `@cluster(dim: size)`: the tier above the grid, as the spec states it (`content/spec.md`,
//! "@cluster").
//!
//! In: a kernel with a [`Cluster`], and its arguments bound for the whole problem. Out: the
//! super-tiles, each as the arguments of one ordinary launch over its slice ([`slice`]), and
//! the merge of a super-tile's results back into the whole ([`merge`]). Whoever runs the
//! launches (the simulator here, the GPU runners, MPI ranks in the CLI) uses these, so every
//! runner cuts the problem the same way.
//!
//! Invariants: the super-tiles cover `0..N` of the cluster dimension in order, each `size`
//! long but the last; super-tile `t` runs on node `t % nodes`
//! ([`crate::hierarchy::node_of_supertile`]); inside a super-tile the kernel
//! sees `N` = the slice's length, every tensor with an axis `N` sliced on that axis, every
//! other tensor whole, the launch's grid and `ctx` unchanged. The checker lets a kernel under
//! `@cluster` write only sliced tensors (E0126) with `N` on one axis (E0125), so super-tiles
//! write disjoint elements and the result does not depend on how many nodes ran them.

use crate::ir::{Cluster, DimRef, Kernel, Param};
use crate::sim::{self, Arg, Args, Fault, Observers, SimOptions, Stats};
use serde::{Deserialize, Serialize};

/// One super-tile: elements `start..start + len` of the cluster dimension.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SuperTile {
    pub index: usize,
    pub node: usize,
    pub start: usize,
    pub len: usize,
}

/// The super-tiles of a dimension of `extent` elements, dealt round robin to `nodes` nodes.
pub fn super_tiles(cluster: Cluster, extent: usize, nodes: usize) -> Vec<SuperTile> {
    let size = usize::try_from(cluster.size).unwrap_or(usize::MAX).max(1);
    let nodes = nodes.max(1);
    (0..extent.div_ceil(size))
        .map(|index| {
            let start = index * size;
            SuperTile {
                index,
                node: crate::hierarchy::node_of_supertile(index, nodes),
                start,
                len: size.min(extent - start),
            }
        })
        .collect()
}

/// The super-tiles of `kernel` for `args` (none when it has no `@cluster`).
pub fn plan(kernel: &Kernel, args: &Args, nodes: usize) -> Vec<SuperTile> {
    let Some(cluster) = kernel.cluster else {
        return Vec::new();
    };
    let extent = args.dims.get(cluster.dim).copied().unwrap_or(0);
    super_tiles(cluster, usize::try_from(extent).unwrap_or(0), nodes)
}

/// The axis of parameter `param` that the cluster slices, if any.
fn sliced_axis(kernel: &Kernel, cluster: Cluster, param: usize) -> Option<usize> {
    match kernel.params.get(param)? {
        Param::Tensor { dims, .. } => dims.iter().position(|d| *d == DimRef::Dim(cluster.dim)),
        Param::Scalar { .. } => None,
    }
}

/// A row-major tensor of `shape` as `outer` runs of `shape[axis]` rows of `inner` elements.
fn runs(shape: &[usize], axis: usize) -> (usize, usize, usize) {
    let outer = shape[..axis].iter().product();
    let inner = shape[axis + 1..].iter().product();
    (outer, shape[axis], inner)
}

/// The arguments of super-tile `tile`'s launch: `whole` with the cluster dimension set to the
/// tile's length and every sliced tensor cut to its slice.
pub fn slice(kernel: &Kernel, whole: &Args, tile: SuperTile) -> Args {
    let Some(cluster) = kernel.cluster else {
        return whole.clone();
    };
    let mut part = Args {
        grid: whole.grid,
        dims: whole.dims.clone(),
        params: Vec::with_capacity(whole.params.len()),
    };
    if let Some(n) = part.dims.get_mut(cluster.dim) {
        *n = i32::try_from(tile.len).unwrap_or(i32::MAX);
    }
    for (index, arg) in whole.params.iter().enumerate() {
        let sliced = match (arg, sliced_axis(kernel, cluster, index)) {
            (Arg::Tensor(tensor), Some(axis)) => {
                let (outer, extent, inner) = runs(&tensor.shape, axis);
                let mut bits = Vec::with_capacity(outer * tile.len * inner);
                for o in 0..outer {
                    let from = (o * extent + tile.start) * inner;
                    bits.extend_from_slice(&tensor.bits[from..from + tile.len * inner]);
                }
                let mut shape = tensor.shape.clone();
                shape[axis] = tile.len;
                Arg::Tensor(sim::Tensor {
                    element: tensor.element,
                    shape,
                    bits,
                })
            }
            _ => arg.clone(),
        };
        part.params.push(sliced);
    }
    part
}

/// Copies what super-tile `tile` wrote (its slices of the tensors the kernel writes) from its
/// launch's arguments `part` back into `whole`.
pub fn merge(kernel: &Kernel, whole: &mut Args, tile: SuperTile, part: &Args) {
    let Some(cluster) = kernel.cluster else {
        return;
    };
    for index in kernel.written_tensors() {
        let Some(axis) = sliced_axis(kernel, cluster, index) else {
            continue;
        };
        let (Some(Arg::Tensor(into)), Some(Arg::Tensor(from))) =
            (whole.params.get_mut(index), part.params.get(index))
        else {
            continue;
        };
        let (outer, extent, inner) = runs(&into.shape, axis);
        for o in 0..outer {
            let to = (o * extent + tile.start) * inner;
            let at = o * tile.len * inner;
            into.bits[to..to + tile.len * inner]
                .copy_from_slice(&from.bits[at..at + tile.len * inner]);
        }
    }
}

/// What a clustered run did: the nodes, and each super-tile with the node it ran on.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClusterRun {
    pub nodes: usize,
    pub tiles: Vec<SuperTile>,
}

/// Runs the super-tiles of `node` (every super-tile when `None`) in order: each one's slice
/// goes to `launch_one`, and what it wrote is merged into `whole`.
pub fn run_tiles<E>(
    kernel: &Kernel,
    whole: &mut Args,
    tiles: &[SuperTile],
    node: Option<usize>,
    mut launch_one: impl FnMut(&mut Args, SuperTile) -> Result<(), E>,
) -> Result<(), E> {
    for &tile in tiles.iter().filter(|t| node.is_none_or(|n| t.node == n)) {
        let mut part = slice(kernel, whole, tile);
        launch_one(&mut part, tile)?;
        merge(kernel, whole, tile, &part);
    }
    Ok(())
}

/// The simulator's run of one super-tile's launch; a fault names the super-tile.
pub fn simulate_one(
    kernel: &Kernel,
    part: &mut Args,
    tile: SuperTile,
    options: SimOptions,
    observers: &Observers,
) -> Result<Stats, Fault> {
    let observers = Observers {
        writers: None,
        progress: observers.progress,
        stop: observers.stop,
    };
    sim::run_with(kernel, part, options, observers).map_err(|fault| Fault {
        message: format!(
            "{} (in super-tile {}, elements {}..{} of the cluster dimension, on node {})",
            fault.message,
            tile.index,
            tile.start,
            tile.start + tile.len,
            tile.node
        ),
        ..fault
    })
}

/// Runs every super-tile on the simulator in this process, node by node (as `nodes` nodes
/// would, each its super-tiles in order), merging the results into `args`.
pub fn simulate(
    kernel: &Kernel,
    args: &mut Args,
    options: SimOptions,
    nodes: usize,
    observers: &Observers,
) -> Result<(Stats, ClusterRun), Fault> {
    let nodes = nodes.max(1);
    let tiles = plan(kernel, args, nodes);
    let mut total = Stats::default();
    for node in 0..nodes {
        run_tiles(kernel, args, &tiles, Some(node), |part, tile| {
            let stats = simulate_one(kernel, part, tile, options, observers)?;
            total += stats;
            Ok(())
        })?;
    }
    Ok((total, ClusterRun { nodes, tiles }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn super_tiles_cover_the_dimension_round_robin() {
        let cluster = Cluster { dim: 0, size: 4 };
        let tiles = super_tiles(cluster, 10, 2);
        let shape: Vec<_> = tiles.iter().map(|t| (t.node, t.start, t.len)).collect();
        assert_eq!(shape, [(0, 0, 4), (1, 4, 4), (0, 8, 2)]);
        assert_eq!(
            super_tiles(cluster, 8, 4).len(),
            2,
            "fewer tiles than nodes"
        );
        assert!(super_tiles(cluster, 0, 4).is_empty());
    }

    #[test]
    fn a_slice_cuts_any_axis() {
        // Y: tensor<i32>[M, N] with M = 2, N = 5; the cluster splits N (dim 1) by 2.
        let kernel = Kernel {
            name: "k".into(),
            threads: 32,
            params: vec![Param::Tensor {
                name: "Y".into(),
                element: crate::ir::Scalar::I32,
                dims: vec![DimRef::Dim(0), DimRef::Dim(1)],
            }],
            dims: vec!["M".into(), "N".into()],
            derived: Vec::new(),
            regs: Vec::new(),
            shared: Vec::new(),
            locals: Vec::new(),
            body: Vec::new(),
            span: crate::span::Span::empty(0),
            cluster: Some(Cluster { dim: 1, size: 2 }),
            matrix: None,
            mma: None,
        };
        let whole = Args {
            grid: crate::hierarchy::Dim3::new(1, 1, 1),
            dims: vec![2, 5],
            params: vec![Arg::Tensor(sim::Tensor {
                element: crate::ir::Scalar::I32,
                shape: vec![2, 5],
                bits: (0..10).collect(),
            })],
        };
        let tiles = plan(&kernel, &whole, 3);
        assert_eq!(tiles.len(), 3);
        let last = slice(&kernel, &whole, tiles[2]);
        assert_eq!(last.dims, [2, 1]);
        let Some(Arg::Tensor(t)) = last.params.first() else {
            panic!("no tensor")
        };
        assert_eq!((t.shape.clone(), t.bits.clone()), (vec![2, 1], vec![4, 9]));
        let middle = slice(&kernel, &whole, tiles[1]);
        let Some(Arg::Tensor(t)) = middle.params.first() else {
            panic!("no tensor")
        };
        assert_eq!(t.bits, [2, 3, 7, 8]);
    }
}
