//! `.npy` files, numpy's array format (through `npyz`): a tensor as `np.save` writes it, an
//! array's values as a launch's input or as the results a run is checked against, and several
//! tensors as one `.zip` that `np.load` opens as an `.npz`.
//!
//! In: bytes. Out: bytes, or an array's shape and row-major values, with a message for what
//! cannot be read. Invariant: no I/O; the CLI reads and writes files, the playground downloads
//! them and takes the ones a reader drops in. Outputs are C (row-major) order, the order of a
//! kernel's tensors, always; a Fortran-ordered input (numpy writes one for a transposed
//! array, `np.save(p, A.T)`) is read as numpy means it.

use crate::ir::{f16_from_storage, f16_storage, join_words, split_words, Scalar};
use npyz::WriterBuilder;
use std::io::{Cursor, Write};

/// numpy's dtype for a tensor of `element` (a `bool` tensor is stored as `u32` words).
pub fn dtype_of(element: Scalar) -> &'static str {
    match element {
        Scalar::F32 => "<f4",
        Scalar::I32 => "<i4",
        Scalar::U32 | Scalar::Bool => "<u4",
        Scalar::F16 => "<f2",
        Scalar::I8 => "|i1",
        Scalar::U8 => "|u1",
        Scalar::I64 => "<i8",
        Scalar::U64 => "<u8",
    }
}

/// A tensor's elements as their own type (a `bool` tensor's as `u32` words), from the bits a run
/// leaves ([`crate::sim::Tensor::bits`]): what an `.npy` file holds, and what Python's numpy
/// arrays are made of.
#[derive(Clone, Debug, PartialEq)]
pub enum Elements {
    F32(Vec<f32>),
    F16(Vec<half::f16>),
    I32(Vec<i32>),
    U32(Vec<u32>),
    I8(Vec<i8>),
    U8(Vec<u8>),
    I64(Vec<i64>),
    U64(Vec<u64>),
}

impl Elements {
    pub fn of(element: Scalar, bits: &[u32]) -> Elements {
        match element {
            Scalar::F32 => Elements::F32(bits.iter().map(|&b| f32::from_bits(b)).collect()),
            Scalar::F16 => Elements::F16(
                bits.iter()
                    .map(|&b| half::f16::from_bits(f16_storage(b)))
                    .collect(),
            ),
            Scalar::I32 => Elements::I32(bits.iter().map(|&b| b as i32).collect()),
            // An 8-bit element's bits are its widened value: its low byte is the element.
            Scalar::I8 => Elements::I8(bits.iter().map(|&b| b as i8).collect()),
            Scalar::U8 => Elements::U8(bits.iter().map(|&b| b as u8).collect()),
            Scalar::U32 | Scalar::Bool => Elements::U32(bits.to_vec()),
            // Two words an element, the low first.
            Scalar::I64 => Elements::I64(wide_words(bits).map(|w| w as i64).collect()),
            Scalar::U64 => Elements::U64(wide_words(bits).collect()),
        }
    }
}

/// A tensor of `element` with `shape` and element bits `bits` as an `.npy` file's bytes.
pub fn write(element: Scalar, shape: &[usize], bits: &[u32]) -> Vec<u8> {
    let mut out = Vec::with_capacity(128 + 4 * bits.len());
    // Writing to memory cannot fail.
    let _ = write_to(&mut out, element, shape, bits);
    out
}

/// [`write`] into `out` (a file, say) as it goes: no copy of the whole file in memory first.
/// A 4-byte element's bits are its little-endian bytes, so those tensors are npyz's header,
/// then the bytes a block at a time (npyz writes an element at a time, about 20 ns each: 1.3 s
/// for 2^26 of them); the others go through npyz whole.
pub fn write_to(
    out: &mut impl Write,
    element: Scalar,
    shape: &[usize],
    bits: &[u32],
) -> std::io::Result<()> {
    fn typed<T: npyz::AutoSerialize>(
        out: &mut impl Write,
        shape: &[u64],
        values: Vec<T>,
    ) -> std::io::Result<()> {
        let mut bytes = Cursor::new(Vec::new());
        let mut writer = npyz::WriteOptions::new()
            .default_dtype()
            .shape(shape)
            .writer(&mut bytes)
            .begin_nd()?;
        writer.extend(values)?;
        writer.finish()?;
        out.write_all(bytes.get_ref())
    }
    fn header<T: npyz::AutoSerialize>(shape: &[u64]) -> std::io::Result<Vec<u8>> {
        let mut bytes = Cursor::new(Vec::new());
        let writer = npyz::WriteOptions::<T>::new()
            .default_dtype()
            .shape(shape)
            .writer(&mut bytes)
            .begin_nd()?;
        // Dropped with no element written: it leaves the header alone (its count check fails,
        // and a drop ignores that).
        drop(writer);
        Ok(bytes.into_inner())
    }
    let shape: Vec<u64> = shape.iter().map(|&n| n as u64).collect();
    let header = match element {
        Scalar::F32 => Some(header::<f32>(&shape)?),
        Scalar::I32 => Some(header::<i32>(&shape)?),
        Scalar::U32 => Some(header::<u32>(&shape)?),
        _ => None,
    };
    if let Some(header) = header {
        out.write_all(&header)?;
        let mut block = Vec::with_capacity(4 << 16);
        for part in bits.chunks(1 << 16) {
            block.clear();
            block.extend(part.iter().flat_map(|b| b.to_le_bytes()));
            out.write_all(&block)?;
        }
        return Ok(());
    }
    match Elements::of(element, bits) {
        Elements::F32(v) => typed(out, &shape, v),
        Elements::F16(v) => typed(out, &shape, v),
        Elements::I32(v) => typed(out, &shape, v),
        Elements::U32(v) => typed(out, &shape, v),
        Elements::I8(v) => typed(out, &shape, v),
        Elements::U8(v) => typed(out, &shape, v),
        Elements::I64(v) => typed(out, &shape, v),
        Elements::U64(v) => typed(out, &shape, v),
    }
}

/// A 64-bit tensor's elements from its words (low, high).
fn wide_words(bits: &[u32]) -> impl Iterator<Item = u64> + '_ {
    bits.chunks_exact(2).map(join_words)
}

/// An array element of a tensor's type (numpy's, an `.npy` file's) as the bits a run keeps
/// for it ([`crate::sim::Tensor::bits`]): the inverse of [`Elements::of`], exact, NaN payloads
/// and 64-bit integers past 2^53 included. The `.npy` reader and Python's arrays both use it.
pub trait RunBits: Copy {
    /// Appends the element's word (two for a 64-bit element, the low first).
    fn push_bits(self, out: &mut Vec<u32>);
}

impl RunBits for f32 {
    fn push_bits(self, out: &mut Vec<u32>) {
        out.push(self.to_bits());
    }
}

impl RunBits for half::f16 {
    /// Held as the `f32` of the same value, as the simulator holds an `f16`.
    fn push_bits(self, out: &mut Vec<u32>) {
        out.push(f16_from_storage(self.to_bits()));
    }
}

impl RunBits for i32 {
    fn push_bits(self, out: &mut Vec<u32>) {
        out.push(self as u32);
    }
}

impl RunBits for u32 {
    fn push_bits(self, out: &mut Vec<u32>) {
        out.push(self);
    }
}

impl RunBits for i8 {
    /// Widened, as an 8-bit element is held ([`Scalar::narrow`]).
    fn push_bits(self, out: &mut Vec<u32>) {
        out.push(i32::from(self) as u32);
    }
}

impl RunBits for u8 {
    fn push_bits(self, out: &mut Vec<u32>) {
        out.push(u32::from(self));
    }
}

impl RunBits for i64 {
    fn push_bits(self, out: &mut Vec<u32>) {
        out.extend(split_words(self as u64));
    }
}

impl RunBits for u64 {
    fn push_bits(self, out: &mut Vec<u32>) {
        out.extend(split_words(self));
    }
}

/// The shape and row-major element bits (as the run keeps them: [`RunBits`]) of the `.npy`
/// file `what` (its name, for messages), checked against `name`'s element type: a launch's
/// data as `launch::Input::Bits`, exact.
pub fn read(
    bytes: &[u8],
    what: &str,
    name: &str,
    element: Scalar,
) -> Result<(Vec<usize>, Vec<u32>), String> {
    let npy = npyz::NpyFile::new(bytes).map_err(|e| format!("{what} is not an .npy file: {e}"))?;
    let shape: Vec<usize> = npy.shape().iter().map(|&n| n as usize).collect();
    let order = npy.order();
    let found = npy.dtype().descr().replace('\'', "");
    let expected = dtype_of(element);
    if found != expected {
        return Err(format!(
            "{what} holds {found} values, but `{name}` is a tensor of {} (expected dtype {expected})",
            element.name()
        ));
    }
    fn bits<T: RunBits + Default + npyz::Deserialize>(
        npy: npyz::NpyFile<&[u8]>,
        shape: &[usize],
        order: npyz::Order,
    ) -> std::io::Result<Vec<u32>> {
        let values = reorder(shape, order, npy.into_vec::<T>()?);
        let mut out = Vec::with_capacity(values.len());
        values.into_iter().for_each(|v| v.push_bits(&mut out));
        Ok(out)
    }
    match element {
        Scalar::F32 => bits::<f32>(npy, &shape, order),
        Scalar::F16 => bits::<half::f16>(npy, &shape, order),
        Scalar::I8 => bits::<i8>(npy, &shape, order),
        Scalar::U8 => bits::<u8>(npy, &shape, order),
        Scalar::I32 => bits::<i32>(npy, &shape, order),
        Scalar::U32 | Scalar::Bool => bits::<u32>(npy, &shape, order),
        Scalar::I64 => bits::<i64>(npy, &shape, order),
        Scalar::U64 => bits::<u64>(npy, &shape, order),
    }
    .map(|bits| (shape, bits))
    .map_err(|e| format!("cannot read the values of {what}: {e}"))
}

fn reorder<T: Copy + Default>(shape: &[usize], order: npyz::Order, values: Vec<T>) -> Vec<T> {
    match order {
        npyz::Order::C => values,
        npyz::Order::Fortran => row_major_from_column_major(shape, &values),
    }
}

/// The values of a column-major (Fortran-ordered) array of `shape`, in row-major order.
fn row_major_from_column_major<T: Copy + Default>(shape: &[usize], values: &[T]) -> Vec<T> {
    let mut index = vec![0usize; shape.len()];
    (0..values.len())
        .map(|_| {
            // Where the row-major element `index` lies in column-major order: the first axis
            // has a stride of 1.
            let (at, _) = index
                .iter()
                .zip(shape)
                .fold((0, 1), |(at, stride), (&i, &n)| {
                    (at + i * stride, stride * n)
                });
            // The next row-major index: the last axis moves fastest.
            for (i, &n) in index.iter_mut().zip(shape).rev() {
                *i += 1;
                if *i < n {
                    break;
                }
                *i = 0;
            }
            values.get(at).copied().unwrap_or_default()
        })
        .collect()
}

/// Files (`NAME.npy`, their bytes) as one `.zip`, stored uncompressed: numpy's `.npz` format,
/// which `np.load` opens whatever the name ends in (`np.load("results.zip")["C"]`).
pub fn zip(files: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut out = Cursor::new(Vec::new());
    let mut archive = zip::ZipWriter::new(&mut out);
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Stored)
        // A fixed time: the same results make the same bytes (zip's default reads the clock,
        // which a browser's WebAssembly does not have).
        .last_modified_time(zip::DateTime::default());
    for (name, bytes) in files {
        // Writing to memory cannot fail.
        if archive.start_file(name.as_str(), options).is_ok() {
            let _ = archive.write_all(bytes);
        }
    }
    let _ = archive.finish();
    out.into_inner()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 4-byte types' header-then-bytes path writes what npyz writes element by element.
    #[test]
    fn four_byte_tensors_are_written_as_npyz_writes_them() {
        fn npyz_bytes<T: npyz::AutoSerialize>(shape: &[u64], values: Vec<T>) -> Vec<u8> {
            let mut out = Cursor::new(Vec::new());
            let mut writer = npyz::WriteOptions::new()
                .default_dtype()
                .shape(shape)
                .writer(&mut out)
                .begin_nd()
                .unwrap_or_else(|e| panic!("{e}"));
            writer.extend(values).unwrap_or_else(|e| panic!("{e}"));
            writer.finish().unwrap_or_else(|e| panic!("{e}"));
            out.into_inner()
        }
        let bits: Vec<u32> = vec![
            1.5f32.to_bits(),
            f32::NAN.to_bits() | 5,
            0x8000_0000,
            7,
            0xffff_ffff,
            12,
        ];
        let floats = bits.iter().map(|&b| f32::from_bits(b)).collect();
        assert_eq!(
            write(Scalar::F32, &[2, 3], &bits),
            npyz_bytes(&[2, 3], floats)
        );
        let ints = bits.iter().map(|&b| b as i32).collect();
        assert_eq!(
            write(Scalar::I32, &[3, 2], &bits),
            npyz_bytes(&[3, 2], ints)
        );
        assert_eq!(
            write(Scalar::U32, &[6], &bits),
            npyz_bytes(&[6], bits.clone())
        );
        assert_eq!(
            write(Scalar::U32, &[0], &[]),
            npyz_bytes::<u32>(&[0], Vec::new())
        );
    }

    #[test]
    fn every_element_type_reads_back_as_written_bit_for_bit() {
        let bits: Vec<u32> = vec![1.5f32.to_bits(), (-2.0f32).to_bits(), 0, 7];
        for element in [
            Scalar::F32,
            Scalar::F16,
            Scalar::I32,
            Scalar::U32,
            Scalar::I8,
            Scalar::U8,
            Scalar::Bool,
        ] {
            let bits: Vec<u32> = bits
                .iter()
                .map(|&b| element.bits(Scalar::F32.value(b)))
                .collect();
            let bytes = write(element, &[2, 2], &bits);
            let (shape, read) =
                read(&bytes, "t.npy", "T", element).unwrap_or_else(|e| panic!("{element:?}: {e}"));
            assert_eq!(shape, [2, 2]);
            assert_eq!(read, bits, "{element:?}");
        }
        // What numbers could not carry: a NaN's payload, a 64-bit integer past 2^53.
        let nan = [0x7f80_0001, 0xffc0_0123];
        let read_back = |element, bits: &[u32], shape: &[usize]| {
            read(&write(element, shape, bits), "t.npy", "T", element)
                .map(|(_, bits)| bits)
                .unwrap_or_else(|e| panic!("{e}"))
        };
        assert_eq!(read_back(Scalar::F32, &nan, &[2]), nan);
        let wide: Vec<u32> = [(1i64 << 53) + 1, i64::MIN]
            .iter()
            .flat_map(|&v| split_words(v as u64))
            .collect();
        assert_eq!(read_back(Scalar::I64, &wide, &[2]), wide);
    }

    #[test]
    fn another_dtype_is_refused_with_both_named() {
        let bytes = write(Scalar::I32, &[3], &[1, 2, 3]);
        assert_eq!(
            read(&bytes, "x.npy", "X", Scalar::F32),
            Err("x.npy holds <i4 values, but `X` is a tensor of f32 (expected dtype <f4)".into())
        );
        assert!(read(b"not numpy", "y.npy", "Y", Scalar::F32)
            .is_err_and(|e| e.starts_with("y.npy is not an .npy file")));
    }

    #[test]
    fn a_fortran_ordered_array_is_read_in_row_major_order() {
        // [[0, 1, 2], [3, 4, 5]] stored column by column: 0 3 1 4 2 5.
        let column_major = [0.0, 3.0, 1.0, 4.0, 2.0, 5.0];
        assert_eq!(
            row_major_from_column_major(&[2, 3], &column_major),
            [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
        );
    }

    #[test]
    fn the_zip_holds_each_file_stored_by_name() {
        let files = vec![
            ("C.npy".to_owned(), write(Scalar::F32, &[2], &[0, 1])),
            ("D.npy".to_owned(), write(Scalar::I32, &[1], &[9])),
        ];
        let bytes = zip(&files);
        assert_eq!(&bytes[..4], b"PK\x03\x04");
        let mut archive =
            zip::ZipArchive::new(Cursor::new(bytes)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(archive.len(), 2);
        for (name, contents) in &files {
            let mut entry = archive
                .by_name(name)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let mut read = Vec::new();
            std::io::Read::read_to_end(&mut entry, &mut read).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(&read, contents);
        }
    }
}
