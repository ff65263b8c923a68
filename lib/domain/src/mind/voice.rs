//! The numeric and voice settings: temperature, voice speed, voice id.

use super::*;

pub(super) fn ranged(field: &str, v: f64, min: f64, max: f64) -> Result<f64, DomainError> {
    if v.is_finite() && (min..=max).contains(&v) {
        Ok(v)
    } else {
        Err(DomainError::field(field, format!("must be between {min} and {max}")))
    }
}

/// Sampling temperature of the persona's answers: 0 to 2, default 0.7.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Temperature(f64);

impl Temperature {
    pub const FIELD: &'static str = "temperature";

    pub fn parse(v: f64) -> Result<Self, DomainError> {
        ranged(Self::FIELD, v, MIN_TEMPERATURE, MAX_TEMPERATURE).map(Self)
    }

    pub fn value(self) -> f64 {
        self.0
    }

    pub fn from_stored(v: f64) -> Self {
        Self(v)
    }
}

impl Default for Temperature {
    fn default() -> Self {
        Self(DEFAULT_TEMPERATURE)
    }
}

/// Speed of the persona's synthesised voice: 0.25 to 4.0, default 1.0.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VoiceSpeed(f64);

impl VoiceSpeed {
    pub const FIELD: &'static str = "voiceSpeed";

    pub fn parse(v: f64) -> Result<Self, DomainError> {
        ranged(Self::FIELD, v, MIN_VOICE_SPEED, MAX_VOICE_SPEED).map(Self)
    }

    pub fn value(self) -> f64 {
        self.0
    }

    pub fn from_stored(v: f64) -> Self {
        Self(v)
    }
}

impl Default for VoiceSpeed {
    fn default() -> Self {
        Self(DEFAULT_VOICE_SPEED)
    }
}

/// The six voices of the interface; `alloy` by default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum VoiceId {
    #[default]
    Alloy,
    Echo,
    Fable,
    Onyx,
    Nova,
    Shimmer,
}

impl VoiceId {
    pub const FIELD: &'static str = "voiceId";
    pub const ALL: [VoiceId; 6] =
        [VoiceId::Alloy, VoiceId::Echo, VoiceId::Fable, VoiceId::Onyx, VoiceId::Nova, VoiceId::Shimmer];

    pub const fn as_str(self) -> &'static str {
        match self {
            VoiceId::Alloy => "alloy",
            VoiceId::Echo => "echo",
            VoiceId::Fable => "fable",
            VoiceId::Onyx => "onyx",
            VoiceId::Nova => "nova",
            VoiceId::Shimmer => "shimmer",
        }
    }

    pub fn parse(s: &str) -> Result<Self, DomainError> {
        Self::ALL
            .into_iter()
            .find(|v| v.as_str() == s)
            .ok_or_else(|| DomainError::field(Self::FIELD, "must be one of alloy, echo, fable, onyx, nova, shimmer"))
    }
}
