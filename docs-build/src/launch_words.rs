//! The launch a docs kernel block names in its info string, as `key=value` words, resolved
//! against the kernel into a [`Launch`] once, when the docs are built: the content check runs
//! it, the page's Run and its playground link carry it.
//!
//! The words: `launch=NAME` starts from that example's launch, `grid=4` or `grid=4x2`,
//! `lanes=8`, `steps=1000` (the step limit), `kernel=NAME`, `nodes=4` (for `@cluster`); any
//! other key names one of the kernel's parameters or dimensions: a tensor takes an input
//! (`A=rand:1`), a scalar a number (`alpha=2.5`), a dimension an integer (`N=1000`).
//! `step=CTA,WARP` is not part of the launch: it names the warp a "Step through" link opens
//! the stepper on ([`stepping`]); nor is `profile`, which shows the run's memory accesses
//! counted under the kernel.

use compiler_core::hierarchy::Dim3;
use compiler_core::ir::{Kernel, Param};
use compiler_core::launch::{Input, Launch};
use compiler_core::share::Stepping;

/// `step=CTA,WARP`: the CTA (its index in `grid`, x fastest) and the warp, at the first step.
/// Whether the warp is in the CTA, the content check says.
pub fn stepping(text: &str, grid: Dim3) -> Result<Stepping, String> {
    let bad = || format!("`step={text}` is not step=CTA,WARP with whole numbers");
    let (cta, warp) = text.split_once(',').ok_or_else(bad)?;
    let cta = cta.parse::<u64>().map_err(|_| bad())?;
    let warp = warp.parse::<u32>().map_err(|_| bad())?;
    if cta >= grid.volume() {
        return Err(format!(
            "`step={text}`: the grid has {} CTAs, numbered from 0",
            grid.volume()
        ));
    }
    let (gx, gy) = (u64::from(grid.x.max(1)), u64::from(grid.y.max(1)));
    let block = Dim3::new(
        (cta % gx) as u32,
        (cta / gx % gy) as u32,
        (cta / (gx * gy)) as u32,
    );
    Ok(Stepping {
        launch: 0,
        block,
        warp,
        step: 0,
    })
}

pub fn resolve(words: &[(String, String)], kernel: &Kernel) -> Result<Launch, String> {
    let mut launch = Launch::default();
    for (key, value) in words {
        let bad = || {
            format!(
                "`{key}={value}` is not a launch setting for `{}`",
                kernel.name
            )
        };
        let count = |text: &str| text.parse::<u32>().map_err(|_| bad());
        match key.as_str() {
            "launch" => {
                launch = compiler_core::examples::find(value)
                    .map(|e| e.launch)
                    .ok_or_else(|| {
                        format!("there is no example `{value}` to take a launch from")
                    })?;
            }
            "grid" => {
                let (x, y) = value.split_once('x').unwrap_or((value, "1"));
                launch.grid = Dim3::new(count(x)?, count(y)?, 1);
            }
            "lanes" => launch.lanes = count(value)?,
            "steps" => launch.step_limit = Some(u64::from(count(value)?)),
            "nodes" => launch.nodes = count(value)?.max(1),
            "kernel" => launch.kernel = Some(value.clone()),
            // A dimension the launch gives; an extent that is a scalar's name (`[ks]`) is the
            // scalar's.
            name if kernel.given_dims().any(|(_, d)| d == name) => {
                let n = value.parse::<i64>().map_err(|_| bad())?;
                launch.dims.insert(name.to_owned(), n);
            }
            name => match kernel.param_index(name).map(|i| &kernel.params[i]) {
                Some(Param::Tensor { .. }) => {
                    let input = value.parse::<Input>().map_err(|_| bad())?;
                    launch.inputs.insert(name.to_owned(), input);
                }
                Some(Param::Scalar { .. }) => {
                    let number = value.parse::<f64>().map_err(|_| bad())?;
                    launch.scalars.insert(name.to_owned(), number);
                }
                None => return Err(bad()),
            },
        }
    }
    Ok(launch)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernel() -> Kernel {
        let source =
            "@launch(64)\nkernel k(A: tensor<f32>[N], alpha: f32) {\n  A[ctx.thread] = alpha\n}\n";
        match compiler_core::compile(source).kernel(None) {
            Ok(kernel) => kernel.clone(),
            Err(d) => panic!("{d:?}"),
        }
    }

    fn words(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn words_name_the_grid_parameters_and_dimensions() {
        let launch = resolve(
            &words(&[
                ("grid", "4x2"),
                ("N", "100"),
                ("A", "rand:3"),
                ("alpha", "2.5"),
                ("steps", "9"),
            ]),
            &kernel(),
        );
        let Ok(launch) = launch else {
            panic!("{launch:?}")
        };
        assert_eq!(launch.grid, Dim3::new(4, 2, 1));
        assert_eq!(launch.dims.get("N"), Some(&100));
        assert_eq!(launch.inputs.get("A"), Some(&Input::Rand(3)));
        assert_eq!(launch.scalars.get("alpha"), Some(&2.5));
        assert_eq!(launch.step_limit, Some(9));
    }

    /// An extent that is a scalar's name (`[ks]`) is not a dimension to give: `ks=3` is the
    /// scalar's value.
    #[test]
    fn a_scalar_named_as_an_extent_takes_the_word() {
        let source = "@launch(32)\nkernel k(Y: tensor<f32>[ks], ks: i32) {\n}\n";
        let compilation = compiler_core::compile(source);
        let Ok(kernel) = compilation.kernel(None) else {
            panic!("{:?}", compilation.diagnostics)
        };
        let launch = resolve(&words(&[("ks", "3")]), kernel);
        let Ok(launch) = launch else {
            panic!("{launch:?}")
        };
        assert_eq!(launch.scalars.get("ks"), Some(&3.0));
        assert!(launch.dims.is_empty());
    }

    #[test]
    fn an_example_launch_is_the_starting_point() {
        let Some(saxpy) = compiler_core::examples::find("saxpy") else {
            panic!("no saxpy")
        };
        let launch = resolve(&words(&[("launch", "saxpy")]), &kernel());
        assert_eq!(launch, Ok(saxpy.launch));
        assert!(resolve(&words(&[("launch", "nothing")]), &kernel()).is_err());
    }

    #[test]
    fn a_word_the_kernel_does_not_know_is_an_error() {
        let error = resolve(&words(&[("colour", "red")]), &kernel());
        assert_eq!(
            error,
            Err("`colour=red` is not a launch setting for `k`".to_owned())
        );
        assert!(resolve(&words(&[("A", "lots")]), &kernel()).is_err());
        assert!(resolve(&words(&[("grid", "-1")]), &kernel()).is_err());
    }
}
