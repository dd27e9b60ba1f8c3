//! What every operation that takes the API key shares in the OpenAPI document, added once over
//! the whole document: the key in the `X-Api-Key` header as an alternative to `?key=`, the
//! `RateLimit-*` headers on its answers, and `HEAD` beside each `GET`.

use serde_json::{Value, json};

use super::contract::KEY_SCHEME;
/// The name of the security scheme of the key in its header.
pub(crate) const KEY_HEADER_SCHEME: &str = "ApiKeyHeader";

/// The headers' descriptions, by header, named as the draft writes them (header names are
/// case-insensitive: these are the constants of [`crate::rate_headers`]).
fn rate_headers() -> Value {
    let integer = |description: &str| json!({"description": description, "schema": {"type": "integer", "minimum": 0}});
    json!({
        "RateLimit-Limit": integer("Requests a key with a whole allowance may send at once (the burst)"),
        "RateLimit-Remaining": integer("Requests the key may still send at once after this one"),
        "RateLimit-Reset": integer(
            "Seconds until the allowance is whole again; on a 429, until the next request fits"
        ),
        "RateLimit-Policy": {"description": "`<burst>;w=<seconds a whole burst takes to refill>`",
                             "schema": {"type": "string"}},
    })
}

/// Adds, to every operation whose security is the key: the header alternative, the rate
/// headers on its answers once the key is checked (all but 401 and 405), and a `HEAD` for a
/// `GET`, answered as the `GET` without its body.
pub(crate) fn add(doc: &mut Value) {
    let keyed = json!([{KEY_SCHEME: []}]);
    let either = json!([{KEY_SCHEME: []}, {KEY_HEADER_SCHEME: []}]);
    let rate = rate_headers();
    let Some(paths) = doc["paths"].as_object_mut() else {
        return;
    };
    for item in paths.values_mut() {
        let Some(methods) = item.as_object_mut() else {
            continue;
        };
        let mut head = None;
        for (method, op) in methods.iter_mut() {
            if op["security"] != keyed {
                continue;
            }
            op["security"] = either.clone();
            if let Some(responses) = op["responses"].as_object_mut() {
                for (status, answer) in responses.iter_mut() {
                    if status == "401" || status == "405" {
                        continue;
                    }
                    let Some(answer) = answer.as_object_mut() else {
                        continue;
                    };
                    let headers = answer.entry("headers").or_insert_with(|| json!({}));
                    if let (Some(headers), Some(add)) = (headers.as_object_mut(), rate.as_object())
                    {
                        headers.extend(add.clone());
                    }
                }
            }
            if method == "get" {
                head = Some(head_of(op));
            }
        }
        if let Some(head) = head {
            methods.entry("head").or_insert(head);
        }
    }
}

/// `get` as a `HEAD`: the same parameters, statuses and headers, no bodies.
fn head_of(get: &Value) -> Value {
    let mut head = get.clone();
    if let Some(id) = get["operationId"].as_str() {
        head["operationId"] = json!(format!("{id}Head"));
    }
    head["summary"] = json!(format!(
        "{} Headers only.",
        get["summary"].as_str().unwrap_or_default()
    ));
    if let Some(responses) = head["responses"].as_object_mut() {
        for answer in responses.values_mut() {
            if let Some(answer) = answer.as_object_mut() {
                answer.remove("content");
            }
        }
    }
    head
}

/// The key in its header, for `components.securitySchemes`.
pub(crate) fn header_scheme() -> Value {
    json!({
        "type": "apiKey",
        "in": "header",
        "name": "X-Api-Key",
        "description": "Your API key in a header instead of the query string, which keeps it \
                        out of proxies' and servers' access logs. Sending both with different \
                        keys is a 400."
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rate_headers::{
        RATELIMIT_LIMIT, RATELIMIT_POLICY, RATELIMIT_REMAINING, RATELIMIT_RESET,
    };

    #[test]
    fn the_documented_headers_are_the_ones_sent() {
        let documented: Vec<String> = rate_headers()
            .as_object()
            .unwrap()
            .keys()
            .map(|k| k.to_ascii_lowercase())
            .collect();
        for sent in [
            RATELIMIT_LIMIT,
            RATELIMIT_REMAINING,
            RATELIMIT_RESET,
            RATELIMIT_POLICY,
        ] {
            assert!(documented.contains(&sent.as_str().to_owned()), "{sent}");
        }
    }
}
