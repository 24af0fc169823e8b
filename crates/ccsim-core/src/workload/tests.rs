//! Unit tests of the workloads (sizes and their distributions).

use super::*;
use crate::cfg::{Res, Tab};
use serde_json::json;

fn size(v: Value) -> Res<FileSize> {
    let w = json!({ "size": v });
    let mut t = Tab::new("workloads[0]".into(), &w).unwrap();
    FileSize::read(&mut t)
}

#[test]
fn sizes_read_and_their_means() {
    assert_eq!(size(json!("100KB")).unwrap(), FileSize::Fixed(100_000));
    let e = size(json!({"dist": "exponential", "mean": "30KB"})).unwrap();
    assert_eq!(e.mean(), 30_000.0);
    // BMCC's cross traffic (docs/models/bmcc.md): shape 1.2, mean 30 kB ⇒ x_m = 5 kB.
    let p = size(json!({"dist": "pareto", "shape": 1.2, "mean": "30KB"})).unwrap();
    let FileSize::Pareto { min, .. } = p else { panic!() };
    assert!((min - 5000.0).abs() < 1e-9);
    assert!((p.mean() - 30_000.0).abs() < 1e-6);
    let q = size(json!({"dist": "pareto", "shape": 0.9, "min": "1KB"})).unwrap();
    assert_eq!(q.mean(), f64::INFINITY);
}

#[test]
fn pareto_shape_at_most_one_with_a_mean_is_refused() {
    let e = size(json!({"dist": "pareto", "shape": 1.0, "mean": "30KB"})).unwrap_err();
    assert_eq!(e.path, "workloads[0].size.shape");
    assert!(e.expected.contains("infinite"), "{e}");
    let e = size(json!({"dist": "pareto", "shape": 1.5, "mean": "30KB", "min": "1KB"})).unwrap_err();
    assert!(e.expected.contains("exactly one of"), "{e}");
    assert!(size(json!("0B")).is_err());
}

#[test]
fn pareto_draws_match_the_distribution() {
    // P(X > 2 x_m) = 2^-α; mean α x_m/(α−1) for α = 3 (finite variance
    // x_m² α/((α−1)²(α−2)) = 0.75 x_m²: the sample mean of 10^5 draws is
    // within 4σ/√n = 0.011 x_m).
    let f = FileSize::Pareto {
        shape: 3.0,
        min: 1000.0,
    };
    let mut rng = Rng::new(7, 1);
    let n = 100_000;
    let xs: Vec<u64> = (0..n).map(|_| f.draw(&mut rng)).collect();
    assert!(xs.iter().all(|&x| x >= 1000));
    let above = xs.iter().filter(|&&x| x > 2000).count() as f64 / n as f64;
    assert!(
        (above - 0.125).abs() < 4.0 * (0.125f64 * 0.875 / n as f64).sqrt(),
        "{above}"
    );
    let mean = xs.iter().sum::<u64>() as f64 / n as f64;
    assert!((mean - 1500.0).abs() < 11.0, "{mean}");
}
