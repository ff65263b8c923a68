//! The element-wise steps of the encoder, each fused into one pass over its rows: bias + GELU,
//! bias + residual layer normalisation, softmax. Written so that the compiler vectorises them:
//! no calls into libm (whose scalar `expf`/`erf` were ~20 % of the time under candle), several
//! accumulators for sums. `exp` and `erf` are polynomial approximations: `exp` within ~3e-7 of
//! the exact value (relative), `erf` within 1e-6 (absolute; 6e-7 at worst in the tests), which
//! moves a GELU output by at most half a millionth of its input.
//!
//! [`Kernels::for_this_cpu`] picks AVX2 + FMA builds of the same code when the processor has them
//! (the default x86-64 target stops at SSE2, four floats wide).

/// `(rows, bias, gamma, beta, eps)`, see [`Kernels::bias_layer_norm`].
pub(super) type LayerNorm = fn(&mut [f32], &[f32], &[f32], &[f32], f32);

/// The kernels, as compiled for this processor.
#[derive(Clone, Copy)]
pub(super) struct Kernels {
    /// `rows[i] = gelu(rows[i] + bias[i mod width])`, `width = bias.len()`.
    pub(super) bias_gelu: fn(rows: &mut [f32], bias: &[f32]),
    /// Each row of `gamma.len()` values: add `bias`, then normalise to mean 0 and variance 1
    /// (plus `eps`), then scale by `gamma` and shift by `beta`.
    pub(super) bias_layer_norm: LayerNorm,
    /// Each row of `width` values becomes its softmax.
    pub(super) softmax: fn(rows: &mut [f32], width: usize),
}

impl Kernels {
    pub(super) fn for_this_cpu() -> Self {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
            return Self { bias_gelu: avx2::bias_gelu, bias_layer_norm: avx2::bias_layer_norm, softmax: avx2::softmax };
        }
        Self { bias_gelu, bias_layer_norm, softmax }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    //! The same functions compiled for AVX2 + FMA; only handed out by [`super::Kernels::for_this_cpu`]
    //! once the processor has shown both.

    pub(super) fn bias_gelu(rows: &mut [f32], bias: &[f32]) {
        // SAFETY (all three): reached only through `Kernels::for_this_cpu`, after
        // `is_x86_feature_detected!` found AVX2 and FMA on this processor.
        unsafe { bias_gelu_avx2(rows, bias) }
    }

    pub(super) fn bias_layer_norm(rows: &mut [f32], bias: &[f32], gamma: &[f32], beta: &[f32], eps: f32) {
        unsafe { bias_layer_norm_avx2(rows, bias, gamma, beta, eps) }
    }

    pub(super) fn softmax(rows: &mut [f32], width: usize) {
        unsafe { softmax_avx2(rows, width) }
    }

    #[target_feature(enable = "avx2,fma")]
    fn bias_gelu_avx2(rows: &mut [f32], bias: &[f32]) {
        super::bias_gelu(rows, bias)
    }

    #[target_feature(enable = "avx2,fma")]
    fn bias_layer_norm_avx2(rows: &mut [f32], bias: &[f32], gamma: &[f32], beta: &[f32], eps: f32) {
        super::bias_layer_norm(rows, bias, gamma, beta, eps)
    }

    #[target_feature(enable = "avx2,fma")]
    fn softmax_avx2(rows: &mut [f32], width: usize) {
        super::softmax(rows, width)
    }
}

#[inline(always)]
fn bias_gelu(rows: &mut [f32], bias: &[f32]) {
    for row in rows.chunks_exact_mut(bias.len()) {
        for (x, b) in row.iter_mut().zip(bias) {
            *x = gelu(*x + b);
        }
    }
}

/// The exact GELU, `x · Φ(x)`, as BERT was trained with (not the tanh approximation).
#[inline(always)]
fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2))
}

#[inline(always)]
fn bias_layer_norm(rows: &mut [f32], bias: &[f32], gamma: &[f32], beta: &[f32], eps: f32) {
    let width = gamma.len();
    for row in rows.chunks_exact_mut(width) {
        for (x, b) in row.iter_mut().zip(bias) {
            *x += b;
        }
        let mean = sum(row) / width as f32;
        let mut squares = [0f32; LANES];
        let mut blocks = row.chunks_exact(LANES);
        for block in &mut blocks {
            for (s, x) in squares.iter_mut().zip(block) {
                *s += (x - mean) * (x - mean);
            }
        }
        let tail: f32 = blocks.remainder().iter().map(|x| (x - mean) * (x - mean)).sum();
        let variance = (squares.iter().sum::<f32>() + tail) / width as f32;
        let scale = 1.0 / (variance + eps).sqrt();
        for ((x, g), b) in row.iter_mut().zip(gamma).zip(beta) {
            *x = (*x - mean) * scale * g + b;
        }
    }
}

#[inline(always)]
fn softmax(rows: &mut [f32], width: usize) {
    for row in rows.chunks_exact_mut(width) {
        let max = row.iter().fold(f32::NEG_INFINITY, |m, &x| m.max(x));
        for x in row.iter_mut() {
            *x = exp(*x - max);
        }
        let scale = 1.0 / sum(row);
        for x in row.iter_mut() {
            *x *= scale;
        }
    }
}

/// Independent accumulators: a plain sum must add in order and stays scalar.
const LANES: usize = 8;

#[inline(always)]
fn sum(values: &[f32]) -> f32 {
    let mut sums = [0f32; LANES];
    let mut blocks = values.chunks_exact(LANES);
    for block in &mut blocks {
        for (s, x) in sums.iter_mut().zip(block) {
            *s += x;
        }
    }
    sums.iter().sum::<f32>() + blocks.remainder().iter().sum::<f32>()
}

/// Adding 1.5 · 2^23 to a float below 2^22 in magnitude rounds it to an integer, which is then
/// in the low bits of the sum's representation.
const ROUNDER: f32 = 12_582_912.0;
/// ln 2 in two parts (Cody and Waite): `n · LN2_HIGH` is exact for the `n` used here.
const LN2_HIGH: f32 = 0.693_359_4;
const LN2_LOW: f32 = -2.121_944_4e-4;

/// e^x for x in [-87, 88] (clamped to it: e^-87 ≈ 1.6e-38 stands for 0), relative error ~2e-7.
/// e^x = 2^n · e^r with n = round(x / ln 2) and |r| ≤ ln 2 / 2, e^r by its Taylor polynomial of
/// degree 7 (remainder below 6e-9).
#[inline(always)]
pub(super) fn exp(x: f32) -> f32 {
    let x = x.clamp(-87.0, 88.0);
    let shifted = x * std::f32::consts::LOG2_E + ROUNDER;
    let n = shifted - ROUNDER;
    let r = x - n * LN2_HIGH - n * LN2_LOW;
    let p = 1.0
        + r * (1.0
            + r * (1.0 / 2.0
                + r * (1.0 / 6.0 + r * (1.0 / 24.0 + r * (1.0 / 120.0 + r * (1.0 / 720.0 + r * (1.0 / 5040.0)))))));
    // The low bits of `shifted` hold n (−126 ≤ n ≤ 127 here); 2^n is built from its exponent bits.
    let n = shifted.to_bits() as i32 - ROUNDER.to_bits() as i32;
    p * f32::from_bits(((n + 127) << 23) as u32)
}

/// The error function, by Abramowitz and Stegun's formula 7.1.26 (absolute error ≤ 1.5e-7, plus
/// f32 rounding: < 1e-6 in all):
/// erf(x) = 1 − t·(a1 + t·(a2 + t·(a3 + t·(a4 + t·a5))))·e^(−x²), t = 1 / (1 + p·x), for x ≥ 0;
/// odd.
#[inline(always)]
pub(super) fn erf(x: f32) -> f32 {
    const P: f32 = 0.327_591_1;
    const A: [f32; 5] = [0.254_829_6, -0.284_496_74, 1.421_413_7, -1.453_152_1, 1.061_405_4];
    let a = x.abs();
    let t = 1.0 / (1.0 + P * a);
    let poly = t * (A[0] + t * (A[1] + t * (A[2] + t * (A[3] + t * A[4]))));
    (1.0 - poly * exp(-a * a)).copysign(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// erf in f64: its Taylor series up to |x| = 3, beyond that 1 − erfc by erfc's asymptotic
    /// series (four terms; both well below 1e-8 off there).
    fn erf_reference(x: f64) -> f64 {
        if x.abs() > 3.0 {
            let a = x.abs();
            let u = 1.0 / (2.0 * a * a);
            let erfc = (-a * a).exp() / (a * std::f64::consts::PI.sqrt()) * (1.0 - u + 3.0 * u * u - 15.0 * u * u * u);
            return (1.0 - erfc).copysign(x);
        }
        let (mut term, mut total, mut n) = (x, x, 0.0);
        while term.abs() > 1e-17 * total.abs().max(1e-300) {
            n += 1.0;
            term *= -x * x / n;
            total += term / (2.0 * n + 1.0);
        }
        total * 2.0 / std::f64::consts::PI.sqrt()
    }

    fn grid(from: f32, to: f32, steps: usize) -> impl Iterator<Item = f32> {
        (0..=steps).map(move |i| from + (to - from) * i as f32 / steps as f32)
    }

    #[test]
    fn exp_is_within_a_few_units_of_the_last_place() {
        for x in grid(-87.0, 88.0, 100_000).chain([0.0, -0.0, 1e-8, -1e-8]) {
            let (ours, exact) = (exp(x) as f64, (x as f64).exp());
            assert!(((ours - exact) / exact).abs() < 3e-7, "exp({x}) = {ours}, not {exact}");
        }
        // Out of range: clamped, never infinite or NaN for a finite input.
        assert!(exp(-1000.0) < 1e-37 && exp(-1000.0) >= 0.0);
        assert!(exp(1000.0).is_finite());
    }

    #[test]
    fn erf_and_gelu_match_the_series() {
        for x in grid(-6.0, 6.0, 50_000) {
            let exact = erf_reference(x as f64);
            assert!((erf(x) as f64 - exact).abs() < 1e-6, "erf({x}) = {}, not {exact}", erf(x));
            let gelu_exact = 0.5 * x as f64 * (1.0 + erf_reference(x as f64 / 2f64.sqrt()));
            assert!((gelu(x) as f64 - gelu_exact).abs() < 1e-6 * (1.0 + x.abs() as f64), "gelu({x})");
        }
        assert!(erf(0.0).abs() < 1e-6);
        assert_eq!(gelu(0.0), 0.0);
    }

    #[test]
    fn each_build_gives_the_same_rows_as_plain_arithmetic() {
        let width = 37;
        let values: Vec<f32> = (0..width * 3).map(|i| ((i * 7919) % 101) as f32 / 10.0 - 5.0).collect();
        let bias: Vec<f32> = (0..width).map(|i| i as f32 / 50.0).collect();
        let gamma: Vec<f32> = (0..width).map(|i| 1.0 + i as f32 / 100.0).collect();
        let beta: Vec<f32> = (0..width).map(|i| -(i as f32) / 80.0).collect();
        for kernels in [Kernels { bias_gelu, bias_layer_norm, softmax }, Kernels::for_this_cpu()] {
            let mut rows = values.clone();
            (kernels.softmax)(&mut rows, width);
            for (row, input) in rows.chunks(width).zip(values.chunks(width)) {
                let max = input.iter().fold(f64::MIN, |m, &x| m.max(x as f64));
                let total: f64 = input.iter().map(|&x| (x as f64 - max).exp()).sum();
                for (got, &x) in row.iter().zip(input) {
                    let want = (x as f64 - max).exp() / total;
                    assert!((*got as f64 - want).abs() < 1e-6 * want.max(1e-3), "softmax {got} vs {want}");
                }
            }

            let mut rows = values.clone();
            (kernels.bias_layer_norm)(&mut rows, &bias, &gamma, &beta, 1e-12);
            for (row, input) in rows.chunks(width).zip(values.chunks(width)) {
                let shifted: Vec<f64> = input.iter().zip(&bias).map(|(&x, &b)| x as f64 + b as f64).collect();
                let mean = shifted.iter().sum::<f64>() / width as f64;
                let variance = shifted.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / width as f64;
                for (i, got) in row.iter().enumerate() {
                    let want = (shifted[i] - mean) / (variance + 1e-12).sqrt() * gamma[i] as f64 + beta[i] as f64;
                    assert!((*got as f64 - want).abs() < 1e-5, "layer norm {got} vs {want}");
                }
            }

            let mut rows = values.clone();
            (kernels.bias_gelu)(&mut rows, &bias);
            for (i, got) in rows.iter().enumerate() {
                let x = values[i] as f64 + bias[i % width] as f64;
                let want = 0.5 * x * (1.0 + erf_reference(x / 2f64.sqrt()));
                assert!((*got as f64 - want).abs() < 2e-6, "gelu {got} vs {want}");
            }
        }
    }
}
