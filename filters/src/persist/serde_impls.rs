//! `Serialize` and `Deserialize` for every design of
//! [`for_each_design!`](crate::for_each_design) (the `serde` feature): a
//! design travels as the bytes of [`Persist::to_bytes`](super::Persist), so
//! that whatever format carries it, loading goes through the same checks.

use super::Persist;
use crate::Keyed;
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use std::marker::PhantomData;

/// Reads the bytes of a saved filter from any format (as bytes, or as a
/// sequence of numbers where the format has no bytes, as in JSON).
struct BytesOf<T>(PhantomData<T>);

impl<'de, T> Visitor<'de> for BytesOf<T> {
    type Value = Vec<u8>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the bytes of a saved bloomlab filter")
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Vec<u8>, E> {
        Ok(v.to_vec())
    }

    fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<Vec<u8>, E> {
        Ok(v)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u8>, A::Error> {
        // no preallocation from the sequence's claimed length
        let mut v = Vec::new();
        while let Some(b) = seq.next_element::<u8>()? {
            v.push(b);
        }
        Ok(v)
    }
}

fn bytes<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
    d.deserialize_bytes(BytesOf::<()>(PhantomData))
}

macro_rules! via_bytes {
    ($($t:ty),* $(,)?) => {$(
        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_bytes(&self.to_bytes())
            }
        }

        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                <$t>::from_bytes(&bytes(d)?).map_err(de::Error::custom)
            }
        }
    )*};
}

/// Expands [`via_bytes`] over the types of the crate's one list of designs.
macro_rules! serde_for_each {
    (types { $($t:ty),* $(,)? } designs { $($rest:tt)* }) => {
        via_bytes!($($t),*);
    };
}

crate::for_each_design!(serde_for_each);

impl<F: Persist> Serialize for Keyed<F> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.to_bytes())
    }
}

impl<'de, F: Persist> Deserialize<'de> for Keyed<F> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Keyed::<F>::from_bytes(&bytes(d)?).map_err(de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Apbf, Filter, OnTime};

    #[test]
    fn a_design_round_trips_through_json_with_its_checks() {
        let mut f = Keyed::new(Apbf::new(4, 3, 50).unwrap(), 11);
        for i in 0..400u64 {
            f.insert(&i);
        }
        let json = serde_json::to_string(&f).unwrap();
        let g: Keyed<Apbf> = serde_json::from_str(&json).unwrap();
        for i in 0..800u64 {
            assert_eq!(f.contains(&i), g.contains(&i));
        }
        assert_eq!(g.filter().to_bytes(), f.filter().to_bytes());
        // a changed number is caught by the checksum
        let bad = json.replacen("[66,", "[67,", 1);
        let e = serde_json::from_str::<Keyed<Apbf>>(&bad).unwrap_err();
        assert!(e.to_string().contains("not a saved bloomlab filter"), "{e}");
        let mut timed = OnTime::<Apbf>::new(3, 2, 10, 5, crate::Trigger::Hybrid).unwrap();
        timed.insert(3);
        let back: OnTime<Apbf> =
            serde_json::from_str(&serde_json::to_string(&timed).unwrap()).unwrap();
        assert!(back.contains(3));
    }
}
