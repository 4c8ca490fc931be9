//! A small pool of ONNX Runtime sessions of one model.
//!
//! `ort` runs a session through `&mut Session` (some ONNX Runtime internals
//! are not thread-safe), so one session serves one caller at a time. Instead
//! of 0.3.2's single mutex around a single session, callers borrow a session
//! from the pool, run it without any lock held, and give it back. The pool
//! grows on demand up to `max_sessions`; past that, callers wait for a free
//! one. Each extra session holds its own copy of the weights.

use std::path::PathBuf;
use std::sync::{Condvar, Mutex, PoisonError};

use ort::environment::Environment;
use ort::session::Session;
use ort::session::builder::GraphOptimizationLevel;

use crate::{Error, Result};

/// How to open one more session.
#[derive(Clone, Debug)]
pub(crate) struct SessionConfig {
    pub(crate) onnx_path: PathBuf,
    pub(crate) intra_threads: Option<usize>,
    pub(crate) spinning: Option<bool>,
}

impl SessionConfig {
    pub(crate) fn open(&self, env: &Environment) -> Result<Session> {
        let onnx = |what: &str, e: &dyn core::fmt::Display| {
            Error::Onnx(format!("{what} `{}`: {e}", self.onnx_path.display()))
        };
        let mut b = Session::builder(env)
            .map_err(|e| onnx("cannot create a session for", &e))?
            // `All` (ORT_ENABLE_ALL = 99): `Level3` maps to ORT_ENABLE_LAYOUT, which
            // runtimes before 1.23 reject.
            .with_optimization_level(GraphOptimizationLevel::All)
            .map_err(|e| onnx("cannot configure the session for", &e))?;
        if let Some(n) = self.intra_threads {
            b = b
                .with_intra_threads(n)
                .map_err(|e| onnx("cannot set intra_threads for", &e))?;
        }
        if let Some(spin) = self.spinning {
            b = b
                .with_intra_op_spinning(spin)
                .map_err(|e| onnx("cannot set intra-op spinning for", &e))?;
        }
        b.commit_from_file(&self.onnx_path)
            .map_err(|e| onnx("cannot load the ONNX model", &e))
    }
}

struct State {
    idle: Vec<Session>,
    /// Sessions that exist (idle or lent out) or are being opened.
    live: usize,
}

pub(crate) struct SessionPool {
    env: Environment,
    config: SessionConfig,
    max_sessions: usize,
    state: Mutex<State>,
    returned: Condvar,
}

impl SessionPool {
    /// A pool holding `first` (already opened, so load errors surface in `build`).
    pub(crate) fn new(
        env: Environment,
        config: SessionConfig,
        max_sessions: usize,
        first: Session,
    ) -> Self {
        Self {
            env,
            config,
            max_sessions: max_sessions.max(1),
            state: Mutex::new(State {
                idle: vec![first],
                live: 1,
            }),
            returned: Condvar::new(),
        }
    }

    /// Run `f` with exclusive use of one session.
    pub(crate) fn with_session<T>(&self, f: impl FnOnce(&mut Session) -> Result<T>) -> Result<T> {
        // The lease returns the session even if `f` unwinds, so a panic in
        // one caller cannot starve the others.
        struct Lease<'p> {
            pool: &'p SessionPool,
            session: Option<Session>,
        }
        impl Drop for Lease<'_> {
            fn drop(&mut self) {
                if let Some(s) = self.session.take() {
                    self.pool.give_back(s);
                }
            }
        }
        let mut lease = Lease {
            pool: self,
            session: Some(self.take()?),
        };
        match lease.session.as_mut() {
            Some(s) => f(s),
            None => unreachable!("a lease always holds a session until dropped"),
        }
    }

    fn take(&self) -> Result<Session> {
        let mut st = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if let Some(s) = st.idle.pop() {
                return Ok(s);
            }
            if st.live < self.max_sessions {
                st.live += 1;
                drop(st);
                // Opening takes a fraction of a second: do it unlocked so
                // callers holding sessions can return them meanwhile.
                return self.config.open(&self.env).inspect_err(|_| {
                    let mut st = self.state.lock().unwrap_or_else(PoisonError::into_inner);
                    st.live -= 1;
                    self.returned.notify_one();
                });
            }
            st = self
                .returned
                .wait(st)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    fn give_back(&self, s: Session) {
        let mut st = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        st.idle.push(s);
        drop(st);
        self.returned.notify_one();
    }

    /// Sessions opened so far.
    pub(crate) fn sessions(&self) -> usize {
        self.state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .live
    }
}
