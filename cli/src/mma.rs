//! `tessera mma m16n8k16`: the lane ↔ element map of a warp's matrix operation.
//!
//! In: the shape (only m16n8k16 is one). Out: for each operand (A, B, C), the matrix drawn
//! with the lane and index that hold each element (`17:3` is lane 17's element 3), or with
//! `--json` each operand's list of `{lane, index, row, col}`: `compiler_core::mma`'s table,
//! the one the simulator, PTX and WGSL follow.

use compiler_core::mma::{Fragments, Operand, SHAPE};

#[derive(clap::Args)]
pub struct MmaArgs {
    /// The shape: m16n8k16 (f16 A and B, f32 C and D).
    shape: String,
    /// Print each operand's elements as JSON: {"shape", "a", "b", "c"}, each a list of
    /// {lane, index, row, col}.
    #[arg(long)]
    json: bool,
}

pub fn run(args: &MmaArgs) -> Result<String, String> {
    if args.shape != SHAPE {
        return Err(format!(
            "`{}` is not a shape Tessera's mma has: the one shape is {SHAPE} (A 16 x 16 and B 16 x 8 of f16, C and D 16 x 8 of f32)",
            args.shape
        ));
    }
    if args.json {
        return serde_json::to_string_pretty(&Fragments::new())
            .map(|json| json + "\n")
            .map_err(|e| e.to_string());
    }
    let mut out = format!(
        "mma {SHAPE}: d = a * b + c over the 32 lanes of a warp; each cell is LANE:INDEX, the lane that holds the element and its index in that lane's fragment\n"
    );
    for operand in Operand::ALL {
        let (rows, cols) = operand.extents();
        out += &format!(
            "\n{} ({rows} x {cols}, {} elements a lane):\n",
            operand.name(),
            operand.per_lane()
        );
        out += "     ";
        for col in 0..cols {
            out += &format!("{col:>6}");
        }
        out += "\n";
        for row in 0..rows {
            out += &format!("{row:>3}  ");
            for col in 0..cols {
                let (lane, index) = operand.holder(row, col);
                out += &format!("{:>6}", format!("{lane}:{index}"));
            }
            out += "\n";
        }
    }
    Ok(out)
}
