//! The alert-request body: any bytes that parse as JSON are either refused with a 400 or 413
//! naming a place in the body, or accepted with every point in range and its id and
//! `custom_data` as the API describes them. Any bytes at all get the same answer from the
//! body's bytes and from a reader of them, as a spooled body is read.

#![no_main]

use alerts_core::request::{AlertRequest, MAX_ID_BYTES, RequestError, RequestLimits, read_points};
use insights_fuzz::path_resolves;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

/// Members a refusal may name although the body lacks them.
const REQUIRED: [&str; 4] = ["points", "lon", "lat", "id"];

/// A small limit, so that short inputs reach the 413 as well.
const SMALL: RequestLimits = RequestLimits { max_points: 3 };

fuzz_target!(|data: &[u8]| {
    let from_bytes = AlertRequest::from_json_slice(data, &SMALL);
    let mut read = Vec::new();
    let from_reader = read_points(data, &SMALL, |point| read.push(point)).map(|count| {
        assert_eq!(count, read.len(), "the count is the number of points read");
        AlertRequest { points: read }
    });
    assert_eq!(syntax_blurred(from_bytes), syntax_blurred(from_reader));

    let Ok(body) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let small = AlertRequest::from_json(&body, &SMALL);
    let default = AlertRequest::from_json(&body, &RequestLimits::default());
    match &small {
        Ok(request) => check_accepted(&body, request),
        Err(e) => check_refused(&body, e),
    }
    match (&small, &default) {
        (Err(RequestError::TooManyPoints { count, max }), _) => {
            assert!(count > max, "{count} points refused under a limit of {max}");
        }
        // Only the point limit differs, so the answers are the same otherwise.
        (small, default) => assert_eq!(small, default),
    }
});

/// The answer with the position of a syntax error left out: serde_json places it one column
/// apart when it reads from a reader.
fn syntax_blurred(
    answer: Result<AlertRequest, RequestError>,
) -> Result<AlertRequest, RequestError> {
    answer.map_err(|e| match e {
        RequestError::Invalid(field) if field.problem.starts_with("the body is not valid JSON") => {
            RequestError::Invalid(aq_core::FieldError::new(field.path, "not JSON"))
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
            Value::Number(n) => assert_eq!(point.id, n.to_string()),
            other => panic!("id {other} accepted"),
        }
        let custom: Value = serde_json::from_str(&point.custom_data)
            .unwrap_or_else(|e| panic!("custom_data {:?} is not JSON: {e}", point.custom_data));
        match &sent["custom_data"] {
            Value::Null => assert_eq!(point.custom_data, "{}"),
            sent_custom => assert_eq!(&custom, sent_custom, "custom_data is echoed as sent"),
        }
    }
}

fn check_refused(body: &Value, e: &RequestError) {
    match e {
        RequestError::TooManyPoints { count, max } => {
            assert_eq!((e.http_status(), e.code()), (413, "payload_too_large"));
            assert_eq!(*max, SMALL.max_points);
            assert_eq!(Some(*count), body["points"].as_array().map(Vec::len));
        }
        RequestError::Invalid(field) => {
            assert_eq!((e.http_status(), e.code()), (400, "invalid_request"));
            assert!(
                path_resolves(body, &field.path, &REQUIRED, false),
                "{e} names {:?}, which is not in {body}",
                field.path
            );
            assert!(!field.problem.is_empty(), "{e} does not say what is wrong");
        }
        RequestError::Unreadable(_) => panic!("a body in memory was unreadable: {e}"),
    }
}
