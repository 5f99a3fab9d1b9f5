//! Writes a synthetic packet capture that bloomlab may ship: flows drawn
//! from a Zipf law over a fixed set of 5-tuples (TCP, UDP and ICMP over IPv4
//! and IPv6, a little ARP), Ethernet frames without payload, in pcap; gzip
//! if the file name ends in `.gz`. Deterministic: the same arguments give
//! the same bytes.
//!
//! cargo run --release -p bloomlab-harness --example synthetic_pcap -- OUT [PACKETS] [FLOWS] [ZIPF] [SEED]
//!
//! Defaults: 65536 packets, 20000 flows, exponent 1.0, seed 1.

use etherparse::PacketBuilder;
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::DataLink;
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Zipf};
use rand_pcg::Pcg64;
use std::io::Write;
use std::time::Duration;

/// One flow: its version, protocol, addresses and ports.
struct Flow {
    v6: bool,
    proto: u8,
    src: [u8; 16],
    dst: [u8; 16],
    sport: u16,
    dport: u16,
}

fn flow(rng: &mut Pcg64) -> Flow {
    let v6 = rng.random_bool(0.3);
    let proto = match rng.random_range(0..100) {
        0..80 => 6,
        80..95 => 17,
        _ => 1,
    };
    let mut src = [0u8; 16];
    let mut dst = [0u8; 16];
    rng.fill(&mut src);
    rng.fill(&mut dst);
    // a few busy servers: destinations concentrate
    let server = rng.random_range(0..64u8);
    dst[..4].copy_from_slice(&[198, 51, 100, server]);
    Flow {
        v6,
        proto,
        src,
        dst,
        sport: rng.random_range(1024..65535),
        dport: [443, 80, 53, 22, 8080][rng.random_range(0..5)],
    }
}

fn frame(f: &Flow, seq: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity(96);
    let eth = PacketBuilder::ethernet2([2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2]);
    let (s4, d4) = (
        [f.src[0], f.src[1], f.src[2], f.src[3]],
        [f.dst[0], f.dst[1], f.dst[2], f.dst[3]],
    );
    let r = match (f.v6, f.proto) {
        (false, 6) => eth
            .ipv4(s4, d4, 64)
            .tcp(f.sport, f.dport, seq, 512)
            .write(&mut out, &[]),
        (false, 17) => eth
            .ipv4(s4, d4, 64)
            .udp(f.sport, f.dport)
            .write(&mut out, &[]),
        (false, _) => eth
            .ipv4(s4, d4, 64)
            .icmpv4_echo_request(1, seq as u16)
            .write(&mut out, &[]),
        (true, 6) => eth
            .ipv6(f.src, f.dst, 64)
            .tcp(f.sport, f.dport, seq, 512)
            .write(&mut out, &[]),
        (true, 17) => eth
            .ipv6(f.src, f.dst, 64)
            .udp(f.sport, f.dport)
            .write(&mut out, &[]),
        (true, _) => eth
            .ipv6(f.src, f.dst, 64)
            .icmpv6_echo_request(1, seq as u16)
            .write(&mut out, &[]),
    };
    r.expect("writing to a Vec");
    out
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(out) = args.first() else {
        eprintln!("usage: synthetic_pcap OUT [PACKETS] [FLOWS] [ZIPF] [SEED]");
        std::process::exit(2);
    };
    let num = |i: usize, d: f64| -> f64 {
        args.get(i).map_or(d, |s| {
            s.parse().unwrap_or_else(|_| {
                eprintln!("synthetic_pcap: {s:?} is not a number");
                std::process::exit(2)
            })
        })
    };
    let (packets, flows, zipf, seed) = (num(1, 65536.0), num(2, 20000.0), num(3, 1.0), num(4, 1.0));
    let mut rng = Pcg64::seed_from_u64(seed as u64);
    let table: Vec<Flow> = (0..flows as usize).map(|_| flow(&mut rng)).collect();
    let dist = Zipf::new(flows, zipf).unwrap_or_else(|e| {
        eprintln!("synthetic_pcap: bad flows or exponent: {e}");
        std::process::exit(2)
    });
    let mut bytes = Vec::new();
    let header = PcapHeader {
        datalink: DataLink::ETHERNET,
        ..PcapHeader::default()
    };
    {
        let mut w = PcapWriter::with_header(&mut bytes, header).expect("pcap header");
        let arp: Vec<u8> = [
            [0xffu8; 6].as_slice(),
            &[2, 0, 0, 0, 0, 1],
            &[8, 6],
            &[0, 1, 8, 0, 6, 4, 0, 1],
            &[0; 20],
        ]
        .concat();
        for i in 0..packets as u64 {
            let ts = Duration::from_micros(i * 7);
            if rng.random_bool(0.01) {
                w.write_packet(&PcapPacket::new(ts, arp.len() as u32, &arp))
                    .expect("write");
                continue;
            }
            let rank = dist.sample(&mut rng) as usize - 1;
            let data = frame(&table[rank], 0);
            w.write_packet(&PcapPacket::new(ts, data.len() as u32, &data))
                .expect("write");
        }
    }
    let data = if out.ends_with(".gz") {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        e.write_all(&bytes).expect("gzip");
        e.finish().expect("gzip")
    } else {
        bytes
    };
    if let Some(dir) = std::path::Path::new(out)
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
    {
        std::fs::create_dir_all(dir).unwrap_or_else(|e| {
            eprintln!("synthetic_pcap: cannot create {}: {e}", dir.display());
            std::process::exit(1)
        });
    }
    std::fs::write(out, &data).unwrap_or_else(|e| {
        eprintln!("synthetic_pcap: cannot write {out}: {e}");
        std::process::exit(1)
    });
    eprintln!(
        "synthetic_pcap: wrote {out} ({} packets, {} flows, Zipf {zipf}, seed {seed}; {} bytes)",
        packets as u64,
        flows as u64,
        data.len()
    );
}
