//! numpy arrays in and out: an array as a launch's input, checked against its parameter (the
//! element type: a clear `LaunchError`, a `ValueError`, naming the parameter), and a run's
//! tensor as a new numpy array of its element type.
//!
//! Invariant: an input is read where it lies, in row-major order: a C-contiguous array as one
//! slice, any other (Fortran order, a strided view) element by element through its strides, so
//! no copy of the array is made on the way to the launch's data (BENCHMARKS.md measures it).

use crate::errors::error;
use compiler_core::ir::Scalar;
use compiler_core::launch::Input;
use compiler_core::npy::{exact_values, Elements};
use numpy::{
    Element, PyArray, PyArrayDescrMethods, PyArrayDyn, PyArrayMethods, PyUntypedArray,
    PyUntypedArrayMethods,
};
use pyo3::prelude::*;

/// numpy's name for the dtype of a tensor of `element` (a `bool` tensor's words are `uint32`).
pub fn dtype_name(element: Scalar) -> &'static str {
    match element {
        Scalar::F32 => "float32",
        Scalar::F16 => "float16",
        Scalar::I32 => "int32",
        Scalar::U32 | Scalar::Bool => "uint32",
        Scalar::I8 => "int8",
        Scalar::U8 => "uint8",
        Scalar::I64 => "int64",
        Scalar::U64 => "uint64",
    }
}

/// `value` as the input of the tensor parameter `name` of `element`s: a numpy array of its
/// dtype, or a generator's name (`zeros`, `ones`, `iota`, `rand:SEED`) as `tessera run --in`
/// takes it. The shape is checked by the launch, as the command line's is.
pub fn input(
    py: Python<'_>,
    name: &str,
    element: Scalar,
    value: &Bound<'_, PyAny>,
) -> PyResult<Input> {
    let dtype = dtype_name(element);
    if let Ok(text) = value.extract::<String>() {
        return text
            .parse()
            .map_err(|why: String| error(py, "LaunchError", format!("`{name}`: {why}")));
    }
    let Ok(array) = value.cast::<PyUntypedArray>() else {
        let kind = value
            .get_type()
            .name()
            .map_or_else(|_| "?".to_owned(), |n| n.to_string());
        return Err(error(
            py,
            "LaunchError",
            format!("`{name}` is a tensor of {}: pass a numpy array of dtype {dtype} (or zeros, ones, iota, rand:SEED), not a value of type {kind}", element.name()),
        ));
    };
    let found = array.dtype();
    let wrong = || {
        let found = found
            .str()
            .map_or_else(|_| "?".to_owned(), |s| s.to_string());
        error(
            py,
            "LaunchError",
            format!("`{name}` is a tensor of {}, but the array passed for it holds {found} values: pass dtype {dtype} (`{name}.astype(np.{dtype})` converts it)", element.name()),
        )
    };
    let (shape, values) = match element {
        Scalar::F32 => read::<f32>(py, array, f64::from),
        Scalar::F16 => read::<half::f16>(py, array, f64::from),
        Scalar::I32 => read::<i32>(py, array, f64::from),
        Scalar::U32 | Scalar::Bool => read::<u32>(py, array, f64::from),
        Scalar::I8 => read::<i8>(py, array, f64::from),
        Scalar::U8 => read::<u8>(py, array, f64::from),
        Scalar::I64 => wide::<i64>(py, array, name),
        Scalar::U64 => wide::<u64>(py, array, name),
    }
    .ok_or_else(wrong)??;
    Ok(Input::Data { shape, values })
}

/// The array's shape and its values in row-major order, as `f64`s (a launch's data); `None`
/// when its dtype is not `T`'s.
fn read<T: Element + Copy>(
    py: Python<'_>,
    array: &Bound<'_, PyUntypedArray>,
    mut value: impl FnMut(T) -> f64,
) -> Option<PyResult<(Vec<usize>, Vec<f64>)>> {
    if !array.dtype().is_equiv_to(&numpy::dtype::<T>(py)) {
        return None;
    }
    let typed = array.cast::<PyArrayDyn<T>>().ok()?;
    let readonly = match typed.try_readonly() {
        Ok(readonly) => readonly,
        Err(why) => {
            return Some(Err(pyo3::exceptions::PyValueError::new_err(
                why.to_string(),
            )))
        }
    };
    let view = readonly.as_array();
    let shape = view.shape().to_vec();
    let values = match (array.is_c_contiguous(), readonly.as_slice()) {
        (true, Ok(slice)) => slice.iter().map(|&v| value(v)).collect(),
        // Fortran order or strides: the view walks it in row-major order.
        _ => view.iter().map(|&v| value(v)).collect(),
    };
    Some(Ok((shape, values)))
}

/// [`read`] for 64-bit integers, refused past 2^53 in magnitude as the command line's `.npy`
/// inputs are (`compiler_core::npy::exact_values`, whose message this is).
fn wide<T: Element + Copy + Into<i128>>(
    py: Python<'_>,
    array: &Bound<'_, PyUntypedArray>,
    name: &str,
) -> Option<PyResult<(Vec<usize>, Vec<f64>)>> {
    let mut inexact = None;
    let read = read::<T>(py, array, |v| {
        let v: i128 = v.into();
        if v.unsigned_abs() > 1 << 53 {
            inexact.get_or_insert(v);
        }
        v as f64
    });
    Some(read?.and_then(|(shape, values)| {
        match inexact {
            None => Ok((shape, values)),
            Some(v) => Err(error(
                py,
                "LaunchError",
                exact_values([v].into_iter(), &format!("the array passed for `{name}`"))
                    .err()
                    .unwrap_or_default(),
            )),
        }
    }))
}

/// A run's tensor as a new numpy array of its element type and shape.
pub fn array<'py>(
    py: Python<'py>,
    element: Scalar,
    shape: &[usize],
    bits: &[u32],
) -> PyResult<Bound<'py, PyAny>> {
    fn shaped<'py, T: Element>(
        py: Python<'py>,
        values: Vec<T>,
        shape: &[usize],
    ) -> PyResult<Bound<'py, PyAny>> {
        Ok(PyArray::from_vec(py, values)
            .reshape(shape.to_vec())?
            .into_any())
    }
    match Elements::of(element, bits) {
        Elements::F32(v) => shaped(py, v, shape),
        Elements::F16(v) => shaped(py, v, shape),
        Elements::I32(v) => shaped(py, v, shape),
        Elements::U32(v) => shaped(py, v, shape),
        Elements::I8(v) => shaped(py, v, shape),
        Elements::U8(v) => shaped(py, v, shape),
        Elements::I64(v) => shaped(py, v, shape),
        Elements::U64(v) => shaped(py, v, shape),
    }
}
