//! The network policy (docs/api.md §14, §16.10, §16.17): which URLs, ports and addresses the service
//! may connect to. Everything here is pure: no DNS, no I/O, so it can be tested exhaustively.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::ops::RangeInclusive;
use std::str::FromStr;

use lore_app::ports::UrlRejection;
use url::{Host, Url};

/// `true` (also `1`, `yes`, `on`) lifts the address and port rules — local development and tests only.
pub const ALLOW_PRIVATE_ENV: &str = "LORE_ALLOW_PRIVATE_NETWORK";
/// Optional comma-separated list of allowed ports and ranges, e.g. `80,443,8000-8999` (the default).
pub const ALLOWED_PORTS_ENV: &str = "LORE_ALLOWED_PORTS";

/// Longest URL accepted, in characters.
pub const MAX_URL_LEN: usize = 4096;

/// The ports allowed by default: 80, 443 and 8000-8999.
pub fn default_ports() -> Vec<RangeInclusive<u16>> {
    vec![80..=80, 443..=443, 8000..=8999]
}

/// Server-side request protection rules.
///
/// * Scheme rule: only `http` and `https`. Never lifted.
/// * Credentials rule: URLs with user info (`http://user:pass@host/`) are refused as `Blocked`
///   (credentials would be stored with the source and sent to the target; `user@host` is also a
///   classic way to disguise the real host). Never lifted.
/// * Port rule: the URL's effective port must be in `allowed_ports`.
/// * Address rule: every address the host is, or resolves to, must be a public unicast address
///   (see [`refusal_reason`]) or lie in one of `allow_cidrs`.
///
/// `allow_private` lifts the port and address rules (docs/api.md §16.17).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetPolicy {
    /// Lifts the address and port rules (never the scheme or credentials rule).
    pub allow_private: bool,
    /// Allowed destination ports (inclusive ranges). Default: 80, 443, 8000-8999.
    pub allowed_ports: Vec<RangeInclusive<u16>>,
    /// Narrow exceptions to the address rule: addresses inside these networks are accepted even
    /// when they are private, loopback, … (e.g. one trusted internal service, or a test server on
    /// 127.0.0.1 while link-local and everything else stays refused). The port rule still applies.
    pub allow_cidrs: Vec<Cidr>,
}

impl Default for NetPolicy {
    fn default() -> Self {
        Self::strict()
    }
}

impl NetPolicy {
    /// Production rules: public addresses, ports 80/443/8000-8999, no exceptions.
    pub fn strict() -> Self {
        Self { allow_private: false, allowed_ports: default_ports(), allow_cidrs: Vec::new() }
    }

    /// Development rules: any address and port (still http/https only).
    pub fn allow_private() -> Self {
        Self { allow_private: true, ..Self::strict() }
    }

    /// Reads `LORE_ALLOW_PRIVATE_NETWORK` and `LORE_ALLOWED_PORTS` through `var` (unset or blank:
    /// the strict rules). A value that does not parse is an error naming the variable, as every
    /// other setting's: a typo must not quietly leave a policy other than the one meant.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Self, String> {
        let mut policy = Self::strict();
        if let Some(v) = var(ALLOW_PRIVATE_ENV).filter(|v| !v.trim().is_empty()) {
            policy.allow_private = parse_bool(&v)
                .ok_or_else(|| format!("{ALLOW_PRIVATE_ENV}={v:?} must be true or false (1/0, yes/no, on/off)"))?;
        }
        if let Some(ports) = var(ALLOWED_PORTS_ENV).filter(|v| !v.trim().is_empty()) {
            policy.allowed_ports = parse_ports(&ports)
                .map_err(|e| format!("{ALLOWED_PORTS_ENV}={ports:?}: {e} (expected e.g. 80,443,8000-8999)"))?;
        }
        Ok(policy)
    }

    /// Adds an exception to the address rule.
    pub fn with_allowed_cidr(mut self, cidr: Cidr) -> Self {
        self.allow_cidrs.push(cidr);
        self
    }

    /// Replaces the allowed ports.
    pub fn with_ports(mut self, ports: Vec<RangeInclusive<u16>>) -> Self {
        self.allowed_ports = ports;
        self
    }

    /// Allows every port (1-65535).
    pub fn with_any_port(self) -> Self {
        self.with_ports(vec![1..=u16::MAX])
    }

    pub fn port_allowed(&self, port: u16) -> bool {
        self.allow_private || self.allowed_ports.iter().any(|r| r.contains(&port))
    }

    /// Whether a connection to `ip` is allowed (address rule with its exceptions).
    pub fn ip_allowed(&self, ip: IpAddr) -> bool {
        self.ip_refusal(ip).is_none()
    }

    /// Why a connection to `ip` is refused, `None` when it is allowed.
    pub fn ip_refusal(&self, ip: IpAddr) -> Option<String> {
        if self.allow_private {
            return None;
        }
        let canonical = ip.to_canonical();
        if self.allow_cidrs.iter().any(|c| c.contains(ip) || c.contains(canonical)) {
            return None;
        }
        refusal_reason(ip).map(|why| format!("{ip} is {why}"))
    }

    /// The static part of the check, on a parsed URL: scheme, credentials, host, port, and the
    /// address rule when the host is an IP literal. A domain host passes here; its addresses are
    /// judged by [`NetPolicy::check_resolved`] or at connect time.
    pub fn check_url(&self, url: &Url) -> Result<(), UrlRejection> {
        match url.scheme() {
            "http" | "https" => {}
            other => {
                return Err(UrlRejection::Blocked(format!("scheme `{other}:` is not allowed; only http and https")));
            }
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(UrlRejection::Blocked("URLs with credentials (user:password@) are not allowed".into()));
        }
        let host = url.host().ok_or_else(|| UrlRejection::Invalid("the URL has no host".into()))?;
        let port = url.port_or_known_default().ok_or_else(|| UrlRejection::Invalid("the URL has no port".into()))?;
        if !self.port_allowed(port) {
            return Err(UrlRejection::Blocked(format!("port {port} is not allowed")));
        }
        let literal = match host {
            Host::Domain("") => return Err(UrlRejection::Invalid("the URL has no host".into())),
            Host::Domain(_) => None,
            Host::Ipv4(v4) => Some(IpAddr::V4(v4)),
            Host::Ipv6(v6) => Some(IpAddr::V6(v6)),
        };
        if let Some(ip) = literal
            && let Some(why) = self.ip_refusal(ip)
        {
            return Err(UrlRejection::Blocked(format!("address {why}")));
        }
        Ok(())
    }

    /// The full check of a URL whose host resolved to `resolved`: the static check, then refused
    /// when no address resolved (`Invalid`: "host does not resolve") or when ANY address is refused.
    /// For an IP-literal host `resolved` is ignored.
    pub fn check_resolved(&self, url: &Url, resolved: &[IpAddr]) -> Result<(), UrlRejection> {
        self.check_url(url)?;
        if !matches!(url.host(), Some(Host::Domain(_))) {
            return Ok(());
        }
        if resolved.is_empty() {
            return Err(UrlRejection::Invalid("host does not resolve".into()));
        }
        for ip in resolved {
            if let Some(why) = self.ip_refusal(*ip) {
                return Err(UrlRejection::Blocked(format!("host resolves to {why}")));
            }
        }
        Ok(())
    }
}

/// Parses and normalises a URL: absolute, fragment dropped, host lower-cased / punycoded, IPv4
/// host forms (`2130706433`, `0x7f.0.0.1`, `0177.0.0.1`, `127.1`) made dotted-decimal by the
/// WHATWG parser. Only *form* is judged here (→ `Invalid`); policy is [`NetPolicy::check_url`].
pub fn parse_url(input: &str) -> Result<Url, UrlRejection> {
    let input = input.trim();
    if input.is_empty() {
        return Err(UrlRejection::Invalid("the URL is empty".into()));
    }
    if input.len() > MAX_URL_LEN {
        return Err(UrlRejection::Invalid(format!("the URL is longer than {MAX_URL_LEN} characters")));
    }
    let mut url = Url::parse(input).map_err(|e| UrlRejection::Invalid(format!("not an absolute URL ({e})")))?;
    // `example.com:8080/x` parses with the "scheme" `example.com`: it is a URL without a scheme.
    if url.scheme().contains('.') {
        return Err(UrlRejection::Invalid("the URL has no scheme (http:// or https://)".into()));
    }
    url.set_fragment(None);
    Ok(url)
}

// ------------------------------------------------------------------------------------------ addresses

const fn v4(a: u8, b: u8, c: u8, d: u8) -> u32 {
    u32::from_be_bytes([a, b, c, d])
}

/// Refused IPv4 networks: (network, prefix length, description).
const REFUSED_V4: &[(u32, u8, &str)] = &[
    (v4(0, 0, 0, 0), 8, "in \"this network\" 0.0.0.0/8 (incl. unspecified)"),
    (v4(10, 0, 0, 0), 8, "private (10.0.0.0/8)"),
    (v4(100, 64, 0, 0), 10, "shared address space / CGNAT (100.64.0.0/10)"),
    (v4(127, 0, 0, 0), 8, "loopback (127.0.0.0/8)"),
    (v4(169, 254, 0, 0), 16, "link-local (169.254.0.0/16, incl. cloud metadata)"),
    (v4(172, 16, 0, 0), 12, "private (172.16.0.0/12)"),
    (v4(192, 0, 0, 0), 24, "IETF protocol assignments (192.0.0.0/24)"),
    (v4(192, 0, 2, 0), 24, "documentation (192.0.2.0/24)"),
    (v4(192, 88, 99, 0), 24, "6to4 relay anycast (192.88.99.0/24)"),
    (v4(192, 168, 0, 0), 16, "private (192.168.0.0/16)"),
    (v4(198, 18, 0, 0), 15, "benchmarking (198.18.0.0/15)"),
    (v4(198, 51, 100, 0), 24, "documentation (198.51.100.0/24)"),
    (v4(203, 0, 113, 0), 24, "documentation (203.0.113.0/24)"),
    (v4(224, 0, 0, 0), 4, "multicast (224.0.0.0/4)"),
    (v4(240, 0, 0, 0), 4, "reserved or broadcast (240.0.0.0/4)"),
];

fn in_v4(ip: u32, net: u32, prefix: u8) -> bool {
    let mask = if prefix == 0 { 0 } else { u32::MAX << (32 - prefix) };
    ip & mask == net & mask
}

fn in_v6(ip: u128, net: u128, prefix: u8) -> bool {
    let mask = if prefix == 0 { 0 } else { u128::MAX << (128 - prefix) };
    ip & mask == net & mask
}

fn v4_refusal(ip: Ipv4Addr) -> Option<String> {
    let bits = u32::from(ip);
    REFUSED_V4.iter().find(|(net, prefix, _)| in_v4(bits, *net, *prefix)).map(|(_, _, why)| (*why).to_string())
}

fn embedded_refusal(kind: &str, embedded: Ipv4Addr) -> Option<String> {
    v4_refusal(embedded).map(|why| format!("{kind} form of {embedded}, which is {why}"))
}

fn v6_refusal(ip: Ipv6Addr) -> Option<String> {
    let bits = u128::from(ip);
    if ip.is_unspecified() {
        return Some("unspecified (::)".into());
    }
    if ip.is_loopback() {
        return Some("loopback (::1)".into());
    }
    // ::ffff:a.b.c.d
    if let Some(mapped) = ip.to_ipv4_mapped() {
        return embedded_refusal("an IPv4-mapped", mapped);
    }
    // ::a.b.c.d — deprecated (RFC 4291) and never legitimately used: refused whatever it embeds.
    if bits >> 32 == 0 {
        return Some("IPv4-compatible (::/96, deprecated)".into());
    }
    // 64:ff9b::/96 — well-known NAT64 prefix: judge the embedded IPv4 address.
    if in_v6(bits, 0x0064_ff9b_0000_0000_0000_0000_0000_0000, 96) {
        return embedded_refusal("a NAT64 (64:ff9b::/96)", Ipv4Addr::from(bits as u32));
    }
    if in_v6(bits, 0x0064_ff9b_0001_0000_0000_0000_0000_0000, 48) {
        return Some("local-use NAT64 (64:ff9b:1::/48)".into());
    }
    if in_v6(bits, 0xff00 << 112, 8) {
        return Some("multicast (ff00::/8)".into());
    }
    if in_v6(bits, 0xfc00 << 112, 7) {
        return Some("unique-local (fc00::/7)".into());
    }
    if in_v6(bits, 0xfe80 << 112, 10) {
        return Some("link-local (fe80::/10)".into());
    }
    if in_v6(bits, 0xfec0 << 112, 10) {
        return Some("site-local (fec0::/10, deprecated)".into());
    }
    if in_v6(bits, 0x0100 << 112, 64) {
        return Some("discard-only (100::/64)".into());
    }
    // Everything else outside global unicast 2000::/3 is reserved.
    if !in_v6(bits, 0x2000 << 112, 3) {
        return Some("not global unicast (outside 2000::/3)".into());
    }
    if in_v6(bits, 0x2001_0db8 << 96, 32) {
        return Some("documentation (2001:db8::/32)".into());
    }
    if in_v6(bits, 0x3fff << 112, 20) {
        return Some("documentation (3fff::/20)".into());
    }
    if in_v6(bits, 0x2001_0002 << 96, 48) {
        return Some("benchmarking (2001:2::/48)".into());
    }
    // 2002::/16 — 6to4: the IPv4 address sits in bits 16..48.
    if in_v6(bits, 0x2002 << 112, 16) {
        return embedded_refusal("a 6to4 (2002::/16)", Ipv4Addr::from((bits >> 80) as u32));
    }
    // 2001::/32 — Teredo: server IPv4 in bits 32..64, client IPv4 (inverted) in the last 32 bits.
    if in_v6(bits, 0x2001_0000 << 96, 32) {
        let server = Ipv4Addr::from((bits >> 64) as u32);
        let client = Ipv4Addr::from(!(bits as u32));
        return embedded_refusal("a Teredo client", client).or_else(|| embedded_refusal("a Teredo server", server));
    }
    None
}

/// Why an address is never a fit destination, `None` for a public unicast address. Covers
/// loopback, private, link-local (169.254.169.254), unique-local, multicast, unspecified,
/// broadcast, CGNAT, benchmarking, documentation, reserved ranges, and the IPv4-mapped,
/// IPv4-compatible, NAT64, 6to4 and Teredo forms that embed a refused IPv4 address.
pub fn refusal_reason(ip: IpAddr) -> Option<String> {
    match ip {
        IpAddr::V4(v4) => v4_refusal(v4),
        IpAddr::V6(v6) => v6_refusal(v6),
    }
}

// ------------------------------------------------------------------------------------------ cidr

/// An IP network, e.g. `127.0.0.1/32` or `fd00::/8` (a bare address means a single host).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Cidr {
    network: IpAddr,
    prefix: u8,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid network `{0}` (expected an address or address/prefix)")]
pub struct CidrError(pub String);

impl Cidr {
    /// The network of `addr` with `prefix` bits (host bits are cleared).
    pub fn new(addr: IpAddr, prefix: u8) -> Result<Self, CidrError> {
        match addr {
            IpAddr::V4(a) if prefix <= 32 => {
                let mask = if prefix == 0 { 0 } else { u32::MAX << (32 - prefix) };
                Ok(Self { network: IpAddr::V4(Ipv4Addr::from(u32::from(a) & mask)), prefix })
            }
            IpAddr::V6(a) if prefix <= 128 => {
                let mask = if prefix == 0 { 0 } else { u128::MAX << (128 - prefix) };
                Ok(Self { network: IpAddr::V6(Ipv6Addr::from(u128::from(a) & mask)), prefix })
            }
            _ => Err(CidrError(format!("{addr}/{prefix}"))),
        }
    }

    /// A single address.
    pub fn host(addr: IpAddr) -> Self {
        let prefix = if addr.is_ipv4() { 32 } else { 128 };
        Self { network: addr, prefix }
    }

    pub fn contains(&self, ip: IpAddr) -> bool {
        match (self.network, ip) {
            (IpAddr::V4(net), IpAddr::V4(ip)) => in_v4(u32::from(ip), u32::from(net), self.prefix),
            (IpAddr::V6(net), IpAddr::V6(ip)) => in_v6(u128::from(ip), u128::from(net), self.prefix),
            _ => false,
        }
    }
}

impl FromStr for Cidr {
    type Err = CidrError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        let err = || CidrError(s.to_string());
        match s.split_once('/') {
            None => s.parse::<IpAddr>().map(Self::host).map_err(|_| err()),
            Some((addr, prefix)) => {
                let addr = addr.parse::<IpAddr>().map_err(|_| err())?;
                let prefix = prefix.parse::<u8>().map_err(|_| err())?;
                Self::new(addr, prefix).map_err(|_| err())
            }
        }
    }
}

impl fmt::Display for Cidr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.network, self.prefix)
    }
}

// ------------------------------------------------------------------------------------------ env parsing

fn parse_bool(value: &str) -> Option<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" | "on" => Some(true),
        "false" | "0" | "no" | "off" => Some(false),
        _ => None,
    }
}

/// Parses `80,443,8000-8999`.
pub fn parse_ports(value: &str) -> Result<Vec<RangeInclusive<u16>>, String> {
    let mut out = Vec::new();
    for part in value.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let bad = || format!("invalid port or range `{part}`");
        let range = match part.split_once('-') {
            None => {
                let p = part.parse::<u16>().map_err(|_| bad())?;
                p..=p
            }
            Some((a, b)) => {
                let a = a.trim().parse::<u16>().map_err(|_| bad())?;
                let b = b.trim().parse::<u16>().map_err(|_| bad())?;
                if a > b {
                    return Err(bad());
                }
                a..=b
            }
        };
        if *range.start() == 0 {
            return Err(bad());
        }
        out.push(range);
    }
    if out.is_empty() {
        return Err("no ports given".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn refused_ipv4_classes() {
        for a in [
            "0.0.0.0",
            "0.1.2.3",
            "10.0.0.1",
            "10.255.255.255",
            "100.64.0.1",
            "100.127.255.254",
            "127.0.0.1",
            "127.255.0.9",
            "169.254.169.254",
            "169.254.0.1",
            "172.16.0.1",
            "172.31.255.255",
            "192.0.0.8",
            "192.0.2.1",
            "192.88.99.1",
            "192.168.1.1",
            "198.18.0.1",
            "198.19.255.255",
            "198.51.100.7",
            "203.0.113.9",
            "224.0.0.1",
            "239.255.255.250",
            "240.0.0.1",
            "255.255.255.255",
        ] {
            assert!(refusal_reason(ip(a)).is_some(), "{a} should be refused");
        }
    }

    #[test]
    fn public_ipv4_allowed() {
        for a in
            ["1.1.1.1", "8.8.8.8", "93.184.216.34", "100.63.255.255", "100.128.0.1", "172.15.255.255", "172.32.0.1"]
        {
            assert_eq!(refusal_reason(ip(a)), None, "{a} should be allowed");
        }
        assert_eq!(refusal_reason(ip("192.169.0.1")), None);
        assert_eq!(refusal_reason(ip("198.20.0.1")), None);
        assert_eq!(refusal_reason(ip("223.255.255.255")), None);
    }

    #[test]
    fn refused_ipv6_classes() {
        for a in [
            "::",
            "::1",
            "::ffff:127.0.0.1",
            "::ffff:7f00:1",
            "::ffff:10.0.0.1",
            "::ffff:169.254.169.254",
            "::127.0.0.1",
            "::8.8.8.8", // IPv4-compatible: refused whatever it embeds
            "64:ff9b::7f00:1",
            "64:ff9b::a9fe:a9fe",
            "64:ff9b:1::1",
            "fe80::1",
            "febf::1",
            "fec0::1",
            "fc00::1",
            "fd12:3456::1",
            "ff02::1",
            "ff05::2",
            "100::1",
            "2001:db8::1",
            "3fff::1",
            "2001:2::1",
            "2002:7f00:0001::1",                    // 6to4 of 127.0.0.1
            "2002:c0a8:0101::1",                    // 6to4 of 192.168.1.1
            "2001:0:4136:e378:8000:63bf:80ff:fffe", // Teredo, client 127.0.0.1 (inverted)
            "4000::1",
            "::2:3:4:5:6",
        ] {
            assert!(refusal_reason(ip(a)).is_some(), "{a} should be refused");
        }
    }

    #[test]
    fn public_ipv6_allowed() {
        for a in [
            "2606:4700:4700::1111",
            "2001:4860:4860::8888",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
            "2002:0808:0808::1",
            "2001:0:4136:e378:8000:63bf:f7f7:f7f7", // Teredo, client 8.8.8.8
        ] {
            assert_eq!(refusal_reason(ip(a)), None, "{a} should be allowed");
        }
    }

    #[test]
    fn reasons_name_the_class() {
        assert!(refusal_reason(ip("169.254.169.254")).unwrap().contains("link-local"));
        assert!(refusal_reason(ip("::ffff:127.0.0.1")).unwrap().contains("IPv4-mapped"));
        assert!(refusal_reason(ip("::ffff:127.0.0.1")).unwrap().contains("loopback"));
        assert!(refusal_reason(ip("2002:7f00:1::")).unwrap().contains("6to4"));
        assert!(refusal_reason(ip("64:ff9b::a00:1")).unwrap().contains("NAT64"));
    }

    #[test]
    fn cidr_parse_and_contains() {
        let c: Cidr = "127.0.0.1/32".parse().unwrap();
        assert!(c.contains(ip("127.0.0.1")));
        assert!(!c.contains(ip("127.0.0.2")));
        assert!(!c.contains(ip("::1")));
        let c: Cidr = "10.1.2.3/8".parse().unwrap();
        assert_eq!(c.to_string(), "10.0.0.0/8");
        assert!(c.contains(ip("10.200.0.1")));
        let c: Cidr = "fd00::/8".parse().unwrap();
        assert!(c.contains(ip("fd12::1")));
        assert!(!c.contains(ip("fc00::1")));
        let c: Cidr = "::1".parse().unwrap();
        assert_eq!(c.to_string(), "::1/128");
        assert!("0.0.0.0/0".parse::<Cidr>().unwrap().contains(ip("8.8.8.8")));
        for bad in ["", "10.0.0.0/33", "::/129", "x/8", "10.0.0.0/x", "10.0.0/8"] {
            assert!(bad.parse::<Cidr>().is_err(), "{bad}");
        }
    }

    #[test]
    fn allow_cidrs_are_narrow_exceptions() {
        let p = NetPolicy::strict().with_allowed_cidr("127.0.0.1/32".parse().unwrap());
        assert!(p.ip_allowed(ip("127.0.0.1")));
        assert!(p.ip_allowed(ip("::ffff:127.0.0.1")));
        assert!(!p.ip_allowed(ip("127.0.0.2")));
        assert!(!p.ip_allowed(ip("169.254.169.254")));
        assert!(!p.ip_allowed(ip("::1")));
        assert!(p.ip_allowed(ip("8.8.8.8")));
    }

    #[test]
    fn ports() {
        let p = NetPolicy::strict();
        for port in [80, 443, 8000, 8080, 8999] {
            assert!(p.port_allowed(port), "{port}");
        }
        for port in [0, 22, 25, 79, 81, 442, 444, 3000, 7999, 9000, 65535] {
            assert!(!p.port_allowed(port), "{port}");
        }
        assert!(NetPolicy::allow_private().port_allowed(22));
        assert!(NetPolicy::strict().with_any_port().port_allowed(22));
    }

    #[test]
    fn port_list_parsing() {
        assert_eq!(parse_ports("80, 443,8000-8999").unwrap(), default_ports());
        assert_eq!(parse_ports("3000").unwrap(), vec![3000..=3000]);
        for bad in ["", ",", "0", "x", "9000-8000", "1-70000", "80;443"] {
            assert!(parse_ports(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn policy_from_vars() {
        let none = NetPolicy::from_vars(|_| None).unwrap();
        assert_eq!(none, NetPolicy::strict());
        let with = |name: &'static str, value: &str| {
            let value = value.to_string();
            NetPolicy::from_vars(move |k| (k == name).then(|| value.clone()))
        };
        for yes in ["true", "TRUE", "1", "yes", "on", " true "] {
            assert!(with(ALLOW_PRIVATE_ENV, yes).unwrap().allow_private, "{yes}");
        }
        for no in ["false", "0", "", "off", " "] {
            assert!(!with(ALLOW_PRIVATE_ENV, no).unwrap().allow_private, "{no}");
        }
        let e = with(ALLOW_PRIVATE_ENV, "nope").unwrap_err();
        assert!(e.starts_with("LORE_ALLOW_PRIVATE_NETWORK=\"nope\""), "{e}");
        let p = with(ALLOWED_PORTS_ENV, "443,3000-3010").unwrap();
        assert_eq!(p.allowed_ports, vec![443..=443, 3000..=3010]);
        for bad in ["garbage", "80,x", "0", "9000-8000", ",,"] {
            let e = with(ALLOWED_PORTS_ENV, bad).unwrap_err();
            assert!(e.starts_with("LORE_ALLOWED_PORTS="), "{bad}: {e}");
        }
    }

    fn url(s: &str) -> Url {
        parse_url(s).unwrap()
    }

    #[test]
    fn parse_url_forms() {
        assert!(matches!(parse_url("not a url"), Err(UrlRejection::Invalid(_))));
        assert!(matches!(parse_url("http://"), Err(UrlRejection::Invalid(_))));
        assert!(matches!(parse_url(""), Err(UrlRejection::Invalid(_))));
        assert!(matches!(parse_url("/relative/path"), Err(UrlRejection::Invalid(_))));
        assert!(matches!(parse_url("example.com:8080/x"), Err(UrlRejection::Invalid(_))));
        assert!(matches!(
            parse_url(&format!("https://example.com/{}", "a".repeat(MAX_URL_LEN))),
            Err(UrlRejection::Invalid(_))
        ));
        assert_eq!(url(" https://Example.COM:443/a?b=1#frag ").as_str(), "https://example.com/a?b=1");
        for (numeric, dotted) in [
            ("http://2130706433/", "http://127.0.0.1/"),
            ("http://0x7f.0.0.1/", "http://127.0.0.1/"),
            ("http://0177.0.0.1/", "http://127.0.0.1/"),
            ("http://127.1/", "http://127.0.0.1/"),
            ("http://0x7f000001/", "http://127.0.0.1/"),
        ] {
            assert_eq!(url(numeric).as_str(), dotted);
        }
    }

    #[test]
    fn static_check() {
        let p = NetPolicy::strict();
        let blocked = |s: &str| matches!(p.check_url(&url(s)), Err(UrlRejection::Blocked(_)));
        assert!(blocked("ftp://example.com/"));
        assert!(blocked("file:///etc/passwd"));
        assert!(blocked("gopher://x/"));
        assert!(blocked("javascript:alert(1)"));
        assert!(blocked("data:text/html,hi"));
        assert!(blocked("http://user:pass@example.com/"));
        assert!(blocked("http://user@example.com/"));
        assert!(blocked("http://example.com:22/"));
        assert!(blocked("http://2130706433/"));
        assert!(blocked("http://[::ffff:7f00:1]/"));
        assert!(p.check_url(&url("https://example.com/")).is_ok());
        assert!(p.check_url(&url("http://example.com:8080/")).is_ok());
        assert!(p.check_url(&url("http://8.8.8.8/")).is_ok());

        // allow_private lifts the address and port rules, not the scheme or credentials rule.
        let dev = NetPolicy::allow_private();
        assert!(dev.check_url(&url("http://127.0.0.1:22/")).is_ok());
        assert!(dev.check_url(&url("http://[::1]/")).is_ok());
        assert!(matches!(dev.check_url(&url("ftp://127.0.0.1/")), Err(UrlRejection::Blocked(_))));
        assert!(matches!(dev.check_url(&url("file:///etc/passwd")), Err(UrlRejection::Blocked(_))));
        assert!(matches!(dev.check_url(&url("http://u:p@localhost/")), Err(UrlRejection::Blocked(_))));
    }

    #[test]
    fn resolved_check() {
        let p = NetPolicy::strict();
        let u = url("https://example.com/");
        assert!(p.check_resolved(&u, &[ip("93.184.216.34")]).is_ok());
        assert!(p.check_resolved(&u, &[ip("93.184.216.34"), ip("2606:2800:220:1::1")]).is_ok());
        // Any refused address refuses the URL.
        assert!(matches!(p.check_resolved(&u, &[ip("93.184.216.34"), ip("10.0.0.1")]), Err(UrlRejection::Blocked(_))));
        assert!(matches!(p.check_resolved(&u, &[ip("::ffff:169.254.169.254")]), Err(UrlRejection::Blocked(_))));
        // Nothing resolved.
        assert_eq!(p.check_resolved(&u, &[]), Err(UrlRejection::Invalid("host does not resolve".into())));
        // A literal needs no resolution.
        assert!(p.check_resolved(&url("http://8.8.8.8/"), &[]).is_ok());
        // allow_private: anything resolved is fine.
        assert!(NetPolicy::allow_private().check_resolved(&u, &[ip("10.0.0.1")]).is_ok());
    }
}
