//! The IR's text form, as `tessera ir` prints it.
//!
//! In: a [`Module`]. Out: one line per statement, blocks indented, registers as `%N` (with the
//! source name where there is one), constants in their type.

use super::*;
use std::fmt::Write;

pub fn print(module: &Module) -> String {
    module.kernels.iter().map(print_kernel).collect()
}

/// One kernel's text, as [`print`] gives each (Python's `Module.ir(kernel)`).
pub fn print_kernel(kernel: &Kernel) -> String {
    let mut out = String::new();
    let params: Vec<String> = kernel
        .params
        .iter()
        .map(|p| match p {
            Param::Tensor {
                name,
                element,
                dims,
            } => {
                let dims: Vec<String> = dims
                    .iter()
                    .map(|d| match d {
                        DimRef::Literal(n) => n.to_string(),
                        DimRef::Dim(i) => kernel.dims.get(*i).cloned().unwrap_or_default(),
                    })
                    .collect();
                format!("{name}: tensor<{}>[{}]", element.name(), dims.join(", "))
            }
            Param::Scalar { name, ty } => format!("{name}: {}", ty.name()),
        })
        .collect();
    let _ = writeln!(
        out,
        "kernel {}({}) threads={} {{",
        kernel.name,
        params.join(", "),
        kernel.threads
    );
    if !kernel.shared.is_empty() {
        let _ = writeln!(
            out,
            "  // shared memory: {} bytes with 32-lane warps",
            kernel.shared_bytes_at(crate::hierarchy::NVIDIA_LANES)
        );
    }
    for (index, array) in kernel.shared.iter().enumerate() {
        let extents = |e: &[u32]| e.iter().map(u32::to_string).collect::<Vec<_>>().join(", ");
        let padded = if array.is_padded() {
            format!(
                " stored as [{}]: rows of an even number of words are one word longer, so a column spans 32 banks",
                extents(&array.storage)
            )
        } else {
            String::new()
        };
        let shape = if array.per_warp {
            format!("ctx.warps, at most {}", extents(&array.shape))
        } else {
            extents(&array.shape)
        };
        let _ = writeln!(
            out,
            "  shared @{index}.{}: {}[{shape}]{padded}",
            array.name,
            array.element.name(),
        );
    }
    for (index, array) in kernel.locals.iter().enumerate() {
        let shape: Vec<String> = array.shape.iter().map(u32::to_string).collect();
        let _ = writeln!(
            out,
            "  local ${index}.{}: {}[{}] per thread, {}",
            array.name,
            array.element.name(),
            shape.join(", "),
            if array.in_registers {
                "every index a constant: registers"
            } else {
                "an index known at run time: local memory on PTX"
            }
        );
    }
    block(&mut out, kernel, &kernel.body, 1);
    out += "}\n";
    out
}

fn reg(kernel: &Kernel, r: Reg) -> String {
    match kernel
        .regs
        .get(r.0 as usize)
        .and_then(|info| info.name.as_deref())
    {
        Some(name) => format!("%{}.{name}", r.0),
        None => format!("%{}", r.0),
    }
}

fn operand(kernel: &Kernel, o: Operand, ty: Scalar) -> String {
    match o {
        Operand::Reg(r) => reg(kernel, r),
        Operand::Const(bits) => match ty {
            Scalar::F32 | Scalar::F16 => format!("{:?}", f32::from_bits(bits)),
            Scalar::I32 | Scalar::I8 => (bits as i32).to_string(),
            Scalar::Bool => (bits != 0).to_string(),
            Scalar::U32 | Scalar::U8 | Scalar::I64 | Scalar::U64 => bits.to_string(),
        },
    }
}

fn block(out: &mut String, kernel: &Kernel, stmts: &[Stmt], depth: usize) {
    let pad = "  ".repeat(depth);
    for stmt in stmts {
        match &stmt.kind {
            StmtKind::Let { dst, op } => {
                let ty = kernel
                    .regs
                    .get(dst.0 as usize)
                    .map_or(Scalar::I32, |i| i.ty);
                let _ = writeln!(
                    out,
                    "{pad}{}: {} = {}",
                    reg(kernel, *dst),
                    ty.name(),
                    op_text(kernel, op, ty)
                );
            }
            StmtKind::LocalStore {
                array,
                index,
                value,
                ..
            } => {
                let (name, element) = local_name(kernel, *array);
                let _ = writeln!(
                    out,
                    "{pad}local_store {name}[{}] = {}",
                    operand(kernel, *index, Scalar::I32),
                    operand(kernel, *value, element)
                );
            }
            StmtKind::SharedStore {
                array,
                indices,
                value,
            } => {
                let (name, element) = shared_name(kernel, *array);
                let _ = writeln!(
                    out,
                    "{pad}shared_store {name}[{}] = {}",
                    list(kernel, indices),
                    operand(kernel, *value, element)
                );
            }
            StmtKind::Store {
                tensor,
                indices,
                value,
                guarded,
            } => {
                let name = kernel.params.get(*tensor).map_or("?", |p| p.name());
                let element = match kernel.params.get(*tensor) {
                    Some(Param::Tensor { element, .. }) => *element,
                    _ => Scalar::F32,
                };
                let _ = writeln!(
                    out,
                    "{pad}store{} {name}[{}] = {}",
                    if *guarded { ".guarded" } else { "" },
                    list(kernel, indices),
                    operand(kernel, *value, element)
                );
            }
            StmtKind::Atomic(Atomic {
                dst,
                op,
                ty,
                place,
                value,
                expected,
            }) => {
                let result = dst.map_or(String::new(), |d| {
                    format!("{}: {} = ", reg(kernel, d), ty.name())
                });
                let (name, indices) = match place {
                    Place::Tensor { tensor, indices } => {
                        let name = kernel.params.get(*tensor).map_or("?", |p| p.name());
                        (name.to_owned(), indices)
                    }
                    Place::Shared { array, indices } => (shared_name(kernel, *array).0, indices),
                };
                let expected =
                    expected.map_or(String::new(), |e| format!("{}, ", operand(kernel, e, *ty)));
                let _ = writeln!(
                    out,
                    "{pad}{result}{}.{} {name}[{}], {expected}{}",
                    op.name(),
                    ty.name(),
                    list(kernel, indices),
                    operand(kernel, *value, *ty)
                );
            }
            StmtKind::If {
                condition,
                then_block,
                else_block,
            } => {
                let _ = writeln!(
                    out,
                    "{pad}if {} {{",
                    operand(kernel, *condition, Scalar::Bool)
                );
                block(out, kernel, then_block, depth + 1);
                if !else_block.is_empty() {
                    let _ = writeln!(out, "{pad}}} else {{");
                    block(out, kernel, else_block, depth + 1);
                }
                let _ = writeln!(out, "{pad}}}");
            }
            StmtKind::Loop { body, continuing } => {
                let _ = writeln!(out, "{pad}loop {{");
                block(out, kernel, body, depth + 1);
                if !continuing.is_empty() {
                    let _ = writeln!(out, "{pad}}} continuing {{");
                    block(out, kernel, continuing, depth + 1);
                }
                let _ = writeln!(out, "{pad}}}");
            }
            StmtKind::Break => {
                let _ = writeln!(out, "{pad}break");
            }
            StmtKind::Continue => {
                let _ = writeln!(out, "{pad}continue");
            }
            StmtKind::Return => {
                let _ = writeln!(out, "{pad}return");
            }
            StmtKind::Barrier => {
                let _ = writeln!(out, "{pad}barrier");
            }
            StmtKind::Mma { a, b, c, d } => {
                let name = |array: usize| local_name(kernel, array).0;
                let _ = writeln!(
                    out,
                    "{pad}{} = mma.m16n8k16 over the warp ({}, {}, {})",
                    name(*d),
                    name(*a),
                    name(*b),
                    name(*c)
                );
            }
        }
    }
}

fn local_name(kernel: &Kernel, array: usize) -> (String, Scalar) {
    kernel
        .locals
        .get(array)
        .map_or(("?".to_owned(), Scalar::F32), |a| {
            (format!("${array}.{}", a.name), a.element)
        })
}

fn shared_name(kernel: &Kernel, array: usize) -> (String, Scalar) {
    kernel
        .shared
        .get(array)
        .map_or(("?".to_owned(), Scalar::F32), |a| {
            (format!("@{array}.{}", a.name), a.element)
        })
}

fn list(kernel: &Kernel, operands: &[Operand]) -> String {
    operands
        .iter()
        .map(|o| operand(kernel, *o, Scalar::I32))
        .collect::<Vec<_>>()
        .join(", ")
}

fn op_text(kernel: &Kernel, op: &Op, ty: Scalar) -> String {
    let o = |x: &Operand, t: Scalar| operand(kernel, *x, t);
    match op {
        Op::Copy(x) => o(x, ty),
        Op::Const64(bits) => ty.show_wide(*bits),
        Op::Ctx(field) => field.name(),
        Op::Dim(i) => format!("dim {}", kernel.dims.get(*i).cloned().unwrap_or_default()),
        Op::Scalar(i) => format!("param {}", kernel.params.get(*i).map_or("?", |p| p.name())),
        Op::ScalarHigh(i) => format!(
            "param {}.hi",
            kernel.params.get(*i).map_or("?", |p| p.name())
        ),
        Op::Unary(u, t, x) => format!("{u:?} {}", o(x, *t)).to_lowercase(),
        Op::Binary(b, t, x, y) => format!(
            "{}.{} {}, {}",
            format!("{b:?}").to_lowercase(),
            t.name(),
            o(x, *t),
            o(y, *t)
        ),
        Op::Compare(c, t, x, y) => format!(
            "{}.{} {}, {}",
            format!("{c:?}").to_lowercase(),
            t.name(),
            o(x, *t),
            o(y, *t)
        ),
        Op::Select(c, a, b) => format!("select {}, {}, {}", o(c, Scalar::Bool), o(a, ty), o(b, ty)),
        Op::Fma(a, b, c) => format!("fma {}, {}, {}", o(a, ty), o(b, ty), o(c, ty)),
        Op::Pow(x, y) => format!("pow {}, {}", o(x, ty), o(y, ty)),
        Op::Math(m, t, x) => format!(
            "{}.{} {}",
            format!("{m:?}").to_lowercase(),
            t.name(),
            o(x, *t)
        ),
        Op::Cast { from, to, value } => {
            format!("cast.{}.{} {}", from.name(), to.name(), o(value, *from))
        }
        Op::Bitcast { from, to, value } => {
            format!("bitcast.{}.{} {}", from.name(), to.name(), o(value, *from))
        }
        Op::Load {
            tensor,
            indices,
            guarded,
        } => format!(
            "load{} {}[{}]",
            if *guarded { ".guarded" } else { "" },
            kernel.params.get(*tensor).map_or("?", |p| p.name()),
            list(kernel, indices)
        ),
        Op::LocalLoad { array, index, .. } => format!(
            "local_load {}[{}]",
            local_name(kernel, *array).0,
            operand(kernel, *index, Scalar::I32)
        ),
        Op::SharedLoad { array, indices } => {
            format!(
                "shared_load {}[{}]",
                shared_name(kernel, *array).0,
                list(kernel, indices)
            )
        }
        Op::Reduce(r, over, t, x) => format!(
            "{}<{}>.{} {}",
            format!("{r:?}").to_lowercase(),
            if *over == Over::Warp { "warp" } else { "cta" },
            t.name(),
            o(x, *t)
        ),
        Op::Vote(v, x) => format!(
            "{}<warp> {}",
            format!("{v:?}").to_lowercase(),
            o(x, Scalar::Bool)
        ),
        Op::PrefixSum(t, x) => format!("prefix_sum<warp>.{} {}", t.name(), o(x, *t)),
        Op::Shuffle(s, x, l) => format!(
            "shuffle.{} {}, {}",
            format!("{s:?}").to_lowercase(),
            o(x, ty),
            o(l, Scalar::I32)
        ),
    }
}
