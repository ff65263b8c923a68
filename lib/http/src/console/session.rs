//! The console's session (docs/console.md, "The key and the session"; docs/decisions.md): the
//! console exchanges the owner's key once for a cookie no script can read, so that a page of the
//! same origin showing untrusted content (`/c/{slug}`, `/m/{slug}`, `/files/…`) cannot take the
//! key away after the owner visited it in the console's tab.
//!
//! `POST /api/v1/console/session` with `Authorization: Bearer <key>` checks the key as every
//! keyed route does and answers `Set-Cookie: lore_console=<key>; HttpOnly; Secure;
//! SameSite=Strict; Path=/api; Max-Age=28800`; `DELETE` clears the cookie. The cookie is a
//! credential only for the console's own calls ([`console_credential`]): a request without an
//! `Authorization` header that carries `X-Lore-Console: 1`, and (browsers send it) `Sec-Fetch-Site:
//! same-origin`. A page's link, form or image, and any other site, cannot set that header; a
//! request with the cookie alone is a request with no credential.

use crate::api_router::{ApiRouter, api_routes};
use crate::error::ApiError;
use crate::state::ApiState;
use axum::extract::State;
use axum::http::header::{AUTHORIZATION, CACHE_CONTROL, COOKIE, SET_COOKIE};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use lore_app::AppError;

/// The cookie's name.
pub(crate) const COOKIE_NAME: &str = "lore_console";
/// The header that marks the console's own calls, and its one value.
pub(crate) const CONSOLE_HEADER: &str = "x-lore-console";
/// How long a session lasts: a working day (8 hours), then the owner signs in again.
pub(crate) const MAX_AGE_SECS: u32 = 8 * 60 * 60;
/// Where the browser sends the cookie: the API (`/api/v1/…` and `/api/integrations/…`), never
/// the pages.
const COOKIE_PATH: &str = "/api";

pub(crate) fn routes(router: ApiRouter) -> ApiRouter {
    router.routes(api_routes!(open_console_session, close_console_session))
}

/// Whether the request is one of the console's own calls: `X-Lore-Console: 1`, and, when the
/// browser says where the request comes from (`Sec-Fetch-Site`), from this origin.
fn from_the_console(headers: &HeaderMap) -> bool {
    let marked = headers.get(CONSOLE_HEADER).is_some_and(|v| v.as_bytes() == b"1");
    let same_origin = headers.get("sec-fetch-site").is_none_or(|v| v.as_bytes() == b"same-origin");
    marked && same_origin
}

/// The value of the one `lore_console` cookie of the request. Two of them (a script of the
/// origin can add a readable one with a longer path, sent first) are none: the console's own
/// cookie is never shadowed by another.
fn session_cookie(headers: &HeaderMap) -> Option<&str> {
    let mut found = headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .filter(|(name, _)| *name == COOKIE_NAME)
        .map(|(_, value)| value.trim());
    let value = found.next()?;
    (found.next().is_none() && !value.is_empty()).then_some(value)
}

/// The credential of a request as an `Authorization` value: the header as sent; without one, the
/// console's session cookie, on the console's own calls only. `None`: no credential (401).
pub(crate) fn credential(headers: &HeaderMap) -> Option<String> {
    match headers.get(AUTHORIZATION) {
        Some(v) => v.to_str().ok().map(str::to_owned),
        None if from_the_console(headers) => session_cookie(headers).map(|key| format!("Bearer {key}")),
        None => None,
    }
}

/// The `Set-Cookie` value of a session of `key` (a well-formed key: letters, digits, `_`, `-`).
fn set_cookie(key: &str) -> Option<HeaderValue> {
    HeaderValue::from_str(&format!(
        "{COOKIE_NAME}={key}; HttpOnly; Secure; SameSite=Strict; Path={COOKIE_PATH}; Max-Age={MAX_AGE_SECS}"
    ))
    .ok()
}

/// The `Set-Cookie` value that clears the session: the same cookie, empty and expired.
const CLEAR_COOKIE: &str = "lore_console=; HttpOnly; Secure; SameSite=Strict; Path=/api; Max-Age=0";

fn no_content(cookie: HeaderValue) -> Response {
    let mut h = HeaderMap::new();
    h.insert(SET_COOKIE, cookie);
    h.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    (StatusCode::NO_CONTENT, h).into_response()
}

/// Open a console session.
///
/// The key in `Authorization: Bearer` becomes an HttpOnly session cookie that only the console's
/// own calls (`X-Lore-Console: 1`, same origin) may use (docs/console.md). The key is checked as on every keyed route (any valid key; its scopes stay its own). The
/// request itself must be the console's: `X-Lore-Console: 1` and, from a browser,
/// `Sec-Fetch-Site: same-origin`. Clients of the API send the key with each request instead.
#[utoipa::path(post, path = "/api/v1/console/session", tag = "workspace",
    security(("bearer" = [])),
    params(("X-Lore-Console" = String, Header, description = "`1`: the request is the console's own")),
    responses((status = 204, description = "Signed in: `Set-Cookie: lore_console=…; HttpOnly; Secure; \
        SameSite=Strict; Path=/api; Max-Age=28800`"),))]
async fn open_console_session(State(s): State<ApiState>, headers: HeaderMap) -> Result<Response, ApiError> {
    let header = headers.get(AUTHORIZATION).and_then(|v| v.to_str().ok());
    if !from_the_console(&headers) {
        return Err(AppError::Unauthorized("a console session asked for outside the console").into());
    }
    let principal = s.app.authenticate_and_admit(header).await?;
    tracing::Span::current().record("key_id", principal.key_id.as_str());
    // The key as the header carried it; `authenticate_and_admit` accepted it, so it is a
    // well-formed key (letters, digits, `_` and `-`: a valid cookie value).
    let key = header.and_then(|h| h.trim().split_once(' ')).map(|(_, k)| k.trim());
    let cookie = key.and_then(set_cookie).ok_or(AppError::Unauthorized("malformed key"))?;
    Ok(no_content(cookie))
}

/// Close the console session.
///
/// The session cookie is cleared. Needs no key (there may be none left to check), only the
/// console's header.
#[utoipa::path(delete, path = "/api/v1/console/session", tag = "workspace",
    security(()),
    params(("X-Lore-Console" = String, Header, description = "`1`: the request is the console's own")),
    responses(
        (status = 204, description = "Signed out: the cookie is cleared (`Max-Age=0`)"),
        (status = 401, description = "`unauthorized`: not the console's own request", body = crate::error::ErrorBody),
    ))]
async fn close_console_session(headers: HeaderMap) -> Result<Response, ApiError> {
    if !from_the_console(&headers) {
        return Err(AppError::Unauthorized("a console session closed outside the console").into());
    }
    Ok(no_content(HeaderValue::from_static(CLEAR_COOKIE)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (name, value) in pairs {
            h.append(*name, HeaderValue::from_str(value).unwrap());
        }
        h
    }

    #[test]
    fn the_cookie_is_a_credential_only_on_the_consoles_own_calls() {
        let cookie = ("cookie", "a=b; lore_console=lore_sk_x");
        let bearer = Some("Bearer lore_sk_x".to_owned());
        assert_eq!(credential(&headers(&[cookie, ("x-lore-console", "1")])), bearer);
        let same = ("sec-fetch-site", "same-origin");
        assert_eq!(credential(&headers(&[cookie, ("x-lore-console", "1"), same])), bearer);
        assert_eq!(credential(&headers(&[cookie])), None);
        assert_eq!(credential(&headers(&[cookie, ("x-lore-console", "yes")])), None);
        for site in ["cross-site", "same-site", "none"] {
            assert_eq!(credential(&headers(&[cookie, ("x-lore-console", "1"), ("sec-fetch-site", site)])), None);
        }
        // A header wins, whatever it holds; two session cookies are none.
        let h = headers(&[cookie, ("x-lore-console", "1"), ("authorization", "Bearer other")]);
        assert_eq!(credential(&h), Some("Bearer other".into()));
        let two = ("cookie", "lore_console=lore_sk_a; lore_console=lore_sk_b");
        assert_eq!(credential(&headers(&[two, ("x-lore-console", "1")])), None);
        let split = headers(&[
            ("cookie", "lore_console=lore_sk_a"),
            ("cookie", "lore_console=lore_sk_b"),
            ("x-lore-console", "1"),
        ]);
        assert_eq!(credential(&split), None);
        assert_eq!(credential(&headers(&[("cookie", "lore_console="), ("x-lore-console", "1")])), None);
    }

    #[test]
    fn the_cleared_cookie_is_the_session_cookie_expired() {
        let set = set_cookie("lore_sk_x").unwrap();
        let set = set.to_str().unwrap();
        assert_eq!(set.replace("lore_sk_x", "").replace(&format!("Max-Age={MAX_AGE_SECS}"), "Max-Age=0"), CLEAR_COOKIE);
    }
}
