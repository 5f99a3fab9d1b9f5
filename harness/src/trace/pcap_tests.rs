//! Captures built in code (TCP, UDP and ICMP over IPv4 and IPv6, ARP, one
//! packet cut inside its IP header, one cut inside its ports), written as
//! pcap and pcapng with each link type, and the keys read back checked
//! exactly against keys built from the packets' fields.

use super::*;
use etherparse::PacketBuilder;
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::pcapng::blocks::enhanced_packet::EnhancedPacketBlock;
use pcap_file::pcapng::blocks::interface_description::InterfaceDescriptionBlock;
use pcap_file::pcapng::PcapNgWriter;
use pcap_file::{Endianness, TsResolution};
use std::time::Duration;

/// (version, src, dst, proto, sport, dport) of an IP packet.
type Fields = (u8, Vec<u8>, Vec<u8>, u8, u16, u16);

/// One packet: its IP bytes (or an ARP body), and the fields of its key.
struct Pkt {
    ip: Vec<u8>,
    ether_type: u16,
    /// (version, src, dst, proto, sport, dport); None: not IP.
    fields: Option<Fields>,
    /// Bytes kept of `ip` (the capture's cut).
    keep: usize,
}

fn packets() -> Vec<Pkt> {
    let mut out = Vec::new();
    for i in 0..300u32 {
        let a = [10, (i % 7) as u8, (i % 13) as u8, 1 + (i % 5) as u8];
        let b = [192, 168, (i % 3) as u8, (i % 11) as u8];
        let a6: [u8; 16] = std::array::from_fn(|j| {
            if j == 0 {
                0x20
            } else {
                (i as u8).wrapping_mul(j as u8)
            }
        });
        let b6: [u8; 16] =
            std::array::from_fn(|j| if j == 0 { 0xfe } else { (i as u8) ^ (j as u8) });
        let (sport, dport) = (1024 + (i % 50) as u16, [80, 443, 53][(i % 3) as usize]);
        let mut ip = Vec::new();
        let (v6, proto) = (i % 2 == 1, [6u8, 17, 1][(i / 2 % 3) as usize]);
        match (v6, proto) {
            (false, 6) => PacketBuilder::ipv4(a, b, 64)
                .tcp(sport, dport, i, 1000)
                .write(&mut ip, &[1, 2, 3]),
            (false, 17) => PacketBuilder::ipv4(a, b, 64)
                .udp(sport, dport)
                .write(&mut ip, &[4; 9]),
            (false, _) => PacketBuilder::ipv4(a, b, 64)
                .icmpv4_echo_request(7, i as u16)
                .write(&mut ip, &[]),
            (true, 6) => PacketBuilder::ipv6(a6, b6, 64)
                .tcp(sport, dport, i, 1000)
                .write(&mut ip, &[1]),
            (true, 17) => PacketBuilder::ipv6(a6, b6, 64)
                .udp(sport, dport)
                .write(&mut ip, &[]),
            (true, _) => PacketBuilder::ipv6(a6, b6, 64)
                .icmpv6_echo_request(7, i as u16)
                .write(&mut ip, &[5; 3]),
        }
        .unwrap();
        let proto = if v6 && proto == 1 { 58 } else { proto };
        let ports = if proto == 6 || proto == 17 {
            (sport, dport)
        } else {
            (0, 0)
        };
        let (src, dst) = if v6 {
            (a6.to_vec(), b6.to_vec())
        } else {
            (a.to_vec(), b.to_vec())
        };
        let keep = ip.len();
        out.push(Pkt {
            ip,
            ether_type: if v6 { 0x86dd } else { 0x0800 },
            fields: Some((if v6 { 6 } else { 4 }, src, dst, proto, ports.0, ports.1)),
            keep,
        });
        if i % 100 == 50 {
            // ARP: not IP
            out.push(Pkt {
                ip: vec![0, 1, 8, 0, 6, 4, 0, 1]
                    .into_iter()
                    .chain([0; 20])
                    .collect(),
                ether_type: 0x0806,
                fields: None,
                keep: 28,
            });
        }
    }
    // cut inside the IPv4 header: no key at all
    let mut cut = Vec::new();
    PacketBuilder::ipv4([1, 2, 3, 4], [5, 6, 7, 8], 9)
        .udp(1, 2)
        .write(&mut cut, &[])
        .unwrap();
    out.push(Pkt {
        ip: cut.clone(),
        ether_type: 0x0800,
        fields: None,
        keep: 12,
    });
    // cut inside the UDP ports: the addresses, but no five-tuple
    out.push(Pkt {
        ip: cut,
        ether_type: 0x0800,
        fields: Some((4, vec![1, 2, 3, 4], vec![5, 6, 7, 8], 17, 1, 2)),
        keep: 22,
    });
    out
}

/// The keys `which` should give, in order (packets too short for it left out).
fn expected(pkts: &[Pkt], which: PacketKey) -> Vec<Vec<u8>> {
    pkts.iter()
        .filter_map(|p| {
            let (v, src, dst, proto, sport, dport) = p.fields.clone()?;
            let ip_header = if v == 4 { 20 } else { 40 };
            let mut k = vec![v];
            match which {
                PacketKey::SrcIp => k.extend(&src),
                PacketKey::DstIp => k.extend(&dst),
                PacketKey::SrcDst => k.extend(src.iter().chain(&dst)),
                PacketKey::FiveTuple => {
                    if (proto == 6 || proto == 17) && p.keep < ip_header + 4 {
                        return None;
                    }
                    k.extend(src.iter().chain(&dst));
                    k.push(proto);
                    k.extend(sport.to_be_bytes());
                    k.extend(dport.to_be_bytes());
                }
            }
            Some(k)
        })
        .collect()
}

/// The link-layer frame of a packet for `link`.
fn frame(p: &Pkt, link: DataLink) -> Vec<u8> {
    let ip = &p.ip[..p.keep];
    let et = p.ether_type.to_be_bytes();
    match link {
        DataLink::ETHERNET => [[2u8; 6].as_slice(), &[4u8; 6], &et, ip].concat(),
        DataLink::LINUX_SLL => [[0u8, 0, 0, 1, 0, 6].as_slice(), &[9; 8], &et, ip].concat(),
        _ => ip.to_vec(),
    }
}

fn read(path: &Path, which: PacketKey) -> anyhow::Result<(Vec<Vec<u8>>, Counts)> {
    let mut keys = Vec::new();
    let counts = for_each_packet_key(path, which, |k, _| {
        keys.push(k.to_vec());
        Ok(())
    })?;
    Ok((keys, counts))
}

fn write_pcap(path: &Path, pkts: &[Pkt], link: DataLink, endianness: Endianness, ts: TsResolution) {
    let header = PcapHeader {
        datalink: link,
        endianness,
        ts_resolution: ts,
        ..PcapHeader::default()
    };
    let mut w = PcapWriter::with_header(std::fs::File::create(path).unwrap(), header).unwrap();
    for (i, p) in pkts
        .iter()
        .filter(|p| {
            link == DataLink::ETHERNET
                || link == DataLink::LINUX_SLL
                || p.fields.is_some()
                || p.keep < 20
        })
        .enumerate()
    {
        let data = frame(p, link);
        w.write_packet(&PcapPacket::new(
            Duration::from_micros(i as u64),
            (data.len() + p.ip.len() - p.keep) as u32,
            &data,
        ))
        .unwrap();
    }
}

/// Only the packets a raw-IP capture can hold (no ARP).
fn raw_ip(pkts: &[Pkt]) -> Vec<&Pkt> {
    pkts.iter().filter(|p| p.ether_type != 0x0806).collect()
}

#[test]
fn pcap_keys_are_exact_for_every_link_type_byte_order_and_key() {
    let pkts = packets();
    let d = tempfile::tempdir().unwrap();
    for (link, endianness, ts) in [
        (
            DataLink::ETHERNET,
            Endianness::Little,
            TsResolution::MicroSecond,
        ),
        (
            DataLink::ETHERNET,
            Endianness::Big,
            TsResolution::NanoSecond,
        ),
        (
            DataLink::LINUX_SLL,
            Endianness::Little,
            TsResolution::MicroSecond,
        ),
        (DataLink::RAW, Endianness::Big, TsResolution::MicroSecond),
    ] {
        let p = d.path().join("c.pcap");
        write_pcap(&p, &pkts, link, endianness, ts);
        let arp = if link == DataLink::RAW { 0 } else { 3 };
        for which in [
            PacketKey::FiveTuple,
            PacketKey::SrcIp,
            PacketKey::DstIp,
            PacketKey::SrcDst,
        ] {
            let (keys, counts) = read(&p, which).unwrap();
            let want = if link == DataLink::RAW {
                expected(
                    &raw_ip(&pkts)
                        .into_iter()
                        .map(|p| Pkt {
                            ip: p.ip.clone(),
                            ether_type: p.ether_type,
                            fields: p.fields.clone(),
                            keep: p.keep,
                        })
                        .collect::<Vec<_>>(),
                    which,
                )
            } else {
                expected(&pkts, which)
            };
            assert_eq!(keys, want, "{link:?} {which:?}");
            assert_eq!(counts.non_ip, arp, "{link:?} {which:?}");
            let short = if which == PacketKey::FiveTuple { 2 } else { 1 };
            assert_eq!(counts.truncated, short, "{link:?} {which:?}: {counts}");
            assert_eq!(
                counts.packets,
                counts.keys + counts.non_ip + counts.truncated
            );
        }
    }
}

#[test]
fn pcapng_and_gzip_read_the_same_keys() {
    let pkts = packets();
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("c.pcapng");
    let mut w = PcapNgWriter::new(std::fs::File::create(&p).unwrap()).unwrap();
    w.write_pcapng_block(InterfaceDescriptionBlock {
        linktype: DataLink::ETHERNET,
        snaplen: 0,
        options: vec![],
    })
    .unwrap();
    for (i, pk) in pkts.iter().enumerate() {
        let data = frame(pk, DataLink::ETHERNET);
        w.write_pcapng_block(EnhancedPacketBlock {
            interface_id: 0,
            timestamp: Duration::from_micros(i as u64),
            original_len: data.len() as u32,
            data: data.into(),
            options: vec![],
        })
        .unwrap();
    }
    drop(w);
    let (keys, _) = read(&p, PacketKey::FiveTuple).unwrap();
    assert_eq!(keys, expected(&pkts, PacketKey::FiveTuple));
    // gzip, by its magic bytes
    use std::io::Write;
    let gz = d.path().join("c.bin");
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(&std::fs::read(&p).unwrap()).unwrap();
    std::fs::write(&gz, e.finish().unwrap()).unwrap();
    let (again, _) = read(&gz, PacketKey::FiveTuple).unwrap();
    assert_eq!(again, keys);
}

#[test]
fn bad_captures_are_refused_in_one_line() {
    let pkts = packets();
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("c.pcap");
    write_pcap(
        &p,
        &pkts,
        DataLink::ETHERNET,
        Endianness::Little,
        TsResolution::MicroSecond,
    );
    let whole = std::fs::read(&p).unwrap();
    let err = |bytes: &[u8]| {
        std::fs::write(&p, bytes).unwrap();
        let e = read(&p, PacketKey::FiveTuple).unwrap_err().to_string();
        assert_eq!(e.lines().count(), 1, "{e}");
        e
    };
    // cut in the middle of a record
    let e = err(&whole[..whole.len() - 7]);
    assert!(e.contains("packet 305") && e.contains("cut short"), "{e}");
    assert!(err(&[]).contains("is empty"));
    assert!(err(b"hello world\n").contains("not a pcap or pcapng capture (it starts 68656c6c)"));
    // a header and no packets
    assert!(err(&whole[..24]).contains("no IP packet"));
    // a link type that is not read
    let mut other = whole.clone();
    other[20] = 105; // IEEE 802.11
    assert!(err(&other).contains("is not read"));
}

/// The times `for_each_packet_key` gives for the packets of `path`.
fn times(path: &Path) -> Vec<f64> {
    let mut out = Vec::new();
    for_each_packet_key(path, PacketKey::FiveTuple, |_, t| {
        out.push(t.expect("a timed packet"));
        Ok(())
    })
    .unwrap();
    out
}

/// A pcapng capture of three IPv4 packets on one interface with
/// `options`, the packets `ticks` apart in the interface's units, written
/// as the tick counts a capture tool stores.
fn pcapng_ticks(path: &Path, options: Vec<InterfaceDescriptionOption<'static>>, ticks: u64) {
    let pkts = packets();
    let ip = pkts.iter().find(|p| p.fields.is_some()).unwrap();
    let mut w = PcapNgWriter::new(std::fs::File::create(path).unwrap()).unwrap();
    w.write_pcapng_block(InterfaceDescriptionBlock {
        linktype: DataLink::ETHERNET,
        snaplen: 0,
        options,
    })
    .unwrap();
    for i in 0..3u64 {
        let data = frame(ip, DataLink::ETHERNET);
        // the crate stores `timestamp.as_nanos()` as the raw tick count
        w.write_pcapng_block(EnhancedPacketBlock {
            interface_id: 0,
            timestamp: Duration::from_nanos(1_000 * ticks + i * ticks),
            original_len: data.len() as u32,
            data: data.into(),
            options: vec![],
        })
        .unwrap();
    }
}

fn gaps(t: &[f64]) -> Vec<f64> {
    t.windows(2).map(|w| w[1] - w[0]).collect()
}

#[test]
fn pcapng_timestamps_follow_the_interface_resolution_and_offset() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("t.pcapng");
    // no if_tsresol: microseconds, so 1000 ticks apart is 1 ms apart (read
    // as nanoseconds, it was 1 us: a rate 1000 times too high)
    pcapng_ticks(&p, vec![], 1000);
    let t = times(&p);
    for g in gaps(&t) {
        assert!((g - 1e-3).abs() < 1e-12, "{t:?}");
    }
    assert!((t[0] - 1.0).abs() < 1e-12, "{t:?}");
    // if_tsresol 9: nanoseconds
    pcapng_ticks(
        &p,
        vec![InterfaceDescriptionOption::IfTsResol(9)],
        1_000_000,
    );
    for g in gaps(&times(&p)) {
        assert!((g - 1e-3).abs() < 1e-12);
    }
    // if_tsresol 0x83: 2^-3 s ticks, so 8 ticks are one second
    pcapng_ticks(&p, vec![InterfaceDescriptionOption::IfTsResol(0x83)], 8);
    let t = times(&p);
    assert_eq!(gaps(&t), vec![1.0, 1.0]);
    assert_eq!(t[0], 1000.0);
    // if_tsoffset: seconds added to every timestamp
    pcapng_ticks(
        &p,
        vec![
            InterfaceDescriptionOption::IfTsResol(3),
            InterfaceDescriptionOption::IfTsOffset(100),
        ],
        1000,
    );
    assert_eq!(times(&p), vec![1100.0, 1101.0, 1102.0]);
    // a resolution no 64-bit tick count holds is refused
    pcapng_ticks(&p, vec![InterfaceDescriptionOption::IfTsResol(20)], 1);
    let e = read(&p, PacketKey::FiveTuple).unwrap_err().to_string();
    assert!(e.contains("if_tsresol"), "{e}");
}

#[test]
fn pcap_timestamps_follow_the_magic_number() {
    let d = tempfile::tempdir().unwrap();
    let pkts = packets();
    for ts in [TsResolution::MicroSecond, TsResolution::NanoSecond] {
        let p = d.path().join("t.pcap");
        // write_pcap spaces packets 1 us apart, in either resolution; the
        // keyless ones (ARP, cut short) leave gaps of whole microseconds
        write_pcap(&p, &pkts, DataLink::ETHERNET, Endianness::Little, ts);
        for g in gaps(&times(&p)) {
            let us = g / 1e-6;
            assert!(us >= 0.999 && (us - us.round()).abs() < 1e-6, "{ts:?}: {g}");
        }
    }
}
