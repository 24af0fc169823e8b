//! A compact histogram of durations with bounded relative error, for
//! percentiles of per-packet quantities (a queue's sojourn times) without
//! storing every sample.
//!
//! Log-linear bins in the manner of HdrHistogram (G. Tene): values below
//! 2^[`SUB_BITS`] ns have one bin each (exact); above, every power-of-two
//! range `[2^e, 2^(e+1))` is split into 2^[`SUB_BITS`] equal bins. A bin
//! `[lo, lo + w)` has `lo ≥ 2^SUB_BITS · w`, so reporting its midpoint is off by
//! at most `w/2 ≤ lo / 2^(SUB_BITS+1)`: a relative error of at most
//! [`REL_ERROR`] = 2^-(SUB_BITS+1) (1/64 ≈ 1.6 %). Values from 1 ns to 1 s
//! take at most 828 counters (6.6 KB).
//!
//! Percentiles use the nearest-rank definition: the `q`-quantile of `n` samples
//! is the smallest sample with at least `⌈q·n⌉` samples at or below it. The
//! histogram returns the midpoint of that sample's bin, clamped to the largest
//! sample (kept exactly, as are the count and the sum).
//!
//! What a histogram costs follows what it is used for: bins are allocated only
//! over the range of values seen (from the smallest sample's bin to the
//! largest's), and zero samples (a packet that crossed an idle queue) are a
//! counter of their own, so a queue that never holds a packet allocates
//! nothing and one whose packets wait a few microseconds holds a few bins.

/// Bits of sub-bin resolution per power of two.
pub const SUB_BITS: u32 = 5;
const SUB: u64 = 1 << SUB_BITS;
/// Bound on the relative error of a reported percentile.
pub const REL_ERROR: f64 = 1.0 / (2 * SUB) as f64;

/// Counts of durations in nanoseconds (see the module doc).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LogHist {
    /// Counts of bins `lo`, `lo + 1`, ... (empty until a non-zero sample).
    bins: Vec<u64>,
    lo: usize,
    /// Samples of 0 (bin 0, kept apart from `bins`).
    zeros: u64,
    /// Number of samples.
    pub count: u64,
    /// Sum of the samples, ns.
    pub sum_ns: u128,
    /// Largest sample, ns.
    pub max_ns: u64,
}

/// The bin of value `v`.
#[inline]
fn index(v: u64) -> usize {
    if v < SUB {
        return v as usize;
    }
    let e = 63 - v.leading_zeros(); // ≥ SUB_BITS
    let shift = e - SUB_BITS;
    (SUB + shift as u64 * SUB + ((v >> shift) & (SUB - 1))) as usize
}

/// Lower bound and width of bin `i`.
fn bounds(i: usize) -> (u64, u64) {
    let i = i as u64;
    if i < SUB {
        return (i, 1);
    }
    let shift = (i - SUB) / SUB;
    let sub = (i - SUB) % SUB;
    ((SUB + sub) << shift, 1 << shift)
}

impl LogHist {
    /// Records one sample of `ns` nanoseconds.
    #[inline]
    pub fn record(&mut self, ns: u64) {
        if ns == 0 {
            self.record_zero();
            return;
        }
        let i = index(ns);
        match i.checked_sub(self.lo) {
            Some(k) if k < self.bins.len() => self.bins[k] += 1,
            _ => self.widen(i),
        }
        self.count += 1;
        self.sum_ns += ns as u128;
        self.max_ns = self.max_ns.max(ns);
    }

    /// Records a sample of 0 ns (the cheapest kind: two counters).
    #[inline]
    pub fn record_zero(&mut self) {
        self.zeros += 1;
        self.count += 1;
    }

    /// Counts one sample in bin `i`, outside the bins allocated so far.
    #[cold]
    fn widen(&mut self, i: usize) {
        if self.bins.is_empty() {
            self.lo = i;
        } else if i < self.lo {
            self.bins.splice(0..0, std::iter::repeat_n(0, self.lo - i));
            self.lo = i;
        }
        let k = i - self.lo;
        if k >= self.bins.len() {
            self.bins.resize(k + 1, 0);
        }
        self.bins[k] += 1;
    }

    /// The count of each bin from 0 up, zeros included.
    fn counts(&self) -> impl Iterator<Item = (usize, u64)> + '_ {
        std::iter::once((0, self.zeros)).chain(self.bins.iter().enumerate().map(|(k, &c)| (self.lo + k, c)))
    }

    /// Mean of the samples in seconds (NaN if there are none).
    pub fn mean_s(&self) -> f64 {
        if self.count == 0 {
            f64::NAN
        } else {
            self.sum_ns as f64 / self.count as f64 * 1e-9
        }
    }

    /// The nearest-rank `q`-quantile in seconds, within [`REL_ERROR`] (NaN
    /// if there are no samples).
    pub fn quantile_s(&self, q: f64) -> f64 {
        if self.count == 0 {
            return f64::NAN;
        }
        let rank = ((q * self.count as f64).ceil() as u64).clamp(1, self.count);
        let mut seen = 0;
        for (i, c) in self.counts() {
            seen += c;
            if seen >= rank {
                let (lo, w) = bounds(i);
                return (lo + w / 2).min(self.max_ns) as f64 * 1e-9;
            }
        }
        unreachable!("rank ≤ count")
    }

    /// The samples recorded since `earlier` (a snapshot of this histogram),
    /// except the maximum, which is this one's (reset it at the snapshot).
    pub fn since(&self, earlier: &LogHist) -> LogHist {
        let mut d = self.clone();
        // (Bins only ever widen, so the earlier ones lie inside these.)
        for (k, e) in earlier.bins.iter().enumerate() {
            d.bins[earlier.lo + k - d.lo] -= e;
        }
        d.zeros -= earlier.zeros;
        d.count -= earlier.count;
        d.sum_ns -= earlier.sum_ns;
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Exact nearest-rank quantile of `v`.
    fn exact(v: &[u64], q: f64) -> u64 {
        let mut s = v.to_vec();
        s.sort_unstable();
        let rank = ((q * s.len() as f64).ceil() as usize).clamp(1, s.len());
        s[rank - 1]
    }

    #[test]
    fn bins_tile_the_line() {
        // Consecutive bins are adjacent: each starts where the one before ends.
        for i in 1..1900 {
            // (bins up to 2^63 ns)
            let (lo, _) = bounds(i);
            let (plo, pw) = bounds(i - 1);
            assert_eq!(plo + pw, lo, "bin {i}");
            assert_eq!(index(lo), i);
            assert_eq!(index(lo - 1), i - 1);
        }
    }

    #[test]
    fn small_values_are_exact() {
        let mut h = LogHist::default();
        for v in [0, 1, 5, 31, 31] {
            h.record(v);
        }
        assert_eq!(h.quantile_s(0.5), 5e-9);
        assert_eq!(h.quantile_s(1.0), 31e-9);
        assert_eq!(h.quantile_s(0.0), 0.0);
        assert!((h.mean_s() - 13.6e-9).abs() < 1e-18);
    }

    #[test]
    fn percentiles_of_a_linear_ramp_within_the_bound() {
        // Sojourn times 0, 10 µs, 20 µs, ..., 99.99 ms: the ramp of a CBR into
        // a slower link. Exact p50 = 49.99 ms, p95 = 94.99 ms, p99 = 98.99 ms.
        let v: Vec<u64> = (0..10_000u64).map(|i| i * 10_000).collect();
        let mut h = LogHist::default();
        v.iter().for_each(|&x| h.record(x));
        for q in [0.5, 0.95, 0.99, 1.0] {
            let e = exact(&v, q) as f64 * 1e-9;
            let got = h.quantile_s(q);
            assert!((got - e).abs() <= REL_ERROR * e, "q={q}: {got} vs {e}");
        }
        assert_eq!(exact(&v, 0.95), 94_990_000);
        assert_eq!(h.max_ns, 99_990_000);
    }

    #[test]
    fn since_subtracts_a_snapshot() {
        let mut h = LogHist::default();
        h.record(1_000_000);
        let base = h.clone();
        h.record(2_000);
        h.record(3_000);
        let d = h.since(&base);
        assert_eq!(d.count, 2);
        assert_eq!(d.sum_ns, 5_000);
        assert_eq!(
            d.max_ns, 1_000_000,
            "the maximum is kept, not subtracted (reset it at the snapshot)"
        );
        assert!((d.quantile_s(1.0) - 3e-6).abs() <= REL_ERROR * 3e-6);
        assert!((d.quantile_s(0.5) - 2e-6).abs() <= REL_ERROR * 2e-6);
    }

    /// Bins cover only the values seen; zeros take none; a snapshot taken
    /// before the range widened downwards still subtracts bin by bin.
    #[test]
    fn bins_span_the_values_seen() {
        let mut h = LogHist::default();
        for _ in 0..1000 {
            h.record(0);
        }
        assert!(h.bins.is_empty(), "zeros allocate no bins");
        h.record(1_200);
        h.record(1_250);
        assert_eq!(h.bins.len(), 3, "bins 197 to 199");
        let base = h.clone();
        h.record(40);
        h.record(1_000_000);
        assert_eq!((h.lo, h.lo + h.bins.len() - 1), (index(40), index(1_000_000)));
        let d = h.since(&base);
        assert_eq!((d.count, d.zeros, d.sum_ns), (2, 0, 1_000_040));
        assert_eq!(d.quantile_s(0.5), 40e-9);
        assert_eq!(h.quantile_s(0.5), 0.0, "1000 of 1004 samples are 0");
        assert_eq!(h.quantile_s(1.0), 1e-3);
    }

    proptest! {
        #[test]
        fn quantiles_within_relative_error(v in prop::collection::vec(0u64..10_000_000_000, 1..300), q in 0.0f64..=1.0) {
            let mut h = LogHist::default();
            v.iter().for_each(|&x| h.record(x));
            let e = exact(&v, q) as f64;
            let got = h.quantile_s(q) * 1e9;
            prop_assert!((got - e).abs() <= REL_ERROR * e * (1.0 + 1e-9) + 1e-6, "{got} vs {e}");
            prop_assert_eq!(h.count, v.len() as u64);
        }
    }
}
