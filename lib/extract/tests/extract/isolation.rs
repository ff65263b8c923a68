use crate::fixtures::{extractor, limits, sample_docx, sample_pdf};
use lore_app::ports::{ExtractError, ExtractLimits, Extractor};
use lore_domain::document::DocumentKind;
use std::time::Duration;

#[tokio::test]
async fn input_over_the_cap_is_refused_before_parsing() {
    let limits = ExtractLimits { max_input_bytes: 100, ..limits() };
    // Not even a PDF: the size check comes first.
    let error = extractor().extract(vec![b'x'; 101], DocumentKind::Pdf, limits).await.unwrap_err();
    assert_eq!(error, ExtractError::TooLarge("the file has 101 bytes, the limit is 100".into()));
}

#[tokio::test]
async fn a_zero_time_budget_times_out() {
    let no_time = ExtractLimits { timeout: Duration::ZERO, ..limits() };
    let extractor = extractor();
    for (bytes, kind) in [(sample_pdf(), DocumentKind::Pdf), (sample_docx(), DocumentKind::Docx)] {
        let error = extractor.extract(bytes, kind, no_time).await.unwrap_err();
        assert_eq!(error, ExtractError::TimedOut(Duration::ZERO), "{kind:?}");
    }
    // Timed-out parses finish on their own and release their permits.
    let extracted = extractor.extract(sample_pdf(), DocumentKind::Pdf, limits()).await.unwrap();
    assert!(extracted.text.contains("Lore extraction test"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_extractions_share_the_bound_and_all_complete() {
    let extractor = lore_extract::DocumentExtractor::with_concurrency(1);
    let jobs = (0..6).map(|_| {
        let extractor = extractor.clone();
        tokio::spawn(async move { extractor.extract(sample_pdf(), DocumentKind::Pdf, limits()).await })
    });
    for job in jobs.collect::<Vec<_>>() {
        let extracted = job.await.unwrap().unwrap();
        assert_eq!(extracted.title.as_deref(), Some("Quarterly Report"));
    }
    assert_eq!(extractor.idle_parsers(), 1, "every slot is released");
}
