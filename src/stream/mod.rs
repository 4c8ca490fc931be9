//! Crate-internal streaming engine (owned by the streaming work; placeholder).
