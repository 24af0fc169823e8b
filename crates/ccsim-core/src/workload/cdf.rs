//! Empirical flow-size distributions (`size = {dist = "empirical", cdf = …}`):
//! a CDF given as points (size in bytes, P(X ≤ size)), drawn by inverse
//! transform with the size interpolated linearly between points, as the
//! traffic generators of the pFabric, CONGA/Hermes and HPCC simulations do
//! (the probability of the first point is an atom at its size).
//!
//! Shipped distributions, as the data-centre literature's simulators carry them:
//!
//! - `web_search`: the web-search cluster of Alizadeh et al., "Data center TCP
//!   (DCTCP)", SIGCOMM 2010, §2.2 and Fig. 4 (query and background flows; mean
//!   1.71 MB from these points), as digitized for the pFabric (Alizadeh et al., SIGCOMM 2013,
//!   §5) and HPCC (Li et al., SIGCOMM 2019, §5.1) evaluations;
//! - `data_mining`: the data-mining cluster of Greenberg et al., "VL2: a scalable
//!   and flexible data center network", SIGCOMM 2009, §3.1 and Fig. 2 (most
//!   flows under 10 KB, most bytes in flows over 100 MB; mean 12.7 MB from these
//!   points), as
//!   used by pFabric and by CONGA (Alizadeh et al., SIGCOMM 2014, §5);
//! - `hadoop`: Facebook's Hadoop cluster of Roy et al., "Inside the social
//!   network's (datacenter) network", SIGCOMM 2015, §5.2 (mean 120 KB from these
//!   points), as used by HPCC (§5.1).
//!
//! A user's CDF is given inline or as a text file of `size probability` lines
//! (probabilities in [0, 1], or in percent when the last is 100, the HPCC
//! generator's format); the resolved scenario holds its points, so a run does
//! not depend on the file afterwards.

use crate::cfg::{show, Res, ScenarioError, Tab};
use crate::rng::Rng;
use serde_json::{json, Value};

/// The shipped distributions: name and points (bytes, P(X ≤ bytes)).
const SHIPPED: &[(&str, &[(f64, f64)])] = &[
    (
        "web_search",
        &[
            (0.0, 0.0),
            (10e3, 0.15),
            (20e3, 0.2),
            (30e3, 0.3),
            (50e3, 0.4),
            (80e3, 0.53),
            (200e3, 0.6),
            (1e6, 0.7),
            (2e6, 0.8),
            (5e6, 0.9),
            (10e6, 0.97),
            (30e6, 1.0),
        ],
    ),
    (
        "data_mining",
        &[
            (0.0, 0.0),
            (180.0, 0.1),
            (216.0, 0.2),
            (560.0, 0.3),
            (900.0, 0.4),
            (1100.0, 0.5),
            (1870.0, 0.6),
            (3160.0, 0.7),
            (10e3, 0.8),
            (400e3, 0.9),
            (3.16e6, 0.95),
            (100e6, 0.98),
            (1e9, 1.0),
        ],
    ),
    (
        "hadoop",
        &[
            (0.0, 0.0),
            (100.0, 0.01),
            (200.0, 0.02),
            (300.0, 0.05),
            (350.0, 0.15),
            (400.0, 0.2),
            (500.0, 0.3),
            (600.0, 0.4),
            (700.0, 0.5),
            (1000.0, 0.6),
            (2000.0, 0.67),
            (7000.0, 0.7),
            (30e3, 0.72),
            (50e3, 0.82),
            (80e3, 0.87),
            (120e3, 0.9),
            (300e3, 0.95),
            (1e6, 0.975),
            (2e6, 0.99),
            (10e6, 1.0),
        ],
    ),
];

/// The size table's keys of an empirical distribution, for the scenario schema.
pub(super) const DOCS: &[(&str, &str)] = &[(
    "cdf",
    "empirical: \"web_search\" (DCTCP), \"data_mining\" (VL2), \"hadoop\" (Facebook), a file of \"bytes probability\" lines, or a list of [bytes, P(X ≤ bytes)] points",
)];

/// The names of the shipped distributions.
pub fn shipped() -> Vec<&'static str> {
    SHIPPED.iter().map(|(n, _)| *n).collect()
}

/// The points (bytes, P(X ≤ bytes)) of the shipped distribution `name`.
pub fn shipped_points(name: &str) -> Option<&'static [(f64, f64)]> {
    SHIPPED.iter().find(|(n, _)| *n == name).map(|(_, pts)| *pts)
}

/// A flow-size CDF: points (bytes, P(X ≤ bytes)), sizes non-decreasing,
/// probabilities non-decreasing and ending at 1.
#[derive(Clone, Debug, PartialEq)]
pub struct Cdf {
    points: Vec<(f64, f64)>,
}

impl Cdf {
    /// Checks `points` (what is wrong, or the CDF).
    pub fn new(points: Vec<(f64, f64)>) -> Result<Cdf, String> {
        let Some(&(_, last)) = points.last() else {
            return Err("at least one point".into());
        };
        for (i, &(x, p)) in points.iter().enumerate() {
            if !(x.is_finite() && x >= 0.0 && (0.0..=1.0).contains(&p)) {
                return Err(format!("point {i}: a size ≥ 0 bytes and a probability in [0, 1]"));
            }
            if i > 0 && (x < points[i - 1].0 || p < points[i - 1].1) {
                return Err(format!("point {i}: sizes and probabilities non-decreasing"));
            }
        }
        if (last - 1.0).abs() > 1e-9 {
            return Err(format!("a CDF that ends at probability 1 (it ends at {last})"));
        }
        Ok(Cdf { points })
    }

    /// Mean size in bytes: the first point's atom plus each segment's midpoint
    /// weighted by its probability (sizes are uniform within a segment).
    pub fn mean(&self) -> f64 {
        let (x0, p0) = self.points[0];
        x0 * p0
            + self
                .points
                .windows(2)
                .map(|w| (w[0].0 + w[1].0) / 2.0 * (w[1].1 - w[0].1))
                .sum::<f64>()
    }

    /// The size at probability `u` in [0, 1] (the inverse CDF, linear between
    /// points).
    pub fn quantile(&self, u: f64) -> f64 {
        let (x0, p0) = self.points[0];
        if u <= p0 {
            return x0;
        }
        for w in self.points.windows(2) {
            let ((xa, pa), (xb, pb)) = (w[0], w[1]);
            if u <= pb && pb > pa {
                return xa + (xb - xa) * (u - pa) / (pb - pa);
            }
        }
        self.points.last().expect("non-empty").0
    }

    /// One size in bytes (at least 1).
    pub fn draw(&self, rng: &mut Rng) -> f64 {
        self.quantile(rng.uniform())
    }

    /// Reads `cdf` of the size table `s`: a shipped distribution's name, a file
    /// of `size probability` lines, or a list of [size, probability] points.
    /// Puts the name, or the points, back as resolved.
    pub(super) fn read(s: &mut Tab) -> Res<Cdf> {
        s.docs(DOCS);
        let names = shipped();
        let expected = format!(
            "one of {names:?}, a file of \"size probability\" lines, or a list of [size in bytes, P(X ≤ size)] points"
        );
        let v = s.raw("cdf").ok_or_else(|| s.missing("cdf", &expected))?;
        let bad = |why: String| ScenarioError {
            path: s.key_path("cdf"),
            value: show(v),
            expected: why,
        };
        let points = match v {
            Value::String(name) => {
                if let Some(pts) = shipped_points(name) {
                    s.put("cdf", v.clone());
                    return Ok(Cdf { points: pts.to_vec() });
                }
                let text =
                    std::fs::read_to_string(name).map_err(|e| bad(format!("{expected} (reading the file: {e})")))?;
                parse_file(&text).map_err(|e| bad(format!("a CDF file of \"size probability\" lines: {e}")))?
            }
            Value::Array(a) => a
                .iter()
                .map(|p| match p.as_array().map(|q| q.as_slice()) {
                    Some([x, y]) => x.as_f64().zip(y.as_f64()),
                    _ => None,
                })
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| bad(expected.clone()))?,
            _ => return Err(bad(expected)),
        };
        let cdf = Cdf::new(points).map_err(|e| bad(format!("a CDF: {e}")))?;
        s.put(
            "cdf",
            json!(cdf.points.iter().map(|&(x, p)| json!([x, p])).collect::<Vec<_>>()),
        );
        Ok(cdf)
    }
}

/// `size probability` lines (blank lines and `#` comments skipped);
/// probabilities in percent when the last is 100.
fn parse_file(text: &str) -> Result<Vec<(f64, f64)>, String> {
    let mut pts = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let f: Vec<f64> = line
            .split_whitespace()
            .map(str::parse)
            .collect::<Result<_, _>>()
            .map_err(|_| format!("line {}: two numbers", n + 1))?;
        match f[..] {
            [x, p] => pts.push((x, p)),
            _ => return Err(format!("line {}: two numbers", n + 1)),
        }
    }
    if pts.last().is_some_and(|&(_, p)| (p - 100.0).abs() < 1e-9) {
        pts.iter_mut().for_each(|pt| pt.1 /= 100.0);
    }
    Ok(pts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shipped_cdf(name: &str) -> Cdf {
        let pts = shipped_points(name).unwrap();
        Cdf::new(pts.to_vec()).expect("a valid CDF")
    }

    #[test]
    fn the_shipped_distributions_are_cdfs_with_their_hand_computed_means() {
        // Σ segment midpoint × probability, worked by hand from the points: web search
        // 1 711 250 B, data mining 12 658 198.6 B (more than half of it from the 2 % of
        // flows between 100 MB and 1 GB), Hadoop 120 420.75 B
        let m = |n| shipped_cdf(n).mean();
        assert!((m("web_search") - 1_711_250.0).abs() < 1e-6);
        assert!((m("data_mining") - 12_658_198.6).abs() < 1e-3);
        assert!((m("hadoop") - 120_420.75).abs() < 1e-6);
    }

    #[test]
    fn the_mean_and_quantiles_of_a_hand_worked_cdf() {
        // 20 % exactly 100 B, then uniform to 1100 B (80 %): mean 0.2·100 + 0.8·600
        let c = Cdf::new(vec![(100.0, 0.2), (1100.0, 1.0)]).unwrap();
        assert_eq!(c.mean(), 500.0);
        assert_eq!(c.quantile(0.1), 100.0);
        assert!((c.quantile(0.6) - 600.0).abs() < 1e-9);
        assert_eq!(c.quantile(1.0), 1100.0);
        // a flat step (no probability between 200 and 300 B) is never drawn inside
        let step = Cdf::new(vec![(0.0, 0.0), (200.0, 0.5), (300.0, 0.5), (400.0, 1.0)]).unwrap();
        assert_eq!(step.quantile(0.5), 200.0);
        assert!(step.quantile(0.5000001) > 300.0);
    }

    #[test]
    fn draws_follow_the_cdf() {
        // 200 000 draws of web search: the empirical CDF within 0.005 of the
        // points, the mean within 3 %
        let c = shipped_cdf("web_search");
        let mut rng = Rng::new(3, 0);
        let xs: Vec<f64> = (0..200_000).map(|_| c.draw(&mut rng)).collect();
        for &(x, p) in &c.points {
            let below = xs.iter().filter(|&&v| v <= x).count() as f64 / xs.len() as f64;
            assert!((below - p).abs() < 0.005, "P(X ≤ {x}) = {below}, CDF {p}");
        }
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        assert!((mean / c.mean() - 1.0).abs() < 0.03, "{mean} against {}", c.mean());
    }

    #[test]
    fn bad_cdfs_say_what_is_wrong() {
        assert!(Cdf::new(vec![]).unwrap_err().contains("at least one point"));
        assert!(Cdf::new(vec![(10.0, 0.5), (5.0, 1.0)])
            .unwrap_err()
            .contains("non-decreasing"));
        assert!(Cdf::new(vec![(10.0, 0.5), (20.0, 0.4)])
            .unwrap_err()
            .contains("non-decreasing"));
        assert!(Cdf::new(vec![(10.0, 0.5), (20.0, 0.9)])
            .unwrap_err()
            .contains("ends at probability 1"));
        assert!(Cdf::new(vec![(-1.0, 1.0)]).unwrap_err().contains("size ≥ 0"));
    }

    #[test]
    fn files_in_fractions_or_percent() {
        let a = parse_file("# web\n0 0\n10000 15\n\n30000 100\n").unwrap();
        assert_eq!(a, vec![(0.0, 0.0), (10000.0, 0.15), (30000.0, 1.0)]);
        let b = parse_file("0 0\n100 0.5\n200 1\n").unwrap();
        assert_eq!(b[1], (100.0, 0.5));
        assert!(parse_file("0 0 1\n").unwrap_err().contains("line 1"));
    }
}
