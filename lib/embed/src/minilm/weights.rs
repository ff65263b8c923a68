//! The weights, read from `model.safetensors` one tensor at a time straight into the buffer the
//! tensor keeps. Memory-mapping the file and copying out of the map (as candle's
//! `from_mmaped_safetensors` does) holds the file's pages *and* the copies at once: ~175 MB resident
//! for 87 MB of weights, the peak of the whole embedder. Read this way the peak is the weights
//! plus one 64 KiB buffer.

use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::Mutex;

/// Largest header accepted (the MiniLM header is ~10 KB): a corrupt length never allocates much.
const MAX_HEADER_BYTES: u64 = 1 << 20;
/// Bytes read per system call.
const READ_BYTES: usize = 64 * 1024;

/// Where one tensor lies in the file.
struct Entry {
    dtype: String,
    shape: Vec<usize>,
    /// Absolute byte range in the file.
    start: u64,
    end: u64,
}

/// A safetensors file read tensor by tensor (see the module documentation).
pub(super) struct FileTensors {
    file: Mutex<File>,
    entries: HashMap<String, Entry>,
}

impl FileTensors {
    /// Reads the header of `path`: names, dtypes, shapes and byte ranges (checked against the file).
    pub(super) fn open(path: &Path) -> Result<Self, String> {
        let mut file = File::open(path).map_err(|e| e.to_string())?;
        let size = file.metadata().map_err(|e| e.to_string())?.len();
        let mut length = [0u8; 8];
        file.read_exact(&mut length).map_err(|e| format!("no safetensors header: {e}"))?;
        let header_len = u64::from_le_bytes(length);
        if header_len > MAX_HEADER_BYTES || 8 + header_len > size {
            return Err(format!("safetensors header of {header_len} bytes in a file of {size}"));
        }
        let mut header = vec![0u8; header_len as usize];
        file.read_exact(&mut header).map_err(|e| e.to_string())?;
        let header: serde_json::Map<String, serde_json::Value> =
            serde_json::from_slice(&header).map_err(|e| format!("safetensors header: {e}"))?;
        let data_start = 8 + header_len;
        let mut entries = HashMap::new();
        for (name, info) in header {
            if name == "__metadata__" {
                continue;
            }
            let bad = || format!("safetensors header: bad entry {name:?}");
            let dtype = info["dtype"].as_str().ok_or_else(bad)?.to_owned();
            let numbers =
                |key: &str| -> Option<Vec<u64>> { info[key].as_array()?.iter().map(|v| v.as_u64()).collect() };
            let shape: Vec<usize> = numbers("shape").ok_or_else(bad)?.into_iter().map(|d| d as usize).collect();
            let [from, to] = numbers("data_offsets").ok_or_else(bad)?[..] else { return Err(bad()) };
            let (Some(start), Some(end)) = (data_start.checked_add(from), data_start.checked_add(to)) else {
                return Err(bad());
            };
            if from > to || end > size {
                return Err(bad());
            }
            entries.insert(name, Entry { dtype, shape, start, end });
        }
        Ok(Self { file: Mutex::new(file), entries })
    }

    /// Whether the file has a tensor called `name`.
    pub(super) fn contains(&self, name: &str) -> bool {
        self.entries.contains_key(name)
    }

    /// The f32 values of tensor `name`, which must have exactly `shape`, read in [`READ_BYTES`]
    /// pieces into one vector of their size.
    pub(super) fn read(&self, name: &str, shape: &[usize]) -> Result<Vec<f32>, String> {
        let entry = self.entries.get(name).ok_or_else(|| format!("no tensor {name}"))?;
        if entry.shape != shape {
            return Err(format!("tensor {name} has shape {:?}, expected {shape:?}", entry.shape));
        }
        let count = entry.shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d)).unwrap_or(usize::MAX);
        if entry.dtype != "F32" || count.checked_mul(4) != Some((entry.end - entry.start) as usize) {
            return Err(format!(
                "tensor {name}: {} of {} bytes, expected F32 of shape {:?}",
                entry.dtype,
                entry.end - entry.start,
                entry.shape
            ));
        }
        let mut values = Vec::with_capacity(count);
        let mut file = self.file.lock().map_err(|_| "weights file lock poisoned".to_owned())?;
        file.seek(SeekFrom::Start(entry.start)).map_err(|e| e.to_string())?;
        let mut buffer = vec![0u8; READ_BYTES.min(count * 4)];
        let mut left = count * 4;
        while left > 0 {
            let piece = &mut buffer[..READ_BYTES.min(left)];
            file.read_exact(piece).map_err(|e| format!("tensor {name}: {e}"))?;
            values.extend(piece.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])));
            left -= piece.len();
        }
        Ok(values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A safetensors file of `header` (JSON) and `data`.
    fn file(header: &str, data: &[u8]) -> tempfile::NamedTempFile {
        let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
        bytes.extend_from_slice(header.as_bytes());
        bytes.extend_from_slice(data);
        let f = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(f.path(), bytes).unwrap();
        f
    }

    fn floats(values: &[f32]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    #[test]
    fn tensors_are_read_by_name_with_their_shape() {
        let data = floats(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, -1.5]);
        let header = r#"{"__metadata__":{"format":"pt"},"w":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]},"b":{"dtype":"F32","shape":[1],"data_offsets":[24,28]}}"#;
        let f = file(header, &data);
        let tensors = FileTensors::open(f.path()).unwrap();
        assert!(tensors.contains("w") && !tensors.contains("__metadata__"));
        assert_eq!(tensors.read("w", &[2, 3]).unwrap(), vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        assert_eq!(tensors.read("b", &[1]).unwrap(), vec![-1.5]);
        // A shape other than the model's, or a name it does not have, is an error, not a guess.
        assert!(tensors.read("w", &[3, 2]).unwrap_err().contains("shape"));
        assert!(tensors.read("missing", &[1]).is_err());
    }

    #[test]
    fn damaged_files_are_refused() {
        // Header length beyond the file, or absurdly large: refused before allocating it.
        let f = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(f.path(), u64::MAX.to_le_bytes()).unwrap();
        assert!(FileTensors::open(f.path()).err().unwrap().contains("header"));
        // Offsets past the end of the file.
        let f = file(r#"{"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}"#, &floats(&[1.0]));
        assert!(FileTensors::open(f.path()).is_err());
        let f = file(r#"{"w":{"dtype":"F32","shape":[4],"data_offsets":[18446744073709551615,4]}}"#, &[]);
        assert!(FileTensors::open(f.path()).is_err());
        let f = file(r#"{"w":{"dtype":"F32","shape":[4611686018427387904,8],"data_offsets":[0,4]}}"#, &floats(&[1.0]));
        assert!(FileTensors::open(f.path()).unwrap().read("w", &[4611686018427387904, 8]).is_err());
        // Not JSON.
        assert!(FileTensors::open(file("{not json", &[]).path()).is_err());
        // Another dtype, or a byte range that does not match the shape: refused when read.
        let f = file(
            r#"{"h":{"dtype":"F16","shape":[2],"data_offsets":[0,4]},"s":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}}"#,
            &floats(&[1.0]),
        );
        let tensors = FileTensors::open(f.path()).unwrap();
        assert!(tensors.read("h", &[2]).unwrap_err().contains("F16"));
        assert!(tensors.read("s", &[2]).is_err());
    }
}
