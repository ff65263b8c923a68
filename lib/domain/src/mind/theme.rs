//! The page theme: colours, font, mode, and how a partial update merges into it.

use super::*;

/// A CSS colour in hex notation, `#rgb` or `#rrggbb`, stored lower-case. Nothing else can
/// reach a style sheet, so a theme cannot inject CSS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HexColor(String);

impl HexColor {
    pub fn parse(field: &str, s: &str) -> Result<Self, DomainError> {
        let s = s.trim();
        match s.strip_prefix('#') {
            Some(h) if (h.len() == 3 || h.len() == 6) && h.bytes().all(|b| b.is_ascii_hexdigit()) => {
                Ok(Self(s.to_ascii_lowercase()))
            }
            _ => Err(DomainError::field(field, "must be a hex colour like #1a2b3c or #abc")),
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Red, green and blue, 0–255.
    pub fn rgb(&self) -> (u8, u8, u8) {
        let h = &self.0[1..];
        let (r, g, b) = if h.len() == 3 {
            let d = |i: usize| u8::from_str_radix(&h[i..i + 1], 16).unwrap_or(0) * 17;
            (d(0), d(1), d(2))
        } else {
            let d = |i: usize| u8::from_str_radix(&h[i..i + 2], 16).unwrap_or(0);
            (d(0), d(2), d(4))
        };
        (r, g, b)
    }

    /// WCAG relative luminance, 0 (black) to 1 (white).
    pub fn luminance(&self) -> f64 {
        let lin = |c: u8| {
            let c = f64::from(c) / 255.0;
            if c <= 0.040_45 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) }
        };
        let (r, g, b) = self.rgb();
        0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)
    }

    pub fn from_stored(s: String) -> Self {
        Self(s)
    }
}

/// A font stack: family names of ASCII letters, digits, spaces, `-` and `_`, separated by
/// commas, at most 200 characters (e.g. `Inter, Helvetica Neue, sans-serif`). No quotes,
/// semicolons or braces, so it is safe inside a style sheet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FontFamily(String);

impl FontFamily {
    pub fn parse(field: &str, s: &str) -> Result<Self, DomainError> {
        let refuse = || {
            Err(DomainError::field(
                field,
                "must be font family names (letters, digits, spaces, '-', '_') separated by commas, at most 200 characters",
            ))
        };
        if s.len() > MAX_FONT_FAMILY_LEN {
            return refuse();
        }
        let names: Vec<&str> = s.split(',').map(str::trim).collect();
        let ok = names
            .iter()
            .all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b' ' | b'-' | b'_')));
        if !ok {
            return refuse();
        }
        let names: Vec<String> = names.iter().map(|n| n.split_whitespace().collect::<Vec<_>>().join(" ")).collect();
        Ok(Self(names.join(", ")))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The family names, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.0.split(", ")
    }

    pub fn from_stored(s: String) -> Self {
        Self(s)
    }
}

/// The colour scheme of the public page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThemeMode {
    Light,
    Dark,
    /// Follows the visitor's system preference.
    Auto,
}

impl ThemeMode {
    pub const fn as_str(self) -> &'static str {
        match self {
            ThemeMode::Light => "light",
            ThemeMode::Dark => "dark",
            ThemeMode::Auto => "auto",
        }
    }

    pub fn parse(field: &str, s: &str) -> Result<Self, DomainError> {
        match s.trim() {
            "light" => Ok(ThemeMode::Light),
            "dark" => Ok(ThemeMode::Dark),
            "auto" => Ok(ThemeMode::Auto),
            _ => Err(DomainError::field(field, "must be one of light, dark, auto")),
        }
    }
}

/// The public page's look. Every key is optional; a theme without keys is `null` to clients.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Theme {
    pub primary_color: Option<HexColor>,
    pub background_color: Option<HexColor>,
    pub font_family: Option<FontFamily>,
    pub mode: Option<ThemeMode>,
}

impl Theme {
    pub const FIELD: &'static str = "theme";
    pub const KEYS: [&'static str; 4] = ["primaryColor", "backgroundColor", "fontFamily", "mode"];

    pub fn is_empty(&self) -> bool {
        self == &Theme::default()
    }

    /// The keys that are set, with their values, in the order of [`Self::KEYS`].
    pub fn entries(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        if let Some(c) = &self.primary_color {
            out.push(("primaryColor", c.as_str().to_owned()));
        }
        if let Some(c) = &self.background_color {
            out.push(("backgroundColor", c.as_str().to_owned()));
        }
        if let Some(f) = &self.font_family {
            out.push(("fontFamily", f.as_str().to_owned()));
        }
        if let Some(m) = self.mode {
            out.push(("mode", m.as_str().to_owned()));
        }
        out
    }

    /// Rebuilds a theme from stored key/value pairs, validating them again: a value that no
    /// longer passes (or an unknown key) is dropped rather than served.
    pub fn from_entries<'a>(entries: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let mut t = Theme::default();
        for (k, v) in entries {
            let map = BTreeMap::from([(k.to_owned(), Some(v.to_owned()))]);
            if let Ok(patch) = ThemePatch::parse(&map) {
                t.apply(&patch);
            }
        }
        t
    }

    pub fn apply(&mut self, p: &ThemePatch) {
        merge(&mut self.primary_color, &p.primary_color);
        merge(&mut self.background_color, &p.background_color);
        merge(&mut self.font_family, &p.font_family);
        merge(&mut self.mode, &p.mode);
    }
}

pub(super) fn merge<T: Clone>(slot: &mut Option<T>, change: &Field<T>) {
    match change {
        Field::Absent => {}
        Field::Null => *slot = None,
        Field::Value(v) => *slot = Some(v.clone()),
    }
}

/// A change to some theme keys (JSON merge-patch semantics: a key set to `null` is removed).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ThemePatch {
    pub primary_color: Field<HexColor>,
    pub background_color: Field<HexColor>,
    pub font_family: Field<FontFamily>,
    pub mode: Field<ThemeMode>,
}

impl ThemePatch {
    /// Parses `{key: value|null}`; an unknown key is refused, naming `theme.<key>`.
    pub fn parse(map: &BTreeMap<String, Option<String>>) -> Result<Self, DomainError> {
        let mut v = Validator::new();
        let mut p = ThemePatch::default();
        for (key, value) in map {
            let field = format!("theme.{key}");
            match (key.as_str(), value) {
                ("primaryColor", None) => p.primary_color = Field::Null,
                ("primaryColor", Some(s)) => {
                    p.primary_color = v.check(HexColor::parse(&field, s)).map_or(Field::Absent, Field::Value)
                }
                ("backgroundColor", None) => p.background_color = Field::Null,
                ("backgroundColor", Some(s)) => {
                    p.background_color = v.check(HexColor::parse(&field, s)).map_or(Field::Absent, Field::Value)
                }
                ("fontFamily", None) => p.font_family = Field::Null,
                ("fontFamily", Some(s)) => {
                    p.font_family = v.check(FontFamily::parse(&field, s)).map_or(Field::Absent, Field::Value)
                }
                ("mode", None) => p.mode = Field::Null,
                ("mode", Some(s)) => p.mode = v.check(ThemeMode::parse(&field, s)).map_or(Field::Absent, Field::Value),
                _ => {
                    v.check::<()>(Err(DomainError::field(
                        field,
                        "is not a theme key; the keys are primaryColor, backgroundColor, fontFamily, mode",
                    )));
                }
            }
        }
        v.finish()?;
        Ok(p)
    }
}
