//! Small helpers over text and randomness shared by the validated values.

use crate::error::DomainError;

/// Fills `buf` from the operating system's CSPRNG. Failing to get entropy is not recoverable:
/// unguessable ids and secrets are a security property, so we stop rather than degrade.
pub fn random_bytes(buf: &mut [u8]) {
    getrandom::fill(buf).expect("the operating system's random source failed");
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
