//! Packet captures as traces: pcap (microsecond or nanosecond, either byte
//! order) and pcapng, read with the `pcap-file` crate; each packet's
//! headers sliced with `etherparse` (lax: a packet cut short by the capture's
//! snap length still gives its addresses). Link types: Ethernet (with VLAN
//! tags), raw IP, Linux cooked (SLL and SLL2) and BSD loopback. The key of
//! an IP packet is built from its addresses and, for `five_tuple`, its
//! protocol and ports: a version byte (4 or 6), then the fields in network
//! order. Non-IP packets (ARP, ...) and packets too short for the key are
//! counted and skipped.

use etherparse::{EtherType, LaxNetSlice, LaxSlicedPacket};
use pcap_file::pcap::PcapReader;
use pcap_file::pcapng::blocks::interface_description::InterfaceDescriptionOption;
use pcap_file::pcapng::{Block, PcapNgReader};
use pcap_file::DataLink;
use std::io::BufRead;
use std::path::Path;

/// Which fields of a packet make its key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PacketKey {
    /// Source and destination address, protocol, source and destination
    /// port (0 for protocols without ports, later IPv4 fragments and IPv6
    /// fragments).
    FiveTuple,
    /// The source address.
    SrcIp,
    /// The destination address.
    DstIp,
    /// Source and destination address.
    SrcDst,
}

impl std::str::FromStr for PacketKey {
    type Err = anyhow::Error;

    fn from_str(s: &str) -> anyhow::Result<PacketKey> {
        match s {
            "five_tuple" => Ok(PacketKey::FiveTuple),
            "src_ip" => Ok(PacketKey::SrcIp),
            "dst_ip" => Ok(PacketKey::DstIp),
            "src_dst" => Ok(PacketKey::SrcDst),
            other => Err(anyhow::anyhow!(
                "unknown packet key {other:?} (five_tuple, src_ip, dst_ip or src_dst)"
            )),
        }
    }
}

/// What a capture held.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    /// Packets read.
    pub packets: u64,
    /// IP packets whose key was taken.
    pub keys: u64,
    /// Packets that are not IPv4 or IPv6.
    pub non_ip: u64,
    /// IP packets cut too short for the key.
    pub truncated: u64,
}

impl Counts {
    /// Packets without a key.
    pub fn skipped(&self) -> u64 {
        self.non_ip + self.truncated
    }
}

impl std::fmt::Display for Counts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} packets, {} keys; skipped {} non-IP and {} cut too short for the key",
            self.packets, self.keys, self.non_ip, self.truncated
        )
    }
}

/// The key of one packet of link type `link`, if it is an IP packet long
/// enough for it (`Err(true)`: not IP; `Err(false)`: too short).
fn packet_key(
    link: DataLink,
    data: &[u8],
    which: PacketKey,
    out: &mut Vec<u8>,
) -> Result<(), bool> {
    let sliced = match link {
        DataLink::ETHERNET => LaxSlicedPacket::from_ethernet(data).map_err(|_| false)?,
        DataLink::RAW | DataLink::IPV4 | DataLink::IPV6 => {
            LaxSlicedPacket::from_ip(data).map_err(|_| ip_or_short(data))?
        }
        DataLink::LINUX_SLL => {
            // 16 bytes, the protocol (an EtherType) in the last two
            let proto = data.get(14..16).ok_or(false)?;
            let ether = EtherType(u16::from_be_bytes([proto[0], proto[1]]));
            LaxSlicedPacket::from_ether_type(ether, &data[16..])
        }
        DataLink::LINUX_SLL2 => {
            // 20 bytes, the protocol in the first two
            let proto = data.get(0..2).ok_or(false)?;
            let ether = EtherType(u16::from_be_bytes([proto[0], proto[1]]));
            LaxSlicedPacket::from_ether_type(ether, data.get(20..).ok_or(false)?)
        }
        DataLink::NULL | DataLink::LOOP => {
            // a 4-byte address family in host order, then the IP packet
            let ip = data.get(4..).ok_or(false)?;
            LaxSlicedPacket::from_ip(ip).map_err(|_| ip_or_short(ip))?
        }
        _ => return Err(true),
    };
    let (version, src, dst, payload) = match &sliced.net {
        Some(LaxNetSlice::Ipv4(v4)) => {
            let h = v4.header();
            (
                4u8,
                h.source().to_vec(),
                h.destination().to_vec(),
                v4.payload(),
            )
        }
        Some(LaxNetSlice::Ipv6(v6)) => {
            let h = v6.header();
            (
                6u8,
                h.source().to_vec(),
                h.destination().to_vec(),
                v6.payload(),
            )
        }
        Some(LaxNetSlice::Arp(_)) => return Err(true),
        None => {
            // an IP ethertype whose header was cut, or no IP at all
            let ip_type = sliced.stop_err.is_some();
            return Err(!ip_type);
        }
    };
    out.clear();
    out.push(version);
    match which {
        PacketKey::SrcIp => out.extend_from_slice(&src),
        PacketKey::DstIp => out.extend_from_slice(&dst),
        PacketKey::SrcDst => {
            out.extend_from_slice(&src);
            out.extend_from_slice(&dst);
        }
        PacketKey::FiveTuple => {
            out.extend_from_slice(&src);
            out.extend_from_slice(&dst);
            let proto = payload.ip_number.0;
            out.push(proto);
            // TCP, UDP, SCTP, UDP-Lite: the ports are the first 4 bytes of
            // the first fragment's payload
            let has_ports = matches!(proto, 6 | 17 | 132 | 136);
            let first_fragment = !payload.fragmented || payload_is_first(&sliced);
            if has_ports && first_fragment {
                let ports = payload.payload.get(..4).ok_or(false)?;
                out.extend_from_slice(ports);
            } else {
                out.extend_from_slice(&[0; 4]);
            }
        }
    }
    Ok(())
}

/// Whether a fragmented packet is the first fragment (offset 0).
fn payload_is_first(p: &LaxSlicedPacket) -> bool {
    match &p.net {
        Some(LaxNetSlice::Ipv4(v4)) => v4.header().fragments_offset().value() == 0,
        // an IPv6 fragment's offset sits in an extension header: every
        // fragment counts as a later one (ports 0)
        Some(LaxNetSlice::Ipv6(_)) => false,
        _ => true,
    }
}

/// A raw-IP packet that failed to slice: not IP (a version nibble other
/// than 4 or 6) or cut short.
fn ip_or_short(data: &[u8]) -> bool {
    !matches!(data.first().map(|b| b >> 4), Some(4 | 6))
}

/// Calls `key` with the key of every IP packet of the capture at `path`.
pub(super) fn for_each_packet_key(
    path: &Path,
    which: PacketKey,
    mut key: impl FnMut(&[u8], Option<f64>) -> anyhow::Result<()>,
) -> anyhow::Result<Counts> {
    let shown = path.display();
    let mut input = super::open(path)?;
    let magic: Vec<u8> = input
        .fill_buf()
        .map_err(|e| anyhow::anyhow!("trace file {shown}: {e}"))?
        .iter()
        .take(4)
        .copied()
        .collect();
    let mut counts = Counts::default();
    let mut buf = Vec::with_capacity(64);
    let mut one = |link: DataLink,
                   data: &[u8],
                   time: Option<std::time::Duration>,
                   counts: &mut Counts|
     -> anyhow::Result<()> {
        counts.packets += 1;
        match packet_key(link, data, which, &mut buf) {
            Ok(()) => {
                counts.keys += 1;
                key(&buf, time.map(|t| t.as_secs_f64()))
            }
            Err(true) => {
                counts.non_ip += 1;
                Ok(())
            }
            Err(false) => {
                counts.truncated += 1;
                Ok(())
            }
        }
    };
    let bad = |n: u64, e: &dyn std::fmt::Display| {
        anyhow::anyhow!(
            "trace file {shown}: packet {}: {e} (a capture cut short?)",
            n + 1
        )
    };
    match magic.as_slice() {
        [] => return Err(anyhow::anyhow!("trace file {shown} is empty")),
        [0xa1, 0xb2, 0xc3, 0xd4]
        | [0xd4, 0xc3, 0xb2, 0xa1]
        | [0xa1, 0xb2, 0x3c, 0x4d]
        | [0x4d, 0x3c, 0xb2, 0xa1] => {
            let mut reader = PcapReader::new(input)
                .map_err(|e| anyhow::anyhow!("trace file {shown}: not a valid pcap header: {e}"))?;
            let link = reader.header().datalink;
            check_link(link, path)?;
            while let Some(p) = reader.next_packet() {
                let p = p.map_err(|e| bad(counts.packets, &e))?;
                one(link, &p.data, Some(p.timestamp), &mut counts)?;
            }
        }
        [0x0a, 0x0d, 0x0d, 0x0a] => pcapng_packets(input, path, &mut one, &bad, &mut counts)?,
        other => {
            return Err(anyhow::anyhow!(
                "trace file {shown} is not a pcap or pcapng capture (it starts {})",
                other.iter().map(|b| format!("{b:02x}")).collect::<String>()
            ))
        }
    }
    if counts.keys == 0 {
        return Err(anyhow::anyhow!(
            "trace file {shown} has no IP packet with a key ({counts})"
        ));
    }
    Ok(counts)
}

/// What a reader does with each packet: (link type, bytes, timestamp).
type OnePacket<'a> =
    dyn FnMut(DataLink, &[u8], Option<std::time::Duration>, &mut Counts) -> anyhow::Result<()> + 'a;

/// The packets of a pcapng capture, each with its interface's link type
/// and its timestamp read by the interface's clock.
fn pcapng_packets(
    input: Box<dyn BufRead>,
    path: &Path,
    one: &mut OnePacket<'_>,
    bad: &dyn Fn(u64, &dyn std::fmt::Display) -> anyhow::Error,
    counts: &mut Counts,
) -> anyhow::Result<()> {
    let shown = path.display();
    let mut reader = PcapNgReader::new(input)
        .map_err(|e| anyhow::anyhow!("trace file {shown}: not a valid pcapng section: {e}"))?;
    // each interface of the current section: its link type and clock
    let mut links: Vec<(DataLink, Clock)> = Vec::new();
    while let Some(block) = reader.next_block() {
        let block = block.map_err(|e| bad(counts.packets, &e))?;
        let (interface, data, ticks) = match &block {
            Block::SectionHeader(_) => {
                links.clear();
                continue;
            }
            Block::InterfaceDescription(idb) => {
                check_link(idb.linktype, path)?;
                let clock = Clock::of(&idb.options).map_err(|e| {
                    anyhow::anyhow!("trace file {shown}: interface {}: {e}", links.len())
                })?;
                links.push((idb.linktype, clock));
                continue;
            }
            // the crate hands the 64-bit tick count over as if it
            // were nanoseconds, whatever the interface's resolution
            Block::EnhancedPacket(epb) => (
                epb.interface_id as usize,
                epb.data.as_ref(),
                Some(epb.timestamp.as_nanos() as u64),
            ),
            Block::SimplePacket(spb) => (0, spb.data.as_ref(), None),
            _ => continue,
        };
        let (link, clock) = *links.get(interface).ok_or_else(|| {
            bad(
                counts.packets,
                &format!("interface {interface} is not described"),
            )
        })?;
        let time = ticks.map(|t| clock.duration(t));
        one(link, data, time, counts)?;
    }
    Ok(())
}

/// An interface's clock: ticks per second (`if_tsresol`, default 10^6) and
/// the seconds added to every timestamp (`if_tsoffset`, default 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Clock {
    per_second: u64,
    offset: i64,
}

impl Clock {
    /// The clock an interface's options declare.
    pub(super) fn of(options: &[InterfaceDescriptionOption]) -> anyhow::Result<Clock> {
        let mut clock = Clock {
            per_second: 1_000_000,
            offset: 0,
        };
        for o in options {
            match *o {
                InterfaceDescriptionOption::IfTsResol(r) => clock.per_second = ticks_per_second(r)?,
                // a signed count of seconds (pcapng, section 4.2)
                InterfaceDescriptionOption::IfTsOffset(s) => clock.offset = s as i64,
                _ => {}
            }
        }
        Ok(clock)
    }

    /// The time of `ticks`: seconds and the fraction, exactly.
    fn duration(&self, ticks: u64) -> std::time::Duration {
        let whole = (ticks / self.per_second) as i64;
        let frac = ticks % self.per_second;
        let nanos = (frac as u128 * 1_000_000_000 / self.per_second as u128) as u32;
        // an offset that takes the time before 1970 keeps it at 0 s (times
        // are read relative to the first packet's)
        let secs = whole.saturating_add(self.offset).max(0) as u64;
        std::time::Duration::new(secs, nanos)
    }
}

/// Ticks per second for an `if_tsresol` byte: 10^r, or 2^r when the top
/// bit is set; refused where it does not fit 64 bits.
fn ticks_per_second(r: u8) -> anyhow::Result<u64> {
    let exp = u32::from(r & 0x7f);
    let per = if r & 0x80 == 0 {
        10u64.checked_pow(exp)
    } else {
        2u64.checked_pow(exp)
    };
    per.ok_or_else(|| {
        anyhow::anyhow!("if_tsresol {r:#04x} declares a resolution finer than 64-bit ticks hold")
    })
}

/// Refuses a link type this reader cannot slice.
fn check_link(link: DataLink, path: &Path) -> anyhow::Result<()> {
    match link {
        DataLink::ETHERNET
        | DataLink::RAW
        | DataLink::IPV4
        | DataLink::IPV6
        | DataLink::LINUX_SLL
        | DataLink::LINUX_SLL2
        | DataLink::NULL
        | DataLink::LOOP => Ok(()),
        other => Err(anyhow::anyhow!(
            "trace file {}: link type {other:?} is not read (Ethernet, raw IP, Linux cooked or loopback)",
            path.display()
        )),
    }
}

#[cfg(test)]
#[path = "pcap_tests.rs"]
mod tests;
