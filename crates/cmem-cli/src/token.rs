//! `cmem token`: bearer tokens of the HTTP server, kept hashed in the memory.

use std::io::Write;
use std::path::Path;

use anyhow::{bail, Result};
use clap::{Args, Subcommand, ValueEnum};
use cmem_server::{Scope, Tokens};
use serde_json::json;

use crate::memory;
use crate::output::Stdout;
use crate::serve::open_existing_for_write;

const TOKEN_HELP: &str = "\
Examples:
  cmem token create --scope write --name ci
  cmem token list
  cmem token revoke 3f9a0c12be47

A token is printed once, by `create`, and stored only as its SHA-256 in the memory, so
a running `cmem serve` sees a new or revoked token at its next request. Send it as
`Authorization: Bearer TOKEN`. Scopes: read (lookups, search, entries, stats), write
(reads, adding and deleting entries), admin (everything).";

/// `cmem token` and its subcommand.
#[derive(Debug, Clone, Args)]
#[command(after_help = TOKEN_HELP)]
pub struct TokenArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: TokenAction,
}

/// A token's scope, for `--scope`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ScopeArg {
    /// Lookups, search, entries, statistics.
    Read,
    /// Reads, and adding and deleting entries.
    Write,
    /// Everything.
    Admin,
}

/// The token commands.
#[derive(Debug, Clone, Subcommand)]
pub enum TokenAction {
    /// Create a token and print it (once; it is not stored).
    Create {
        /// What it may do.
        #[arg(long, value_enum)]
        scope: ScopeArg,
        /// A label: who or what uses it.
        #[arg(long, default_value = "")]
        name: String,
    },
    /// List the tokens: id, scope, creation time (RFC 3339, UTC), name; never the token.
    List {
        /// One JSON object a line.
        #[arg(long)]
        json: bool,
    },
    /// Revoke a token by its id (from `list` or `create`).
    Revoke {
        /// The token's id.
        id: String,
    },
}

/// Runs `cmem token`.
///
/// # Errors
/// A missing memory, an unknown id, a store failure.
pub fn run(args: &TokenArgs, memory_flag: Option<&Path>, quiet: bool) -> Result<()> {
    let path = memory::resolve(memory_flag);
    let mut out = Stdout::new();
    match &args.action {
        TokenAction::Create { scope, name } => {
            let scope = match scope {
                ScopeArg::Read => Scope::Read,
                ScopeArg::Write => Scope::Write,
                ScopeArg::Admin => Scope::Admin,
            };
            let memory = open_existing_for_write(&path, None, None)?;
            let (secret, record) =
                Tokens::create(&memory, scope, name).map_err(|e| e.prefixed("token create"))?;
            writeln!(out, "{secret}")?;
            if !quiet {
                eprintln!("cmem: token {} ({scope}) created; it is shown only now", record.id);
            }
        }
        TokenAction::List { json } => {
            let memory = memory::open_existing(&path)?;
            let tokens = Tokens::list(&memory).map_err(|e| e.prefixed("token list"))?;
            // Columns as wide as their widest value, under a header.
            let id_width = tokens.iter().map(|r| r.id.to_string().len()).max().unwrap_or(0).max(2);
            let scope_width = tokens.iter().map(|r| r.scope.to_string().len()).max().unwrap_or(0).max(5);
            if !*json && !tokens.is_empty() {
                writeln!(out, "{:<id_width$}  {:<scope_width$}  {:<20}  NAME", "ID", "SCOPE", "CREATED")?;
            }
            for r in tokens {
                if *json {
                    let line = json!({"id": r.id, "scope": r.scope, "name": r.name,
                        "created": r.created(), "created_unix": r.created_unix});
                    writeln!(out, "{line}")?;
                } else {
                    let (id, scope) = (r.id.to_string(), r.scope.to_string());
                    writeln!(out, "{id:<id_width$}  {scope:<scope_width$}  {:<20}  {}", r.created(), r.name)?;
                }
            }
        }
        TokenAction::Revoke { id } => {
            let memory = open_existing_for_write(&path, None, None)?;
            if !Tokens::revoke(&memory, id).map_err(|e| e.prefixed("token revoke"))? {
                bail!("token revoke: no token {id:?} (see `cmem token list`)");
            }
            if !quiet {
                eprintln!("cmem: token {id} revoked");
            }
        }
    }
    out.flush()?;
    Ok(())
}
