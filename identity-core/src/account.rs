//! Accounts: email normalisation and password hashing (argon2id).
//!
//! The dashboard's sign-up and sign-in and the admin command both go through these functions,
//! so an account created in a terminal signs in on the web and the other way round.
//!
//! ```
//! use identity_core::account::{hash_password, normalize_email, verify_password, Password};
//! use identity_core::randomness::SeededRandomness;
//!
//! let email = normalize_email("  Ada@Example.ORG ").unwrap();
//! assert_eq!(email, "ada@example.org");
//!
//! let password = Password::new("correct horse battery").unwrap();
//! let hash = hash_password(&password, &SeededRandomness::default()).unwrap();
//! assert!(hash.starts_with("$argon2id$"));
//! assert!(verify_password("correct horse battery", &hash).unwrap());
//! assert!(!verify_password("Correct horse battery", &hash).unwrap());
//! ```

use std::fmt;

use argon2::Argon2;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use thiserror::Error;

use crate::randomness::SecretRng;

/// The longest email accepted, in bytes (the limit of RFC 5321's forward path).
pub const MAX_EMAIL_LEN: usize = 254;
/// The fewest characters a password may have.
pub const MIN_PASSWORD_CHARS: usize = 10;
/// The most characters a password may have; longer ones only cost hashing time.
pub const MAX_PASSWORD_CHARS: usize = 128;

/// Why an email address was refused. Each message says what to change.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum EmailError {
    /// Nothing but blanks.
    #[error("email: enter an email address")]
    Empty,
    /// Over [`MAX_EMAIL_LEN`] bytes.
    #[error("email: at most {max} characters, got {len}")]
    TooLong {
        /// The limit.
        max: usize,
        /// The length given, in bytes.
        len: usize,
    },
    /// Not of the form `name@domain.tld`.
    #[error("email: `{0}` is not an email address; expected the form name@example.com")]
    Shape(String),
}

/// Trims and lower-cases an email address and checks its shape: one `@`, a non-empty local
/// part, a domain of dot-separated labels with at least one dot, and no spaces or control
/// characters. Deliverability is not checked; the shape check only catches typing mistakes.
///
/// # Errors
/// [`EmailError`] saying what is wrong.
pub fn normalize_email(raw: &str) -> Result<String, EmailError> {
    let email = raw.trim().to_lowercase();
    if email.is_empty() {
        return Err(EmailError::Empty);
    }
    if email.len() > MAX_EMAIL_LEN {
        return Err(EmailError::TooLong {
            max: MAX_EMAIL_LEN,
            len: email.len(),
        });
    }
    if !email_shape_ok(&email) {
        return Err(EmailError::Shape(email));
    }
    Ok(email)
}

fn email_shape_ok(email: &str) -> bool {
    let Some((local, domain)) = email.split_once('@') else {
        return false;
    };
    let allowed = |c: char| !c.is_whitespace() && !c.is_control() && !"@<>()[]\\,;:\"".contains(c);
    let local_ok = !local.is_empty() && local.len() <= 64 && local.chars().all(allowed);
    let labels: Vec<&str> = domain.split('.').collect();
    let domain_ok = labels.len() >= 2
        && labels.iter().all(|label| {
            !label.is_empty()
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label.chars().all(|c| c.is_alphanumeric() || c == '-')
        });
    local_ok && domain_ok
}

/// Why a password was refused. Each message says what the password needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum PasswordError {
    /// Fewer than [`MIN_PASSWORD_CHARS`] characters.
    #[error("password: use at least {min} characters (got {len}); a few unrelated words work well")]
    TooShort {
        /// The minimum.
        min: usize,
        /// The length given, in characters.
        len: usize,
    },
    /// More than [`MAX_PASSWORD_CHARS`] characters.
    #[error("password: use at most {max} characters (got {len})")]
    TooLong {
        /// The maximum.
        max: usize,
        /// The length given, in characters.
        len: usize,
    },
    /// Only blanks.
    #[error("password: use some characters other than spaces")]
    Blank,
}

/// A password that meets the policy: 10 to 128 characters, not only blanks. Any characters are
/// allowed, and nothing is trimmed, since a passphrase may well end in a space. Its `Debug`
/// output hides it.
#[derive(Clone, PartialEq, Eq)]
pub struct Password(String);

impl Password {
    /// Checks `raw` against the policy.
    ///
    /// # Errors
    /// [`PasswordError`] saying what the password needs.
    pub fn new(raw: &str) -> Result<Self, PasswordError> {
        let len = raw.chars().count();
        if len < MIN_PASSWORD_CHARS {
            return Err(PasswordError::TooShort {
                min: MIN_PASSWORD_CHARS,
                len,
            });
        }
        if len > MAX_PASSWORD_CHARS {
            return Err(PasswordError::TooLong {
                max: MAX_PASSWORD_CHARS,
                len,
            });
        }
        if raw.trim().is_empty() {
            return Err(PasswordError::Blank);
        }
        Ok(Self(raw.to_owned()))
    }

    /// The password itself, to hash; never log it.
    #[must_use]
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Password(…)")
    }
}

/// Why hashing or verifying failed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum HashError {
    /// The stored hash is not an argon2 PHC string: the account record is damaged.
    #[error("the stored password hash is not a valid argon2 PHC string: {0}")]
    BadHash(String),
    /// The hasher refused its input (a bug: the parameters are fixed).
    #[error("password hashing failed: {0}")]
    Hashing(String),
}

/// Hashes a password with argon2id (the crate's defaults: 19 MiB, 2 passes, 1 lane, the
/// OWASP recommendation) and a 16-byte salt drawn from `rng`. Returns the PHC string
/// (`$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>`), which carries everything verification
/// needs, so the parameters can be raised later without breaking stored hashes.
///
/// # Errors
/// [`HashError::Hashing`] only on a bug.
pub fn hash_password(password: &Password, rng: &dyn SecretRng) -> Result<String, HashError> {
    let mut salt = [0u8; 16];
    rng.fill_bytes(&mut salt);
    Argon2::default()
        .hash_password_with_salt(password.expose().as_bytes(), &salt)
        .map(|hash| hash.to_string())
        .map_err(|e| HashError::Hashing(e.to_string()))
}

/// Whether `password` matches the stored PHC string `hash`. The comparison is constant time
/// (done by the `argon2` crate). The password is not checked against the policy, so that a
/// policy change never locks anyone out.
///
/// # Errors
/// [`HashError::BadHash`] when `hash` is not an argon2 PHC string.
pub fn verify_password(password: &str, hash: &str) -> Result<bool, HashError> {
    match Argon2::default().verify_password(password.as_bytes(), hash) {
        Ok(()) => Ok(true),
        Err(argon2::password_hash::Error::PasswordInvalid) => Ok(false),
        Err(e) => Err(HashError::BadHash(e.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use crate::randomness::SeededRandomness;

    use super::*;

    #[test]
    fn emails_are_trimmed_and_lower_cased() {
        assert_eq!(
            normalize_email("\tJane.Doe+alerts@Mail.Example.COM \n").unwrap(),
            "jane.doe+alerts@mail.example.com"
        );
        assert_eq!(normalize_email("ü@bücher.de").unwrap(), "ü@bücher.de");
    }

    #[test]
    fn malformed_emails_are_refused() {
        for bad in [
            "plain",
            "@example.com",
            "a@",
            "a@example",
            "a@@example.com",
            "a b@example.com",
            "a@exa mple.com",
            "a@.example.com",
            "a@example..com",
            "a@-example.com",
            "a@example.com.",
            "a<b>@example.com",
        ] {
            assert!(
                matches!(normalize_email(bad), Err(EmailError::Shape(_))),
                "{bad}"
            );
        }
        assert_eq!(normalize_email("   "), Err(EmailError::Empty));
    }

    #[test]
    fn long_emails_are_refused_with_the_limit() {
        let email = format!("{}@example.com", "a".repeat(250));
        let err = normalize_email(&email).unwrap_err();
        assert_eq!(err, EmailError::TooLong { max: 254, len: 262 });
        assert!(err.to_string().contains("at most 254"));
    }

    #[test]
    fn password_policy_bounds() {
        assert_eq!(
            Password::new("123456789"),
            Err(PasswordError::TooShort { min: 10, len: 9 })
        );
        assert!(Password::new("1234567890").is_ok());
        // Characters, not bytes: ten accented letters are twenty bytes but ten characters.
        assert!(Password::new(&"é".repeat(10)).is_ok());
        assert!(Password::new(&"é".repeat(9)).is_err());
        assert!(Password::new(&"x".repeat(128)).is_ok());
        assert_eq!(
            Password::new(&"x".repeat(129)),
            Err(PasswordError::TooLong { max: 128, len: 129 })
        );
        assert_eq!(Password::new(&" ".repeat(12)), Err(PasswordError::Blank));
        let err = Password::new("short").unwrap_err().to_string();
        assert!(err.contains("at least 10 characters"), "{err}");
    }

    #[test]
    fn password_debug_hides_it() {
        let p = Password::new("hunter2hunter2").unwrap();
        assert!(!format!("{p:?}").contains("hunter"));
    }

    #[test]
    fn hashes_are_argon2id_salted_and_verify() {
        let rng = SeededRandomness::default();
        let p = Password::new("a long enough passphrase").unwrap();
        let h1 = hash_password(&p, &rng).unwrap();
        let h2 = hash_password(&p, &rng).unwrap();
        assert!(h1.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{h1}");
        assert_ne!(h1, h2, "each hash has its own salt");
        assert!(verify_password("a long enough passphrase", &h1).unwrap());
        assert!(verify_password("a long enough passphrase", &h2).unwrap());
        assert!(!verify_password("a long enough passphrasE", &h1).unwrap());
        assert!(!verify_password("", &h1).unwrap());
    }

    #[test]
    fn a_damaged_hash_is_an_error_not_a_mismatch() {
        assert!(matches!(
            verify_password("whatever12", "not a hash"),
            Err(HashError::BadHash(_))
        ));
        assert!(matches!(
            verify_password("whatever12", "$argon2id$v=19$m=19456,t=2,p=1$bad"),
            Err(HashError::BadHash(_))
        ));
    }
}
