//! Deterministic pseudo-random numbers: xoshiro256** seeded through SplitMix64.
//!
//! One generator per stochastic object, derived from the scenario seed and a
//! stream number (the streams are listed in docs/architecture.md, "Decisions
//! taken so far": deterministic by construction), so adding a component never
//! changes the random numbers another component sees. Source: Blackman & Vigna,
//! "Scrambled linear pseudorandom number generators" (2021).

#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

/// SplitMix64 (Steele, Lea & Flood 2014): advances `x` and returns a well
/// mixed 64-bit value of it; also a seeded hash (FQ-CoDel's flow hash).
pub fn splitmix64(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// FNV-1a, 64 bits (Fowler, Noll & Vo; IETF draft-eastlake-fnv §2): a
/// digest of bytes, not a random number, for telling a changed file from the
/// one that was read (a `file` matrix's `digest`) and for fingerprints of
/// results; a check against accidents, not against forgery.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

impl Rng {
    /// A generator for `stream` under the scenario's `seed`.
    pub fn new(seed: u64, stream: u64) -> Rng {
        let mut x = seed ^ stream.wrapping_mul(0xD1B5_4A32_D192_ED03);
        let mut s = [0u64; 4];
        for v in &mut s {
            *v = splitmix64(&mut x);
        }
        if s == [0; 4] {
            s[0] = 1;
        }
        Rng { s }
    }

    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1).
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in (0, 1] (safe for logarithms).
    pub fn uniform_pos(&mut self) -> f64 {
        1.0 - self.uniform()
    }

    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.uniform()
    }

    /// Exponential with the given mean.
    pub fn exp(&mut self, mean: f64) -> f64 {
        -mean * self.uniform_pos().ln()
    }

    /// Pareto with shape `a` and mean `m` (a > 1): x_m = m(a-1)/a, x = x_m / U^(1/a)
    /// by inversion, U uniform on (0, 1] (docs/models/workloads.md, "Sizes").
    pub fn pareto(&mut self, shape: f64, mean: f64) -> f64 {
        let xm = mean * (shape - 1.0) / shape;
        xm / self.uniform_pos().powf(1.0 / shape)
    }

    pub fn bernoulli(&mut self, p: f64) -> bool {
        p > 0.0 && self.uniform() < p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_matches_the_reference_vectors() {
        // draft-eastlake-fnv, test vectors for FNV-1a 64
        assert_eq!(fnv1a(b""), 0xcbf29ce484222325);
        assert_eq!(fnv1a(b"a"), 0xaf63dc4c8601ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x85944171f73967e8);
    }

    #[test]
    fn deterministic_and_stream_separated() {
        let mut a = Rng::new(7, 1);
        let mut b = Rng::new(7, 1);
        let mut c = Rng::new(7, 2);
        let xa: Vec<u64> = (0..5).map(|_| a.next_u64()).collect();
        let xb: Vec<u64> = (0..5).map(|_| b.next_u64()).collect();
        let xc: Vec<u64> = (0..5).map(|_| c.next_u64()).collect();
        assert_eq!(xa, xb);
        assert_ne!(xa, xc);
    }

    #[test]
    fn moments() {
        let mut r = Rng::new(1, 0);
        let n = 200_000;
        let mean_u: f64 = (0..n).map(|_| r.uniform()).sum::<f64>() / n as f64;
        assert!((mean_u - 0.5).abs() < 0.005);
        let mean_e: f64 = (0..n).map(|_| r.exp(3.0)).sum::<f64>() / n as f64;
        assert!((mean_e - 3.0).abs() < 0.05);
        // Pareto(1.2, 30 kB), BMCC's cross traffic: scale x_m = 30·0.2/1.2 = 5 kB;
        // median = x_m 2^(1/a) (hand-worked).
        let mut v: Vec<f64> = (0..n).map(|_| r.pareto(1.2, 30_000.0)).collect();
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let median = v[n / 2];
        let expect = 5_000.0 * 2f64.powf(1.0 / 1.2);
        assert!((median / expect - 1.0).abs() < 0.02, "median {median} vs {expect}");
        assert!(v[0] >= 5_000.0);
    }
}
