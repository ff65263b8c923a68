//! Arithmetic on embedding vectors shared by the indexes and late interaction.

/// Dot product summed in `LANES` independent accumulators, which the compiler turns into SIMD (a
/// plain iterator sum must add in order and stays scalar), then the tail past the last whole
/// group of `LANES`.
#[inline(always)]
fn dot_in_lanes<const LANES: usize>(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0.0f32; LANES];
    let (mut xs, mut ys) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    for (x, y) in (&mut xs).zip(&mut ys) {
        for ((sum, x), y) in acc.iter_mut().zip(x).zip(y) {
            *sum += x * y;
        }
    }
    let tail: f32 = xs.remainder().iter().zip(ys.remainder()).map(|(x, y)| x * y).sum();
    acc.iter().sum::<f32>() + tail
}

/// Dot product in eight lanes: about 4× faster than a plain sum on embedding rows (the index
/// scan, which is bound by memory).
#[inline]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    dot_in_lanes::<8>(a, b)
}

/// [`dot`] in 32 lanes: with AVX2 that is four independent sums of eight, where eight lanes are
/// one register and every addition waits for the one before (late interaction's kernel, which
/// runs from L1 cache and is bound by that wait, not by memory as the index scan is).
#[inline(always)]
pub fn dot_wide(a: &[f32], b: &[f32]) -> f32 {
    dot_in_lanes::<32>(a, b)
}

/// Defines `fn $dispatch() -> fn(..)`: the portable function `$portable`, or on x86-64 processors
/// that have AVX2 (detected at run time) the same function compiled again with AVX2 enabled. The
/// default x86-64 target stops at SSE2; a kernel bound by arithmetic gains from the wider
/// registers without giving up processors that lack them. `$portable` must be
/// `#[inline(always)]`, so that it is compiled inside the AVX2 copy. The one `unsafe` call it
/// takes lives here, next to the check that makes it sound.
#[macro_export]
macro_rules! for_this_cpu {
    ($(#[$doc:meta])* $vis:vis fn $dispatch:ident = $portable:ident($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)?) => {
        $(#[$doc])*
        $vis fn $dispatch() -> fn($($ty),*) $(-> $ret)? {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx2")]
                fn with_avx2($($arg: $ty),*) $(-> $ret)? {
                    $portable($($arg),*)
                }
                fn checked($($arg: $ty),*) $(-> $ret)? {
                    // SAFETY: handed out below only once `is_x86_feature_detected!` has found AVX2
                    // on this processor.
                    unsafe { with_avx2($($arg),*) }
                }
                if std::arch::is_x86_feature_detected!("avx2") {
                    return checked;
                }
            }
            $portable
        }
    };
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
