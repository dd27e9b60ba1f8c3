//! Accounts: email normalisation and password hashing (argon2id).
