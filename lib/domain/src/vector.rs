//! Arithmetic on embedding vectors shared by the indexes and late interaction.

/// Dot product with eight independent accumulators, which the compiler turns into SIMD (a plain
/// iterator sum must add in order and stays scalar): about 4× faster on embedding rows.
#[inline]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0.0f32; 8];
    let (mut xs, mut ys) = (a.chunks_exact(8), b.chunks_exact(8));
    for (x, y) in (&mut xs).zip(&mut ys) {
        for ((sum, x), y) in acc.iter_mut().zip(x).zip(y) {
            *sum += x * y;
        }
    }
    let tail: f32 = xs.remainder().iter().zip(ys.remainder()).map(|(x, y)| x * y).sum();
    acc.iter().sum::<f32>() + tail
}

/// [`dot`] in 32 lanes: with AVX2 that is four independent sums of eight, where eight lanes are
/// one register and every addition waits for the one before (late interaction's kernel, which
/// runs from L1 cache and is bound by that wait, not by memory as the index scan is).
#[inline(always)]
pub fn dot_wide(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0.0f32; 32];
    let (mut xs, mut ys) = (a.chunks_exact(32), b.chunks_exact(32));
    for (x, y) in (&mut xs).zip(&mut ys) {
        for ((sum, x), y) in acc.iter_mut().zip(x).zip(y) {
            *sum += x * y;
        }
    }
    let tail: f32 = xs.remainder().iter().zip(ys.remainder()).map(|(x, y)| x * y).sum();
    acc.iter().sum::<f32>() + tail
}

#[cfg(test)]
mod tests {
    use super::{dot, dot_wide};

    #[test]
    fn dot_products_of_any_length() {
        let a: Vec<f32> = (0..13).map(|i| i as f32).collect();
        let want: f32 = a.iter().map(|x| x * x).sum();
        assert_eq!(dot(&a, &a), want);
        assert_eq!(dot(&[], &[]), 0.0);
        let b: Vec<f32> = (0..100).map(|i| (i % 7) as f32 - 3.0).collect();
        let want: f32 = b.iter().map(|x| x * x).sum();
        assert_eq!(dot_wide(&b, &b), want, "32 lanes and a tail of 4");
        assert_eq!(dot_wide(&a, &a), dot(&a, &a));
    }
}
