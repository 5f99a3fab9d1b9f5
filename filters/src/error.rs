//! Typed construction errors shared by every design.

use std::fmt;

/// Why a filter could not be built from the parameters it was given.
///
/// Every constructor in this crate validates its parameters and returns this
/// error instead of panicking, so that a harness sweeping over a grid can report
/// a bad point in one line and carry on.
#[derive(Debug, Clone, PartialEq)]
pub enum ParamError {
    /// A parameter that must be at least 1 was 0.
    Zero {
        /// Parameter name as the paper spells it (`k`, `l`, `g`, ...).
        name: &'static str,
    },
    /// A parameter lies outside its valid range.
    OutOfRange {
        /// Parameter name.
        name: &'static str,
        /// The value given, rendered for the message.
        value: String,
        /// The valid range, in words (`"in (0, 1)"`).
        expected: &'static str,
    },
    /// The sizes implied by the parameters overflow, or exceed what this crate
    /// is willing to allocate.
    TooLarge {
        /// What overflowed (`"total bits"`, ...).
        what: &'static str,
        /// The limit in words.
        limit: String,
    },
    /// No configuration within the searched range reaches the target.
    Unreachable {
        /// What was asked for, in words.
        target: String,
    },
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamError::Zero { name } => write!(f, "parameter {name} must be at least 1, got 0"),
            ParamError::OutOfRange {
                name,
                value,
                expected,
            } => write!(f, "parameter {name} = {value} must be {expected}"),
            ParamError::TooLarge { what, limit } => {
                write!(f, "{what} too large (limit {limit})")
            }
            ParamError::Unreachable { target } => write!(f, "no configuration reaches {target}"),
        }
    }
}

impl std::error::Error for ParamError {}

/// Largest bit array any filter in this crate allocates: 2^36 bits (8 GiB).
pub const MAX_BITS: u64 = 1 << 36;

/// Checks that `bits` is within [`MAX_BITS`].
pub(crate) fn check_bits(bits: Option<u64>) -> Result<u64, ParamError> {
    match bits {
        Some(b) if b <= MAX_BITS => Ok(b),
        _ => Err(ParamError::TooLarge {
            what: "total bits",
            limit: format!("{MAX_BITS} bits"),
        }),
    }
}

/// Checks `0 < p < 1` for a probability parameter.
pub(crate) fn check_probability(name: &'static str, p: f64) -> Result<f64, ParamError> {
    if p > 0.0 && p < 1.0 {
        Ok(p)
    } else {
        Err(ParamError::OutOfRange {
            name,
            value: format!("{p}"),
            expected: "in the open interval (0, 1)",
        })
    }
}

/// The most bits (or cells) a key sets or reads per filter: k of every
/// design is at most this. A saved state is checked against it too, so that
/// a corrupted k cannot make each operation loop billions of times.
pub const MAX_HASHES: u32 = 64;

/// Checks 1 <= k <= [`MAX_HASHES`].
pub(crate) fn check_hashes(k: u32) -> Result<u32, ParamError> {
    check_nonzero("k", k as u64)?;
    if k > MAX_HASHES {
        return Err(ParamError::OutOfRange {
            name: "k",
            value: k.to_string(),
            expected: "at most 64",
        });
    }
    Ok(k)
}

/// Checks `x >= 1`.
pub(crate) fn check_nonzero(name: &'static str, x: u64) -> Result<u64, ParamError> {
    if x == 0 {
        Err(ParamError::Zero { name })
    } else {
        Ok(x)
    }
}
