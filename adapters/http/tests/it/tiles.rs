//! Heatmap tiles: coordinates and their errors, the key and its rate, the PNG, its colours and
//! transparency, caching by hour, and one source call per tile.

use std::num::NonZeroU32;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use aq_core::memory::FnSource;
use aq_core::{
    AirQualitySource, AirSample, CleanlinessIndex, SampleQuery, SourceError, SourceInfo,
};
use async_trait::async_trait;
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use insights_http::ApiConfig;
use tower::ServiceExt;

use crate::support::{App, app, app_over};

/// A source that counts its batch calls and answers CI 90 everywhere.
struct Counting(AtomicUsize);

#[async_trait]
impl AirQualitySource for Counting {
    fn info(&self) -> SourceInfo {
        SourceInfo::real("counting")
    }

    async fn sample(&self, queries: &[SampleQuery]) -> Result<Vec<Option<AirSample>>, SourceError> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Ok(queries
            .iter()
            .map(|_| Some(AirSample::from_ci(CleanlinessIndex::new(90.0).unwrap())))
            .collect())
    }
}

async fn constant_app(ci: f64) -> App {
    let field = FnSource::new("flat", move |_, _| CleanlinessIndex::new(ci).ok());
    app_over(ApiConfig::default(), axum::Router::new(), Arc::new(field)).await
}

struct Answer {
    status: StatusCode,
    headers: axum::http::HeaderMap,
    body: Vec<u8>,
}

async fn get(app: &App, uri: &str, etag: Option<&str>) -> Answer {
    let mut request = Request::get(uri);
    if let Some(etag) = etag {
        request = request.header(header::IF_NONE_MATCH, etag);
    }
    let response = app
        .router
        .clone()
        .oneshot(request.body(Body::empty()).unwrap())
        .await
        .unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let body = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .unwrap()
        .to_vec();
    Answer {
        status,
        headers,
        body,
    }
}

/// The tile's size and RGBA pixels.
fn decode(png_bytes: &[u8]) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut pixels).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgba);
    pixels.truncate(info.buffer_size());
    (info.width, info.height, pixels)
}

fn detail(body: &[u8]) -> String {
    let json: serde_json::Value = serde_json::from_slice(body).unwrap();
    assert_eq!(json["error"]["code"], "invalid_request", "{json}");
    json["error"]["detail"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn a_constant_field_is_a_256_pixel_png_all_in_its_category_colour() {
    let app = constant_app(90.0).await;
    let answer = get(
        &app,
        &format!("/insights/v1/tiles/3/4/2.png?key={}", app.key),
        None,
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.headers[header::CONTENT_TYPE], "image/png");
    // The tile names its source, as route scores do.
    assert_eq!(answer.headers["insights-data-source"], "flat; synthetic");
    let (width, height, pixels) = decode(&answer.body);
    assert_eq!((width, height), (256, 256));
    // Excellent's green, #009e3a, opaque, at the corner, the middle and everywhere.
    assert_eq!(&pixels[..4], &[0x00, 0x9e, 0x3a, 0xff]);
    let middle = (128 * 256 + 128) * 4;
    assert_eq!(&pixels[middle..middle + 4], &[0x00, 0x9e, 0x3a, 0xff]);
    assert!(
        pixels
            .chunks_exact(4)
            .all(|p| p == [0x00, 0x9e, 0x3a, 0xff])
    );
}

#[tokio::test]
async fn where_the_source_has_no_value_the_tile_is_transparent() {
    // Values east of the prime meridian only: of zoom 1's two columns, the western is empty.
    let field = FnSource::new("east", |p: aq_core::Position, _| {
        (p.lon() > 0.5).then(|| CleanlinessIndex::new(50.0).unwrap())
    });
    let app = app_over(ApiConfig::default(), axum::Router::new(), Arc::new(field)).await;
    let west = get(
        &app,
        &format!("/insights/v1/tiles/1/0/0.png?key={}", app.key),
        None,
    )
    .await;
    let (_, _, pixels) = decode(&west.body);
    assert!(pixels.iter().all(|b| *b == 0), "every pixel transparent");
    let east = get(
        &app,
        &format!("/insights/v1/tiles/1/1/1.png?key={}", app.key),
        None,
    )
    .await;
    let (_, _, pixels) = decode(&east.body);
    // Moderate's yellow, #ffd500, in the middle of the covered tile.
    let middle = (128 * 256 + 128) * 4;
    assert_eq!(&pixels[middle..middle + 4], &[0xff, 0xd5, 0x00, 0xff]);
}

#[tokio::test]
async fn coordinates_outside_the_tiling_are_refused_naming_the_coordinate() {
    let app = constant_app(60.0).await;
    let cases = [
        ("17/0/0.png", "z: 17 is outside 0..=16"),
        ("1/2/0.png", "x: 2 is outside 0..=1"),
        ("1/0/2.png", "y: 2 is outside 0..=1"),
        ("0/0/1.png", "y: 1 is outside 0..=0"),
        ("16/65536/0.png", "x: 65536 is outside 0..=65535"),
        ("a/0/0.png", "z: `a` is not a whole number"),
        ("2/-1/0.png", "x: `-1` is not a whole number"),
        ("2/0/0", "y: `0` must end in .png"),
        ("2/0/0.jpg", "y: `0.jpg` must end in .png"),
    ];
    for (path, expected) in cases {
        let answer = get(
            &app,
            &format!("/insights/v1/tiles/{path}?key={}", app.key),
            None,
        )
        .await;
        assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{path}");
        let detail = detail(&answer.body);
        assert!(detail.contains(expected), "{path}: {detail}");
    }
    // The highest zoom's last tile is in range.
    let last = get(
        &app,
        &format!("/insights/v1/tiles/16/65535/65535.png?key={}", app.key),
        None,
    )
    .await;
    assert_eq!(last.status, StatusCode::OK);
    let answer = get(
        &app,
        &format!(
            "/insights/v1/tiles/2/0/0.png?key={}&time=yesterday",
            app.key
        ),
        None,
    )
    .await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    assert!(detail(&answer.body).starts_with("time: `yesterday` is not an RFC 3339 instant"));
}

#[tokio::test]
async fn a_tile_needs_a_valid_key() {
    let app = app().await;
    for (uri, code) in [
        ("/insights/v1/tiles/0/0/0.png".to_owned(), "missing_api_key"),
        (
            "/insights/v1/tiles/0/0/0.png?key=ik_nonsense".to_owned(),
            "invalid_api_key",
        ),
    ] {
        let answer = get(&app, &uri, None).await;
        assert_eq!(answer.status, StatusCode::UNAUTHORIZED, "{uri}");
        let json: serde_json::Value = serde_json::from_slice(&answer.body).unwrap();
        assert_eq!(json["error"]["code"], code);
    }
}

#[tokio::test]
async fn tiles_count_against_the_keys_rate() {
    let config = ApiConfig {
        rate_per_second: NonZeroU32::new(1).unwrap(),
        rate_burst: NonZeroU32::new(2).unwrap(),
        ..ApiConfig::default()
    };
    let field = FnSource::new("flat", |_, _| CleanlinessIndex::new(60.0).ok());
    let app = app_over(config, axum::Router::new(), Arc::new(field)).await;
    let uri = format!("/insights/v1/tiles/0/0/0.png?key={}", app.key);
    let statuses = [
        get(&app, &uri, None).await.status,
        get(&app, &uri, None).await.status,
        get(&app, &uri, None).await.status,
    ];
    assert_eq!(statuses[..2], [StatusCode::OK, StatusCode::OK]);
    assert_eq!(statuses[2], StatusCode::TOO_MANY_REQUESTS);
}

#[tokio::test]
async fn tiles_are_cached_by_hour_and_revalidated_by_etag() {
    let app = constant_app(70.0).await;
    let at = |time: &str| format!("/insights/v1/tiles/5/16/10.png?key={}&time={time}", app.key);
    let first = get(&app, &at("2026-05-01T08:05:00Z"), None).await;
    let etag = first.headers[header::ETAG].to_str().unwrap().to_owned();
    assert_eq!(etag, "\"ci-flat-20260501T08\"");
    let cache = first.headers[header::CACHE_CONTROL].to_str().unwrap();
    let max_age: u64 = cache
        .strip_prefix("private, max-age=")
        .unwrap()
        .parse()
        .unwrap();
    assert!((60..=3600).contains(&max_age), "{cache}");

    // The same hour has the same tag, and a client holding it gets 304 without a body.
    let later = get(&app, &at("2026-05-01T08:59:59Z"), Some(&etag)).await;
    assert_eq!(later.status, StatusCode::NOT_MODIFIED);
    assert!(later.body.is_empty());
    assert_eq!(later.headers[header::ETAG], etag.as_str());
    // The next hour is another picture.
    let next = get(&app, &at("2026-05-01T09:00:00%2B00:00"), Some(&etag)).await;
    assert_eq!(next.status, StatusCode::OK);
    assert_eq!(next.headers[header::ETAG], "\"ci-flat-20260501T09\"");
}

#[tokio::test]
async fn a_tile_asks_the_source_once() {
    let source = Arc::new(Counting(AtomicUsize::new(0)));
    let app = app_over(ApiConfig::default(), axum::Router::new(), source.clone()).await;
    for path in ["0/0/0", "9/270/166", "16/35205/21495"] {
        let answer = get(
            &app,
            &format!("/insights/v1/tiles/{path}.png?key={}", app.key),
            None,
        )
        .await;
        assert_eq!(answer.status, StatusCode::OK);
    }
    assert_eq!(source.0.load(Ordering::SeqCst), 3);
}
