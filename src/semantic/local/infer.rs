//! Tokenize → pad → one ONNX run per batch → pool.

use std::borrow::Cow;

use ort::session::{Session, SessionInputValue};
use ort::value::Tensor;
use tokenizers::{Encoding, Tokenizer};

use crate::semantic::embedding::normalize_in_place;
use crate::{Error, Pooling, Result};

/// Which inputs the graph takes and which output holds the vectors, read once
/// from the first session.
#[derive(Clone, Debug)]
pub(crate) struct ModelIo {
    has_mask: bool,
    has_type_ids: bool,
    output: String,
}

/// Outputs in order of preference: already pooled, then token states.
const OUTPUT_PREFERENCE: [&str; 4] = [
    "sentence_embedding",
    "last_hidden_state",
    "token_embeddings",
    "pooler_output",
];

impl ModelIo {
    pub(crate) fn inspect(session: &Session) -> Result<Self> {
        let (mut ids, mut has_mask, mut has_type_ids) = (false, false, false);
        for input in session.inputs() {
            match input.name() {
                "input_ids" => ids = true,
                "attention_mask" => has_mask = true,
                "token_type_ids" => has_type_ids = true,
                other => {
                    return Err(Error::Onnx(format!(
                        "unexpected ONNX input `{other}`: LocalProvider feeds only input_ids, attention_mask and token_type_ids"
                    )));
                }
            }
        }
        if !ids {
            return Err(Error::Onnx(String::from(
                "the ONNX model has no `input_ids` input",
            )));
        }
        let names: Vec<&str> = session.outputs().iter().map(|o| o.name()).collect();
        let output = OUTPUT_PREFERENCE
            .iter()
            .find(|want| names.contains(want))
            .copied()
            .or(names.first().copied())
            .ok_or_else(|| Error::Onnx(String::from("the ONNX model has no output")))?;
        Ok(Self {
            has_mask,
            has_type_ids,
            output: output.to_string(),
        })
    }
}

/// Cut `text` after `4 × max_tokens + 8` whitespace-separated pieces before
/// tokenizing: every piece yields at least one token with the usual
/// pre-tokenizers, so the tokens kept by truncation are unchanged, while a
/// huge document no longer costs time and memory for tokens thrown away.
pub(crate) fn cut_for_tokenizer(text: &str, max_tokens: usize) -> &str {
    let limit = max_tokens.saturating_mul(4).saturating_add(8);
    let mut pieces = 0usize;
    let mut in_space = true;
    for (i, c) in text.char_indices() {
        let space = c.is_whitespace();
        if in_space && !space {
            pieces += 1;
            if pieces > limit {
                return &text[..i];
            }
        }
        in_space = space;
    }
    text
}

pub(crate) fn encode(tokenizer: &Tokenizer, text: &str) -> Result<Encoding> {
    let enc = tokenizer
        .encode_fast(text, true)
        .map_err(|e| Error::Tokenizer(e.to_string()))?;
    if enc.is_empty() {
        return Err(Error::InvalidInput(String::from(
            "tokenizer produced empty sequence",
        )));
    }
    Ok(enc)
}

/// Run one batch: pad to the longest encoding, one `session.run`, pool each
/// row. Returns one vector per encoding, in order.
pub(crate) fn run_batch(
    session: &mut Session,
    io: &ModelIo,
    pooling: Pooling,
    pad_id: u32,
    encodings: &[&Encoding],
) -> Result<Vec<Vec<f32>>> {
    let batch = encodings.len();
    let seq = encodings.iter().map(|e| e.len()).max().unwrap_or(0);
    if batch == 0 || seq == 0 {
        return Ok(Vec::new());
    }
    let mut ids = vec![i64::from(pad_id); batch * seq];
    let mut mask = vec![0i64; batch * seq];
    let mut types = vec![0i64; batch * seq];
    for (row, enc) in encodings.iter().enumerate() {
        let at = row * seq;
        for (k, ((&id, &m), &t)) in enc
            .get_ids()
            .iter()
            .zip(enc.get_attention_mask())
            .zip(enc.get_type_ids())
            .enumerate()
        {
            ids[at + k] = i64::from(id);
            mask[at + k] = i64::from(m);
            types[at + k] = i64::from(t);
        }
    }
    let shape = [batch as i64, seq as i64];
    let tensor = |name: &'static str,
                  data: Vec<i64>|
     -> Result<(Cow<'static, str>, SessionInputValue<'static>)> {
        let t = Tensor::from_array((shape, data))
            .map_err(|e| Error::Onnx(format!("cannot build the `{name}` tensor: {e}")))?;
        Ok((Cow::Borrowed(name), t.into()))
    };
    let mut inputs = vec![tensor("input_ids", ids)?];
    if io.has_mask {
        inputs.push(tensor("attention_mask", mask.clone())?);
    }
    if io.has_type_ids {
        inputs.push(tensor("token_type_ids", types)?);
    }
    let outputs = session
        .run(inputs)
        .map_err(|e| Error::Onnx(format!("inference failed: {e}")))?;
    let value = outputs
        .get(&io.output)
        .ok_or_else(|| Error::Onnx(format!("the model returned no `{}` output", io.output)))?;
    let (dims, data) = value.try_extract_tensor::<f32>().map_err(|e| {
        Error::Onnx(format!(
            "output `{}` is not a float32 tensor: {e}",
            io.output
        ))
    })?;
    let dims: Vec<i64> = dims.iter().copied().collect();
    let bad_shape = || {
        Error::Onnx(format!(
            "output `{}` has shape {dims:?}, expected [{batch}, dim] or [{batch}, {seq}, dim]",
            io.output
        ))
    };
    match dims.as_slice() {
        &[b, d] => {
            let d = usize::try_from(d).map_err(|_| bad_shape())?;
            if usize::try_from(b) != Ok(batch) || d == 0 || data.len() != batch * d {
                return Err(bad_shape());
            }
            Ok(data
                .chunks_exact(d)
                .map(|row| {
                    let mut v = row.to_vec();
                    if pooling.normalizes() {
                        normalize_in_place(&mut v);
                    }
                    v
                })
                .collect())
        }
        &[b, s, d] => {
            let d = usize::try_from(d).map_err(|_| bad_shape())?;
            if usize::try_from(b) != Ok(batch) || usize::try_from(s) != Ok(seq) || d == 0 {
                return Err(bad_shape());
            }
            if data.len() != batch * seq * d {
                return Err(bad_shape());
            }
            data.chunks_exact(seq * d)
                .zip(mask.chunks_exact(seq))
                .map(|(hidden, m)| pooling.try_apply(hidden, d, m))
                .collect()
        }
        other => Err(Error::Onnx(format!(
            "unsupported output rank: {} (output `{}`)",
            other.len(),
            io.output
        ))),
    }
}

#[cfg(test)]
mod tests;
