//! A design's parameters: from the map a spec's grid expands to (or a
//! command line's flags) to the design's typed struct, once per point, and
//! the [`Configured`] design that builds copies from it.
//!
//! The map is read by a deserializer of its own, not through JSON: a whole
//! number in 0..2^53 reads as an integer (so typed integer fields take it),
//! any other number as a float, and a non-finite number is refused (JSON
//! would have made it `null`, an absent parameter and its default).

use super::super::Params;
use super::built::Built;
use serde::de::{self, DeserializeOwned, IntoDeserializer, Visitor};
use serde::Serialize;
use std::sync::Arc;

/// A design configured from its typed parameters: each [`build`](Self::build)
/// makes a fresh copy with its own seed. Made once per point, when the run
/// is prepared ([`super::super::Design::configure`]).
#[derive(Clone)]
pub struct Configured(Arc<dyn Fn(u64) -> anyhow::Result<Built> + Send + Sync>);

impl Configured {
    /// A configured design from its builder.
    pub fn new(make: impl Fn(u64) -> anyhow::Result<Built> + Send + Sync + 'static) -> Configured {
        Configured(Arc::new(make))
    }

    /// A copy of the design, its own randomness seeded by `seed`.
    pub fn build(&self, seed: u64) -> anyhow::Result<Built> {
        (self.0)(seed)
    }
}

impl std::fmt::Debug for Configured {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Configured")
    }
}

/// One parameter's value as the deserializer hands it to a typed field.
struct Number(f64);

impl<'de> de::Deserializer<'de> for Number {
    type Error = de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Self::Error> {
        // as a spec's number is read everywhere (`Value::from_param`): a
        // whole number in 0..2^53 is a count, anything else a number
        match crate::metrics::Value::from_param(self.0) {
            crate::metrics::Value::Int(n) => v.visit_u64(n),
            _ => v.visit_f64(self.0),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Self::Error> {
        v.visit_some(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

impl<'de> IntoDeserializer<'de, de::value::Error> for Number {
    type Deserializer = Number;
    fn into_deserializer(self) -> Number {
        self
    }
}

/// The typed parameters of `design` from a map; errors name the parameter.
pub fn from_params<P: DeserializeOwned>(design: &str, params: &Params) -> anyhow::Result<P> {
    if let Some((k, v)) = params.iter().find(|(_, v)| !v.is_finite()) {
        return Err(anyhow::anyhow!(
            "{design}: parameter {k} = {v} must be a finite number"
        ));
    }
    let map = de::value::MapDeserializer::new(params.iter().map(|(k, &v)| (k.as_str(), Number(v))));
    serde_path_to_error::deserialize(map).map_err(|e| {
        let path = e.path().to_string();
        let value = params.get(&path).copied();
        let inner = match (e.into_inner().to_string(), value) {
            // numbers travel as f64: say what the limit is, not serde's types
            (m, Some(v)) if m.starts_with("invalid type: floating point") => {
                format!("{v} must be a whole number below 2^53")
            }
            (m, Some(v)) if m.starts_with("invalid value: integer") => {
                let ty = m.rsplit("expected ").next().unwrap_or("");
                format!("{v} is too large (the largest {ty} is {})", max_of(ty))
            }
            (m, _) => m,
        };
        if path == "." {
            anyhow::anyhow!("{design}: {inner}")
        } else {
            anyhow::anyhow!("{design}: parameter {path}: {inner}")
        }
    })
}

/// The largest value of an unsigned integer type, by its serde name.
fn max_of(ty: &str) -> String {
    match ty {
        "u8" => u8::MAX.to_string(),
        "u16" => u16::MAX.to_string(),
        "u32" => u32::MAX.to_string(),
        _ => u64::MAX.to_string(),
    }
}

/// A typed parameter struct as a map (absent options left out, flags 0/1):
/// the command line's flags in the form a spec's point takes.
pub fn to_params<P: Serialize>(p: &P) -> anyhow::Result<Params> {
    let v = serde_json::to_value(p).map_err(|e| anyhow::anyhow!("{e}"))?;
    let serde_json::Value::Object(obj) = v else {
        return Err(anyhow::anyhow!("parameters must serialize to a map"));
    };
    Ok(obj
        .into_iter()
        .filter_map(|(k, v)| match v {
            serde_json::Value::Number(n) => n.as_f64().map(|x| (k, x)),
            serde_json::Value::Bool(b) => Some((k, b as u8 as f64)),
            _ => None,
        })
        .collect())
}
