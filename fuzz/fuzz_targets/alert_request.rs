//! The alert-request body: any bytes are either refused, naming a place in the body (when it
//! is JSON) or the limit, or accepted with every point in range and its id and `custom_data`
//! as the text that was sent. Any bytes at all get the same answer from the body's bytes and
//! from a reader of them, as a spooled body is read.

#![no_main]

use alerts_core::request::{AlertRequest, MAX_ID_BYTES, RequestError, RequestLimits, read_points};
use insights_fuzz::{has_repeated_members, path_resolves};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

/// Members a refusal may name although the body lacks them.
const REQUIRED: [&str; 4] = ["points", "lon", "lat", "id"];

/// Small limits, so that short inputs reach them as well.
const SMALL: RequestLimits = RequestLimits {
    max_points: 3,
    max_custom_data_bytes: 48,
};

fuzz_target!(|data: &[u8]| {
    let from_bytes = AlertRequest::from_json_slice(data, &SMALL);
    let mut read = Vec::new();
    let from_reader = read_points(data, &SMALL, |point| read.push(point)).map(|count| {
        assert_eq!(count, read.len(), "the count is the number of points read");
        AlertRequest { points: read }
    });
    assert_eq!(
        syntax_blurred(from_bytes.clone()),
        syntax_blurred(from_reader)
    );
    // A tree keeps the last of repeated members, where the reader stops at the first: paths
    // are checked against bodies without them.
    let body = serde_json::from_slice::<Value>(data)
        .ok()
        .filter(|_| !has_repeated_members(data));
    match (&from_bytes, &body) {
        (Ok(request), Some(body)) => check_accepted(body, request),
        (Ok(_), None) => panic!("bytes that are not JSON, or repeat a member, were accepted"),
        (Err(e), body) => check_refused(body.as_ref(), e),
    }
    // Only the limits differ, so larger ones accept what small ones do.
    if let Ok(request) = &from_bytes {
        assert_eq!(
            AlertRequest::from_json_slice(data, &RequestLimits::default()).as_ref(),
            Ok(request)
        );
    }
});

/// The answer with the position of a problem in the body left out: serde_json places it one
/// column apart when it reads from a reader.
fn syntax_blurred(
    answer: Result<AlertRequest, RequestError>,
) -> Result<AlertRequest, RequestError> {
    answer.map_err(|e| match e {
        RequestError::Invalid(field) => {
            let problem = field.problem.split(" at line ").next().unwrap_or_default();
            RequestError::Invalid(aq_core::FieldError::new(field.path, problem))
        }
        other => other,
    })
}

fn check_accepted(body: &Value, request: &AlertRequest) {
    let points = body["points"].as_array().map_or(0, Vec::len);
    assert_eq!(request.points.len(), points);
    assert!(
        (1..=SMALL.max_points).contains(&points),
        "{points} points accepted"
    );
    for (point, sent) in request
        .points
        .iter()
        .zip(body["points"].as_array().into_iter().flatten())
    {
        let p = point.position;
        assert!((-180.0..=180.0).contains(&p.lon()) && (-90.0..=90.0).contains(&p.lat()));
        assert_eq!(Some(p.lon()), sent["lon"].as_f64(), "{sent}");
        assert_eq!(Some(p.lat()), sent["lat"].as_f64(), "{sent}");
        assert!(
            !point.id.is_empty() && point.id.len() <= MAX_ID_BYTES,
            "{point:?}"
        );
        match &sent["id"] {
            Value::String(s) => assert_eq!(&point.id, s),
            // A number is kept as its JSON text, which reads back as the same number.
            Value::Number(n) => {
                let text: Value = serde_json::from_str(&point.id)
                    .unwrap_or_else(|e| panic!("id {:?} is not JSON: {e}", point.id));
                assert_eq!(text.as_f64(), n.as_f64(), "{sent}");
            }
            other => panic!("id {other} accepted"),
        }
        assert!(point.custom_data.len() <= SMALL.max_custom_data_bytes);
        let custom: Value = serde_json::from_str(&point.custom_data)
            .unwrap_or_else(|e| panic!("custom_data {:?} is not JSON: {e}", point.custom_data));
        match &sent["custom_data"] {
            Value::Null => assert_eq!(point.custom_data, "{}"),
            sent_custom => assert_eq!(&custom, sent_custom, "custom_data is echoed as sent"),
        }
    }
}

fn check_refused(body: Option<&Value>, e: &RequestError) {
    match e {
        RequestError::TooManyPoints { max } => {
            assert_eq!(*max, SMALL.max_points);
            if let Some(body) = body {
                let count = body["points"].as_array().map(Vec::len);
                assert!(count.is_some_and(|count| count > *max), "{e} for {body}");
            }
        }
        RequestError::CustomDataTooLarge { index, bytes, max } => {
            assert_eq!(*max, SMALL.max_custom_data_bytes);
            assert!(bytes > max, "{e}");
            if let Some(body) = body {
                assert!(
                    body["points"][*index]["custom_data"].is_object(),
                    "{e} for {body}"
                );
            }
        }
        RequestError::Invalid(field) => {
            assert!(!field.problem.is_empty(), "{e} does not say what is wrong");
            if let Some(body) = body {
                assert!(
                    path_resolves(body, &field.path, &REQUIRED, false),
                    "{e} names {:?}, which is not in {body}",
                    field.path
                );
            }
        }
        RequestError::Unreadable(_) => panic!("a body in memory was unreadable: {e}"),
    }
}
