//! Units: integer time (ns), rates (bit/s), sizes (bytes) and their text forms.
//!
//! Conventions follow `specs/baseline.md` §0: decimal prefixes (1 KB = 1000 B,
//! 1 Mbps = 10^6 bit/s); `KiB`/`MiB` are binary. Times are integer nanoseconds
//! so that event ordering is exact and runs are reproducible bit for bit.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// Simulated time (or a duration) in integer nanoseconds.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(pub u64);

impl Time {
    pub const ZERO: Time = Time(0);
    pub const MAX: Time = Time(u64::MAX);

    pub const fn from_nanos(ns: u64) -> Time {
        Time(ns)
    }
    pub const fn from_micros(us: u64) -> Time {
        Time(us * 1_000)
    }
    pub const fn from_millis(ms: u64) -> Time {
        Time(ms * 1_000_000)
    }
    pub const fn from_secs(s: u64) -> Time {
        Time(s * 1_000_000_000)
    }
    /// Rounds to the nearest nanosecond; negative or non-finite input gives 0.
    pub fn from_secs_f64(s: f64) -> Time {
        if s.is_finite() && s > 0.0 {
            Time((s * 1e9).round() as u64)
        } else {
            Time(0)
        }
    }
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 * 1e-9
    }
    pub fn saturating_sub(self, o: Time) -> Time {
        Time(self.0.saturating_sub(o.0))
    }
    pub fn mul_f64(self, k: f64) -> Time {
        Time::from_secs_f64(self.as_secs_f64() * k)
    }
}

impl Add for Time {
    type Output = Time;
    fn add(self, o: Time) -> Time {
        Time(self.0.saturating_add(o.0))
    }
}
impl AddAssign for Time {
    fn add_assign(&mut self, o: Time) {
        self.0 = self.0.saturating_add(o.0);
    }
}
impl Sub for Time {
    type Output = Time;
    fn sub(self, o: Time) -> Time {
        debug_assert!(self.0 >= o.0, "time went backwards: {} - {}", self.0, o.0);
        Time(self.0 - o.0)
    }
}
impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}s", self.as_secs_f64())
    }
}

/// A link rate in bit/s.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rate(pub u64);

impl Rate {
    pub const fn bps(b: u64) -> Rate {
        Rate(b)
    }
    pub const fn mbps(m: u64) -> Rate {
        Rate(m * 1_000_000)
    }
    pub fn bits_per_sec(self) -> u64 {
        self.0
    }
    /// Serialization time of `bytes` at this rate, rounded to the nearest ns.
    pub fn tx_time(self, bytes: u64) -> Time {
        let num = bytes as u128 * 8 * 1_000_000_000u128;
        let r = self.0 as u128;
        Time(((num + r / 2) / r) as u64)
    }
    /// Bytes that this rate carries in `t`.
    pub fn bytes_in(self, t: Time) -> f64 {
        self.0 as f64 * t.as_secs_f64() / 8.0
    }
}

/// Error from parsing a quantity; `expected` describes the accepted forms.
#[derive(Debug, Clone, PartialEq)]
pub struct ParseError {
    pub value: String,
    pub expected: &'static str,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid value {:?}: expected {}", self.value, self.expected)
    }
}

const RATE_EXPECTED: &str = "a positive rate such as \"45Mbps\", \"1Gbps\", \"64kbps\" or \"1000bps\" (decimal units)";
const TIME_EXPECTED: &str = "a non-negative time such as \"40ms\", \"1.5s\", \"250us\", \"100ns\" or \"2min\"";
const SIZE_EXPECTED: &str =
    "a non-negative size such as \"1500B\", \"300KB\", \"10MB\", \"1GB\" (decimal) or \"64KiB\" (binary)";

/// Splits "12.5Mbps" into (12.5, "Mbps"); allows spaces between.
fn split_number(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let end = s
        .char_indices()
        .find(|&(i, c)| {
            !(c.is_ascii_digit()
                || c == '.'
                || ((c == 'e' || c == 'E')
                    && i > 0
                    && s[i + 1..].starts_with(|d: char| d.is_ascii_digit() || d == '-' || d == '+'))
                || ((c == '-' || c == '+') && (i == 0 || s[..i].ends_with(['e', 'E']))))
        })
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    let num: f64 = s[..end].parse().ok()?;
    Some((num, s[end..].trim()))
}

/// Parses a rate: "45Mbps", "1Gbps", "64kbps", "1000bps", "1.5Mb/s".
pub fn parse_rate(s: &str) -> Result<Rate, ParseError> {
    let err = || ParseError {
        value: s.to_string(),
        expected: RATE_EXPECTED,
    };
    let (n, unit) = split_number(s).ok_or_else(err)?;
    let mult = match unit {
        "bps" | "b/s" => 1.0,
        "kbps" | "Kbps" | "kb/s" | "Kb/s" => 1e3,
        "Mbps" | "mbps" | "Mb/s" => 1e6,
        "Gbps" | "gbps" | "Gb/s" => 1e9,
        "Tbps" | "Tb/s" => 1e12,
        _ => return Err(err()),
    };
    let v = n * mult;
    if !(v.is_finite() && v >= 1.0) {
        return Err(err());
    }
    Ok(Rate(v.round() as u64))
}

/// Parses a time: "40ms", "1.5s", "250us", "100ns", "2min".
pub fn parse_time(s: &str) -> Result<Time, ParseError> {
    let err = || ParseError {
        value: s.to_string(),
        expected: TIME_EXPECTED,
    };
    let (n, unit) = split_number(s).ok_or_else(err)?;
    let mult = match unit {
        "ns" => 1e-9,
        "us" | "µs" => 1e-6,
        "ms" => 1e-3,
        "s" | "sec" => 1.0,
        "min" => 60.0,
        "h" => 3600.0,
        _ => return Err(err()),
    };
    let v = n * mult;
    if !(v.is_finite() && v >= 0.0) || v > 1e9 {
        return Err(err());
    }
    Ok(Time::from_secs_f64(v))
}

/// Parses a size in bytes: "1500B", "300KB", "10MB", "64KiB", "1500".
pub fn parse_size(s: &str) -> Result<u64, ParseError> {
    let err = || ParseError {
        value: s.to_string(),
        expected: SIZE_EXPECTED,
    };
    let (n, unit) = split_number(s).ok_or_else(err)?;
    let mult = match unit {
        "" | "B" | "bytes" => 1.0,
        "kB" | "KB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "KiB" => 1024.0,
        "MiB" => 1048576.0,
        "GiB" => 1073741824.0,
        "bit" | "bits" | "b" => 0.125,
        "kbit" | "Kbit" => 125.0,
        "Mbit" => 125_000.0,
        _ => return Err(err()),
    };
    let v = n * mult;
    if !(v.is_finite() && v >= 0.0) || v > 1e18 {
        return Err(err());
    }
    Ok(v.round() as u64)
}

/// A buffer size as written in a scenario: packets, bytes, or a multiple of the
/// path's bandwidth-delay product (resolved once the topology is known).
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum BufferSize {
    Packets(u64),
    Bytes(u64),
    Bdp(f64),
    Unlimited,
}

pub const BUFFER_EXPECTED: &str = "a buffer size such as \"100pkt\", \"150KB\", \"40000bit\", \"0.1bdp\" or \"inf\"";

/// Parses "100pkt", "100pkts", "150KB", "0.1bdp", "inf".
pub fn parse_buffer(s: &str) -> Result<BufferSize, ParseError> {
    let err = || ParseError {
        value: s.to_string(),
        expected: BUFFER_EXPECTED,
    };
    let t = s.trim();
    if matches!(t, "inf" | "infinite" | "unlimited") {
        return Ok(BufferSize::Unlimited);
    }
    let (n, unit) = split_number(t).ok_or_else(err)?;
    if !(n.is_finite() && n >= 0.0) {
        return Err(err());
    }
    match unit {
        "p" | "pkt" | "pkts" | "packets" | "packet" => {
            if n.fract() != 0.0 {
                return Err(err());
            }
            Ok(BufferSize::Packets(n as u64))
        }
        "bdp" | "BDP" => Ok(BufferSize::Bdp(n)),
        _ => parse_size(t).map(BufferSize::Bytes).map_err(|_| err()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates() {
        assert_eq!(parse_rate("45Mbps").unwrap(), Rate(45_000_000));
        assert_eq!(parse_rate("1Gbps").unwrap(), Rate(1_000_000_000));
        assert_eq!(parse_rate("1.5 Mbps").unwrap(), Rate(1_500_000));
        assert_eq!(parse_rate("64kbps").unwrap(), Rate(64_000));
        assert!(parse_rate("45Mbs").is_err());
        assert!(parse_rate("-1Mbps").is_err());
        assert!(parse_rate("0Mbps").is_err());
        assert!(parse_rate("Mbps").is_err());
    }

    #[test]
    fn times() {
        assert_eq!(parse_time("40ms").unwrap(), Time::from_millis(40));
        assert_eq!(parse_time("1.5s").unwrap(), Time(1_500_000_000));
        assert_eq!(parse_time("250us").unwrap(), Time(250_000));
        assert_eq!(parse_time("2min").unwrap(), Time::from_secs(120));
        assert_eq!(parse_time("1e-3s").unwrap(), Time::from_millis(1));
        assert!(parse_time("-1ms").is_err());
        assert!(parse_time("40").is_err());
        assert!(parse_time("40 parsecs").is_err());
    }

    #[test]
    fn sizes_are_decimal() {
        assert_eq!(parse_size("300KB").unwrap(), 300_000);
        assert_eq!(parse_size("1MB").unwrap(), 1_000_000);
        assert_eq!(parse_size("64KiB").unwrap(), 65_536);
        assert_eq!(parse_size("40000bit").unwrap(), 5_000);
        assert_eq!(parse_size("1500").unwrap(), 1500);
        assert!(parse_size("12 furlongs").is_err());
    }

    #[test]
    fn buffers() {
        assert_eq!(parse_buffer("100pkt").unwrap(), BufferSize::Packets(100));
        assert_eq!(parse_buffer("0.1bdp").unwrap(), BufferSize::Bdp(0.1));
        assert_eq!(parse_buffer("150KB").unwrap(), BufferSize::Bytes(150_000));
        assert_eq!(parse_buffer("inf").unwrap(), BufferSize::Unlimited);
        assert!(parse_buffer("1.5pkt").is_err());
        assert!(parse_buffer("-3pkt").is_err());
    }

    #[test]
    fn serialization_time() {
        // 1000 B at 40 Mbps = 200 us; 576 B at 2 Mbps = 2.304 ms.
        assert_eq!(Rate::mbps(40).tx_time(1000), Time::from_micros(200));
        assert_eq!(Rate::mbps(2).tx_time(576), Time::from_micros(2304));
    }
}
