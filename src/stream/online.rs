//! An [`Engine`] paired with the sketch its tokens go to: the common body of
//! [`MinHashStreaming`](crate::MinHashStreaming) and
//! [`SimHashStreaming`](crate::SimHashStreaming).

use super::engine::Engine;
use crate::Result;
use crate::canonical::Canonicalizer;
use crate::classical::TokenSketch;
use crate::tokenize::Tokenizer;

/// Streaming state of one document for one sketch type.
pub(crate) struct Online<S> {
    pub(crate) engine: Engine,
    sketch: S,
}

impl<S: TokenSketch> Online<S> {
    pub(crate) fn new(sketch: S, max_bytes: usize) -> Self {
        Online {
            engine: Engine::new(max_bytes),
            sketch,
        }
    }

    pub(crate) fn update(
        &mut self,
        canon: &Canonicalizer,
        tok: &dyn Tokenizer,
        chunk: &[u8],
    ) -> Result<()> {
        let sketch = &mut self.sketch;
        self.engine
            .update(canon, tok, chunk, &mut |t| sketch.push(t))
    }

    pub(crate) fn finalize(
        mut self,
        canon: &Canonicalizer,
        tok: &dyn Tokenizer,
    ) -> Result<S::Output> {
        let sketch = &mut self.sketch;
        self.engine.finish(canon, tok, &mut |t| sketch.push(t))?;
        self.sketch.finish()
    }

    /// The sketch fed so far.
    #[cfg(feature = "minhash")]
    pub(crate) fn sketch(&self) -> &S {
        &self.sketch
    }

    /// The sketch, to change its settings.
    #[cfg(feature = "minhash")]
    pub(crate) fn sketch_mut(&mut self) -> &mut S {
        &mut self.sketch
    }

    /// Starts a new document with a fresh sketch, keeping the buffers.
    pub(crate) fn reset(&mut self, sketch: S) {
        self.engine.reset();
        self.sketch = sketch;
    }
}

/// The `std::io::Error` a failed [`std::io::Write::write`] reports: bad
/// UTF-8 is `InvalidData`, anything else (the cap, the configuration)
/// `InvalidInput`. The [`crate::Error`] is kept as the source
/// (`io::Error::into_inner` / `get_ref` give it back).
#[cfg(feature = "std")]
pub(crate) fn io_error(e: crate::Error) -> std::io::Error {
    let kind = match e {
        crate::Error::InvalidUtf8 { .. } => std::io::ErrorKind::InvalidData,
        _ => std::io::ErrorKind::InvalidInput,
    };
    std::io::Error::new(kind, e)
}
