//! Pagination (docs/api.md §4): page ≥ 1, limit 1..=100 (larger clamped), default 1 and 20.

use crate::error::DomainError;
use serde::Serialize;

pub const DEFAULT_LIMIT: u32 = 20;
pub const MAX_LIMIT: u32 = 100;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageRequest {
    page: u32,
    limit: u32,
}

impl PageRequest {
    /// Parses the raw query values. Anything but a positive integer is refused; a limit above
    /// the maximum is clamped, as the interface's "max 100" promises.
    pub fn parse(page: Option<&str>, limit: Option<&str>) -> Result<Self, DomainError> {
        let page = positive("page", page, 1)?;
        let limit = positive("limit", limit, DEFAULT_LIMIT)?.min(MAX_LIMIT);
        Ok(Self { page, limit })
    }

    pub fn new(page: u32, limit: u32) -> Self {
        Self { page: page.max(1), limit: limit.clamp(1, MAX_LIMIT) }
    }

    pub fn page(self) -> u32 {
        self.page
    }

    pub fn limit(self) -> u32 {
        self.limit
    }

    pub fn offset(self) -> u64 {
        u64::from(self.page - 1) * u64::from(self.limit)
    }
}

impl Default for PageRequest {
    fn default() -> Self {
        Self { page: 1, limit: DEFAULT_LIMIT }
    }
}

fn positive(field: &str, raw: Option<&str>, default: u32) -> Result<u32, DomainError> {
    match raw {
        None => Ok(default),
        Some(s) => match s.trim().parse::<u64>() {
            Ok(n) if n >= 1 => Ok(u32::try_from(n).unwrap_or(u32::MAX)),
            _ => Err(DomainError::field(field, "must be a positive integer")),
        },
    }
}

/// One page of items and the exact total.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page<T> {
    pub items: Vec<T>,
    pub total: u64,
    pub request: PageRequest,
}

impl<T> Page<T> {
    pub fn info(&self) -> PageInfo {
        let limit = u64::from(self.request.limit);
        PageInfo {
            page: self.request.page,
            limit: self.request.limit,
            total: self.total,
            total_pages: self.total.div_ceil(limit),
        }
    }

    pub fn map<U>(self, f: impl FnMut(T) -> U) -> Page<U> {
        Page { items: self.items.into_iter().map(f).collect(), total: self.total, request: self.request }
    }
}

/// The `pagination` member of every list response.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PageInfo {
    pub page: u32,
    pub limit: u32,
    pub total: u64,
    pub total_pages: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_clamp_and_refusals() {
        assert_eq!(PageRequest::parse(None, None).unwrap(), PageRequest { page: 1, limit: 20 });
        assert_eq!(PageRequest::parse(Some("2"), Some("500")).unwrap().limit(), 100);
        for bad in ["0", "-1", "abc", "1.5", ""] {
            assert!(PageRequest::parse(Some(bad), None).is_err(), "page {bad}");
            assert!(PageRequest::parse(None, Some(bad)).is_err(), "limit {bad}");
        }
        assert_eq!(PageRequest::parse(Some("99999999999"), None).unwrap().page(), u32::MAX);
    }

    #[test]
    fn total_pages() {
        let p = |total| Page::<()> { items: vec![], total, request: PageRequest::new(1, 20) }.info().total_pages;
        assert_eq!((p(0), p(1), p(20), p(21)), (0, 1, 1, 2));
    }
}
