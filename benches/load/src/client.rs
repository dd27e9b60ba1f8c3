//! Single requests outside the load: posting one alert request, and downloading a file as a
//! stream without holding it in memory.

use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::header::{CONTENT_TYPE, HOST};
use hyper::{Method, Request, Uri};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

/// A response read whole.
#[derive(Debug, Clone)]
pub struct Reply {
    /// The status code.
    pub status: u16,
    /// The body.
    pub body: Bytes,
}

/// A streamed download, counted as it arrived.
#[derive(Debug, Clone, Copy)]
pub struct Download {
    /// The status code.
    pub status: u16,
    /// Bytes received.
    pub bytes: u64,
    /// `\n` received: NDJSON lines.
    pub lines: u64,
    /// The largest chunk received at once, in bytes: what the client had to hold.
    pub largest_chunk: usize,
    /// From sending the request to the last byte.
    pub elapsed: Duration,
}

struct Target {
    authority: String,
    path: String,
}

fn target(url: &str) -> Result<Target> {
    let uri: Uri = url
        .parse()
        .with_context(|| format!("`{url}` is not a URL"))?;
    if uri.scheme_str() != Some("http") {
        bail!("only http:// URLs can be fetched, not `{url}`");
    }
    let authority = uri
        .authority()
        .ok_or_else(|| anyhow!("`{url}` names no host"))?
        .to_string();
    let path = uri
        .path_and_query()
        .map_or_else(|| "/".to_owned(), ToString::to_string);
    Ok(Target { authority, path })
}

async fn send(
    url: &str,
    method: Method,
    body: Bytes,
    content_type: Option<&str>,
) -> Result<hyper::Response<hyper::body::Incoming>> {
    let target = target(url)?;
    let stream = TcpStream::connect(&target.authority)
        .await
        .with_context(|| format!("cannot connect to {}", target.authority))?;
    stream.set_nodelay(true)?;
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
    tokio::spawn(conn);
    let mut request = Request::builder()
        .method(method)
        .uri(target.path.as_str())
        .header(HOST, target.authority.as_str());
    if let Some(content_type) = content_type {
        request = request.header(CONTENT_TYPE, content_type);
    }
    let response = sender.send_request(request.body(Full::new(body))?).await?;
    Ok(response)
}

/// POSTs `body` as JSON to `url` and reads the whole response.
///
/// # Errors
/// When the server cannot be reached or the response is cut.
pub async fn post_json(url: &str, body: impl Into<Bytes>) -> Result<Reply> {
    let response = send(url, Method::POST, body.into(), Some("application/json")).await?;
    let status = response.status().as_u16();
    let body = response.into_body().collect().await?.to_bytes();
    Ok(Reply { status, body })
}

/// GETs `url` and returns the whole body.
///
/// # Errors
/// When the server cannot be reached or the response is cut.
pub async fn get(url: &str) -> Result<Reply> {
    let response = send(url, Method::GET, Bytes::new(), None).await?;
    let status = response.status().as_u16();
    let body = response.into_body().collect().await?.to_bytes();
    Ok(Reply { status, body })
}

/// GETs `url`, counting bytes and lines chunk by chunk as they arrive.
///
/// # Errors
/// When the server cannot be reached or the response is cut.
pub async fn download(url: &str) -> Result<Download> {
    let started = Instant::now();
    let response = send(url, Method::GET, Bytes::new(), None).await?;
    let status = response.status().as_u16();
    let mut body = response.into_body();
    let (mut bytes, mut lines, mut largest_chunk) = (0u64, 0u64, 0usize);
    while let Some(frame) = body.frame().await {
        if let Ok(data) = frame?.into_data() {
            bytes += data.len() as u64;
            lines += data.iter().filter(|b| **b == b'\n').count() as u64;
            largest_chunk = largest_chunk.max(data.len());
        }
    }
    Ok(Download {
        status,
        bytes,
        lines,
        largest_chunk,
        elapsed: started.elapsed(),
    })
}
