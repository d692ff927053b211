//! Edits that keep history, for people correcting the memory by hand (the web page):
//! `POST /v1/entries/{id}/revise` changes one variant's text, `POST /v1/entries/{id}/undo`
//! restores the answer before the last change, `GET /v1/entries/{id}/history` lists
//! both.
//!
//! `PUT /v1/entries/{id}` replaces an entry and keeps nothing of its old text (DESIGN.md
//! §6.1): right for a tool that syncs the memory, wrong for a person whose slip would
//! rewrite a shared memory for good. A revision keeps the answer it replaces in the
//! entry's own metadata, under [`PREVIOUS`], oldest first: a second live entry would be
//! served by lookups beside the new answer, and metadata travels with the entry through
//! every export (TMX keeps it as `x-cmem-meta:` properties). Undo writes the previous
//! answer back as a new revision, pushing the current one, so history only grows.
//!
//! Each change is conditional: the body names the text it was made against (`base`),
//! and the store's writer turn is taken before the entry is read again, so a change
//! another editor or process made meanwhile is answered `409`, never overwritten.

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::Json;
use cmem::{
    prepare_query, Address, Entry, EntryId, Locale, NewEntry, Origin, QueryText, Run, SegmentView, Variant,
};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::app::App;
use crate::error::ApiError;
use crate::native::{entry_id, json_error, memory_param, MemoryParam};
use crate::token::Scope;

/// The metadata key of a previous answer: a JSON [`Previous`].
pub const PREVIOUS: &str = "cmem:previous-answer";

/// An answer an entry had before a revision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Previous {
    /// When it was replaced (RFC 3339, UTC).
    replaced_at: String,
    /// Who replaced it: the name of the write token used (empty when unknown).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    by: String,
    /// Its variants.
    variants: Vec<Variant>,
    /// Its approvals.
    approvals: u32,
}

/// `POST /v1/entries/{id}/revise`'s body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ReviseBody {
    /// The variant changed.
    locale: String,
    /// Its new text: plain (codes recognized), notation or runs, exactly one.
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    notation: Option<String>,
    #[serde(default)]
    runs: Option<Value>,
    /// The variant's runs the change was made against.
    base: Vec<Run>,
}

/// `POST /v1/entries/{id}/undo`'s body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct UndoBody {
    /// The variant whose text the client saw.
    locale: String,
    /// Its runs as the client saw them.
    base: Vec<Run>,
}

/// Now, as RFC 3339 in UTC (`2024-06-11T12:00:00Z`).
fn now_rfc3339() -> String {
    crate::time::rfc3339_utc(SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs()))
}

/// The previous answers in `entry`'s metadata, oldest first; a value that does not
/// parse (written by hand) is left out of the list but kept in the metadata.
fn previous(entry: &Entry) -> Vec<Previous> {
    entry
        .metadata
        .iter()
        .filter(|(k, _)| k == PREVIOUS)
        .filter_map(|(_, v)| serde_json::from_str(v).ok())
        .collect()
}

/// `entry` with its current answer kept as a previous one and `variants` made current,
/// with `approvals` and a write event now.
fn revised(entry: &Entry, variants: Vec<Variant>, approvals: u32, by: &str) -> Result<NewEntry, ApiError> {
    let now = now_rfc3339();
    let kept = Previous {
        replaced_at: now.clone(),
        by: by.to_owned(),
        variants: entry.variants.clone(),
        approvals: entry.approvals(),
    };
    let kept = serde_json::to_string(&kept)
        .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", e.to_string()))?;
    let mut new = entry.to_new();
    new.variants = variants;
    new.approvals = approvals;
    new.metadata.push((PREVIOUS.to_owned(), kept));
    new.origins.push(Origin { project_id: entry.project_id.clone(), created_at: now, ..Origin::default() });
    new.validate()?;
    Ok(new)
}

/// The entry's history as the page shows it: the current answer, the previous ones
/// newest first, and its write events.
fn history(entry: &Entry) -> Value {
    let segments = |vs: &[Variant]| {
        vs.iter().map(|v| SegmentView::of(Some(v.locale.as_str()), &v.runs)).collect::<Vec<_>>()
    };
    let mut previous = previous(entry);
    previous.reverse();
    json!({
        "entry_id": entry.id.0,
        "current": { "variants": segments(&entry.variants), "approvals": entry.approvals(),
                     "last_approved": entry.last_approved() },
        "previous": previous.iter().map(|p| json!({
            "replaced_at": p.replaced_at, "by": p.by, "approvals": p.approvals, "variants": segments(&p.variants),
        })).collect::<Vec<_>>(),
        "origins": entry.origins,
        "project_id": entry.project_id,
        "unit": entry.unit,
        "point": entry.point.as_str(),
    })
}

fn conflict(message: String) -> ApiError {
    ApiError::new(StatusCode::CONFLICT, "conflict", message)
}

/// Reads entry `id` with the store's writer turn held, checks that its `locale` variant
/// is still `base`, and replaces it by what `change` makes of it; the stored entry.
fn change(
    app: &App,
    chosen: Option<&str>,
    id: EntryId,
    locale: &Locale,
    base: &[Run],
    change: impl FnOnce(&Entry) -> Result<NewEntry, ApiError>,
) -> Result<Entry, ApiError> {
    // Of several memories, the one chosen, else the write memory (409 when several may
    // be written).
    let memory = app.write_memory(chosen)?;
    // A private SQLite database in memory has one connection, which the session holds:
    // reading through the store then would wait for itself. No other process can write
    // to it, so a lock of this process orders its changes instead.
    static PRIVATE: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let shared = !matches!(memory.address(), Address::Sqlite(p) if p.as_os_str() == ":memory:");
    let _turn = if shared { None } else { Some(PRIVATE.lock().unwrap_or_else(|e| e.into_inner())) };
    let session = if shared { Some(memory.begin()?) } else { None };
    let entry = memory.get(id)?.ok_or_else(|| ApiError::not_found(format!("no entry {}", id.0)))?;
    let Some(variant) = entry.variants.iter().find(|v| v.locale == *locale) else {
        return Err(ApiError::not_found(format!("entry {} has no {locale} variant", id.0)).in_field("locale"));
    };
    if variant.runs != base {
        return Err(conflict(format!(
            "entry {}'s {locale} text changed since it was read: it is now {:?}; read it again",
            id.0,
            cmem::surface_text(&variant.runs)
        )));
    }
    let new = change(&entry)?;
    match session {
        Some(mut session) => {
            session.replace(id, &new)?;
            session.commit()?;
        }
        None => {
            memory.replace(id, &new)?;
        }
    }
    memory.get(id)?.ok_or_else(|| ApiError::not_found(format!("no entry {}", id.0)))
}

fn field_locale(tag: &str) -> Result<Locale, ApiError> {
    Locale::parse(tag).map_err(|e| ApiError::from(e).in_field("locale"))
}

/// `GET /v1/entries/{id}/history`.
pub(crate) async fn get_history(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path(id): Path<String>,
    params: Result<Query<MemoryParam>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(history(&crate::native::read_entry(&app, &headers, &id, params).await?)))
}

/// `POST /v1/entries/{id}/revise`: the variant's new text, the old answer kept; the
/// history as `GET …/history` answers it.
pub(crate) async fn revise(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path(id): Path<String>,
    params: Result<Query<MemoryParam>, QueryRejection>,
    body: Result<Json<ReviseBody>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    let by = app.authorize(&headers, Scope::Write).await?.map(|t| t.name).unwrap_or_default();
    let id = entry_id(&id)?;
    let chosen = memory_param(params)?;
    let Json(body) = body.map_err(json_error)?;
    let entry = app
        .blocking(move |app| {
            let locale = field_locale(&body.locale)?;
            let query = match (body.text.as_deref(), body.notation.as_deref(), body.runs.as_ref()) {
                (Some(t), None, None) => prepare_query(QueryText::Plain(t), app.recognizer.as_ref()),
                (None, Some(n), None) => prepare_query(QueryText::Notation(n), None),
                (None, None, Some(r)) => prepare_query(QueryText::RunsJson(&r.to_string()), None),
                _ => {
                    return Err(ApiError::bad_request(
                        "give exactly one of \"text\", \"notation\" or \"runs\"",
                    ))
                }
            };
            let runs = query.map_err(|e| ApiError::from(e).in_field("text"))?;
            if runs.is_empty() {
                return Err(ApiError::bad_request("the new text is empty").in_field("text"));
            }
            change(app, chosen.as_deref(), id, &locale, &body.base, |entry| {
                let mut variants = entry.variants.clone();
                if let Some(v) = variants.iter_mut().find(|v| v.locale == locale) {
                    v.runs = runs;
                }
                // The new text is approved once, by whoever wrote it; the old one's
                // approvals stay with it in the history.
                revised(entry, variants, 1, &by)
            })
        })
        .await?;
    Ok(Json(history(&entry)))
}

/// `POST /v1/entries/{id}/undo`: the answer before the last change made current again,
/// as a new revision (the current one kept); `409` when there is none.
pub(crate) async fn undo(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path(id): Path<String>,
    params: Result<Query<MemoryParam>, QueryRejection>,
    body: Result<Json<UndoBody>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    let by = app.authorize(&headers, Scope::Write).await?.map(|t| t.name).unwrap_or_default();
    let id = entry_id(&id)?;
    let chosen = memory_param(params)?;
    let Json(body) = body.map_err(json_error)?;
    let entry = app
        .blocking(move |app| {
            let locale = field_locale(&body.locale)?;
            change(app, chosen.as_deref(), id, &locale, &body.base, |entry| {
                let Some(last) = previous(entry).pop() else {
                    return Err(conflict(format!("entry {} has no previous answer to go back to", id.0)));
                };
                revised(entry, last.variants, last.approvals, &by)
            })
        })
        .await?;
    Ok(Json(history(&entry)))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn entry(target: &str) -> Entry {
        NewEntry::pair(
            Variant::new(Locale::parse("en").unwrap(), vec![Run::text("Save")]),
            Variant::new(Locale::parse("de").unwrap(), vec![Run::text(target)]),
        )
        .into_entry(EntryId(7))
    }

    #[test]
    fn a_revision_keeps_the_answer_it_replaces_and_history_only_grows() {
        let mut e = entry("Sichern");
        e.approvals = 3;
        let mut variants = e.variants.clone();
        variants[1].runs = vec![Run::text("Speichern")];
        let once = revised(&e, variants, 1, "ann").unwrap().into_entry(e.id);
        assert_eq!(once.variants[1].runs, vec![Run::text("Speichern")]);
        assert_eq!(once.approvals(), 1);
        let kept = previous(&once);
        assert_eq!(kept.len(), 1);
        assert_eq!((kept[0].variants[1].runs.clone(), kept[0].approvals), (vec![Run::text("Sichern")], 3));
        assert_eq!(kept[0].by, "ann");
        // Undo: the previous answer, with its approvals, written back as a revision.
        let last = kept[0].clone();
        let back = revised(&once, last.variants, last.approvals, "").unwrap().into_entry(e.id);
        assert_eq!((back.variants[1].runs.clone(), back.approvals()), (vec![Run::text("Sichern")], 3));
        assert_eq!(previous(&back).len(), 2);
        assert_eq!(back.origins.len(), 2);
        let h = history(&back);
        assert_eq!(h["previous"][0]["variants"][1]["text"], "Speichern");
        assert_eq!(h["previous"][1]["variants"][1]["text"], "Sichern");
    }

    #[test]
    fn times_are_rfc3339_in_utc() {
        let t = now_rfc3339();
        assert_eq!(t.len(), 20, "{t}");
        assert!(t.ends_with('Z') && t.as_bytes()[10] == b'T', "{t}");
    }
}
