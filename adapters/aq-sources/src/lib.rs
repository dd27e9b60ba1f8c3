//! Placeholder; built in its own issue.
