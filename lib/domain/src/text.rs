//! Small helpers over text and randomness shared by the validated values.

use crate::error::DomainError;

/// Fills `buf` from the operating system's CSPRNG. Failing to get entropy is not recoverable:
/// unguessable ids and secrets are a security property, so we stop rather than degrade.
pub fn random_bytes(buf: &mut [u8]) {
    getrandom::fill(buf).expect("the operating system's random source failed");
}

/// Lower-case hexadecimal of `bytes` (digests, tokens). Written digit by digit: this runs on
/// every keyed request (the key's hash), where a `format!` per byte was measurable.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 15)]));
    }
    out
}

/// Lower-case hex HMAC-SHA256 of the concatenated `parts` keyed with `key` (identity hashes,
/// the platforms' request signatures).
pub fn hmac_sha256_hex(key: &[u8], parts: &[&[u8]]) -> String {
    use hmac::{Hmac, Mac};
    let Ok(mut mac) = <Hmac<sha2::Sha256> as Mac>::new_from_slice(key) else {
        // HMAC takes keys of any length; this arm is never taken.
        return String::new();
    };
    for p in parts {
        mac.update(p);
    }
    hex(&mac.finalize().into_bytes())
}

/// Whether `a` and `b` are equal, in time that does not depend on where they differ (secrets,
/// signatures).
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Trims, then requires 1..=max characters (Unicode scalar values, as the contract counts them).
pub fn bounded(field: &str, value: &str, max: usize) -> Result<String, DomainError> {
    let v = value.trim();
    if v.is_empty() {
        return Err(DomainError::field(field, "must not be empty"));
    }
    if v.chars().count() > max {
        return Err(DomainError::field(field, format!("must be at most {max} characters")));
    }
    Ok(v.to_owned())
}

/// Like [`bounded`] but an empty string is allowed and means "no value".
pub fn optional_bounded(field: &str, value: &str, max: usize) -> Result<Option<String>, DomainError> {
    if value.trim().is_empty() {
        return Ok(None);
    }
    bounded(field, value, max).map(Some)
}

#[cfg(test)]
mod tests {
    use super::hex;

    #[test]
    fn hex_is_two_lower_case_digits_per_byte() {
        assert_eq!(hex(&[]), "");
        assert_eq!(hex(&[0x00, 0x0f, 0xa0, 0xff, 0x5c]), "000fa0ff5c");
        // What `format!("{b:02x}")` per byte gave, which stored key hashes were written with.
        let all: Vec<u8> = (0..=255).collect();
        assert_eq!(hex(&all), all.iter().map(|b| format!("{b:02x}")).collect::<String>());
    }
}
