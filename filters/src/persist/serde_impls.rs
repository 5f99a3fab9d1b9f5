//! `Serialize` and `Deserialize` through a design's saved bytes (the
//! `serde` feature): a design travels as the bytes of
//! [`Persist::to_bytes`](super::Persist), so that whatever format carries
//! it, loading goes through the same checks. Each design declares them
//! beside its type, with its `Persist`, in one line
//! ([`persists!`](crate::persist::persists)); this module names no design
//! (its test expands the crate's list to hold every design to it).

use super::Persist;
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::Serializer;
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

/// The bytes of a saved filter, from any format.
pub(crate) fn saved_bytes<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
    d.deserialize_bytes(BytesOf::<()>(PhantomData))
}

/// Serializes a design as the bytes of [`Persist::to_bytes`].
pub fn serialize<P: Persist, S: Serializer>(p: &P, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_bytes(&p.to_bytes())
}

/// Deserializes a design from the bytes of [`Persist::to_bytes`], through
/// every check of [`Persist::from_bytes`].
pub fn deserialize<'de, P: Persist, D: Deserializer<'de>>(d: D) -> Result<P, D::Error> {
    P::from_bytes(&saved_bytes(d)?).map_err(de::Error::custom)
}

/// `Serialize` and `Deserialize` for a type through its saved bytes;
/// written by [`persists!`](crate::persist::persists) beside each design.
macro_rules! via_bytes {
    ($t:ty) => {
        impl serde::Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                $crate::persist::serde_impls::serialize(self, s)
            }
        }

        impl<'de> serde::Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                $crate::persist::serde_impls::deserialize(d)
            }
        }
    };
}
pub(crate) use via_bytes;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Apbf, Filter, Keyed, OnTime};

    fn has_serde<T: serde::Serialize + serde::de::DeserializeOwned>() {}

    macro_rules! every_design_has_serde {
        (types { $($t:ty),* $(,)? } designs { $($rest:tt)* }) => {
            $(has_serde::<$t>();)*
        };
    }

    /// Every design of the crate's list has serde (declared beside it by
    /// its `persists!` line): a design without it does not compile here.
    #[test]
    fn every_design_of_the_list_has_serde() {
        crate::for_each_design!(every_design_has_serde);
        has_serde::<Keyed<Apbf>>();
    }

    #[test]
    fn a_design_round_trips_through_json_with_its_checks() {
        let mut f = Keyed::new(
            Apbf::new(crate::ApbfShape {
                hashes: 4,
                extra_slices: 3,
                generation: 50,
            })
            .unwrap(),
            11,
        );
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
        let mut timed = OnTime::<Apbf>::new(
            crate::ApbfShape {
                hashes: 3,
                extra_slices: 2,
                generation: 10,
            },
            5,
            crate::Trigger::Hybrid,
        )
        .unwrap();
        timed.insert(3);
        let back: OnTime<Apbf> =
            serde_json::from_str(&serde_json::to_string(&timed).unwrap()).unwrap();
        assert!(back.contains(3));
    }
}
