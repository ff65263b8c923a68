//! Social links, and how a partial update merges into them.

use super::*;

/// The persona's profiles elsewhere: each an http(s) URL.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SocialLinks {
    pub twitter: Option<WebUrl>,
    pub linkedin: Option<WebUrl>,
    pub youtube: Option<WebUrl>,
    pub website: Option<WebUrl>,
    pub instagram: Option<WebUrl>,
}

impl SocialLinks {
    pub const FIELD: &'static str = "socialLinks";
    pub const KEYS: [&'static str; 5] = ["twitter", "linkedin", "youtube", "website", "instagram"];

    pub fn is_empty(&self) -> bool {
        self == &SocialLinks::default()
    }

    fn slot(&mut self, key: &str) -> Option<&mut Option<WebUrl>> {
        match key {
            "twitter" => Some(&mut self.twitter),
            "linkedin" => Some(&mut self.linkedin),
            "youtube" => Some(&mut self.youtube),
            "website" => Some(&mut self.website),
            "instagram" => Some(&mut self.instagram),
            _ => None,
        }
    }

    /// The links that are set, in the order of [`Self::KEYS`].
    pub fn entries(&self) -> Vec<(&'static str, &WebUrl)> {
        [
            ("twitter", &self.twitter),
            ("linkedin", &self.linkedin),
            ("youtube", &self.youtube),
            ("website", &self.website),
            ("instagram", &self.instagram),
        ]
        .into_iter()
        .filter_map(|(k, v)| v.as_ref().map(|u| (k, u)))
        .collect()
    }

    /// Rebuilds links from stored pairs (unknown keys dropped).
    pub fn from_entries<'a>(entries: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let mut links = SocialLinks::default();
        for (k, v) in entries {
            if let Some(slot) = links.slot(k) {
                *slot = Some(WebUrl::from_stored(v.to_owned()));
            }
        }
        links
    }

    pub fn apply(&mut self, p: &SocialLinksPatch) {
        for (key, change) in &p.0 {
            if let Some(slot) = self.slot(key) {
                merge(slot, change);
            }
        }
    }
}

/// A change to some social links (merge-patch: `null` removes a link).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SocialLinksPatch(Vec<(&'static str, Field<WebUrl>)>);

impl SocialLinksPatch {
    /// Parses `{key: url|null}`; an unknown key is refused, naming `socialLinks.<key>`.
    pub fn parse(map: &BTreeMap<String, Option<String>>) -> Result<Self, DomainError> {
        let mut v = Validator::new();
        let mut changes = Vec::new();
        for (key, value) in map {
            let field = format!("socialLinks.{key}");
            let Some(known) = SocialLinks::KEYS.into_iter().find(|k| k == key) else {
                v.check::<()>(Err(DomainError::field(
                    field,
                    "is not a social link key; the keys are twitter, linkedin, youtube, website, instagram",
                )));
                continue;
            };
            match value {
                None => changes.push((known, Field::Null)),
                Some(s) if s.trim().is_empty() => changes.push((known, Field::Null)),
                Some(s) => {
                    if let Some(u) = v.check(WebUrl::parse(&field, s)) {
                        changes.push((known, Field::Value(u)));
                    }
                }
            }
        }
        v.finish()?;
        Ok(Self(changes))
    }
}
