//! The store suites: rule store, account store, job queue and delivery log.
