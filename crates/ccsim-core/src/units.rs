//! Units: integer time (ns), rates (bit/s), sizes (bytes) and their text forms.
//!
//! Decimal prefixes (1 KB = 1000 B, 1 Mbps = 10^6 bit/s), as the papers
//! reproduced count (docs/user-guide.md, "Units"); `KiB`/`MiB` are binary.
//! Times are integer nanoseconds so that event ordering is exact and runs are
//! reproducible bit for bit.

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
    /// Seconds as the models compute with them (`ns · 1e-9`; kept so that
    /// results stay as they were: use [`Time::secs`] for what people read).
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 * 1e-9
    }
    /// Seconds, the nearest double (`ns / 1e9`): 60 s is `60.0`, not
    /// `60.00000000000001`. For results and messages.
    pub fn secs(self) -> f64 {
        self.0 as f64 / 1e9
    }
    /// Exact decimal seconds without trailing zeros: `"0.1"`, `"60"`, `"1.5e-8"`
    /// never occurs (`"0.000000015"`).
    pub fn secs_str(self) -> String {
        let (s, ns) = (self.0 / 1_000_000_000, self.0 % 1_000_000_000);
        if ns == 0 {
            s.to_string()
        } else {
            format!("{s}.{ns:09}").trim_end_matches('0').to_string()
        }
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
        write!(f, "{}s", self.secs_str())
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
    pub expected: String,
}

impl ParseError {
    /// The specific reason when the value has an accepted form but is out of range
    /// ("at most 10Tbps", "at least 1ns"); `None` when the form itself is wrong.
    pub fn out_of_range(&self) -> Option<&str> {
        let generic = [RATE_EXPECTED, TIME_EXPECTED, SIZE_EXPECTED, BUFFER_EXPECTED];
        (!generic.contains(&self.expected.as_str())).then_some(self.expected.as_str())
    }
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

/// Fastest link rate accepted: 10 Tbit/s. The clock counts whole nanoseconds, so
/// faster links would serialize even full-size packets in no time at all.
pub const MAX_RATE: Rate = Rate(10_000_000_000_000);
/// Largest size accepted (buffers, transfers, windows, packet lengths): 1 PB. Keeps
/// every product of sizes the engine forms (bits = 8 × bytes, ...) far from overflow.
pub const MAX_SIZE: u64 = 1_000_000_000_000_000;
/// Largest buffer in packets: 10^12.
pub const MAX_PACKETS: u64 = 1_000_000_000_000;
/// Longest time accepted: 10^9 s (about 32 years of simulated time).
pub const MAX_SECS: f64 = 1e9;

/// A rate in bit/s from a number: positive, finite, at most [`MAX_RATE`]. `Err` holds
/// what is accepted.
pub fn rate_from_bps(bps: f64) -> Result<Rate, String> {
    if !(bps.is_finite() && bps >= 1.0) {
        return Err(format!("{RATE_EXPECTED}, of at least 1bps"));
    }
    if bps > MAX_RATE.0 as f64 {
        return Err("a rate of at most 10Tbps (ccsim's maximum: the clock counts whole \
                    nanoseconds, and faster links would send packets in zero time)"
            .into());
    }
    Ok(Rate(bps.round() as u64))
}

/// A size in bytes from a number of bytes: finite, non-negative, at most [`MAX_SIZE`].
pub fn size_from_bytes(b: f64) -> Result<u64, String> {
    if !(b.is_finite() && b >= 0.0) {
        return Err(SIZE_EXPECTED.into());
    }
    if b > MAX_SIZE as f64 {
        return Err("a size of at most 1PB (1e15 bytes)".into());
    }
    Ok(b.round() as u64)
}

/// A time from seconds: finite, non-negative, at most [`MAX_SECS`], and a whole number
/// of nanoseconds (the clock's resolution; "0.4ns" is an error, not 0).
pub fn time_from_secs(s: f64) -> Result<Time, String> {
    if !(s.is_finite() && s >= 0.0) {
        return Err(TIME_EXPECTED.into());
    }
    if s > MAX_SECS {
        return Err("a time of at most 1e9s".into());
    }
    let ns = s * 1e9;
    if (ns - ns.round()).abs() > (1e-9 * ns).max(1e-6) {
        return Err(if ns < 1.0 {
            "0s or a time of at least 1ns (the clock counts whole nanoseconds)".into()
        } else {
            "a whole number of nanoseconds (the clock counts whole nanoseconds)".into()
        });
    }
    Ok(Time(ns.round() as u64))
}

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
        expected: RATE_EXPECTED.into(),
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
    rate_from_bps(n * mult).map_err(|expected| ParseError {
        value: s.to_string(),
        expected,
    })
}

/// Parses a time: "40ms", "1.5s", "250us", "100ns", "2min".
pub fn parse_time(s: &str) -> Result<Time, ParseError> {
    let err = || ParseError {
        value: s.to_string(),
        expected: TIME_EXPECTED.into(),
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
    time_from_secs(n * mult).map_err(|expected| ParseError {
        value: s.to_string(),
        expected,
    })
}

/// Parses a size in bytes: "1500B", "300KB", "10MB", "64KiB", "1500".
pub fn parse_size(s: &str) -> Result<u64, ParseError> {
    let err = || ParseError {
        value: s.to_string(),
        expected: SIZE_EXPECTED.into(),
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
    size_from_bytes(n * mult).map_err(|expected| ParseError {
        value: s.to_string(),
        expected,
    })
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
        expected: BUFFER_EXPECTED.into(),
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
            if n > MAX_PACKETS as f64 {
                return Err(ParseError {
                    value: s.to_string(),
                    expected: "a buffer of at most 1e12 packets".into(),
                });
            }
            Ok(BufferSize::Packets(n as u64))
        }
        "bdp" | "BDP" => Ok(BufferSize::Bdp(n)),
        _ => parse_size(t).map(BufferSize::Bytes).map_err(|e| ParseError {
            expected: if e.expected == SIZE_EXPECTED {
                BUFFER_EXPECTED.into()
            } else {
                e.expected
            },
            ..e
        }),
    }
}

/// A queue limit (a [`BufferSize`] resolved for one link). ns-2's convention
/// (docs/models/links-and-queues.md, "Conventions"): the limit counts packets
/// waiting, not the one being serialized.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Limit {
    Packets(u64),
    Bytes(u64),
    Unlimited,
}

impl Limit {
    /// Would a queue holding `pkts`/`bytes` still fit one more packet of `size`?
    #[inline]
    pub fn admits(self, pkts: usize, bytes: u64, size: u32) -> bool {
        match self {
            Limit::Packets(n) => (pkts as u64) < n,
            Limit::Bytes(n) => bytes + size as u64 <= n,
            Limit::Unlimited => true,
        }
    }
    /// Is a backlog of `pkts`/`bytes` within the limit?
    #[inline]
    pub fn holds(self, pkts: usize, bytes: u64) -> bool {
        match self {
            Limit::Packets(n) => pkts as u64 <= n,
            Limit::Bytes(n) => bytes <= n,
            Limit::Unlimited => true,
        }
    }
    /// The limit as a scenario writes it: `"100pkt"`, `"15000B"` or `"inf"`.
    pub fn label(self) -> String {
        match self {
            Limit::Packets(n) => format!("{n}pkt"),
            Limit::Bytes(b) => format!("{b}B"),
            Limit::Unlimited => "inf".into(),
        }
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
    fn out_of_range_values_are_errors_not_silently_capped_or_rounded() {
        let e = parse_rate("100Tbps").unwrap_err();
        assert!(e.expected.contains("at most 10Tbps"), "{e}");
        assert!(parse_rate("1e30Gbps").unwrap_err().expected.contains("at most 10Tbps"));
        assert_eq!(parse_rate("10Tbps").unwrap(), MAX_RATE);
        let e = parse_time("0.4ns").unwrap_err();
        assert!(e.expected.contains("at least 1ns"), "{e}");
        assert!(parse_time("1.5ns").unwrap_err().expected.contains("whole number"));
        assert_eq!(parse_time("0ns").unwrap(), Time::ZERO);
        assert_eq!(parse_time("1ns").unwrap(), Time(1));
        assert_eq!(parse_time("0.3s").unwrap(), Time(300_000_000));
        assert!(parse_time("2e9s").is_err());
        assert!(parse_size("2EB").is_err());
        assert!(parse_size("1.1e15B").unwrap_err().expected.contains("1PB"));
        assert!(parse_buffer("1e13pkt").unwrap_err().expected.contains("1e12 packets"));
        assert!(parse_buffer("2e18B").unwrap_err().expected.contains("1PB"));
    }

    #[test]
    fn serialization_time() {
        // 1000 B at 40 Mbps = 200 us; 576 B at 2 Mbps = 2.304 ms.
        assert_eq!(Rate::mbps(40).tx_time(1000), Time::from_micros(200));
        assert_eq!(Rate::mbps(2).tx_time(576), Time::from_micros(2304));
    }
}
