//! all-MiniLM-L6-v2's token embeddings and pooling around the shared BERT encoder
//! (`bert/mod.rs`), from the weights of its safetensors file. The vectors are those of
//! sentence-transformers up to float rounding (tests/minilm.rs holds them to its reference
//! vectors).

use super::VectorWithTokenStates;
use super::weights::FileTensors;
pub(super) use crate::bert::Scratch;
use crate::bert::{self, Dense, Layer, Norm, Shape};

/// The shape of the network, from the model's `config.json`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Config {
    pub(super) vocab_size: usize,
    pub(super) hidden_size: usize,
    pub(super) layers: usize,
    pub(super) heads: usize,
    pub(super) intermediate_size: usize,
    pub(super) max_positions: usize,
    pub(super) token_types: usize,
    pub(super) layer_norm_eps: f32,
}

impl Config {
    /// Reads a BERT `config.json`; only the exact-GELU BERT this encoder computes is accepted.
    pub(super) fn parse(json: &serde_json::Value) -> Result<Self, String> {
        let number = |key: &str| -> Result<usize, String> {
            json.get(key)
                .and_then(serde_json::Value::as_u64)
                .filter(|&n| n > 0 && n <= 1 << 20)
                .map(|n| n as usize)
                .ok_or_else(|| format!("not a BERT configuration: {key} missing or out of range"))
        };
        let activation = json.get("hidden_act").and_then(serde_json::Value::as_str);
        if activation != Some("gelu") {
            return Err(format!("hidden_act {activation:?}, expected \"gelu\""));
        }
        let config = Self {
            vocab_size: number("vocab_size")?,
            hidden_size: number("hidden_size")?,
            layers: number("num_hidden_layers")?,
            heads: number("num_attention_heads")?,
            intermediate_size: number("intermediate_size")?,
            max_positions: number("max_position_embeddings")?,
            token_types: number("type_vocab_size")?,
            layer_norm_eps: json.get("layer_norm_eps").and_then(serde_json::Value::as_f64).unwrap_or(1e-12) as f32,
        };
        if !config.hidden_size.is_multiple_of(config.heads) {
            return Err(format!("hidden_size {} is not a multiple of {} heads", config.hidden_size, config.heads));
        }
        Ok(config)
    }
}

/// The token embeddings, and the network after them.
pub(super) struct Encoder {
    config: Config,
    word_embeddings: Vec<f32>,
    position_embeddings: Vec<f32>,
    token_type_embeddings: Vec<f32>,
    network: bert::Encoder,
}

/// One input: its token ids and token type ids (the same length).
pub(super) struct Input<'a> {
    pub(super) ids: &'a [u32],
    pub(super) type_ids: &'a [u32],
}

impl Encoder {
    /// Reads every weight from `tensors`, checking its shape against `config`.
    pub(super) fn load(tensors: &FileTensors, config: Config) -> Result<Self, String> {
        // sentence-transformers saves the bare encoder; a full BERT checkpoint has a `bert.` prefix.
        let prefix = if tensors.contains("bert.embeddings.word_embeddings.weight") { "bert." } else { "" };
        let read = |name: &str, shape: &[usize]| tensors.read(&format!("{prefix}{name}"), shape);
        // Older checkpoints call a layer norm's weight and bias gamma and beta.
        let norm = |name: &str, width: usize| -> Result<Norm, String> {
            let named = |new: &str, old: &str| {
                let new = format!("{name}.{new}");
                if tensors.contains(&format!("{prefix}{new}")) { new } else { format!("{name}.{old}") }
            };
            Ok(Norm {
                gamma: read(&named("weight", "gamma"), &[width])?,
                beta: read(&named("bias", "beta"), &[width])?,
            })
        };
        // PyTorch's `outputs × inputs` weights, with their biases.
        let raw = |name: &str, inputs: usize, outputs: usize| -> Result<(Vec<f32>, Vec<f32>), String> {
            Ok((read(&format!("{name}.weight"), &[outputs, inputs])?, read(&format!("{name}.bias"), &[outputs])?))
        };
        let dense = |name: &str, inputs: usize, outputs: usize| -> Result<Dense, String> {
            let (weight, bias) = raw(name, inputs, outputs)?;
            Ok(Dense::from_pytorch(&weight, bias, inputs, outputs))
        };
        let (h, i) = (config.hidden_size, config.intermediate_size);
        let layers = (0..config.layers)
            .map(|n| {
                let at = |part: &str| format!("encoder.layer.{n}.{part}");
                let [q, k, v] = ["query", "key", "value"].map(|p| raw(&at(&format!("attention.self.{p}")), h, h));
                Ok(Layer {
                    query_key_value: Dense::stacked([q?, k?, v?], h),
                    attention_output: dense(&at("attention.output.dense"), h, h)?,
                    attention_norm: norm(&at("attention.output.LayerNorm"), h)?,
                    intermediate: dense(&at("intermediate.dense"), h, i)?,
                    output: dense(&at("output.dense"), i, h)?,
                    output_norm: norm(&at("output.LayerNorm"), h)?,
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        let shape = Shape {
            hidden: h,
            heads: config.heads,
            intermediate: i,
            max_positions: config.max_positions,
            eps: config.layer_norm_eps,
        };
        Ok(Self {
            word_embeddings: read("embeddings.word_embeddings.weight", &[config.vocab_size, h])?,
            position_embeddings: read("embeddings.position_embeddings.weight", &[config.max_positions, h])?,
            token_type_embeddings: read("embeddings.token_type_embeddings.weight", &[config.token_types, h])?,
            network: bert::Encoder::new(shape, norm("embeddings.LayerNorm", h)?, layers),
            config,
        })
    }

    /// The mean-pooled, L2-normalised vector of each input (the sentence embedding). Runs its
    /// parallel parts on the current rayon pool. An id or position the model does not have is an
    /// error.
    pub(super) fn embed(&self, inputs: &[Input<'_>], scratch: &mut Scratch) -> Result<Vec<Vec<f32>>, String> {
        self.read_out(inputs, scratch, |rows| self.pool(rows))
    }

    /// Mean pooling of an input's rows, then unit length.
    fn pool(&self, rows: &[f32]) -> Result<Vec<f32>, String> {
        // The sum, not the mean: the mean's 1/n cancels in the normalisation.
        let mut sum = vec![0f32; self.config.hidden_size];
        for row in rows.chunks_exact(self.config.hidden_size) {
            sum.iter_mut().zip(row).for_each(|(s, x)| *s += x);
        }
        unit(&mut sum)?;
        Ok(sum)
    }

    /// Per input, its sentence vector (as [`Self::embed`] makes it) and the final hidden state of
    /// each of its tokens (`[CLS]` and `[SEP]` included), each scaled to unit length, one row of
    /// `hidden_size` after another: what a late-interaction score (MaxSim) compares. One pass
    /// gives both.
    pub(super) fn embed_with_token_states(
        &self,
        inputs: &[Input<'_>],
        scratch: &mut Scratch,
    ) -> Result<Vec<VectorWithTokenStates>, String> {
        self.read_out(inputs, scratch, |rows| {
            let mut states = rows.to_vec();
            states.chunks_exact_mut(self.config.hidden_size).try_for_each(unit)?;
            Ok(VectorWithTokenStates { vector: self.pool(rows)?, token_states: states })
        })
    }

    /// Runs the network over `inputs` and turns each input's final hidden states (its rows) into
    /// its output with `f`. An id or type the model does not have is an error.
    fn read_out<T>(
        &self,
        inputs: &[Input<'_>],
        scratch: &mut Scratch,
        f: impl Fn(&[f32]) -> Result<T, String>,
    ) -> Result<Vec<T>, String> {
        let c = &self.config;
        for input in inputs {
            if input.type_ids.len() != input.ids.len() {
                return Err(format!("{} token ids with {} types", input.ids.len(), input.type_ids.len()));
            }
            for (&id, &type_id) in input.ids.iter().zip(input.type_ids) {
                if id as usize >= c.vocab_size || type_id as usize >= c.token_types {
                    return Err(format!("token id {id} or type {type_id} is not in the model's vocabulary"));
                }
            }
        }
        let h = c.hidden_size;
        let lengths: Vec<usize> = inputs.iter().map(|input| input.ids.len()).collect();
        // Word + position + token type.
        let embed = |n: usize, position: usize, row: &mut [f32]| {
            let input = &inputs[n];
            let (id, type_id) = (input.ids[position] as usize, input.type_ids[position] as usize);
            let word = &self.word_embeddings[id * h..][..h];
            let place = &self.position_embeddings[position * h..][..h];
            let kind = &self.token_type_embeddings[type_id * h..][..h];
            for (((x, w), p), t) in row.iter_mut().zip(word).zip(place).zip(kind) {
                *x = w + t + p;
            }
        };
        let starts = self.network.forward(&lengths, scratch, embed)?;
        lengths.iter().zip(&starts).map(|(&len, &start)| f(self.network.rows(scratch, start, len))).collect()
    }
}

/// Scales `v` to unit length; a zero or non-finite vector is an error.
fn unit(v: &mut [f32]) -> Result<(), String> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if !norm.is_finite() || norm == 0.0 {
        return Err("a vector is not finite".to_owned());
    }
    v.iter_mut().for_each(|x| *x /= norm);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_configuration_must_be_an_exact_gelu_bert() {
        let json = serde_json::json!({
            "vocab_size": 30522, "hidden_size": 384, "num_hidden_layers": 6, "num_attention_heads": 12,
            "intermediate_size": 1536, "max_position_embeddings": 512, "type_vocab_size": 2,
            "layer_norm_eps": 1e-12, "hidden_act": "gelu"
        });
        let config = Config::parse(&json).unwrap();
        assert_eq!((config.hidden_size, config.heads, config.layers), (384, 12, 6));
        let with = |key: &str, value: serde_json::Value| {
            let mut changed = json.clone();
            changed[key] = value;
            Config::parse(&changed)
        };
        assert!(with("hidden_act", "gelu_new".into()).unwrap_err().contains("hidden_act"));
        assert!(with("num_attention_heads", 5.into()).unwrap_err().contains("multiple"));
        assert!(with("hidden_size", 0.into()).unwrap_err().contains("hidden_size"));
        assert!(with("vocab_size", (-1).into()).unwrap_err().contains("vocab_size"));
    }
}
