//! The embedded backend's data dir: created private (0700), with every file in it 0600.

use std::path::{Path, PathBuf};

/// The database file inside a data dir.
pub fn database_path(data_dir: &Path) -> PathBuf {
    data_dir.join("lore.db")
}

/// The file `lore serve` writes the bootstrap key to.
pub fn dev_key_path(data_dir: &Path) -> PathBuf {
    data_dir.join("dev-key")
}

/// Creates the data dir readable by its owner only (0700): it holds the database with webhook
/// secrets, the upload-signing key, the dev key and uploaded files. A data dir of ours that
/// already exists (it holds `lore.db`, or nothing yet) is tightened to 0700; any other existing
/// directory named as data dir is left as it is, with a warning when others can read it.
pub fn private_data_dir(data_dir: &Path) -> anyhow::Result<()> {
    let failed = |e: std::io::Error| anyhow::anyhow!("cannot create the data dir {}: {e}", data_dir.display());
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        if !data_dir.exists() {
            std::fs::DirBuilder::new().recursive(true).mode(0o700).create(data_dir).map_err(failed)?;
        }
        let mode = std::fs::metadata(data_dir).map_err(failed)?.permissions().mode();
        if mode & 0o077 != 0 {
            let ours =
                database_path(data_dir).exists() || std::fs::read_dir(data_dir).map_err(failed)?.next().is_none();
            if ours {
                std::fs::set_permissions(data_dir, std::fs::Permissions::from_mode(0o700)).map_err(failed)?;
            } else {
                tracing::warn!(dir = %data_dir.display(), "the data dir is readable by other users; use a private directory");
            }
        }
    }
    #[cfg(not(unix))]
    std::fs::create_dir_all(data_dir).map_err(failed)?;
    Ok(())
}

/// Creates `path` readable by its owner only; fails when it exists.
pub fn write_private(path: &Path, contents: impl AsRef<[u8]>) -> std::io::Result<()> {
    use std::io::Write;
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
    opts.open(path)?.write_all(contents.as_ref())
}

/// The secret that signs local upload URLs: created once per data dir, kept across restarts.
pub fn upload_signing_key(data_dir: &Path) -> anyhow::Result<Vec<u8>> {
    let path = data_dir.join("upload-signing-key");
    if let Ok(k) = std::fs::read(&path)
        && k.len() >= 32
    {
        return Ok(k);
    }
    let mut key = vec![0u8; 32];
    lore_domain::text::random_bytes(&mut key);
    write_private(&path, &key)
        .or_else(|e| if e.kind() == std::io::ErrorKind::AlreadyExists { Ok(()) } else { Err(e) })?;
    Ok(std::fs::read(&path)?)
}
