//! `mpirun -n P tessera run …`: a kernel under `@cluster` across P processes, with Open MPI
//! (through the `mpi` crate) as the engine. Rank r runs the super-tiles dealt to node r
//! (`compiler_core::cluster`), on its own simulator or GPU; then every rank sends what its
//! super-tiles wrote to rank 0, in super-tile order, and rank 0 merges them and prints or
//! writes the results as a one-process run would. Results do not depend on P.

use compiler_core::cluster::{self, ClusterRun, SuperTile};
use compiler_core::ir::Kernel;
use compiler_core::sim::{Arg, Args};
use mpi::traits::*;

/// The MPI world, when this process was started by `mpirun` (Open MPI or MPICH); `None`
/// otherwise, so a plain `tessera run` never initializes MPI.
pub fn world() -> Option<mpi::environment::Universe> {
    let launched = ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE"]
        .iter()
        .any(|v| std::env::var_os(v).is_some());
    if launched {
        mpi::initialize()
    } else {
        None
    }
}

/// Whether this process is rank 0, the one that reports.
pub fn is_root(universe: &mpi::environment::Universe) -> bool {
    universe.world().rank() == 0
}

/// Stops every rank: one rank's failure leaves the others waiting for its results.
pub fn abort(universe: &mpi::environment::Universe, message: &str) -> ! {
    let world = universe.world();
    eprintln!("error (rank {}): {message}", world.rank());
    world.abort(1)
}

/// Runs this rank's super-tiles of a kernel under `@cluster` with `launch_one`, and gathers
/// every rank's results into `whole` on rank 0, which gets the super-tiles and their nodes.
pub fn run<E>(
    universe: &mpi::environment::Universe,
    kernel: &Kernel,
    whole: &mut Args,
    launch_one: impl FnMut(&mut Args, SuperTile) -> Result<(), E>,
) -> Result<Option<ClusterRun>, E> {
    let world = universe.world();
    let (rank, size) = (world.rank() as usize, world.size() as usize);
    let tiles = cluster::plan(kernel, whole, size);
    cluster::run_tiles(kernel, whole, &tiles, Some(rank), launch_one)?;
    let written = kernel.written_tensors();
    let root = world.process_at_rank(0);
    for &tile in &tiles {
        match (rank, tile.node) {
            (0, 0) => {}
            (0, from) => {
                let mut part = cluster::slice(kernel, whole, tile);
                for &param in &written {
                    let (bits, _) = world.process_at_rank(from as i32).receive_vec::<u32>();
                    if let Some(Arg::Tensor(tensor)) = part.params.get_mut(param) {
                        tensor.bits = bits;
                    }
                }
                cluster::merge(kernel, whole, tile, &part);
            }
            (me, node) if me == node => {
                let part = cluster::slice(kernel, whole, tile);
                for &param in &written {
                    if let Some(Arg::Tensor(tensor)) = part.params.get(param) {
                        root.send(&tensor.bits[..]);
                    }
                }
            }
            _ => {}
        }
    }
    Ok((rank == 0).then_some(ClusterRun { nodes: size, tiles }))
}
