//! Serving: [`serve`] prepares a memory and binds the configured address, [`serve_on`]
//! serves an [`App`] until a shutdown (such as [`shutdown_signal`]).
//!
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
use cmem::Memory;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, Semaphore};
use tower_service::Service;

use crate::app::App;
use crate::config::ServerConfig;
use crate::error::ServerError;

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

/// Serves `memory` as configured until `SIGTERM` or Ctrl-C: the index is built first,
/// then connections are accepted; on the signal the server stops accepting and ends once
/// the requests under way are answered (a write acknowledged is committed).
///
/// # Errors
/// The memory failed while preparing, or the address could not be bound.
pub async fn serve(memory: Memory, config: ServerConfig) -> Result<(), ServerError> {
    let listen = config.listen;
    let app = tokio::task::spawn_blocking(move || App::new(memory, config)).await.map_err(|e| {
        ServerError::Io { doing: "preparing the memory".into(), source: std::io::Error::other(e) }
    })??;
    let listener = TcpListener::bind(listen)
        .await
        .map_err(|source| ServerError::Io { doing: format!("binding {listen}"), source })?;
    serve_on(listener, Arc::new(app), shutdown_signal()).await
}

/// Serves `app` on `listener` until `shutdown` completes, then finishes the requests
/// under way and cancels the running import jobs (each rolls back: nothing of it is
/// stored).
///
/// # Errors
/// Serving failed.
pub async fn serve_on(
    listener: TcpListener,
    app: Arc<App>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServerError> {
    serve_connections(listener, Arc::clone(&app).router(), &app.config, shutdown).await;
    // No request is under way any more; running imports are cancelled and roll back
    // before the memory closes.
    app.jobs.shut_down().await;
    Ok(())
}

/// A future that completes on `SIGTERM` or Ctrl-C (`SIGINT`). The handlers are installed
/// when this is called, not when the future is first polled: a program that announces
/// it is serving after calling it is never killed by a signal that comes at once (the
/// default action of both), but stops cleanly. Call it inside a Tokio runtime.
pub fn shutdown_signal() -> impl std::future::Future<Output = ()> + Send + 'static {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let term = signal(SignalKind::terminate()).ok();
        let int = signal(SignalKind::interrupt()).ok();
        async move {
            // Without a handler there is nothing to wait for: keep serving.
            let wait = |s: Option<tokio::signal::unix::Signal>| async move {
                match s {
                    Some(mut s) => {
                        s.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                () = wait(term) => {},
                () = wait(int) => {},
            }
        }
    }
    #[cfg(not(unix))]
    {
        async {
            if tokio::signal::ctrl_c().await.is_err() {
                std::future::pending::<()>().await;
            }
        }
    }
}
