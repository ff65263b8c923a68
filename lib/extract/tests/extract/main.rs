//! Black-box tests of `lore-extract` through the `Extractor` port, on documents generated in code.

mod docx;
mod fixtures;
mod fuzz;
mod html;
mod isolation;
mod pdf;
mod quality;
mod sniff;
mod text;
