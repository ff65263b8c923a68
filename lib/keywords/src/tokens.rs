//! SQLite's own FTS5 tokenizer (`porter unicode61 remove_diacritics 2`), called directly.
//!
//! Keyword search keeps its index in memory (`keywords.rs`) but must cut text into terms exactly
//! as SQLite's full-text search does: the same Unicode word rules, case and diacritic folding and
//! Porter stems. Borrowing the tokenizer from the FTS5 module compiled into our SQLite gives that
//! for free, for every language SQLite knows, instead of a second implementation that would drift.

use rusqlite::{Connection, ffi};
use std::ffi::{c_char, c_int, c_void};
use std::marker::PhantomData;
use std::ptr::null_mut;

/// A tokenizer instance; it lives no longer than the connection it came from, whose FTS5 module
/// owns the code it calls.
pub struct Tokenizer<'c> {
    module: ffi::fts5_tokenizer,
    instance: *mut ffi::Fts5Tokenizer,
    _conn: PhantomData<&'c Connection>,
}

impl<'c> Tokenizer<'c> {
    pub fn new(conn: &'c Connection) -> rusqlite::Result<Self> {
        let api = fts5_api(conn)?;
        // SAFETY: `api` is the live FTS5 API of `conn` (checked non-null); the argument strings
        // are static and NUL-terminated; every return code is checked before its output is used.
        unsafe {
            let find = (*api).xFindTokenizer.ok_or_else(|| failure(ffi::SQLITE_MISUSE))?;
            let mut user: *mut c_void = null_mut();
            let mut module = ffi::fts5_tokenizer { xCreate: None, xDelete: None, xTokenize: None };
            check(find(api, c"porter".as_ptr(), &mut user, &mut module))?;
            let create = module.xCreate.ok_or_else(|| failure(ffi::SQLITE_MISUSE))?;
            let mut args = [c"unicode61".as_ptr(), c"remove_diacritics".as_ptr(), c"2".as_ptr()];
            let mut instance: *mut ffi::Fts5Tokenizer = null_mut();
            check(create(user, args.as_mut_ptr(), args.len() as c_int, &mut instance))?;
            if instance.is_null() || module.xTokenize.is_none() {
                return Err(failure(ffi::SQLITE_MISUSE));
            }
            Ok(Tokenizer { module, instance, _conn: PhantomData })
        }
    }

    /// Calls `each` with every term of `text`, in order, as FTS5 would index it.
    pub fn each_term(&self, text: &str, mut each: impl FnMut(&[u8])) {
        let mut sink: &mut dyn FnMut(&[u8]) = &mut each;
        // Texts are chunks or queries, far below 2 GiB; a longer one is read up to that point.
        let len = c_int::try_from(text.len()).unwrap_or(c_int::MAX);
        if let Some(tokenize) = self.module.xTokenize {
            // SAFETY: `instance` came from this module's xCreate and is not yet deleted; the text
            // pointer and length describe `text`; `sink` outlives the call, which is synchronous.
            unsafe {
                tokenize(
                    self.instance,
                    (&mut sink as *mut &mut dyn FnMut(&[u8])).cast(),
                    ffi::FTS5_TOKENIZE_DOCUMENT,
                    text.as_ptr().cast(),
                    len,
                    Some(on_term),
                );
            }
        }
    }
}

impl Drop for Tokenizer<'_> {
    fn drop(&mut self) {
        if let Some(delete) = self.module.xDelete {
            // SAFETY: created by this module's xCreate and deleted once, here.
            unsafe { delete(self.instance) }
        }
    }
}

unsafe extern "C" fn on_term(
    ctx: *mut c_void,
    flags: c_int,
    term: *const c_char,
    len: c_int,
    _start: c_int,
    _end: c_int,
) -> c_int {
    // A synonym at the same position does not count as a term of its own (porter makes none).
    if flags & ffi::FTS5_TOKEN_COLOCATED != 0 || term.is_null() || len < 0 {
        return ffi::SQLITE_OK;
    }
    // SAFETY: `ctx` is the `&mut dyn FnMut` passed by `each_term`, alive for this call; FTS5
    // hands a buffer of `len` bytes.
    unsafe {
        let sink = &mut *ctx.cast::<&mut dyn FnMut(&[u8])>();
        sink(std::slice::from_raw_parts(term.cast::<u8>(), len as usize));
    }
    ffi::SQLITE_OK
}

/// The FTS5 API of `conn`, fetched the documented way: `SELECT fts5(?1)` with a pointer bound.
fn fts5_api(conn: &Connection) -> rusqlite::Result<*mut ffi::fts5_api> {
    let mut api: *mut ffi::fts5_api = null_mut();
    // SAFETY: the statement is prepared, bound, stepped and finalised on `conn`'s own handle
    // while `conn` is borrowed; the bound pointer is `api`, alive throughout.
    unsafe {
        let db = conn.handle();
        let mut stmt: *mut ffi::sqlite3_stmt = null_mut();
        check(ffi::sqlite3_prepare_v2(db, c"SELECT fts5(?1)".as_ptr(), -1, &mut stmt, null_mut()))?;
        let bound = ffi::sqlite3_bind_pointer(
            stmt,
            1,
            (&mut api as *mut *mut ffi::fts5_api).cast(),
            c"fts5_api_ptr".as_ptr(),
            None,
        );
        let stepped = if bound == ffi::SQLITE_OK { ffi::sqlite3_step(stmt) } else { bound };
        ffi::sqlite3_finalize(stmt);
        if stepped != ffi::SQLITE_ROW && stepped != ffi::SQLITE_DONE {
            return Err(failure(stepped));
        }
    }
    if api.is_null() { Err(failure(ffi::SQLITE_MISUSE)) } else { Ok(api) }
}

fn check(rc: c_int) -> rusqlite::Result<()> {
    if rc == ffi::SQLITE_OK { Ok(()) } else { Err(failure(rc)) }
}

fn failure(rc: c_int) -> rusqlite::Error {
    rusqlite::Error::SqliteFailure(ffi::Error::new(rc), Some("the FTS5 tokenizer is not available".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(conn: &Connection, text: &str) -> Vec<String> {
        let t = Tokenizer::new(conn).unwrap();
        let mut out = Vec::new();
        t.each_term(text, |term| out.push(String::from_utf8_lossy(term).into_owned()));
        out
    }

    #[test]
    fn terms_are_folded_stemmed_and_split_like_fts5() {
        let conn = Connection::open_in_memory().unwrap();
        assert_eq!(terms(&conn, "Refunds, REFUNDED—refunding!"), ["refund", "refund", "refund"]);
        assert_eq!(terms(&conn, "Bröker’s café"), ["broker", "s", "cafe"]);
        assert!(terms(&conn, " ?! ").is_empty());
        // The same terms an FTS5 table with this tokenizer indexes.
        conn.execute_batch(
            "CREATE VIRTUAL TABLE t USING fts5(x, tokenize = 'porter unicode61 remove_diacritics 2');
             CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance');
             INSERT INTO t VALUES ('Generalizations of the Ökonomie: running runners ran 3.14 times');",
        )
        .unwrap();
        let mut st = conn.prepare("SELECT term FROM v ORDER BY doc, offset").unwrap();
        let indexed: Vec<String> = st.query_map([], |r| r.get(0)).unwrap().collect::<Result<_, _>>().unwrap();
        assert_eq!(terms(&conn, "Generalizations of the Ökonomie: running runners ran 3.14 times"), indexed);
    }
}
