//! The connection loop: what a client may hold of the server before a request reaches
//! the router. A connection must send its request headers within
//! [`header_timeout`](ServerConfig::header_timeout) (an idle kept-alive connection too),
//! their size is bounded by [`max_header_bytes`](ServerConfig::max_header_bytes) (`431`),
//! and at most [`max_connections`](ServerConfig::max_connections) are open at once: one
//! more is answered `503` and closed, so a crowd of idle sockets cannot starve the
//! clients that ask something.

use std::future::Future;
use std::sync::Arc;

use axum::extract::ConnectInfo;
use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, Semaphore};
use tower_service::Service;

use crate::config::ServerConfig;

/// The body of the answer to a connection over the limit.
const BUSY: &str = r#"{"error":"busy","message":"too many open connections; retry shortly","details":{}}"#;

/// Accepts connections on `listener` and serves `router` on each until `shutdown`
/// completes; then stops accepting, lets every connection finish the request under way
/// and returns once all are closed.
pub(crate) async fn serve_connections(
    listener: TcpListener,
    router: Router,
    config: &ServerConfig,
    shutdown: impl Future<Output = ()> + Send + 'static,
) {
    let slots = Arc::new(Semaphore::new(config.max_connections.max(1)));
    // Dropping `stop_rx` tells every connection to finish; each holds a `done_rx`
    // clone, so `done_tx.closed()` completes once the last one is gone.
    let (stop_tx, stop_rx) = watch::channel(());
    let (done_tx, done_rx) = watch::channel(());
    tokio::spawn(async move {
        shutdown.await;
        drop(stop_rx);
    });
    let mut builder = Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(config.header_timeout)
        .max_buf_size(config.max_header_bytes.max(8192));
    let builder = Arc::new(builder.http1_only());
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(pair) => pair,
                // Out of file descriptors and the like: wait, as the kernel's backlog does.
                Err(_) => {
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = stop_tx.closed() => break,
        };
        let Ok(slot) = Arc::clone(&slots).try_acquire_owned() else {
            tokio::spawn(refuse(stream));
            continue;
        };
        let _ = stream.set_nodelay(true);
        // The router as hyper calls it: the peer's address as axum's `ConnectInfo`, the
        // body as axum's.
        let router = router.clone();
        let service = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
            let mut request = request.map(axum::body::Body::new);
            request.extensions_mut().insert(ConnectInfo(peer));
            router.clone().call(request)
        });
        let (builder, stop, done) = (Arc::clone(&builder), stop_tx.clone(), done_rx.clone());
        tokio::spawn(async move {
            let connection = builder.serve_connection_with_upgrades(TokioIo::new(stream), service);
            tokio::pin!(connection);
            tokio::select! {
                _ = connection.as_mut() => {}
                () = stop.closed() => {
                    connection.as_mut().graceful_shutdown();
                    let _ = connection.await;
                }
            }
            drop((slot, done));
        });
    }
    drop(listener);
    drop(done_rx);
    done_tx.closed().await;
}

/// Answers a connection over the limit `503` and closes it.
async fn refuse(mut stream: TcpStream) {
    let answer = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nconnection: close\r\n\
         retry-after: 1\r\ncontent-length: {}\r\n\r\n{BUSY}",
        BUSY.len()
    );
    let _ = tokio::time::timeout(std::time::Duration::from_secs(1), async {
        let _ = stream.write_all(answer.as_bytes()).await;
        let _ = stream.shutdown().await;
    })
    .await;
}
