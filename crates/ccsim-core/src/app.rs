//! Unreliable packet sources for cross traffic and queueing tests: constant
//! bit rate (CBR) and Poisson (exponential inter-departure times), with fixed
//! or exponentially distributed packet sizes (baseline.md §9). The mean bit
//! rate is the configured rate in both cases. With `ecn` the packets are sent
//! ECN-capable (ECT(0), RFC 3168 §5) and the receiver counts those arriving
//! with CE; the source does not react (an unresponsive ECN-capable flow).

use crate::rng::Rng;
use crate::units::Time;

#[derive(Clone, Debug, PartialEq)]
pub enum SizeDist {
    /// Every packet has this size on the wire (bytes).
    Fixed(u32),
    /// Exponential with this mean (bytes), rounded to whole bytes, at least 1.
    Exponential(f64),
}

impl SizeDist {
    pub fn mean(&self) -> f64 {
        match *self {
            SizeDist::Fixed(s) => s as f64,
            SizeDist::Exponential(m) => m,
        }
    }
    pub fn draw(&self, rng: &mut Rng) -> u32 {
        match *self {
            SizeDist::Fixed(s) => s,
            SizeDist::Exponential(m) => (rng.exp(m).round() as u32).max(1),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pattern {
    Cbr,
    Poisson,
}

pub struct UdpSource {
    pub pattern: Pattern,
    /// Mean rate in bit/s.
    pub rate_bps: f64,
    pub size: SizeDist,
    pub stop: Time,
    /// Send ECT(0) packets.
    pub ecn: bool,
    pub rng: Rng,
    pub sent_packets: u64,
    pub sent_bytes: u64,
    pub received_packets: u64,
    pub received_bytes: u64,
    /// Packets received with CE set.
    pub received_ce: u64,
}

impl UdpSource {
    /// Size of the next packet.
    pub fn next_size(&mut self) -> u32 {
        self.size.draw(&mut self.rng)
    }
    /// Gap until the next packet.
    pub fn next_gap(&mut self) -> Time {
        let mean = self.size.mean() * 8.0 / self.rate_bps;
        match self.pattern {
            Pattern::Cbr => Time::from_secs_f64(mean),
            Pattern::Poisson => Time::from_secs_f64(self.rng.exp(mean)),
        }
        .max(Time(1))
    }
}
