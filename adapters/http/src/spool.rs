//! Request bodies on their way in: kept in memory when small, written to an unnamed temporary
//! file when large, so that accepting a large alert request holds neither its body nor its
//! points. The file is checked, fingerprinted and stored by reading it again, one point at a
//! time, and it disappears when the request is done (or the process dies).
//!
//! The file goes where [`std::env::temp_dir`] points (`TMPDIR`, else `/tmp`); a server accepts
//! at most its body limit per request in flight there.

use std::cell::Cell;
use std::io::{self, Read, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use alerts_core::idempotency::{Fingerprint, Fingerprinter};
use alerts_core::ports::{POINT_PAGE, PointPages, StoreError};
use alerts_core::request::{AlertPoint, RequestError, RequestLimits, read_points};
use async_trait::async_trait;
use axum::body::Body;
use bytes::{Bytes, BytesMut};
use http_body_util::{BodyExt, LengthLimitError, Limited};
use tokio::sync::mpsc;

use crate::error::ApiError;

/// Bodies up to this size stay in memory: a one-route scoring request, or a thousand alert
/// points, are far below it, and a file would only cost them system calls.
pub(crate) const IN_MEMORY_BYTES: usize = 256 * 1024;

/// Bodies up to this size are parsed on the connection's own task: handing them to the
/// blocking pool costs two thread switches, more than parsing them does.
pub(crate) const INLINE_PARSE_BYTES: usize = 16 * 1024;

/// How much of a spooled body is gathered before it is written out: one system call (and one
/// trip to the blocking pool) per quarter megabyte.
const WRITE_BYTES: usize = 256 * 1024;

/// Reads of a spooled file go through a buffer of this size.
const READ_BUFFER_BYTES: usize = 64 * 1024;

/// A received body.
#[derive(Debug)]
pub(crate) enum Spool {
    /// A small body, whole.
    Memory(Bytes),
    /// A large body in an unnamed temporary file.
    File {
        /// The file; every reader reads it from the start at its own offset.
        file: std::fs::File,
        /// Its length in bytes.
        len: u64,
        /// Set once the request is abandoned: reads then fail, so that parsing on the blocking
        /// pool, which nothing can cancel, ends at its next read.
        abandoned: AtomicBool,
    },
}

/// Why a body could not be received.
#[derive(Debug)]
pub(crate) enum SpoolError {
    /// Longer than the limit.
    TooLarge,
    /// The client's connection failed while sending it.
    Receive(String),
    /// The temporary file could not be written (a full disk, say): not the client's fault.
    Write(io::Error),
    /// Refused by the inspection of its bytes as they arrived.
    Refused(ApiError),
}

impl Spool {
    /// Receives `body`, refusing more than `limit` bytes; bodies over [`IN_MEMORY_BYTES`] go
    /// to a temporary file as they arrive. `inspect` sees each piece as it arrives, before it
    /// is kept: its refusal ends the reading there.
    pub(crate) async fn receive(
        body: Body,
        limit: usize,
        mut inspect: impl FnMut(&[u8]) -> Result<(), ApiError>,
    ) -> Result<Self, SpoolError> {
        let mut body = Limited::new(body, limit);
        let mut held: Vec<Bytes> = Vec::new();
        let mut held_bytes = 0;
        let mut file: Option<(std::fs::File, u64)> = None;
        let mut pending = BytesMut::new();
        while let Some(frame) = body.frame().await {
            let frame = frame.map_err(|e| {
                if e.downcast_ref::<LengthLimitError>().is_some() {
                    SpoolError::TooLarge
                } else {
                    SpoolError::Receive(e.to_string())
                }
            })?;
            let Ok(data) = frame.into_data() else {
                // Trailers carry nothing the API reads.
                continue;
            };
            inspect(&data).map_err(SpoolError::Refused)?;
            match file.take() {
                Some((out, len)) => {
                    pending.extend_from_slice(&data);
                    let len = len + data.len() as u64;
                    let out = if pending.len() >= WRITE_BYTES {
                        write_out(out, pending.split().freeze()).await?
                    } else {
                        out
                    };
                    file = Some((out, len));
                }
                None => {
                    held_bytes += data.len();
                    held.push(data);
                    if held_bytes > IN_MEMORY_BYTES {
                        let out = tokio::task::spawn_blocking(tempfile::tempfile)
                            .await
                            .map_err(|e| SpoolError::Write(io::Error::other(e)))?
                            .map_err(SpoolError::Write)?;
                        let out = write_out(out, concat(std::mem::take(&mut held))).await?;
                        file = Some((out, held_bytes as u64));
                    }
                }
            }
        }
        match file {
            Some((out, len)) => {
                let out = write_out(out, pending.freeze()).await?;
                Ok(Spool::File {
                    file: out,
                    len,
                    abandoned: AtomicBool::new(false),
                })
            }
            None => Ok(Spool::Memory(concat(held))),
        }
    }

    /// The body's length in bytes.
    pub(crate) fn len(&self) -> u64 {
        match self {
            Spool::Memory(bytes) => bytes.len() as u64,
            Spool::File { len, .. } => *len,
        }
    }

    /// Marks the request as abandoned (its client went away, or its time ran out): reads of a
    /// body in a file fail from now on.
    pub(crate) fn abandon(&self) {
        if let Spool::File { abandoned, .. } = self {
            abandoned.store(true, Ordering::Relaxed);
        }
    }

    /// Whether the body is small enough to parse on the connection's own task.
    pub(crate) fn parse_inline(&self) -> bool {
        self.len() <= INLINE_PARSE_BYTES as u64
    }

    /// The body from its start. For a file this is blocking I/O: call it off the async
    /// threads unless [`Spool::parse_inline`] says otherwise (it never does for a file).
    pub(crate) fn reader(&self) -> io::Result<Box<dyn Read + Send + '_>> {
        match self {
            Spool::Memory(bytes) => Ok(Box::new(&bytes[..])),
            Spool::File {
                file, abandoned, ..
            } => {
                let file = StopWhen {
                    inner: FromStart { file, offset: 0 },
                    stop: || {
                        abandoned
                            .load(Ordering::Relaxed)
                            .then_some("the request was abandoned")
                    },
                };
                Ok(Box::new(io::BufReader::with_capacity(
                    READ_BUFFER_BYTES,
                    file,
                )))
            }
        }
    }

    /// The body parsed as JSON into `T`: from the bytes in memory, or streamed from the file.
    /// Blocking I/O for a file, as [`Spool::reader`]; an I/O failure is the error's `Io` kind.
    pub(crate) fn parse_json<T: serde::de::DeserializeOwned>(&self) -> serde_json::Result<T> {
        match self {
            Spool::Memory(bytes) => serde_json::from_slice(bytes),
            Spool::File { .. } => {
                serde_json::from_reader(self.reader().map_err(serde_json::Error::io)?)
            }
        }
    }

    /// The body's bytes when it is kept in memory.
    pub(crate) fn as_bytes(&self) -> Option<&[u8]> {
        match self {
            Spool::Memory(bytes) => Some(bytes),
            Spool::File { .. } => None,
        }
    }

    /// Checks the alert request in the body and counts its points, holding one point at a
    /// time. Blocking for a file, as [`Spool::reader`].
    pub(crate) fn count_points(&self, limits: &RequestLimits) -> Result<u64, RequestError> {
        let reader = self.reader().map_err(unreadable)?;
        read_points(reader, limits, |_| {}).map(|count| count as u64)
    }

    /// The fingerprint of the `count` points of a checked alert request. Blocking for a file,
    /// as [`Spool::reader`].
    pub(crate) fn fingerprint(
        &self,
        limits: &RequestLimits,
        count: u64,
    ) -> Result<Fingerprint, RequestError> {
        let reader = self.reader().map_err(unreadable)?;
        let mut fingerprinter = Fingerprinter::new(count);
        read_points(reader, limits, |point| fingerprinter.add(&point))?;
        Ok(fingerprinter.finish())
    }
}

fn unreadable(e: io::Error) -> RequestError {
    RequestError::Unreadable(e.to_string())
}

/// One buffer of the chunks received so far.
fn concat(mut chunks: Vec<Bytes>) -> Bytes {
    if chunks.len() == 1 {
        return chunks.pop().unwrap_or_default();
    }
    let mut all = BytesMut::with_capacity(chunks.iter().map(Bytes::len).sum());
    for chunk in chunks {
        all.extend_from_slice(&chunk);
    }
    all.freeze()
}

/// Appends `data` to the file on the blocking pool and hands the file back.
async fn write_out(mut file: std::fs::File, data: Bytes) -> Result<std::fs::File, SpoolError> {
    if data.is_empty() {
        return Ok(file);
    }
    tokio::task::spawn_blocking(move || file.write_all(&data).map(|()| file))
        .await
        .map_err(|e| SpoolError::Write(io::Error::other(e)))?
        .map_err(SpoolError::Write)
}

/// The points of a checked alert request in a [`Spool`], parsed again as a store reads them:
/// [`POINT_PAGE`] points at a time, with at most two pages waiting, whatever the request's
/// size.
pub(crate) struct SpoolPages {
    spool: Arc<Spool>,
    limits: RequestLimits,
    total: u64,
    pages: Option<mpsc::Receiver<Result<Vec<AlertPoint>, StoreError>>>,
}

impl SpoolPages {
    /// The pages of `spool`, whose request [`Spool::count_points`] found to hold `total`
    /// points under `limits`.
    pub(crate) fn new(spool: Arc<Spool>, limits: RequestLimits, total: u64) -> Self {
        Self {
            spool,
            limits,
            total,
            pages: None,
        }
    }

    /// Starts reading the pages. Small bodies are read at once, on this task; larger ones on
    /// the blocking pool, one page ahead of the store.
    fn start(&self) -> mpsc::Receiver<Result<Vec<AlertPoint>, StoreError>> {
        if self.spool.parse_inline() {
            // A few pages at most; the channel is given room for all of them.
            let room = 1 + usize::try_from(self.total).unwrap_or(0) / POINT_PAGE;
            let (sender, receiver) = mpsc::channel(room);
            produce_pages(&self.spool, &self.limits, &mut |page| {
                sender.try_send(page).is_ok()
            });
            return receiver;
        }
        let (sender, receiver) = mpsc::channel(1);
        let spool = Arc::clone(&self.spool);
        let limits = self.limits;
        tokio::task::spawn_blocking(move || {
            produce_pages(&spool, &limits, &mut |page| {
                sender.blocking_send(page).is_ok()
            });
        });
        receiver
    }
}

/// Parses the spooled request and hands its points to `send` a page at a time, and an error
/// instead if the body cannot be read again. Once `send` says the store stopped listening,
/// nothing more is sent.
fn produce_pages(
    spool: &Spool,
    limits: &RequestLimits,
    send: &mut dyn FnMut(Result<Vec<AlertPoint>, StoreError>) -> bool,
) {
    let mut page = Vec::with_capacity(POINT_PAGE);
    let listening = Cell::new(true);
    let read = spool.reader().map_err(unreadable).and_then(|reader| {
        // A store that gave up (its transaction failed) ends the read at the next block,
        // rather than leaving this thread to parse the rest of the body for nothing.
        let reader = StopWhen {
            inner: reader,
            stop: || (!listening.get()).then_some("the store stopped reading the request"),
        };
        read_points(reader, limits, |point| {
            if !listening.get() {
                return;
            }
            page.push(point);
            if page.len() == POINT_PAGE {
                let full = std::mem::replace(&mut page, Vec::with_capacity(POINT_PAGE));
                listening.set(send(Ok(full)));
            }
        })
    });
    if !listening.get() {
        return;
    }
    match read {
        Ok(_) if page.is_empty() => {}
        Ok(_) => {
            send(Ok(page));
        }
        // The body was checked before the store was asked to read it: only the file can fail
        // now, and the client may well succeed on a retry.
        Err(RequestError::Unreadable(e)) => {
            send(Err(StoreError::Unavailable(format!(
                "the spooled request body could not be read: {e}"
            ))));
        }
        Err(e) => {
            send(Err(StoreError::Corrupt(format!(
                "the spooled request body changed after it was checked: {e}"
            ))));
        }
    }
}

/// A reader of a whole file from its start, at an offset of its own: readers of one spooled
/// body never move each other's place, as seeking the shared file would.
struct FromStart<'a> {
    file: &'a std::fs::File,
    offset: u64,
}

impl Read for FromStart<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        #[cfg(unix)]
        let read = std::os::unix::fs::FileExt::read_at(self.file, buf, self.offset)?;
        #[cfg(windows)]
        let read = std::os::windows::fs::FileExt::seek_read(self.file, buf, self.offset)?;
        self.offset += read as u64;
        Ok(read)
    }
}

/// A reader that fails, saying why, once `stop` gives a reason.
struct StopWhen<R, F> {
    inner: R,
    stop: F,
}

impl<R: Read, F: Fn() -> Option<&'static str>> Read for StopWhen<R, F> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match (self.stop)() {
            Some(why) => Err(io::Error::other(why)),
            None => self.inner.read(buf),
        }
    }
}

#[async_trait]
impl PointPages for SpoolPages {
    fn total(&self) -> u64 {
        self.total
    }

    async fn next_page(&mut self) -> Result<Vec<AlertPoint>, StoreError> {
        if self.pages.is_none() {
            self.pages = Some(self.start());
        }
        let Some(pages) = self.pages.as_mut() else {
            return Ok(Vec::new());
        };
        // The sender is gone once every page was sent: the end of the points. A reader that
        // died early ends them short, which the store's count check refuses.
        Ok(pages.recv().await.transpose()?.unwrap_or_default())
    }
}

/// Abandons a spooled request when dropped: the handler holds one, so that a request whose
/// handler is dropped (its client went away, or its time ran out) stops its parsing too.
pub(crate) struct AbandonOnDrop(pub(crate) Arc<Spool>);

impl Drop for AbandonOnDrop {
    fn drop(&mut self) {
        self.0.abandon();
    }
}

#[cfg(test)]
mod tests {
    use alerts_core::ports::PointPages;

    use super::*;

    /// A body sent in chunks of `chunk` bytes, as a client streaming it would.
    fn chunked(bytes: &[u8], chunk: usize) -> Body {
        let chunks: Vec<Result<Bytes, std::io::Error>> = bytes
            .chunks(chunk)
            .map(|c| Ok(Bytes::copy_from_slice(c)))
            .collect();
        Body::from_stream(futures::stream::iter(chunks))
    }

    fn accept(_: &[u8]) -> Result<(), ApiError> {
        Ok(())
    }

    fn body_of(points: usize) -> Vec<u8> {
        let points: Vec<String> = (0..points)
            .map(|i| {
                format!(
                    r#"{{"lon": 2.35, "lat": 48.85, "id": "p{i}", "custom_data": {{"i": {i}}}}}"#
                )
            })
            .collect();
        format!(r#"{{"points": [{}]}}"#, points.join(",")).into_bytes()
    }

    fn read_all(spool: &Spool) -> Vec<u8> {
        let mut all = Vec::new();
        spool.reader().unwrap().read_to_end(&mut all).unwrap();
        all
    }

    #[tokio::test]
    async fn a_small_body_stays_in_memory_and_a_large_one_goes_to_a_file_unchanged() {
        let small = body_of(3);
        let spool = Spool::receive(chunked(&small, 7), 1 << 30, accept)
            .await
            .unwrap();
        assert!(matches!(spool, Spool::Memory(_)), "{spool:?}");
        assert_eq!(read_all(&spool), small);

        let large = body_of(8_000);
        assert!(large.len() > IN_MEMORY_BYTES + WRITE_BYTES);
        let spool = Spool::receive(chunked(&large, 10_000), 1 << 30, accept)
            .await
            .unwrap();
        assert!(matches!(spool, Spool::File { .. }), "{spool:?}");
        assert_eq!(spool.len(), large.len() as u64);
        // Every reader starts from the beginning, and readers do not move each other.
        assert_eq!(read_all(&spool), large);
        let mut first = spool.reader().unwrap();
        let mut start = vec![0; 1000];
        first.read_exact(&mut start).unwrap();
        assert_eq!(read_all(&spool), large);
        let mut rest = Vec::new();
        first.read_to_end(&mut rest).unwrap();
        assert_eq!([start, rest].concat(), large);
        assert_eq!(spool.as_bytes(), None);
    }

    #[tokio::test]
    async fn an_abandoned_request_stops_reading_its_file() {
        let large = body_of(8_000);
        let spool = Arc::new(
            Spool::receive(chunked(&large, 10_000), 1 << 30, accept)
                .await
                .unwrap(),
        );
        let mut all = Vec::new();
        spool.reader().unwrap().read_to_end(&mut all).unwrap();
        assert_eq!(all, large);
        drop(AbandonOnDrop(Arc::clone(&spool)));
        let err = spool.reader().unwrap().read_to_end(&mut all).unwrap_err();
        assert_eq!(err.to_string(), "the request was abandoned");
    }

    #[tokio::test]
    async fn a_refusal_of_the_inspection_stops_the_reading_at_that_piece() {
        let pulled = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counter = Arc::clone(&pulled);
        let pieces = (0..100).map(move |_| {
            counter.fetch_add(1, Ordering::Relaxed);
            Ok::<_, std::io::Error>(Bytes::from_static(&[b' '; 1000]))
        });
        let body = Body::from_stream(futures::stream::iter(pieces));
        let mut seen = 0;
        let refused = Spool::receive(body, 1 << 30, |bytes| {
            seen += bytes.len();
            if seen > 2000 {
                Err(ApiError::invalid("enough"))
            } else {
                Ok(())
            }
        })
        .await;
        assert!(
            matches!(&refused, Err(SpoolError::Refused(e)) if e.detail == "enough"),
            "{refused:?}"
        );
        assert_eq!(
            pulled.load(Ordering::Relaxed),
            3,
            "pieces were read past the refusal"
        );
    }

    #[tokio::test]
    async fn a_body_over_the_limit_is_refused_and_one_at_the_limit_taken() {
        let large = body_of(8_000);
        let limit = IN_MEMORY_BYTES * 2;
        let refused = Spool::receive(chunked(&large, 10_000), limit, accept).await;
        assert!(matches!(refused, Err(SpoolError::TooLarge)), "{refused:?}");
        let exact = Spool::receive(chunked(&large, 10_000), large.len(), accept).await;
        assert!(exact.is_ok(), "a body of exactly the limit is taken");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn pages_hold_every_point_in_order_and_at_most_a_page_each() {
        // Inline, on the blocking pool from memory, and from a file.
        for (points, chunk) in [(5, 3), (2_500, 10_000), (8_000, 10_000)] {
            let body = body_of(points);
            let spool = Spool::receive(chunked(&body, chunk), 1 << 30, accept)
                .await
                .unwrap();
            let limits = RequestLimits::default();
            let count = spool.count_points(&limits).unwrap();
            assert_eq!(count, points as u64);
            let mut pages = SpoolPages::new(Arc::new(spool), limits, count);
            assert_eq!(pages.total(), count);
            let mut ids = Vec::new();
            loop {
                let page = pages.next_page().await.unwrap();
                if page.is_empty() {
                    break;
                }
                assert!(page.len() <= POINT_PAGE, "a page of {}", page.len());
                ids.extend(page.into_iter().map(|p| p.id));
            }
            let want: Vec<String> = (0..points).map(|i| format!("p{i}")).collect();
            assert_eq!(ids, want, "{points} points come back in order");
        }
    }

    #[tokio::test]
    async fn the_fingerprint_of_a_spooled_body_is_that_of_its_points() {
        let body = body_of(4);
        let spool = Spool::receive(chunked(&body, 5), 1 << 30, accept)
            .await
            .unwrap();
        let limits = RequestLimits::default();
        let request = alerts_core::request::AlertRequest::from_json_slice(&body, &limits).unwrap();
        assert_eq!(
            spool.fingerprint(&limits, 4).unwrap(),
            Fingerprint::of_points(&request.points)
        );
    }
}
