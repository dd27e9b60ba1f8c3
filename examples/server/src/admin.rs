//! `insights-server admin ...`: accounts, keys, webhooks, rules and deliveries from a terminal.
//! The commands go through the same management use cases as the dashboard, so they apply the
//! same validation and say the same things; they work while a server runs on the same store,
//! which sees each change at once.

use alerts_core::manage::{DEFAULT_SECRET_GRACE, Manager};
use alerts_core::rule::{
    AqIndex, Audience, DataType, Forecast, MessageSpec, Persistence, Repeat, RuleSpec, Sensitivity,
    persistence_ranges,
};
use anyhow::{Context, Result, anyhow, bail};
use clap::{Args, Subcommand};
use i18n_core::Language;
use identity_core::ids::KeyId;
use identity_core::manage::IdentityError;
use identity_core::ports::ApiKeyInfo;
use racs_core::UtcMillis;
use serde_json::json;

use crate::config::Settings;
use crate::wiring::{Stores, manager, open_stores};

/// The environment variable that may hold a full API key for the commands on one key.
pub(crate) const API_KEY_VARIABLE: &str = "INSIGHTS_API_KEY";

/// The environment variable that may hold the password of `create-account` and
/// `reset-password`.
pub(crate) const PASSWORD_VARIABLE: &str = "INSIGHTS_PASSWORD";

/// Which key a command acts on. A full key never comes from the command line, where other
/// users of the machine see it in the process list and it stays in the shell's history.
#[derive(Debug, Args)]
pub(crate) struct KeyChoice {
    /// The key's id, or its public prefix (`ik_` and eight hex digits), as create-key and
    /// list-keys print them. Without it, the full key is read from standard input
    /// (--key-stdin) or from INSIGHTS_API_KEY.
    #[arg(long = "key", value_name = "ID|PREFIX")]
    id: Option<String>,
    /// Read the full API key from the first line of standard input.
    #[arg(long, conflicts_with = "id")]
    key_stdin: bool,
}

/// The admin commands.
#[derive(Debug, Subcommand)]
pub(crate) enum AdminCommand {
    /// Create a dashboard account. The password (at least 10 characters) is read from
    /// INSIGHTS_PASSWORD, or with --password-stdin from the first line of standard input: never
    /// from the command line, where other users of the machine see it.
    CreateAccount {
        /// The sign-in email.
        #[arg(long)]
        email: String,
        /// Read the password from the first line of standard input.
        #[arg(long)]
        password_stdin: bool,
    },
    /// Give an account a new password, and end every session of it: for a customer who lost
    /// theirs, or whose account someone else may hold. The password is read like
    /// create-account's: from INSIGHTS_PASSWORD, or with --password-stdin from the first line
    /// of standard input.
    ResetPassword {
        /// The account's email.
        #[arg(long)]
        email: String,
        /// Read the password from the first line of standard input.
        #[arg(long)]
        password_stdin: bool,
    },
    /// End every dashboard session of an account, on every server of the store: whoever is
    /// signed in must sign in again.
    EndSessions {
        /// The account's email.
        #[arg(long)]
        email: String,
    },
    /// Create an API key for an account; prints the key and its webhook signing secret. The
    /// key is shown only this once.
    CreateKey {
        /// The account's email.
        #[arg(long)]
        email: String,
        /// A label to tell keys apart.
        #[arg(long, default_value = "default")]
        label: String,
    },
    /// List an account's keys.
    ListKeys {
        /// The account's email.
        #[arg(long)]
        email: String,
    },
    /// Set (or, with an empty URL, clear) where a key's alert deliveries go. The URL is checked
    /// against the webhook policy of the settings this command is given (--listen,
    /// --public-url, --allow-private-webhooks): give it the server's, or the server refuses at
    /// delivery a URL that passed here.
    SetWebhook {
        #[command(flatten)]
        key: KeyChoice,
        /// The receiver's URL (http or https).
        #[arg(long)]
        url: String,
    },
    /// Revoke a key: the API refuses it from then on, and its pending deliveries are cancelled.
    RevokeKey {
        #[command(flatten)]
        key: KeyChoice,
    },
    /// Replace a key's webhook signing secret; the old one keeps signing for a day.
    RotateSecret {
        #[command(flatten)]
        key: KeyChoice,
    },
    /// Add an alert rule to a key.
    AddRule {
        #[command(flatten)]
        key: KeyChoice,
        /// `aq` (air quality) or `pollen`.
        #[arg(long = "type", value_name = "TYPE")]
        data_type: String,
        /// How far ahead: 1h, 2h, 3h, 6h, 12h, 24h, 48h, 72h or 96h for air quality; today, 1d,
        /// 2d, 3d or 4d for pollen.
        #[arg(long)]
        forecast: String,
        /// `high` (small changes), `medium` or `low` (large changes only).
        #[arg(long)]
        sensitivity: String,
        /// A custom description for changes for the worse (needs --improvement too).
        #[arg(long)]
        deterioration: Option<String>,
        /// A custom description for changes for the better (needs --deterioration too).
        #[arg(long)]
        improvement: Option<String>,
        /// The index air-quality descriptions show: `cleanliness` (the default, "(31 AQI)") or
        /// `us-epa`, the US EPA AQI of the forecast hour's concentrations ("(US AQI 152)").
        #[arg(long, value_name = "INDEX", default_value = "cleanliness")]
        aq_index: String,
        /// Whom the predefined recommendations speak to: `general` (the default), `children`,
        /// `older-adults`, `heart-or-lung-disease`, `pregnancy` or `athletes`.
        #[arg(long, value_name = "AUDIENCE", default_value = "general")]
        audience: String,
        /// Whether a change is sent again: `every` request (the default) or `once` per change
        /// for each point id, until the forecast turns, reaches another category, moves to
        /// another hour or day, or the change has passed.
        #[arg(long, value_name = "REPEAT", default_value = "every")]
        repeat: String,
        /// The language of the descriptions and recommendations: `en` (the default), `de`,
        /// `fr`, `es`, `it`, `nl`, `pl` or `pt`.
        #[arg(long, value_name = "LANGUAGE", default_value = "en")]
        language: String,
        /// How long a change must last before it is sent: hours for air quality (1 to 24,
        /// default 2), days for pollen (1 to 3, default 1).
        #[arg(long, value_name = "N")]
        min_duration: Option<u8>,
        /// How far back inside the threshold the forecast must come before a change is over:
        /// CI points for air quality (0 to 20, default 2), levels for pollen (0 to 2, default 0).
        #[arg(long, value_name = "N")]
        hysteresis: Option<u8>,
    },
    /// List a key's alert rules.
    ListRules {
        #[command(flatten)]
        key: KeyChoice,
    },
    /// List a key's latest alert requests and their delivery attempts.
    ListDeliveries {
        #[command(flatten)]
        key: KeyChoice,
        /// How many requests to show.
        #[arg(long, default_value_t = 20)]
        limit: usize,
    },
}

/// Runs one admin command, printing JSON when `json` is set.
pub(crate) async fn run(settings: &Settings, command: AdminCommand, json: bool) -> Result<()> {
    let stores = open_stores(settings).await?;
    let manager = manager(&stores, settings);
    let out = execute(&manager, &stores, command).await?;
    if json {
        println!("{}", serde_json::to_string_pretty(&out.json)?);
    } else {
        println!("{}", out.text);
    }
    Ok(())
}

/// What a command prints, in both forms.
struct Output {
    text: String,
    json: serde_json::Value,
}

async fn execute(manager: &Manager, stores: &Stores, command: AdminCommand) -> Result<Output> {
    match command {
        AdminCommand::CreateAccount {
            email,
            password_stdin,
        } => {
            let password = new_password(password_stdin)?;
            let account = manager.identity().create_account(&email, &password).await?;
            Ok(Output {
                text: format!("created account {} ({})", account.email, account.id),
                json: json!({"id": account.id.to_string(), "email": account.email}),
            })
        }
        AdminCommand::ResetPassword {
            email,
            password_stdin,
        } => {
            let password = new_password(password_stdin)?;
            let account = manager
                .identity()
                .reset_password(&email, &password)
                .await
                .map_err(|e| no_such_account(&email, e))?;
            let ended = stores
                .sessions
                .delete_account_sessions(account.id, None)
                .await?;
            Ok(Output {
                text: format!(
                    "new password set for {}; {ended} session(s) ended",
                    account.email
                ),
                json: json!({"email": account.email, "sessions_ended": ended}),
            })
        }
        AdminCommand::EndSessions { email } => {
            let account = manager
                .identity()
                .account_by_email(&email)
                .await
                .map_err(|e| no_such_account(&email, e))?;
            let ended = stores
                .sessions
                .delete_account_sessions(account.id, None)
                .await?;
            Ok(Output {
                text: format!("{ended} session(s) of {} ended", account.email),
                json: json!({"email": account.email, "sessions_ended": ended}),
            })
        }
        AdminCommand::CreateKey { email, label } => {
            let account = manager.identity().account_by_email(&email).await.map_err(|_| {
                anyhow!(
                    "no account with the email {email}; create it first with `admin create-account`"
                )
            })?;
            let created = manager.identity().create_key(account.id, &label).await?;
            let secret = created.info.secret.expose().to_owned();
            Ok(Output {
                text: format!(
                    "API key:        {}\nkey id:         {}\nwebhook secret: {}\n\nKeep the key safe: it is shown only now. Other admin commands name it by its id (--key). Deliveries are signed with the secret (Standard Webhooks).",
                    created.key.expose(),
                    created.info.id,
                    secret
                ),
                json: json!({"key": created.key.expose(), "webhook_secret": secret,
                             "prefix": created.info.prefix, "id": created.info.id.to_string()}),
            })
        }
        AdminCommand::ListKeys { email } => {
            let account = manager.identity().account_by_email(&email).await?;
            let keys = manager.identity().list_keys(account.id).await?;
            let text = keys
                .iter()
                .map(|k| {
                    format!(
                        "{}  {}…  {:<20} created {}  {}  webhook: {}",
                        k.id,
                        k.prefix,
                        k.label,
                        k.created_at.format("%Y-%m-%d %H:%M"),
                        if k.revoked_at.is_some() {
                            "revoked"
                        } else {
                            "active"
                        },
                        k.webhook_url.as_deref().unwrap_or("(none)")
                    )
                })
                .collect::<Vec<_>>()
                .join("\n");
            let json = keys
                .iter()
                .map(|k| {
                    json!({"id": k.id.to_string(), "prefix": k.prefix, "label": k.label,
                           "created_at": UtcMillis(k.created_at),
                           "last_used_at": k.last_used_at.map(UtcMillis),
                           "revoked_at": k.revoked_at.map(UtcMillis), "webhook_url": k.webhook_url})
                })
                .collect();
            Ok(Output {
                text: if text.is_empty() {
                    "no keys".to_owned()
                } else {
                    text
                },
                json: serde_json::Value::Array(json),
            })
        }
        AdminCommand::SetWebhook { key, url } => {
            let info = key_info(manager, stores, key).await?;
            let stored = manager
                .set_webhook_url(info.account_id, info.id, Some(&url))
                .await?;
            Ok(Output {
                text: match &stored {
                    Some(u) => format!("deliveries for {}… go to {u}", info.prefix),
                    None => format!("webhook URL of {}… cleared", info.prefix),
                },
                json: json!({"prefix": info.prefix, "webhook_url": stored}),
            })
        }
        AdminCommand::RevokeKey { key } => {
            let info = key_info(manager, stores, key).await?;
            manager
                .identity()
                .revoke_key(info.account_id, info.id)
                .await?;
            Ok(Output {
                text: format!("revoked {}…; the API refuses it from now on", info.prefix),
                json: json!({"prefix": info.prefix, "revoked": true}),
            })
        }
        AdminCommand::RotateSecret { key } => {
            let info = key_info(manager, stores, key).await?;
            let secret = manager
                .rotate_secret(info.account_id, info.id, DEFAULT_SECRET_GRACE)
                .await?;
            Ok(Output {
                text: format!(
                    "new webhook secret: {}\nThe previous secret keeps signing deliveries for 24 hours.",
                    secret.expose()
                ),
                json: json!({"prefix": info.prefix, "webhook_secret": secret.expose()}),
            })
        }
        AdminCommand::AddRule {
            key,
            data_type,
            forecast,
            sensitivity,
            deterioration,
            improvement,
            aq_index,
            audience,
            repeat,
            language,
            min_duration,
            hysteresis,
        } => {
            let info = key_info(manager, stores, key).await?;
            let message = match (deterioration, improvement) {
                (None, None) => MessageSpec::Default,
                (Some(deterioration), Some(improvement)) => MessageSpec::Custom {
                    deterioration,
                    improvement,
                },
                _ => {
                    return Err(anyhow!(
                        "a custom message needs both --deterioration and --improvement"
                    ));
                }
            };
            let spec = RuleSpec::new(
                data_type.parse::<DataType>()?,
                forecast.parse::<Forecast>()?,
                sensitivity.parse::<Sensitivity>()?,
                message,
            )?
            .with_aq_index(aq_index.parse::<AqIndex>()?)
            .with_audience(audience.parse::<Audience>()?)
            .with_repeat(repeat.parse::<Repeat>()?)
            .with_language(language.parse::<Language>()?)
            .with_persistence(Persistence {
                min_duration,
                hysteresis,
            })?;
            let rule = manager.add_rule(info.account_id, info.id, spec).await?;
            Ok(Output {
                text: format!(
                    "added rule {}: {} {} sensitivity {}{}{}{}{}",
                    rule.id,
                    rule.spec.data_type().label(),
                    rule.spec.forecast().label(),
                    rule.spec.sensitivity().as_str(),
                    shown_index(&rule.spec),
                    advice_for(&rule.spec),
                    once_per_change(&rule.spec),
                    persistence_set(&rule.spec)
                ),
                json: json!({"id": rule.id.to_string(), "rule": rule.spec}),
            })
        }
        AdminCommand::ListRules { key } => {
            let info = key_info(manager, stores, key).await?;
            let rules = manager.list_rules(info.account_id, info.id).await?;
            let text = rules
                .iter()
                .map(|r| {
                    format!(
                        "{}  {} {} {}{}{}{}{}{}",
                        r.id,
                        r.spec.data_type().as_str(),
                        r.spec.forecast(),
                        r.spec.sensitivity().as_str(),
                        shown_index(&r.spec),
                        advice_for(&r.spec),
                        once_per_change(&r.spec),
                        persistence_set(&r.spec),
                        if r.enabled { "" } else { " (disabled)" }
                    )
                })
                .collect::<Vec<_>>()
                .join("\n");
            let json = rules
                .iter()
                .map(|r| json!({"id": r.id.to_string(), "enabled": r.enabled, "rule": r.spec}))
                .collect();
            Ok(Output {
                text: if text.is_empty() {
                    "no rules".to_owned()
                } else {
                    text
                },
                json: serde_json::Value::Array(json),
            })
        }
        AdminCommand::ListDeliveries { key, limit } => {
            let info = key_info(manager, stores, key).await?;
            let requests = stores.deliveries.list_requests(info.id, limit).await?;
            let mut text = Vec::new();
            let mut json = Vec::new();
            for r in requests {
                let attempts = stores.deliveries.list_attempts(info.id, r.token).await?;
                text.push(format!(
                    "{}  {}  points {}  alerts {}  {:?}{}",
                    r.token,
                    r.received_at.format("%Y-%m-%d %H:%M:%S"),
                    r.points,
                    r.alerts.map_or("-".to_owned(), |a| a.to_string()),
                    r.stage,
                    r.outcome.map(|o| format!(" ({o:?})")).unwrap_or_default()
                ));
                for a in &attempts {
                    text.push(format!(
                        "    attempt {} at {}: {} in {} ms{}",
                        a.attempt,
                        a.at.format("%H:%M:%S"),
                        a.status.map_or("no response".to_owned(), |s| s.to_string()),
                        a.latency_ms,
                        a.error.map(|e| format!(" ({e:?})")).unwrap_or_default()
                    ));
                }
                let mut attempts_json = Vec::with_capacity(attempts.len());
                for a in &attempts {
                    let mut attempt = serde_json::to_value(a)?;
                    // Written as every time the service writes.
                    attempt["at"] = json!(UtcMillis(a.at));
                    attempts_json.push(attempt);
                }
                json.push(json!({
                    "token": r.token.to_string(), "received_at": UtcMillis(r.received_at),
                    "points": r.points, "alerts": r.alerts, "stage": r.stage,
                    "outcome": r.outcome, "attempts": attempts_json,
                }));
            }
            Ok(Output {
                text: if text.is_empty() {
                    "no requests yet".to_owned()
                } else {
                    text.join("\n")
                },
                json: serde_json::Value::Array(json),
            })
        }
    }
}

/// The active key `choice` names.
async fn key_info(manager: &Manager, stores: &Stores, choice: KeyChoice) -> Result<ApiKeyInfo> {
    if let Some(id) = choice.id {
        let id = id.trim();
        if identity_core::keys::ApiKey::parse(id).is_ok() {
            bail!(
                "--key takes the key's id or prefix, not the key: a key on the command line is \
                 visible to every user of this machine. Pass its id or prefix (list-keys shows \
                 them), or the key on standard input with --key-stdin or in {API_KEY_VARIABLE}"
            );
        }
        if id.starts_with("ik_") {
            return key_by_prefix(stores, id).await;
        }
        let id = uuid::Uuid::parse_str(id).map(KeyId).map_err(|_| {
            anyhow!("--key `{id}` is not a key id; list-keys --email ... shows the ids")
        })?;
        return match stores.accounts.key_info(id).await? {
            Some(info) if info.revoked_at.is_none() => Ok(info),
            _ => Err(anyhow!("no active key with the id {}", id.0)),
        };
    }
    let text = if choice.key_stdin {
        first_line_of_stdin("the API key")?
    } else {
        std::env::var(API_KEY_VARIABLE).map_err(|_| {
            anyhow!(
                "name the key: --key ID, or the full key on standard input with --key-stdin or \
                 in {API_KEY_VARIABLE}"
            )
        })?
    };
    manager.identity().key_by_text(text.trim()).await.context(
        "no active key with that text: pass the full key (ik_...) as create-key printed it",
    )
}

/// The one active key with the public prefix `prefix`. Prefixes are short enough to collide
/// now and then; the ids of every match are listed then.
async fn key_by_prefix(stores: &Stores, prefix: &str) -> Result<ApiKeyInfo> {
    let mut matches: Vec<ApiKeyInfo> = stores
        .accounts
        .keys_with_prefix(prefix)
        .await?
        .into_iter()
        .filter(|k| k.revoked_at.is_none())
        .collect();
    match matches.len() {
        0 => Err(anyhow!("no active key with the prefix {prefix}")),
        1 => Ok(matches.remove(0)),
        _ => {
            let ids: Vec<String> = matches.iter().map(|k| k.id.to_string()).collect();
            Err(anyhow!(
                "several active keys have the prefix {prefix}; name one by its id: {}",
                ids.join(", ")
            ))
        }
    }
}

/// The first line of standard input, without its line ending.
/// The password of create-account or reset-password: from standard input with
/// `--password-stdin`, else from [`PASSWORD_VARIABLE`]; never from the command line.
fn new_password(from_stdin: bool) -> Result<String> {
    if from_stdin {
        first_line_of_stdin("the password")
    } else {
        std::env::var(PASSWORD_VARIABLE).map_err(|_| {
            anyhow!(
                "give the password in {PASSWORD_VARIABLE}, or on standard input with \
                 --password-stdin"
            )
        })
    }
}

/// An unknown email said as such; other failures as they are.
fn no_such_account(email: &str, error: IdentityError) -> anyhow::Error {
    match error {
        IdentityError::NotFound => anyhow!("no account with the email {email}"),
        other => other.into(),
    }
}

fn first_line_of_stdin(what: &str) -> Result<String> {
    let mut line = String::new();
    std::io::stdin()
        .read_line(&mut line)
        .with_context(|| format!("cannot read {what} from standard input"))?;
    Ok(line.trim_end_matches(['\r', '\n']).to_owned())
}

/// The index an air-quality rule shows, for the text output; nothing for pollen rules.
fn shown_index(spec: &RuleSpec) -> String {
    match spec.data_type() {
        DataType::Aq => format!(", showing the {}", spec.aq_index().label()),
        DataType::Pollen => String::new(),
    }
}

/// The audience and language of a rule's recommendations, for the text output; nothing for the
/// general population in English, so default rules print as they always did.
fn advice_for(spec: &RuleSpec) -> String {
    let mut text = match spec.audience() {
        Audience::General => String::new(),
        other => format!(", advice for {}", other.label()),
    };
    if spec.language() != Language::English {
        text.push_str(&format!(", in {}", spec.language().name()));
    }
    text
}

/// A rule that sets its minimum duration or hysteresis says so in the text output; one on the
/// server's defaults (`[alerts]` in its file) prints as it always did.
fn persistence_set(spec: &RuleSpec) -> String {
    let ((_, _, unit), (_, _, margin_unit)) = persistence_ranges(spec.data_type());
    let set = spec.persistence();
    let mut text = String::new();
    if let Some(n) = set.min_duration {
        text.push_str(&format!(", lasting at least {n} {unit}"));
    }
    if let Some(n) = set.hysteresis {
        text.push_str(&format!(", margin {n} {margin_unit}"));
    }
    text
}

/// A rule that tells a change once says so in the text output; one that repeats (the default)
/// prints as it always did.
fn once_per_change(spec: &RuleSpec) -> &'static str {
    match spec.repeat() {
        Repeat::Every => "",
        Repeat::Once => ", once per change",
    }
}
