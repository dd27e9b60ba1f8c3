//! The file-store and URL-signer suite.
