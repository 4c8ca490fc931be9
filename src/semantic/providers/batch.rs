//! What the three providers share beyond HTTP: the model and its dimension,
//! splitting a batch into requests, and turning parsed vectors into checked
//! [`Embedding`]s.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::http::Transport;
use crate::semantic::{Embedding, MAX_EMBEDDING_DIM};
use crate::{Error, Result};

/// Response bytes allowed per value of a vector: JSON floats run to about
/// 20 characters, 25 in the pretty-printed answers some APIs send.
const BYTES_PER_VALUE: u64 = 48;
/// Dimension assumed for the size cap while a model's dimension is unknown.
const UNKNOWN_DIM_HINT: u64 = 8192;

/// The state every provider has besides its API-specific request shape.
#[derive(Clone, Debug)]
pub(crate) struct Core {
    pub(crate) transport: Transport,
    pub(crate) model: String,
    /// The requested output dimension, sent to the API when set.
    pub(crate) dimensions: Option<usize>,
    /// Known dimension: requested, from the model table, or learned from the
    /// first answer (0 = unknown yet). Shared by clones, which use the same
    /// model; changing the model or dimension detaches it.
    dim: Arc<AtomicUsize>,
    /// Inputs per request (1..=`max_batch`).
    pub(crate) batch_size: usize,
    /// The API's limit on inputs per request.
    max_batch: usize,
    /// The API's table of model dimensions (0 for a model it does not know).
    model_dim: fn(&str) -> usize,
}

impl Core {
    /// The state of a provider that starts on `model`, sending up to
    /// `max_batch` inputs per request.
    pub(crate) fn new(
        transport: Transport,
        model: &str,
        model_dim: fn(&str) -> usize,
        max_batch: usize,
    ) -> Self {
        Self {
            transport,
            model: model.to_string(),
            dimensions: None,
            dim: Arc::new(AtomicUsize::new(model_dim(model))),
            batch_size: max_batch,
            max_batch,
            model_dim,
        }
    }

    /// Switches model; the dimension comes from the model table (0 if
    /// unknown) unless an output dimension was requested.
    pub(crate) fn set_model(&mut self, model: String) {
        let dim = self.dimensions.unwrap_or_else(|| (self.model_dim)(&model));
        self.model = model;
        self.dim = Arc::new(AtomicUsize::new(dim));
    }

    /// Inputs per request, clamped to `1..=max_batch`.
    pub(crate) fn set_batch_size(&mut self, n: usize) {
        self.batch_size = n.clamp(1, self.max_batch);
    }

    /// Requests `n`-value vectors from the API.
    pub(crate) fn set_dimensions(&mut self, n: usize) -> Result<()> {
        if n == 0 || n > MAX_EMBEDDING_DIM {
            return Err(Error::Config(format!(
                "{} output dimension must be in 1..={MAX_EMBEDDING_DIM}, got {n}",
                self.transport.provider()
            )));
        }
        self.dimensions = Some(n);
        self.dim = Arc::new(AtomicUsize::new(n));
        Ok(())
    }

    pub(crate) fn dimension(&self) -> usize {
        self.dim.load(Ordering::Relaxed)
    }

    /// Embeds `texts` in requests of at most `batch_size` inputs.
    /// `request` serializes one chunk, `parse` returns its vectors in input
    /// order (and checks their count).
    pub(crate) fn run<S: AsRef<str>>(
        &self,
        texts: &[S],
        path: &str,
        request: impl Fn(&[&str]) -> serde_json::Result<Vec<u8>>,
        parse: impl Fn(&Transport, &[u8], usize) -> Result<Vec<Vec<f32>>>,
    ) -> Result<Vec<Embedding>> {
        if self.model.is_empty() {
            return Err(Error::Config(format!(
                "{} model name is empty",
                self.transport.provider()
            )));
        }
        let texts: Vec<&str> = texts.iter().map(AsRef::as_ref).collect();
        if let Some(i) = texts.iter().position(|t| t.is_empty()) {
            return Err(Error::InvalidInput(format!(
                "text {i} of the batch is empty; {} rejects empty inputs",
                self.transport.provider()
            )));
        }
        let mut out = Vec::with_capacity(texts.len());
        for (c, chunk) in texts.chunks(self.batch_size.max(1)).enumerate() {
            let body = request(chunk).map_err(|e| self.transport.bad_response(e))?;
            let bytes = self
                .transport
                .post_json(path, &body, self.response_cap(chunk.len()))?;
            let vectors = parse(&self.transport, &bytes, chunk.len())?;
            let first = c * self.batch_size.max(1);
            for (i, v) in vectors.into_iter().enumerate() {
                out.push(self.checked(v, first + i)?);
            }
        }
        Ok(out)
    }

    /// Bytes allowed for an answer to `n` inputs: enough for the vectors of
    /// the known (or a generous assumed) dimension, and no more, so a broken
    /// or hostile server cannot make us buffer without bound.
    fn response_cap(&self, n: usize) -> u64 {
        let dim = match self.dimension() {
            0 => UNKNOWN_DIM_HINT,
            d => d as u64,
        };
        64 * 1024 + (n as u64) * (dim * BYTES_PER_VALUE + 1024)
    }

    /// Validates one vector (finite, non-empty, within the cap) and its
    /// length against the known dimension, learning it from the first.
    fn checked(&self, v: Vec<f32>, input: usize) -> Result<Embedding> {
        let got = v.len();
        let e = Embedding::with_model(v, Some(self.model.clone())).map_err(|e| {
            let why = match e {
                Error::InvalidInput(m) => m,
                other => other.to_string(),
            };
            self.transport.bad_response(format!("input {input}: {why}"))
        })?;
        let known = match self
            .dim
            .compare_exchange(0, got, Ordering::Relaxed, Ordering::Relaxed)
        {
            Ok(_) => got,
            Err(d) => d,
        };
        if got != known {
            return Err(self.transport.bad_response(format!(
                "input {input}: a {got}-value embedding, but {} gives {known} values",
                self.model
            )));
        }
        Ok(e)
    }
}

/// The answer shape OpenAI and Voyage share: `{"data": [{"embedding",
/// "index"}], ...}`.
#[cfg(any(feature = "openai", feature = "voyage"))]
#[derive(serde::Deserialize)]
struct IndexedResponse {
    data: Vec<IndexedItem>,
}

#[cfg(any(feature = "openai", feature = "voyage"))]
#[derive(serde::Deserialize)]
struct IndexedItem {
    embedding: Vec<f32>,
    index: usize,
}

/// The vectors of an [`IndexedResponse`] body for `n` inputs, in input order.
#[cfg(any(feature = "openai", feature = "voyage"))]
pub(crate) fn parse_indexed(t: &Transport, body: &[u8], n: usize) -> Result<Vec<Vec<f32>>> {
    let r: IndexedResponse = parse_json(t, body)?;
    let items = r.data.into_iter().map(|i| (i.index, i.embedding)).collect();
    by_index(t, items, n)
}

/// Puts `(index, vector)` pairs in index order, checking that the indices
/// are exactly `0..n` (OpenAI and Voyage return an `index` per item).
#[cfg(any(feature = "openai", feature = "voyage"))]
fn by_index(t: &Transport, items: Vec<(usize, Vec<f32>)>, n: usize) -> Result<Vec<Vec<f32>>> {
    check_count(t, items.len(), n)?;
    let mut slots: Vec<Option<Vec<f32>>> = vec![None; n];
    for (index, v) in items {
        match slots.get_mut(index) {
            Some(slot @ None) => *slot = Some(v),
            Some(Some(_)) => return Err(t.bad_response(format!("index {index} appears twice"))),
            None => {
                return Err(t.bad_response(format!("index {index} is out of range for {n} inputs")));
            }
        }
    }
    // n items with distinct in-range indices fill every slot.
    Ok(slots.into_iter().flatten().collect())
}

/// The answer must hold one embedding per input.
pub(crate) fn check_count(t: &Transport, got: usize, n: usize) -> Result<()> {
    match got {
        0 if n > 0 => Err(Error::EmptyEmbedding),
        g if g != n => Err(t.bad_response(format!("{g} embeddings for {n} inputs"))),
        _ => Ok(()),
    }
}

/// Parses a JSON body into `T`, as an `Http` error naming the provider when
/// it is not the documented shape.
pub(crate) fn parse_json<T: serde::de::DeserializeOwned>(t: &Transport, body: &[u8]) -> Result<T> {
    serde_json::from_slice(body).map_err(|e| t.bad_response(format!("malformed JSON: {e}")))
}
