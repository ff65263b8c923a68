use crate::fixtures::{extractor, limits};
use lore_app::ports::{ExtractError, Extracted, Extractor};
use lore_domain::document::DocumentKind;

async fn extract(page: &[u8]) -> Result<Extracted, ExtractError> {
    extractor().extract(page.to_vec(), DocumentKind::Html, limits()).await
}

const PAGE: &str = r#"<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>  Pricing — Lore
  </title>
  <style>body { color: red } .secret { display: block }</style>
  <script>var tracking = "SCRIPT_TEXT";</script>
</head>
<body>
  <header><a href="/">Lore home</a> BANNER_TEXT</header>
  <nav><ul><li><a href="/docs">Docs NAV_TEXT</a></li></ul></nav>
  <div role="navigation">ROLE_NAV_TEXT</div>
  <main>
    <article>
      <header><h1>Plans   and pricing</h1></header>
      <p>Every plan includes <strong>unlimited</strong>
         sources.</p>
      <h2>Features</h2>
      <ul>
        <li>Search</li>
        <li>Webhooks <em>with retries</em></li>
      </ul>
      <aside>ASIDE_TEXT</aside>
      <form><label>EMAIL_FORM_TEXT</label><input name="email"></form>
      <noscript>NOSCRIPT_TEXT</noscript>
      <svg><text>SVG_TEXT</text></svg>
      <div hidden>HIDDEN_TEXT</div>
      <p>Contact us<br>any time.</p>
    </article>
  </main>
  <footer>FOOTER_TEXT &copy; 2024</footer>
  <script>console.log("SCRIPT_TEXT_2")</script>
</body>
</html>"#;

#[tokio::test]
async fn the_main_text_is_kept_and_page_chrome_dropped() {
    let extracted = extract(PAGE.as_bytes()).await.unwrap();
    assert_eq!(extracted.title.as_deref(), Some("Pricing — Lore"));
    assert_eq!(
        extracted.text,
        "# Plans and pricing\n\n\
         Every plan includes unlimited sources.\n\n\
         ## Features\n\n\
         - Search\n\
         - Webhooks with retries\n\n\
         Contact us\n\
         any time."
    );
    for dropped in [
        "SCRIPT_TEXT",
        "body { color",
        "BANNER_TEXT",
        "NAV_TEXT",
        "ROLE_NAV_TEXT",
        "ASIDE_TEXT",
        "EMAIL_FORM_TEXT",
        "NOSCRIPT_TEXT",
        "SVG_TEXT",
        "HIDDEN_TEXT",
        "FOOTER_TEXT",
    ] {
        assert!(!extracted.text.contains(dropped), "{dropped} leaked into {:?}", extracted.text);
    }
}

#[tokio::test]
async fn without_main_the_body_is_used_and_the_first_h1_is_the_title() {
    let page = b"<html><body><nav>Menu</nav><h1>Release notes</h1><p>Version 2 is out.</p>\
                 <table><tr><th>Item</th><th>State</th></tr><tr><td>Search</td><td>done</td></tr></table>\
                 <footer>(c) Lore</footer></body></html>";
    let extracted = extract(page).await.unwrap();
    assert_eq!(extracted.title.as_deref(), Some("Release notes"));
    assert_eq!(
        extracted.text,
        "# Release notes\n\nVersion 2 is out.\n\n| Item | State |\n|---|---|\n| Search | done |"
    );
}

#[tokio::test]
async fn a_declared_legacy_charset_is_honoured() {
    let page = b"<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=ISO-8859-1\">\
                 <title>Caf\xe9</title></head><body><p>cr\xe8me br\xfbl\xe9e</p></body></html>";
    let extracted = extract(page).await.unwrap();
    assert_eq!(extracted.title.as_deref(), Some("Café"));
    assert_eq!(extracted.text, "crème brûlée");
}

#[tokio::test]
async fn a_page_of_only_chrome_has_no_text() {
    let page = b"<html><body><nav>Home | Docs</nav><script>x()</script><footer>(c)</footer></body></html>";
    assert_eq!(
        extract(page).await.unwrap_err(),
        ExtractError::Corrupt("no text could be extracted: the page has no readable main text".into())
    );
}

/// An uploaded HTML file is sniffed by its markup and read as a crawled page is.
#[tokio::test]
async fn an_uploaded_html_file_is_read_like_a_crawled_page() {
    let extractor = extractor();
    let kind = extractor.sniff(PAGE.as_bytes(), Some("pricing.html")).unwrap();
    assert_eq!((kind, kind.mime_type()), (DocumentKind::Html, "text/html"));
    assert_eq!(extractor.sniff(PAGE.as_bytes(), None), Some(DocumentKind::Html));
    let uploaded = extractor.extract(PAGE.as_bytes().to_vec(), kind, limits()).await.unwrap();
    assert_eq!(uploaded, extract(PAGE.as_bytes()).await.unwrap());
    assert!(uploaded.text.starts_with("# Plans and pricing"));
}

/// Elements nested 100,000 deep: the tree is walked without recursion and the text is read.
/// (Block elements nested that deep make html5ever's tree builder quadratic; that case is held
/// by the time budget and is tested in a parser child, `tests/child`.)
#[tokio::test]
async fn inline_elements_nested_100_000_deep_are_read() {
    let depth = 100_000;
    let page = format!("<!doctype html><body>{}deep text{}</body>", "<span>".repeat(depth), "</span>".repeat(depth));
    let extracted = extract(page.as_bytes()).await.unwrap();
    assert_eq!(extracted.text, "deep text");
}
