//! Paginated reads: one page and the exact total from one snapshot (docs/api.md §4).

use lore_domain::pagination::{Page, PageRequest};
use rusqlite::{Connection, Row};

/// Runs `count_sql` and `page_sql` (whose last two parameters are `LIMIT` and `OFFSET`) over
/// `args` inside one read transaction, so the total and the items agree.
pub(crate) fn paged<T>(
    c: &Connection,
    count_sql: &str,
    page_sql: &str,
    args: &[&dyn rusqlite::ToSql],
    page: PageRequest,
    map: fn(&Row<'_>) -> rusqlite::Result<T>,
) -> rusqlite::Result<Page<T>> {
    c.execute_batch("BEGIN")?;
    let result = (|| {
        let total: i64 = c.query_row(count_sql, args, |r| r.get(0))?;
        let mut all: Vec<&dyn rusqlite::ToSql> = args.to_vec();
        let (limit, offset) = (i64::from(page.limit()), page.offset() as i64);
        all.push(&limit);
        all.push(&offset);
        let mut st = c.prepare_cached(page_sql)?;
        let items = st.query_map(all.as_slice(), map)?.collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(Page { items, total: total as u64, request: page })
    })();
    let _ = c.execute_batch("COMMIT");
    result
}
