//! numpy arrays in and out: an array as a launch's input, checked against its parameter (the
//! element type: a clear `LaunchError`, a `ValueError`, naming the parameter), and a run's
//! tensor as a new numpy array of its element type.
//!
//! Invariant: an input is read where it lies, in row-major order: a C-contiguous array as one
//! slice, any other (Fortran order, a strided view) element by element through its strides,
//! straight into the launch's data (`Input::Bits`, its elements' bits as the run keeps them),
//! so numpy makes no copy and no number stands between (BENCHMARKS.md measures it). Only an
//! unaligned array is copied first, by numpy.

use crate::errors::error;
use compiler_core::hierarchy::Dim3;
use compiler_core::ir::Scalar;
use compiler_core::launch::Input;
use compiler_core::npy::{Elements, RunBits};
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
    // An array whose elements are not aligned for their type (a field of a packed structured
    // array) cannot be read in place: numpy copies it into an aligned one, the one case where
    // an input is copied.
    let aligned: bool = array.getattr("flags")?.getattr("aligned")?.extract()?;
    let copy;
    let array = if aligned {
        array
    } else {
        copy = py
            .import("numpy")?
            .call_method1("require", (array, py.None(), "A"))?;
        copy.cast::<PyUntypedArray>().map_err(PyErr::from)?
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
    // Each element as the run keeps it (`Input::Bits`): exactly, NaN payloads and 64-bit
    // integers past 2^53 included.
    let (shape, bits) = match element {
        Scalar::F32 => read::<f32>(py, array),
        Scalar::F16 => read::<half::f16>(py, array),
        Scalar::I32 => read::<i32>(py, array),
        Scalar::U32 | Scalar::Bool => read::<u32>(py, array),
        Scalar::I8 => read::<i8>(py, array),
        Scalar::U8 => read::<u8>(py, array),
        Scalar::I64 => read::<i64>(py, array),
        Scalar::U64 => read::<u64>(py, array),
    }
    .ok_or_else(wrong)??;
    Ok(Input::Bits { shape, bits })
}

/// The array's shape and its elements' bits in row-major order, as the run keeps them
/// (`RunBits`, as the `.npy` reader's); `None` when its dtype is not `T`'s. A C-contiguous
/// array is read as one slice, any other (Fortran order, strides) through the view, which
/// walks it in row-major order.
fn read<T: Element + RunBits>(
    py: Python<'_>,
    array: &Bound<'_, PyUntypedArray>,
) -> Option<PyResult<(Vec<usize>, Vec<u32>)>> {
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
    let words = if std::mem::size_of::<T>() == 8 { 2 } else { 1 };
    let mut out = Vec::with_capacity(view.len() * words);
    match (array.is_c_contiguous(), readonly.as_slice()) {
        (true, Ok(slice)) => slice.iter().for_each(|v| v.push_bits(&mut out)),
        _ => view.iter().for_each(|v| v.push_bits(&mut out)),
    }
    Some(Ok((shape, out)))
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

/// Extents or an index from `value` (`grid=`, `blocks=`, `block=`): a whole number or a tuple
/// of one to three, the axes left out `missing` (1 for extents, 0 for an index).
pub fn extents(
    py: Python<'_>,
    value: &Bound<'_, PyAny>,
    missing: u32,
    what: &str,
) -> PyResult<Dim3> {
    let axes: Vec<u32> = match value.extract::<u32>() {
        Ok(x) => vec![x],
        Err(_) => value.extract().map_err(|_| {
            let shown = value.repr().map_or_else(|_| "?".to_owned(), |r| r.to_string());
            error(
                py,
                "LaunchError",
                format!("{what} takes a whole number from {missing}, or a tuple of one to three of them, not {shown}"),
            )
        })?,
    };
    match axes[..] {
        [x] => Ok(Dim3::new(x, missing, missing)),
        [x, y] => Ok(Dim3::new(x, y, missing)),
        [x, y, z] => Ok(Dim3::new(x, y, z)),
        _ => Err(error(
            py,
            "LaunchError",
            format!("{what} has one to three axes, not {}", axes.len()),
        )),
    }
}

/// `result` written into `passed`, the array given for a tensor the kernel writes, when numpy
/// lets it be written (`np.copyto`, which follows any layout): then `passed` is the result;
/// otherwise (a read-only array) `result` is.
pub fn write_back<'py>(
    py: Python<'py>,
    passed: Bound<'py, PyAny>,
    result: Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let writeable: bool = passed.getattr("flags")?.getattr("writeable")?.extract()?;
    if !writeable {
        return Ok(result);
    }
    py.import("numpy")?
        .call_method1("copyto", (&passed, &result))?;
    Ok(passed)
}

/// `scalars={name: number}` as the launch takes them; a value that is not a number is a
/// `TypeError` that names its parameter (a whole number or a float; the launch refuses one its
/// type cannot hold, as it refuses 2.7 for an integer).
pub fn scalars(
    given: Option<&Bound<'_, pyo3::types::PyDict>>,
) -> PyResult<std::collections::BTreeMap<String, f64>> {
    let mut out = std::collections::BTreeMap::new();
    for (key, value) in given.into_iter().flat_map(|d| d.iter()) {
        let name: String = key.extract()?;
        let number = number(&name, &value)?;
        out.insert(name, number);
    }
    Ok(out)
}

/// The value of the scalar `name`: an int or a float (not a bool), else a `TypeError` that
/// names it.
pub fn number(name: &str, value: &Bound<'_, PyAny>) -> PyResult<f64> {
    let number = match value.is_instance_of::<pyo3::types::PyBool>() {
        true => None,
        false => value.extract::<f64>().ok(),
    };
    number.ok_or_else(|| {
        let kind = value
            .get_type()
            .name()
            .map_or_else(|_| "?".to_owned(), |n| n.to_string());
        let shown = value
            .repr()
            .map_or_else(|_| "?".to_owned(), |r| r.to_string());
        pyo3::exceptions::PyTypeError::new_err(format!(
            "the scalar `{name}` takes a number (an int or a float), not {shown} ({kind})"
        ))
    })
}
