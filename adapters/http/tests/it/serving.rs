//! The serving loop over a real socket on port 0: the request timeout and graceful shutdown.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use axum::routing::get;
use insights_http::{ApiConfig, ConnectionLimits, serve_with};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::support::app_with;

/// Sets its flag when dropped: tells whether a handler's work was dropped.
struct DropFlag(Arc<AtomicBool>);

impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// A route that takes `takes`, and the flag its work sets when it ends, finished or not.
fn slow_route(path: &str, takes: Duration) -> (Router, Arc<AtomicBool>) {
    let ended = Arc::new(AtomicBool::new(false));
    let flag = ended.clone();
    let route = Router::new().route(
        path,
        get(move || {
            let guard = DropFlag(flag.clone());
            async move {
                let _guard = guard;
                tokio::time::sleep(takes).await;
                "done"
            }
        }),
    );
    (route, ended)
}

/// The app served on port 0 with a request timeout of `timeout`, until the sender is used.
async fn start(
    timeout: Duration,
    extra: Router,
) -> (SocketAddr, oneshot::Sender<()>, JoinHandle<()>) {
    let config = ApiConfig {
        request_timeout: timeout,
        ..ApiConfig::default()
    };
    let app = app_with(config, extra).await;
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let serving = tokio::spawn(serve_with(
        listener,
        app.router,
        ConnectionLimits::default(),
        async {
            let _ = stopped.await;
        },
    ));
    (addr, stop, serving)
}

/// `GET path` on a connection of its own; the whole answer.
async fn get_text(addr: SocketAddr, path: &str) -> String {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer))
        .await
        .expect("no answer within 10 s")
        .unwrap();
    String::from_utf8_lossy(&answer).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handler_past_the_request_timeout_is_answered_503_its_work_dropped_and_counted() {
    let (slow, ended) = slow_route("/slow", Duration::from_secs(600));
    let (addr, stop, serving) = start(Duration::from_millis(300), slow).await;

    let sent = Instant::now();
    let answer = get_text(addr, "/slow").await;
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert!(answer.contains(r#""code":"unavailable""#), "{answer}");
    assert!(
        sent.elapsed() < Duration::from_secs(5),
        "{:?}",
        sent.elapsed()
    );
    assert!(
        ended.load(Ordering::SeqCst),
        "the handler still runs after its answer"
    );

    let metrics = get_text(addr, "/metrics").await;
    assert!(
        metrics
            .contains(r#"insights_http_requests_total{route="/slow",method="GET",status="503"} 1"#),
        "the timed-out request is not counted:\n{metrics}"
    );
    let _ = stop.send(());
    tokio::time::timeout(Duration::from_secs(5), serving)
        .await
        .unwrap()
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_lets_requests_in_flight_finish_and_closes_idle_connections() {
    let (slow, ended) = slow_route("/slow", Duration::from_millis(700));
    let (addr, stop, serving) = start(Duration::from_secs(30), slow).await;
    // An idle connection, which must not hold shutdown up.
    let mut idle = TcpStream::connect(addr).await.unwrap();
    let in_flight = tokio::spawn(get_text(addr, "/slow"));
    tokio::time::sleep(Duration::from_millis(200)).await;
    let _ = stop.send(());

    let answer = in_flight.await.unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.ends_with("done"), "{answer}");
    assert!(ended.load(Ordering::SeqCst));
    tokio::time::timeout(Duration::from_secs(5), serving)
        .await
        .expect("shutdown waited on an idle connection")
        .unwrap();
    let mut rest = Vec::new();
    let closed = tokio::time::timeout(Duration::from_secs(5), idle.read_to_end(&mut rest)).await;
    assert!(closed.is_ok(), "the idle connection is still open");
    assert!(TcpStream::connect(addr).await.is_err(), "still accepting");
}
