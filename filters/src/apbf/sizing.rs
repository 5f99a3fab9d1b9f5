//! The APBF's sizing rule: k and l for an FPR target ([`choose`]), the one
//! every way of sizing an APBF goes through.

use super::theory;
use crate::error::{check_nonzero, check_probability};
use crate::ParamError;

/// Largest l that the [`Target`](crate::build::Target) sizing considers.
pub const DEFAULT_MAX_L: u32 = 32;

/// Largest l the slack-constrained choice ([`KlRule::WithinSlack`])
/// considers.
pub const MAX_L_WITH_SLACK: u32 = 4096;

/// How [`choose`] picks the APBF's k and l for an FPR target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KlRule {
    /// The fewest bits per window element, l at most [`DEFAULT_MAX_L`].
    FewestBits,
    /// l as given: the smallest k.
    FixedL(u32),
    /// The fewest bits whose slack k·⌈window / l⌉ is at most `slack`, l at
    /// most [`MAX_L_WITH_SLACK`].
    WithinSlack {
        /// The window in insertions.
        window: u64,
        /// The largest slack in insertions.
        slack: u64,
    },
}

/// The APBF's sizing rule: (k, l) whose worst-phase FPR (asymptotic
/// F(k, l)) is at most `fpr`, by `rule`. Every way of sizing an APBF goes
/// through it: the builder ([`crate::build::Target`]),
/// the designs over time, the blocked APBF, the TLBF and the harness. The
/// window then sets g = ⌈window / l⌉ (or τ = ⌈T / l⌉ over time).
pub fn choose(fpr: f64, rule: KlRule) -> Result<(u32, u32), ParamError> {
    check_probability("fpr", fpr)?;
    let max_k = theory::MAX_K;
    match rule {
        KlRule::FewestBits => {
            theory::choose_kl(fpr, DEFAULT_MAX_L).ok_or_else(|| ParamError::Unreachable {
                target: format!("apbf fpr {fpr} with k <= {max_k} and l <= {DEFAULT_MAX_L}"),
            })
        }
        KlRule::FixedL(l) => {
            check_nonzero("l", l as u64)?;
            let k = theory::choose_k(fpr, l).ok_or_else(|| ParamError::Unreachable {
                target: format!("apbf fpr {fpr} with l = {l} and k <= {max_k}"),
            })?;
            Ok((k, l))
        }
        KlRule::WithinSlack { window, slack } => {
            check_nonzero("window", window)?;
            check_nonzero("slack", slack)?;
            theory::choose_kl_with_slack(fpr, window, slack, MAX_L_WITH_SLACK).ok_or_else(|| {
                ParamError::Unreachable {
                    target: format!(
                        "apbf fpr {fpr} with slack <= {slack} and l <= {MAX_L_WITH_SLACK}"
                    ),
                }
            })
        }
    }
}
