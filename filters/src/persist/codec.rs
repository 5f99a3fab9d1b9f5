//! The state encoding under the format's header: every field in declaration
//! order, little-endian, lengths as `u64` before their items, maps sorted by
//! key (so that the bytes of a state do not depend on a map's insertion
//! history). Reading never allocates more than the bytes left could hold.

use super::LoadError;
use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasher, Hash};

/// Bytes being written.
#[derive(Debug, Default)]
pub struct Writer {
    pub(crate) buf: Vec<u8>,
}

impl Writer {
    pub(crate) fn bytes(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }
}

/// Bytes being read, with what is left.
#[derive(Debug)]
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(buf: &'a [u8]) -> Self {
        Reader { buf, pos: 0 }
    }

    /// Bytes not yet read.
    pub(crate) fn left(&self) -> usize {
        self.buf.len() - self.pos
    }

    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8], LoadError> {
        if n > self.left() {
            return Err(LoadError::Truncated);
        }
        let b = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(b)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], LoadError> {
        Ok(self.take(N)?.try_into().expect("length checked"))
    }

    /// A length of items each at least `min_bytes` long: refused when the
    /// bytes left cannot hold it, before anything is allocated.
    pub(crate) fn len(&mut self, min_bytes: usize) -> Result<usize, LoadError> {
        let n = u64::get(self)?;
        match usize::try_from(n) {
            Ok(n) if n.saturating_mul(min_bytes.max(1)) <= self.left() => Ok(n),
            _ => Err(LoadError::Invalid(format!(
                "a length of {n} items exceeds the {} bytes left",
                self.left()
            ))),
        }
    }
}

/// A value that can be written to and read back from the format.
pub trait Codec: Sized {
    /// The fewest bytes an encoded value takes (bounds lengths on reading).
    const MIN_BYTES: usize = 1;
    /// Appends the value.
    fn put(&self, w: &mut Writer);
    /// Reads a value.
    fn get(r: &mut Reader<'_>) -> Result<Self, LoadError>;
}

macro_rules! int_codec {
    ($($t:ty),*) => {$(
        impl Codec for $t {
            const MIN_BYTES: usize = std::mem::size_of::<$t>();
            fn put(&self, w: &mut Writer) {
                w.bytes(&self.to_le_bytes());
            }
            fn get(r: &mut Reader<'_>) -> Result<Self, LoadError> {
                Ok(<$t>::from_le_bytes(r.array()?))
            }
        }
    )*};
}
int_codec!(u8, u16, u32, u64, u128, i64);

impl Codec for usize {
    const MIN_BYTES: usize = 8;
    fn put(&self, w: &mut Writer) {
        (*self as u64).put(w)
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, LoadError> {
        let v = u64::get(r)?;
        usize::try_from(v).map_err(|_| LoadError::Invalid(format!("{v} does not fit a usize")))
    }
}

impl Codec for f64 {
    const MIN_BYTES: usize = 8;
    fn put(&self, w: &mut Writer) {
        self.to_bits().put(w)
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, LoadError> {
        let v = f64::from_bits(u64::get(r)?);
        if v.is_nan() {
            return Err(LoadError::Invalid("a NaN among the numbers".into()));
        }
        Ok(v)
    }
}

impl Codec for bool {
    fn put(&self, w: &mut Writer) {
        (*self as u8).put(w)
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, LoadError> {
        match u8::get(r)? {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(LoadError::Invalid(format!("{b} is not a boolean"))),
        }
    }
}

impl<T: Codec> Codec for Option<T> {
    fn put(&self, w: &mut Writer) {
        match self {
            None => 0u8.put(w),
            Some(v) => {
                1u8.put(w);
                v.put(w)
            }
        }
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, LoadError> {
        Ok(if bool::get(r)? {
            Some(T::get(r)?)
        } else {
            None
        })
    }
}

impl<A: Codec, B: Codec> Codec for (A, B) {
    const MIN_BYTES: usize = A::MIN_BYTES + B::MIN_BYTES;
    fn put(&self, w: &mut Writer) {
        self.0.put(w);
        self.1.put(w);
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, LoadError> {
        Ok((A::get(r)?, B::get(r)?))
    }
}

impl<T: Codec, const N: usize> Codec for [T; N] {
    const MIN_BYTES: usize = T::MIN_BYTES * N;
    fn put(&self, w: &mut Writer) {
        for v in self {
            v.put(w);
        }
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, LoadError> {
        let v: Vec<T> = (0..N).map(|_| T::get(r)).collect::<Result<_, _>>()?;
        Ok(v.try_into()
            .unwrap_or_else(|_| unreachable!("N items read")))
    }
}

impl<T: Codec> Codec for Vec<T> {
    const MIN_BYTES: usize = 8;
    fn put(&self, w: &mut Writer) {
        self.len().put(w);
        for v in self {
            v.put(w);
        }
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, LoadError> {
        let n = r.len(T::MIN_BYTES)?;
        (0..n).map(|_| T::get(r)).collect()
    }
}

impl<T: Codec> Codec for VecDeque<T> {
    const MIN_BYTES: usize = 8;
    fn put(&self, w: &mut Writer) {
        self.len().put(w);
        for v in self {
            v.put(w);
        }
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, LoadError> {
        Ok(Vec::<T>::get(r)?.into())
    }
}

impl<K, V, S> Codec for HashMap<K, V, S>
where
    K: Codec + Ord + Hash + Eq,
    V: Codec,
    S: BuildHasher + Default,
{
    const MIN_BYTES: usize = 8;
    fn put(&self, w: &mut Writer) {
        let mut entries: Vec<(&K, &V)> = self.iter().collect();
        entries.sort_by(|a, b| a.0.cmp(b.0));
        entries.len().put(w);
        for (k, v) in entries {
            k.put(w);
            v.put(w);
        }
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, LoadError> {
        let n = r.len(K::MIN_BYTES + V::MIN_BYTES)?;
        let mut map = HashMap::with_capacity_and_hasher(n, S::default());
        for _ in 0..n {
            let k = K::get(r)?;
            let v = V::get(r)?;
            if map.insert(k, v).is_some() {
                return Err(LoadError::Invalid("a key twice in a map".into()));
            }
        }
        Ok(map)
    }
}

impl<T: Codec> Codec for Box<T> {
    const MIN_BYTES: usize = T::MIN_BYTES;
    fn put(&self, w: &mut Writer) {
        (**self).put(w)
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, LoadError> {
        Ok(Box::new(T::get(r)?))
    }
}

/// Implements [`Codec`] for a struct from the list of its fields, in order.
/// Fields after a `;` are not stored: each is rebuilt on reading by the
/// expression given, which may use the fields read before it.
macro_rules! codec_struct {
    ($t:ident $(<$g:ident $(: $b:ident)?>)? { $($f:ident),* $(,)? $(; $($skip:ident = $e:expr),* $(,)?)? }) => {
        impl$(<$g: $crate::persist::Codec $(+ $b)?>)? $crate::persist::Codec for $t$(<$g>)? {
            fn put(&self, w: &mut $crate::persist::Writer) {
                $( $crate::persist::Codec::put(&self.$f, w); )*
            }
            #[allow(clippy::redundant_field_names)]
            fn get(
                r: &mut $crate::persist::Reader<'_>,
            ) -> Result<Self, $crate::persist::LoadError> {
                $( let $f = $crate::persist::Codec::get(r)?; )*
                $($( let $skip = $e; )*)?
                Ok($t { $($f,)* $($($skip,)*)? })
            }
        }
    };
}
pub(crate) use codec_struct;

/// Implements [`Codec`] for a fieldless enum from its variants, written as
/// their index (a `u8`).
macro_rules! codec_enum {
    ($t:ident { $($v:ident),* $(,)? }) => {
        impl $crate::persist::Codec for $t {
            fn put(&self, w: &mut $crate::persist::Writer) {
                let all = [$($t::$v),*];
                let i = all.iter().position(|v| v == self).expect("a variant") as u8;
                $crate::persist::Codec::put(&i, w)
            }
            fn get(
                r: &mut $crate::persist::Reader<'_>,
            ) -> Result<Self, $crate::persist::LoadError> {
                let all = [$($t::$v),*];
                let i: u8 = $crate::persist::Codec::get(r)?;
                all.get(i as usize).copied().ok_or_else(|| {
                    $crate::persist::LoadError::Invalid(format!(
                        "variant {i} of {} does not exist",
                        stringify!($t)
                    ))
                })
            }
        }
    };
}
pub(crate) use codec_enum;
