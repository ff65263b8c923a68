//! A member of a partial update: absent, `null`, or a value.

use super::*;

/// One member of a partial update as the client sent it: left out, explicitly `null`, or a
/// value. Deserialises `null` to `Null`; a struct member marked `#[serde(default)]` that is
/// left out stays `Absent`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Field<T> {
    #[default]
    Absent,
    Null,
    Value(T),
}

impl<T> Field<T> {
    pub fn is_absent(&self) -> bool {
        matches!(self, Field::Absent)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Field<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match Option::<T>::deserialize(d)? {
            Some(v) => Field::Value(v),
            None => Field::Null,
        })
    }
}
