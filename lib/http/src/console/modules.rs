//! The browser files of a page (the console's, the public chat page's): ES modules and style
//! sheets compiled into the binary and served under versioned URLs (docs/development.md, "Front
//! end").
//!
//! A set's version is a digest of all its files. Every URL the page names carries it
//! (`console.js?v=…`), and so does every relative import between the modules: `from "./api.js"`
//! is served as `from "./api.js?v=…"`. So a file and everything it imports are cached for a
//! year, and a new build is fetched at once. Modules import each other with `from "./name.js"`
//! only (the same folder; a test checks that each names a file of the set). Files are sent
//! gzip-compressed to browsers that accept it.

use axum::http::header::{
    ACCEPT_ENCODING, CACHE_CONTROL, CONTENT_ENCODING, CONTENT_TYPE, ETAG, IF_NONE_MATCH, VARY, X_CONTENT_TYPE_OPTIONS,
};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use std::io::Write;
use std::sync::OnceLock;

pub(crate) const JS: &str = "text/javascript; charset=utf-8";
pub(crate) const CSS: &str = "text/css; charset=utf-8";

/// A file of a set, as written.
pub(crate) struct File {
    pub name: &'static str,
    pub content_type: &'static str,
    pub body: &'static str,
}

/// A set of files served together (`static`: prepared on first use).
pub(crate) struct Files {
    files: &'static [File],
    ready: OnceLock<Ready>,
}

struct Ready {
    version: String,
    served: Vec<Served>,
}

/// A file as sent: its imports versioned, its ETag, its gzip form.
struct Served {
    body: String,
    etag: String,
    gzip: Vec<u8>,
}

/// FNV-1a: a cache key, not a security measure.
fn fnv(bytes: &[u8], from: u64) -> u64 {
    bytes.iter().fold(from, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3))
}
const FNV_START: u64 = 0xcbf2_9ce4_8422_2325;

/// The relative specifiers `from "./x.js"` and `import "./x.js"` of a module, as written.
#[cfg(test)]
fn imports(body: &str) -> impl Iterator<Item = &str> {
    ["from \"./", "import \"./"].into_iter().flat_map(move |lead| {
        body.match_indices(lead).filter_map(move |(at, _)| {
            let rest = &body[at + lead.len()..];
            rest.find('"').map(|end| &rest[..end])
        })
    })
}

impl Files {
    pub(crate) const fn new(files: &'static [File]) -> Self {
        Self { files, ready: OnceLock::new() }
    }

    fn ready(&self) -> &Ready {
        self.ready.get_or_init(|| {
            let digest = self.files.iter().fold(FNV_START, |h, f| fnv(f.body.as_bytes(), fnv(f.name.as_bytes(), h)));
            let version = format!("{digest:016x}");
            let served = self
                .files
                .iter()
                .map(|f| {
                    let mut body = f.body.to_owned();
                    if f.content_type == JS {
                        for other in self.files.iter().filter(|o| o.content_type == JS) {
                            for lead in ["from", "import"] {
                                body = body.replace(
                                    &format!("{lead} \"./{}\"", other.name),
                                    &format!("{lead} \"./{}?v={version}\"", other.name),
                                );
                            }
                        }
                    }
                    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
                    // Writing to a Vec cannot fail; an empty body would only cost compression.
                    let gzip = gz.write_all(body.as_bytes()).and_then(|()| gz.finish()).unwrap_or_default();
                    let etag = format!("\"{:016x}\"", fnv(body.as_bytes(), FNV_START));
                    Served { body, etag, gzip }
                })
                .collect();
            Ready { version, served }
        })
    }

    /// The set's version: a digest of every file.
    pub(crate) fn version(&self) -> &str {
        &self.ready().version
    }

    /// `name` with the set's version: `name?v=…`, to put after the set's path.
    pub(crate) fn versioned(&self, name: &str) -> String {
        format!("{name}?v={}", self.version())
    }

    /// The names of the set's modules (to preload them).
    pub(crate) fn modules(&self) -> impl Iterator<Item = &'static str> {
        self.files.iter().filter(|f| f.content_type == JS).map(|f| f.name)
    }

    /// The answer to `GET …/{name}`: the file, cached for a year (its URL changes with it),
    /// gzip-compressed when the browser accepts it, 304 when the browser has it; 404 for a name
    /// not in the set.
    pub(crate) fn respond(&self, name: &str, headers: &HeaderMap) -> Response {
        let Some(i) = self.files.iter().position(|f| f.name == name) else {
            return StatusCode::NOT_FOUND.into_response();
        };
        let (f, s) = (&self.files[i], &self.ready().served[i]);
        let etag = HeaderValue::from_str(&s.etag).unwrap_or(HeaderValue::from_static("\"0\""));
        let mut h = HeaderMap::new();
        h.insert(CACHE_CONTROL, HeaderValue::from_static("public, max-age=31536000, immutable"));
        h.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
        h.insert(VARY, HeaderValue::from_static("Accept-Encoding"));
        let fresh = headers.get(IF_NONE_MATCH).is_some_and(|v| v.as_bytes() == etag.as_bytes());
        h.insert(ETAG, etag);
        if fresh {
            return (StatusCode::NOT_MODIFIED, h).into_response();
        }
        h.insert(CONTENT_TYPE, HeaderValue::from_static(f.content_type));
        let gzip = headers
            .get(ACCEPT_ENCODING)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.split(',').any(|e| e.split(';').next().is_some_and(|e| e.trim() == "gzip")));
        if gzip && !s.gzip.is_empty() && s.gzip.len() < s.body.len() {
            h.insert(CONTENT_ENCODING, HeaderValue::from_static("gzip"));
            return (h, s.gzip.clone()).into_response();
        }
        (h, s.body.clone()).into_response()
    }

    /// Checks a set against the folder its modules are in (for the sets' tests): every `.js` file
    /// of `dir` is in the set, and every relative import of a module names a module of the set.
    #[cfg(test)]
    pub(crate) fn check(&self, dir: &str) {
        let names: Vec<&str> = self.modules().collect();
        for entry in std::fs::read_dir(dir).unwrap() {
            let name = entry.unwrap().file_name().into_string().unwrap();
            if name.ends_with(".js") {
                assert!(names.contains(&name.as_str()), "{dir}/{name} is not served: add it to the set");
            }
        }
        for (f, s) in self.files.iter().zip(&self.ready().served) {
            if f.content_type != JS {
                continue;
            }
            for import in imports(f.body) {
                assert!(names.contains(&import), "{}: imports ./{import}, which is not in the set", f.name);
            }
            // Served, every relative import carries the version.
            for import in imports(&s.body) {
                assert!(import.ends_with(&format!("?v={}", self.version())), "{}: ./{import}", f.name);
            }
            let mut back = String::new();
            std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&s.gzip[..]), &mut back).unwrap();
            assert_eq!(back, s.body, "{}", f.name);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static SET: Files = Files::new(&[
        File { name: "a.js", content_type: JS, body: "import { b } from \"./b.js\";\nimport \"./c.js\";\nb();\n" },
        File { name: "b.js", content_type: JS, body: "export function b() {}\n" },
        File { name: "c.js", content_type: JS, body: "export {} from \"./b.js\";\n" },
        File { name: "s.css", content_type: CSS, body: "a { color: red }\n" },
    ]);

    #[test]
    fn imports_carry_the_sets_version() {
        let v = SET.version();
        let a = SET.respond("a.js", &HeaderMap::new());
        assert_eq!(a.status(), StatusCode::OK);
        assert_eq!(a.headers()[CONTENT_TYPE], JS);
        assert!(a.headers()[CACHE_CONTROL].to_str().unwrap().contains("immutable"));
        let body = &SET.ready().served[0].body;
        assert!(body.contains(&format!("from \"./b.js?v={v}\"")), "{body}");
        assert!(body.contains(&format!("import \"./c.js?v={v}\"")), "{body}");
        assert!(SET.ready().served[2].body.contains(&format!("from \"./b.js?v={v}\"")));
        assert_eq!(SET.versioned("a.js"), format!("a.js?v={v}"));
        assert_eq!(SET.modules().collect::<Vec<_>>(), ["a.js", "b.js", "c.js"]);
        assert_eq!(imports(SET.files[0].body).collect::<Vec<_>>(), ["b.js", "c.js"]);
    }

    #[test]
    fn a_known_file_is_fresh_by_its_etag_and_an_unknown_one_is_not_found() {
        let etag = SET.ready().served[1].etag.clone();
        let mut h = HeaderMap::new();
        h.insert(IF_NONE_MATCH, HeaderValue::from_str(&etag).unwrap());
        assert_eq!(SET.respond("b.js", &h).status(), StatusCode::NOT_MODIFIED);
        assert_eq!(SET.respond("nope.js", &HeaderMap::new()).status(), StatusCode::NOT_FOUND);
        assert_eq!(SET.respond("../mod.rs", &HeaderMap::new()).status(), StatusCode::NOT_FOUND);
    }
}
