//! The accept loop: HTTP/1.1 on hyper with the bounds a server open to the internet needs,
//! since every client may be hostile.
//!
//! - A client has [`ConnectionLimits::header_read_timeout`] from the first byte of a request
//!   to the end of its head, so that a client that starts a request and never finishes it
//!   (slowloris) holds its connection for seconds, not for ever.
//! - A connection waiting for a request is closed after [`ConnectionLimits::idle_timeout`]
//!   (from its accept, or from the end of its previous response) unless a complete request
//!   head has arrived.
//! - At most [`ConnectionLimits::max_connections`] connections are served at once; further
//!   clients wait in the listen backlog until one ends, so that no number of clients can use
//!   up the process's file descriptors and memory.
//!
//! How long a request's handler may run is the router's business ([`crate::ApiConfig`]'s
//! `request_timeout`).

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};
use tokio::time::{Instant, Sleep};
use tower::ServiceExt;

/// The bounds on connections, per process. The defaults suit one server facing the internet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// How long a client has from the first byte of a request to the end of its head (request
    /// line and headers). Default 10 s: a head is a few hundred bytes, which any client sends
    /// in well under a second even on a poor mobile link, while a slow client holding a
    /// connection open costs the server a file descriptor and a task for this long. A value
    /// over `idle_timeout` has the effect of `idle_timeout`, which runs until a head is
    /// complete.
    pub header_read_timeout: Duration,
    /// How long a connection may wait for its next request (from its accept or the end of its
    /// previous response) until that request's head is complete. Default 60 s: long enough for
    /// a client to reuse its connection across the requests of one session, short enough that
    /// idle clients do not fill the connection cap.
    pub idle_timeout: Duration,
    /// The most connections served at once; further clients wait in the listen backlog until
    /// one ends. Default 10,000: far more than the clients one process serves at its
    /// throughput, and far below the file-descriptor limits a server runs with.
    pub max_connections: u32,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        Self {
            header_read_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            max_connections: 10_000,
        }
    }
}

/// Serves `router` on `listener` with the default [`ConnectionLimits`] until `shutdown`
/// completes; see [`serve_with`].
pub async fn serve(
    listener: TcpListener,
    router: Router,
    shutdown: impl Future<Output = ()> + Send + 'static,
) {
    serve_with(listener, router, ConnectionLimits::default(), shutdown).await;
}

/// Serves `router` on `listener` within `limits` until `shutdown` completes, then stops
/// accepting, lets in-flight requests finish, closes idle connections and returns once every
/// connection has ended.
///
/// Each request carries the client's address as [`ConnectInfo<SocketAddr>`].
pub async fn serve_with(
    listener: TcpListener,
    router: Router,
    limits: ConnectionLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) {
    let cap = limits.max_connections.max(1);
    let permits = Arc::new(Semaphore::new(cap as usize));
    let (closing, closing_rx) = watch::channel(false);
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        // The permit comes before the accept: past the cap, clients wait in the backlog
        // rather than holding an accepted socket each.
        let permit = tokio::select! {
            () = &mut shutdown => break,
            permit = permits.clone().acquire_owned() => match permit {
                Ok(permit) => permit,
                Err(_) => break,
            },
        };
        let (stream, peer) = tokio::select! {
            () = &mut shutdown => break,
            accepted = accept(&listener) => accepted,
        };
        tokio::spawn(serve_connection(
            stream,
            peer,
            router.clone(),
            limits,
            closing_rx.clone(),
            permit,
        ));
    }
    drop(listener);
    let _ = closing.send(true);
    // Each connection holds its permit until it ends: all of them back means all have ended.
    let _ = permits.acquire_many(cap).await;
}

/// The next connection. Errors are retried: a client that gave up before its accept is no
/// reason to stop, and a full file table (`EMFILE`) clears as connections end.
async fn accept(listener: &TcpListener) -> (TcpStream, SocketAddr) {
    loop {
        match listener.accept().await {
            Ok(accepted) => return accepted,
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::ConnectionAborted
                        | io::ErrorKind::ConnectionReset
                        | io::ErrorKind::ConnectionRefused
                ) => {}
            Err(e) => {
                tracing::warn!(error = %e, "cannot accept a connection; retrying in a second");
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        }
    }
}

async fn serve_connection(
    stream: TcpStream,
    peer: SocketAddr,
    router: Router,
    limits: ConnectionLimits,
    mut closing: watch::Receiver<bool>,
    _permit: OwnedSemaphorePermit,
) {
    // Answers are small; waiting to fill a segment would only delay them.
    let _ = stream.set_nodelay(true);
    let requests = Arc::new(Requests::default());
    let io = HeadDeadline::new(stream, requests.clone(), limits.header_read_timeout);
    let service = hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
        request.extensions_mut().insert(ConnectInfo(peer));
        let in_flight = Requests::start(&requests);
        let router = router.clone();
        async move {
            let response = router.oneshot(request).await;
            drop(in_flight);
            response
        }
    });
    let connection = http1::Builder::new()
        .timer(TokioTimer::new())
        // Hyper's head timer runs from the moment the connection waits for a request, so it
        // is the idle timeout; the head's own deadline is `HeadDeadline`'s.
        .header_read_timeout(limits.idle_timeout)
        .keep_alive(true)
        .serve_connection(TokioIo::new(io), service);
    let mut connection = std::pin::pin!(connection);
    let ended = tokio::select! {
        ended = connection.as_mut() => Some(ended),
        // The guard the wait returns is not `Send`: dropped here, before any await.
        _ = closing.wait_for(|&closing| closing) => None,
    };
    let ended = match ended {
        Some(ended) => ended,
        None => {
            connection.as_mut().graceful_shutdown();
            connection.await
        }
    };
    if let Err(e) = ended {
        // Clients that time out or vanish are routine on the internet.
        tracing::debug!(%peer, error = %e, "connection ended");
    }
}

/// What the requests of one connection tell its reader: how many are being served, and how
/// many heads have been complete so far.
#[derive(Debug, Default)]
struct Requests {
    in_flight: AtomicUsize,
    heads: AtomicU64,
}

/// A request being served; ends when dropped (answered, or cancelled).
struct InFlight(Arc<Requests>);

impl Requests {
    /// Called once a request's head is complete, as the request is handed to the router.
    fn start(requests: &Arc<Self>) -> InFlight {
        requests.heads.fetch_add(1, Ordering::AcqRel);
        requests.in_flight.fetch_add(1, Ordering::AcqRel);
        InFlight(requests.clone())
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A connection whose reads fail once a request head has taken longer than its deadline,
/// counted from the head's first byte. Hyper then closes the connection.
struct HeadDeadline {
    inner: TcpStream,
    requests: Arc<Requests>,
    limit: Duration,
    /// While a head is being read: how many heads were complete when it began.
    reading_head: Option<u64>,
    deadline: Pin<Box<Sleep>>,
}

impl HeadDeadline {
    fn new(inner: TcpStream, requests: Arc<Requests>, limit: Duration) -> Self {
        Self {
            inner,
            requests,
            limit,
            reading_head: None,
            deadline: Box::pin(tokio::time::sleep(limit)),
        }
    }
}

impl AsyncRead for HeadDeadline {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.inner).poll_read(cx, buf);
        let serving = this.requests.in_flight.load(Ordering::Acquire) > 0;
        let heads = this.requests.heads.load(Ordering::Acquire);
        // Bytes read while a request is served are its body, not a head.
        if serving || this.reading_head.is_some_and(|began| began != heads) {
            this.reading_head = None;
        }
        if !serving && this.reading_head.is_none() && buf.filled().len() > before {
            this.reading_head = Some(heads);
            this.deadline.as_mut().reset(Instant::now() + this.limit);
        }
        // Polled whether or not bytes came, so that a client trickling a byte at a time is
        // cut off too, and one that sends nothing more is woken for.
        if this.reading_head.is_some() && this.deadline.as_mut().poll(cx).is_ready() {
            return Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the request head did not arrive in time",
            )));
        }
        polled
    }
}

impl AsyncWrite for HeadDeadline {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}
