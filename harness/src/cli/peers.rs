//! `bloomlab peers`: a configuration stated in another implementation's
//! terms, and what it means here (docs/peers.md).

use super::args::{PeersApbfArgs, PeersStableArgs};
use crate::metrics::columns::col;
use crate::peers::{stable_ours, stable_peer, PeerApbf};

fn probability(name: impl std::fmt::Display, p: f64) -> anyhow::Result<f64> {
    if p > 0.0 && p < 1.0 {
        Ok(p)
    } else {
        Err(anyhow::anyhow!("--{name} {p} must be in (0, 1)"))
    }
}

/// The peer's filter for the flags given, and how the peer was asked.
fn peer_apbf(a: &PeersApbfArgs) -> anyhow::Result<(PeerApbf, String)> {
    let fpr = a.fpr.map(|p| probability(col::FPR, p)).transpose()?;
    match (a.convention.as_str(), a.capacity, fpr, a.k, a.l, a.g) {
        ("dcrd", Some(c), Some(e), None, None, None) => Ok((
            PeerApbf::dcrd(c, e),
            format!("dcrd NewFilter(capacity {c}, fpr {e})"),
        )),
        ("dcrd", Some(c), None, Some(k), Some(l), None) => Ok((
            PeerApbf::dcrd_kl(c, k, l),
            format!("dcrd NewFilterKL(capacity {c}, k {k}, l {l})"),
        )),
        ("crowdstrike", None, None, Some(k), Some(l), Some(g)) => Ok((
            PeerApbf::crowdstrike(k, l, g),
            format!("CrowdStrike New(k {k}, l {l}, g {g})"),
        )),
        ("dcrd", ..) => Err(anyhow::anyhow!(
            "dcrd takes --capacity with --fpr (NewFilter) or with --k and --l (NewFilterKL)"
        )),
        _ => Err(anyhow::anyhow!(
            "crowdstrike takes --k, --l and --g (New); it does not size from a capacity or an FPR"
        )),
    }
}

/// `bloomlab peers apbf`.
pub(super) fn apbf(a: PeersApbfArgs) -> anyhow::Result<()> {
    let (f, asked) = peer_apbf(&a)?;
    let promised = f.promised_capacity();
    let (fl, fe) = (f.promised_fpr(), f.exact_fpr());
    let bits = f.payload_bits();
    let same = format!("bloomlab theory apbf --k {} --l {} --g {}", f.k, f.l, f.g);
    let target = a.fpr.map_or_else(|| format!("{fl:.4e}"), |t| t.to_string());
    let meeting = format!("bloomlab theory apbf --window {promised} --fpr {target}");
    if a.json {
        let v = serde_json::json!({
            "peer": asked, "k": f.k, "l": f.l, "g": f.g,
            "bits_per_slice": f.bits_per_slice, "payload_bits": bits,
            "promised_capacity": promised, "window": f.window(),
            "promised_fpr": fl, "exact_fpr": fe,
            "bits_per_promised_element": bits as f64 / promised as f64,
            "bits_per_window_element": bits as f64 / f.window() as f64,
            "same_filter": same, "meeting_the_promise": meeting,
        });
        println!("{v}");
        return Ok(());
    }
    println!("{asked}");
    println!("  k, l, g                {}, {}, {}", f.k, f.l, f.g);
    println!(
        "  memory                 {bits} bits ({} per slice): {:.2} bits per promised element, {:.2} per window element",
        f.bits_per_slice,
        bits as f64 / promised as f64,
        bits as f64 / f.window() as f64
    );
    println!("  capacity promised      {promised} = (l + 1) g: held only just before a shift");
    println!(
        "  window, every phase    {} = l g (bloomlab's w; just after a shift the filter holds l g + 1)",
        f.window()
    );
    println!("  FPR reported           {fl:.4e} (the paper's linear fill)");
    println!(
        "  FPR, exact fill        {fe:.4e} at the worst phase, {:.3}x the reported{}",
        fe / fl,
        a.fpr
            .map_or(String::new(), |t| format!(", {:.3}x the target", fe / t))
    );
    println!("  the same filter here   {same}");
    println!("  the promise kept here  {meeting}");
    Ok(())
}

/// `bloomlab peers stable`.
pub(super) fn stable(a: PeersStableArgs) -> anyhow::Result<()> {
    let fpr = probability(col::FPR, a.fpr)?;
    let peer = stable_peer(a.m, a.d, fpr);
    let ours = stable_ours(&peer, fpr);
    let ours_p = ours.map(|t| t.p);
    let ours_fpr = ours.map(|t| t.fpr());
    if a.json {
        let v = serde_json::json!({
            "m": a.m, "d": a.d, "k": peer.k, "target_fpr": fpr,
            "peer_p": peer.p, "peer_fpr": peer.fpr(),
            "bloomlab_p": ours_p, "bloomlab_fpr": ours_fpr,
        });
        println!("{v}");
        return Ok(());
    }
    println!(
        "stable-bloom-filter / BoomFilters NewStableBloomFilter(m {}, d {}, fpr {fpr})",
        a.m, a.d
    );
    println!(
        "  K                      {} = ceil(log2(1/fpr)) / 2",
        peer.k
    );
    println!(
        "  P (theirs, rounded down) {}: stable FPR {:.4e}, {:.3}x the target",
        peer.p,
        peer.fpr(),
        peer.fpr() / fpr
    );
    match (ours_p, ours_fpr) {
        (Some(p), Some(f)) => println!(
            "  P (bloomlab, smallest meeting it) {p}: stable FPR {f:.4e}\n  the same filter here   bloomlab theory stable --m {} --d {} --k {} --p {}",
            a.m, a.d, peer.k, p
        ),
        _ => println!("  no P <= m meets the target with this K"),
    }
    Ok(())
}
