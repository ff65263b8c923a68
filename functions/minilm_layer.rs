//! The `MiniLmLayer` and `E5Layer` of `template.yaml`, built the way `sam build` builds them:
//! `layers/minilm` copied to a scratch directory (nothing else of the repository comes along),
//! then `make build-MiniLmLayer ARTIFACTS_DIR=…` (or `build-E5Layer`). Included by the function
//! tests that run with `LORE_EMBEDDER=minilm` or `e5` (`#[path = "../../minilm_layer.rs"] mod
//! minilm_layer;`).

use std::path::{Path, PathBuf};
use std::process::Command;

/// What Lambda would unpack under `/opt`, and the `LORE_MODEL_DIR` the template gives the
/// functions mapped into it. The files come from the machine's model cache (fetch-model.sh).
pub struct Layer {
    _dir: tempfile::TempDir,
    pub model_dir: PathBuf,
}

/// Where `template.yaml` tells the functions the model is (`variable`: `LORE_MODEL_DIR:`).
fn template_model_dir(variable: &str) -> String {
    let template = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../template.yaml");
    let text = std::fs::read_to_string(&template).expect("template.yaml");
    let line = text.lines().find_map(|l| l.trim().strip_prefix(variable)).expect("the variable in the template");
    line.trim().to_owned()
}

/// `layers/minilm` copied alone into `scratch`, then `make build-MiniLmLayer` run there with
/// `ARTIFACTS_DIR=artifacts` and `env`.
#[allow(dead_code)] // not every test binary including this file calls each function
pub fn make(scratch: &Path, artifacts: &Path, env: &[(&str, &str)]) -> std::process::Output {
    make_target("build-MiniLmLayer", scratch, artifacts, env)
}

fn make_target(target: &str, scratch: &Path, artifacts: &Path, env: &[(&str, &str)]) -> std::process::Output {
    std::fs::create_dir_all(scratch).unwrap();
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../layers/minilm");
    for entry in std::fs::read_dir(&source).unwrap() {
        let entry = entry.unwrap();
        assert!(entry.file_type().unwrap().is_file(), "the layer folder holds plain files only: {entry:?}");
        std::fs::copy(entry.path(), scratch.join(entry.file_name())).unwrap();
    }
    Command::new("make")
        .arg(target)
        .arg(format!("ARTIFACTS_DIR={}", artifacts.display()))
        .envs(env.iter().copied())
        .current_dir(scratch)
        .output()
        .expect("make (the layer is built with make, as `sam build` does)")
}

/// The MiniLmLayer, at the template's `LORE_MODEL_DIR`.
#[allow(dead_code)]
pub fn build() -> Layer {
    build_layer(
        "build-MiniLmLayer",
        "LORE_MODEL_DIR:",
        &["model.safetensors", "config.json", "tokenizer.json", "1_Pooling/config.json"],
    )
}

/// The E5Layer, at the template's `LORE_E5_DIR`.
#[allow(dead_code)]
pub fn build_e5() -> Layer {
    build_layer("build-E5Layer", "LORE_E5_DIR:", &["e5-small-q4.bin"])
}

fn build_layer(target: &str, variable: &str, files: &[&str]) -> Layer {
    let dir = tempfile::tempdir().unwrap();
    let opt = dir.path().join("opt");
    let out = make_target(target, &dir.path().join("scratch"), &opt, &[]);
    assert!(out.status.success(), "make {target}: {}", String::from_utf8_lossy(&out.stderr));

    let in_template = template_model_dir(variable);
    let relative =
        in_template.strip_prefix("/opt/").unwrap_or_else(|| panic!("a layer is unpacked under /opt: {in_template}"));
    let model_dir = opt.join(relative);
    for name in files {
        assert!(
            model_dir.join(name).is_file(),
            "the layer has {name} where the template says: {}",
            model_dir.display()
        );
    }
    Layer { _dir: dir, model_dir }
}
