//! Black-box tests of `lore-extract` through the `Extractor` port, on documents generated in code.

mod csv;
mod docx;
mod epub;
mod fixtures;
mod fuzz;
mod html;
mod isolation;
mod ocr;
mod odt;
mod pdf;
mod pptx;
mod quality;
mod rtf;
mod sheets;
mod sniff;
mod text;
