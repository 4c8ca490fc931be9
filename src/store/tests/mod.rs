//! Unit tests of the parent module, one file per topic.

mod decision;
mod decision_fixtures;
