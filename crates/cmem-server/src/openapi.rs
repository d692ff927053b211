//! The OpenAPI 3.1 description of every route, served at `/openapi.json`.
//!
//! Written by hand beside the router rather than generated: the handlers take their
//! bodies as `serde_json` values checked field by field (for located errors), which
//! derive-based generators cannot describe. [`ROUTES`] lists what the router serves; a
//! test requests every path of the document from a running server and checks that the
//! two agree.

use axum::Json;
use cmem::formats::registry::{self, FormatSpec};
use serde_json::{json, Value};

/// Every route: method and path template, as the document names them.
pub const ROUTES: &[(&str, &str)] = &[
    ("get", "/"),
    ("get", "/page.js"),
    ("get", "/page.css"),
    ("get", "/healthz"),
    ("get", "/readyz"),
    ("get", "/openapi.json"),
    ("get", "/metrics"),
    ("post", "/v1/lookup"),
    ("post", "/v1/lookup/batch"),
    ("post", "/v1/context"),
    ("get", "/v1/search"),
    ("post", "/v1/entries"),
    ("get", "/v1/entries/{id}"),
    ("put", "/v1/entries/{id}"),
    ("delete", "/v1/entries/{id}"),
    ("get", "/v1/entries/{id}/history"),
    ("post", "/v1/entries/{id}/revise"),
    ("post", "/v1/entries/{id}/undo"),
    ("get", "/v1/stats"),
    ("get", "/v1/versions"),
    ("post", "/v1/imports"),
    ("get", "/v1/imports"),
    ("get", "/v1/imports/{id}"),
    ("get", "/v1/export"),
    ("get", "/tmserver/languages/"),
    ("get", "/tmserver/{source}/{target}/unit/"),
    ("get", "/tmserver/{source}/{target}/unit/{text}"),
    ("get", "/api/v1/languages/"),
    ("get", "/api/v1/{source}/{target}/unit/"),
    ("get", "/api/v1/{source}/{target}/unit/{text}"),
    ("get", "/t/{token}/tmserver/languages/"),
    ("get", "/t/{token}/tmserver/{source}/{target}/unit/"),
    ("get", "/t/{token}/tmserver/{source}/{target}/unit/{text}"),
    ("get", "/t/{token}/api/v1/languages/"),
    ("get", "/t/{token}/api/v1/{source}/{target}/unit/"),
    ("get", "/t/{token}/api/v1/{source}/{target}/unit/{text}"),
    ("get", "/m/{memory}/tmserver/languages/"),
    ("get", "/m/{memory}/tmserver/{source}/{target}/unit/"),
    ("get", "/m/{memory}/tmserver/{source}/{target}/unit/{text}"),
    ("get", "/m/{memory}/api/v1/languages/"),
    ("get", "/m/{memory}/api/v1/{source}/{target}/unit/"),
    ("get", "/m/{memory}/api/v1/{source}/{target}/unit/{text}"),
    ("get", "/t/{token}/m/{memory}/tmserver/languages/"),
    ("get", "/t/{token}/m/{memory}/tmserver/{source}/{target}/unit/"),
    ("get", "/t/{token}/m/{memory}/tmserver/{source}/{target}/unit/{text}"),
    ("get", "/t/{token}/m/{memory}/api/v1/languages/"),
    ("get", "/t/{token}/m/{memory}/api/v1/{source}/{target}/unit/"),
    ("get", "/t/{token}/m/{memory}/api/v1/{source}/{target}/unit/{text}"),
];

/// The path parameter of a read token given in the URL.
fn token_param() -> Value {
    path_param("token", "a read token, for clients that cannot send an Authorization header (Weblate)")
}

/// The path parameter naming one memory of several.
fn memory_path_param() -> Value {
    path_param("memory", "the name of one of the memories served: the answer is that memory's alone")
}

/// The query parameter naming one memory of several (default: `default`).
fn memory_query_param(default: &str) -> Value {
    query_param(
        "memory",
        "string",
        &format!("of several memories served, the one meant (default: {default})"),
    )
}

fn path_param(name: &str, about: &str) -> Value {
    json!({ "name": name, "in": "path", "required": true, "description": about, "schema": { "type": "string" } })
}

fn query_param(name: &str, kind: &str, about: &str) -> Value {
    json!({ "name": name, "in": "query", "required": false, "description": about, "schema": { "type": kind } })
}

fn ok(about: &str, schema: Value) -> Value {
    json!({
        "200": { "description": about, "content": { "application/json": { "schema": schema } } },
        "default": { "$ref": "#/components/responses/Error" },
    })
}

fn unit_op(with_text: bool, with_token: bool) -> Value {
    let mut params = Vec::new();
    if with_token {
        params.push(token_param());
    }
    params.extend([
        path_param(
            "source",
            "source locale code, any case, `_` or `-`; another region of the language answers too",
        ),
        path_param("target", "target locale code"),
    ]);
    if with_text {
        params.push(path_param(
            "text",
            "the segment, percent-encoded; Weblate's placeholder masks `[X20X]` are codes",
        ));
    } else {
        params.push(query_param("source", "string", "the segment"));
    }
    params.push(query_param("min_similarity", "number", "least quality in percent (default 70)"));
    params.push(query_param("max_candidates", "integer", "most answers, 1–100 (default 5)"));
    params.push(query_param("jsoncallback", "string", "JSONP: wrap the answer in a call of this name"));
    json!({ "get": {
        "summary": "amaGama: translations of a segment",
        "tags": ["amagama"],
        "security": security(with_token),
        "parameters": params,
        "responses": ok("matches, best first; [] for a pair that cannot match", json!({
            "type": "array", "items": { "$ref": "#/components/schemas/AmagamaUnit" }
        })),
    }})
}

/// `op` (a unit or languages operation) for one memory of several, under `/m/{memory}`.
fn in_memory(mut op: Value) -> Value {
    if let Some(params) = op["get"]["parameters"].as_array_mut() {
        // After the token, where there is one: the order of the path.
        let at = usize::from(params.first().is_some_and(|p| p["name"] == "token"));
        params.insert(at, memory_path_param());
    }
    op["get"]["summary"] =
        Value::from(format!("{}, from one memory of several", op["get"]["summary"].as_str().unwrap_or("")));
    op
}

/// No token, or a bearer token; with the token in the path, that one.
fn security(with_token: bool) -> Value {
    if with_token {
        json!([{}])
    } else {
        json!([{}, { "bearer": [] }])
    }
}

fn languages_op(with_token: bool) -> Value {
    let params = if with_token { vec![token_param()] } else { Vec::new() };
    json!({ "get": {
        "summary": "amaGama: the locales the memory holds",
        "description": "Also answered without the trailing slash. Kept under the memory's change mark: a write makes the next call read the pairs again.",
        "tags": ["amagama"],
        "security": security(with_token),
        "parameters": params,
        "responses": ok("locale codes, lower case with `_`, and each one's base language", json!({
            "type": "object",
            "required": ["sourceLanguages", "targetLanguages"],
            "properties": {
                "sourceLanguages": { "type": "array", "items": { "type": "string" } },
                "targetLanguages": { "type": "array", "items": { "type": "string" } },
            },
        })),
    }})
}

fn lookup_options() -> Value {
    json!({
        "source_locale": { "type": "string", "description": "BCP 47 tag" },
        "target_locale": { "type": "string", "description": "BCP 47 tag" },
        "threshold": { "type": "number", "minimum": 0, "maximum": 100, "description": "least score in percent (default 70)" },
        "limit": { "type": "integer", "minimum": 1, "maximum": 100, "description": "most matches (default 10)" },
        "point": { "type": "string", "description": "profile/channel/collection the caller asks from" },
        "client_masks": { "type": "boolean", "description": "read Weblate's placeholder masks `[X20X]` in `text` as codes (default false)" },
        "penalties": { "type": "array", "items": { "type": "string", "examples": ["origin:mt=10"] },
            "description": "attribute penalties as `cmem lookup --penalty`: ATTRIBUTE:VALUE=POINTS, the attribute one of project, client, origin, status, file; `*` is any value" },
        "memories": { "type": "array", "minItems": 1, "items": { "type": "string" },
            "description": "of several memories served, the names of those asked (default: all); each match names its memory" },
    })
}

/// Where a segment stands in its document: a context match (`context_exact`) outranks
/// other exact matches.
fn context_schema() -> Value {
    json!({ "type": "object", "additionalProperties": false, "properties": {
        "key": { "type": "string", "description": "the unit's key (msgctxt, XLIFF unit id or resname, JSON key)" },
        "pre": { "type": "string", "description": "the previous segment's source text; \"\" at the document's start (give both pre and post, or neither)" },
        "post": { "type": "string", "description": "the next segment's source text; \"\" at the document's end" },
    } })
}

fn segment_fields(props: &mut serde_json::Map<String, Value>) {
    props.insert(
        "text".into(),
        json!({ "type": "string", "description": "plain text; inline codes recognized" }),
    );
    props.insert("notation".into(), json!({ "type": "string", "description": "the run notation" }));
    props.insert("runs".into(), json!({ "type": "array", "items": { "type": "object" } }));
    props.insert("context".into(), context_schema());
}

/// The routes of edits that keep history (`revise.rs`), and their schema.
fn revision_paths(doc: &mut Value, read: &Value, write: &Value, id: &Value) {
    let history = json!({ "$ref": "#/components/schemas/History" });
    let conditional = |with_text: bool| {
        let mut props = json!({
            "locale": { "type": "string", "description": "the variant changed" },
            "base": { "type": "array", "items": { "type": "object" },
                      "description": "the variant's runs as the client read them" },
        });
        if with_text {
            if let Some(p) = props.as_object_mut() {
                segment_fields(p);
            }
        }
        json!({ "required": true, "content": { "application/json": { "schema": {
            "type": "object", "required": ["locale", "base"], "properties": props } } } })
    };
    doc["paths"]["/v1/entries/{id}/history"] = json!({ "get": {
        "summary": "an entry's current answer, the answers revisions replaced (newest first) and its write events",
        "tags": ["entries"], "security": read, "parameters": [id],
        "responses": ok("the history", history.clone()),
    } });
    doc["paths"]["/v1/entries/{id}/revise"] = json!({ "post": {
        "summary": "change one variant's text, keeping the answer it replaces in the entry's history",
        "description": "Conditional: 409 when the stored text is no longer `base`. The new text counts one \
            approval; the old answer keeps its approvals in the history. 422 when the result would equal \
            another entry.",
        "tags": ["entries"], "security": write, "parameters": [id],
        "requestBody": conditional(true),
        "responses": ok("the history after the change", history.clone()),
    } });
    doc["paths"]["/v1/entries/{id}/undo"] = json!({ "post": {
        "summary": "make the answer before the last change current again, as a new revision (history only grows)",
        "description": "Conditional as revise; 409 also when there is no previous answer.",
        "tags": ["entries"], "security": write, "parameters": [id],
        "requestBody": conditional(false),
        "responses": ok("the history after the undo", history),
    } });
    let segments = json!({ "type": "array", "items": { "$ref": "#/components/schemas/Segment" } });
    doc["components"]["schemas"]["History"] = json!({
        "type": "object", "required": ["entry_id", "current", "previous", "origins"], "properties": {
            "entry_id": { "type": "integer" },
            "current": { "type": "object", "properties": {
                "variants": segments, "approvals": { "type": "integer" }, "last_approved": { "type": "string" } } },
            "previous": { "type": "array", "items": { "type": "object", "properties": {
                "replaced_at": { "type": "string" }, "by": { "type": "string", "description": "the write token's name" },
                "approvals": { "type": "integer" }, "variants": segments } } },
            "origins": { "type": "array", "items": { "type": "object" } },
            "project_id": { "type": "string" }, "unit": { "type": "string" }, "point": { "type": "string" } } });
}

/// The formats `POST /v1/imports` takes: the registry's that import from one stream.
fn import_formats() -> Vec<&'static FormatSpec> {
    registry::FORMATS.iter().filter(|f| f.can_import_stream()).collect()
}

/// The formats `GET /v1/export` writes: the registry's that export.
fn export_formats() -> Vec<&'static FormatSpec> {
    registry::FORMATS.iter().filter(|f| f.can_export()).collect()
}

/// The document.
pub fn openapi() -> Value {
    let mut lookup_props = lookup_options().as_object().cloned().unwrap_or_default();
    segment_fields(&mut lookup_props);
    lookup_props.insert(
        "fragments".into(),
        json!({ "type": "boolean", "description": "add `fragments` to the answer: the stretches of the segment             (two words or more, never across a code) the memory's word model translates consistently;             never filled in (default false)" }),
    );
    lookup_props.insert(
        "terms".into(),
        json!({ "type": "boolean", "description": "add `terms` to the answer: the terms of the memory's glossary             (`cmem terms`: a list given with `--import` first, then those mined from the word model) the             segment holds as whole words, with the memory's translation of each (default false)" }),
    );
    let mut batch_props = lookup_options().as_object().cloned().unwrap_or_default();
    let mut segment_props = serde_json::Map::new();
    segment_fields(&mut segment_props);
    segment_props.insert("id".into(), json!({ "description": "echoed in the answer" }));
    batch_props.insert(
        "segments".into(),
        json!({ "type": "array", "maxItems": 1000, "items": { "type": "object", "properties": segment_props } }),
    );
    let answer = json!({
        "type": "object",
        "required": ["query", "matches"],
        "properties": {
            "query": { "$ref": "#/components/schemas/Segment" },
            "micros": { "type": "integer" },
            "matches": { "type": "array", "items": { "$ref": "#/components/schemas/Match" } },
            "fragments": { "type": "array", "description": "with `fragments: true`, when any: longest first, none overlapping",
                "items": { "$ref": "#/components/schemas/Fragment" } },
            "terms": { "type": "array", "description": "with `terms: true`, when any: in the segment's order",
                "items": { "$ref": "#/components/schemas/FoundTerm" } },
        },
    });
    let write = json!([{ "bearer": [] }]);
    let read = json!([{}, { "bearer": [] }]);
    let id = path_param("id", "entry id");
    let memory_read = memory_query_param("the write memory, else the first");
    let memory_write = memory_query_param(
        "the one memory of role write; 409 when several may be written and none is named, or the one named is read-only",
    );
    // The formats are the format registry's.
    let (imports, exports) = (import_formats(), export_formats());
    let import_summary = format!(
        "import a file ({}; gzip or not) as a job, all or nothing; the upload is streamed to disk and bound by the upload limit (`--max-upload-bytes`, 413), not the body limit",
        imports.iter().map(|f| f.title).collect::<Vec<_>>().join(", ")
    );
    let import_enum: Vec<&str> = imports.iter().map(|f| f.name).collect();
    let export_enum: Vec<&str> = exports.iter().map(|f| f.name).collect();
    let one_pair: Vec<&str> = exports.iter().filter(|f| f.one_pair).map(|f| f.name).collect();
    let mut export_media = serde_json::Map::new();
    for f in &exports {
        let binary = f.media_type == "application/octet-stream";
        let schema = if binary {
            json!({ "type": "string", "format": "binary" })
        } else {
            json!({ "type": "string" })
        };
        export_media.insert(f.media_type.to_owned(), json!({ "schema": schema }));
    }
    let mut doc = json!({
        "openapi": "3.1.0",
        "info": {
            "title": "cmem",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "A content (translation) memory: lookups, search and entries, and amaGama's protocol. \
                Writes need a bearer token of scope write (created with `cmem token create`); reads are open \
                unless the server requires tokens for them. Errors are `{error, message, details}`. \
                A server started with `--pairs` answers a request naming another locale pair (amaGama's \
                path, a body's source_locale and target_locale, an entry's variants) \
                `421 pair_not_served`, its details naming the pairs served; the `/v1` routes are also \
                served under `/p/{source}/{target}` (each one's `servers`) for a proxy that routes by pair.",
        },
        "paths": {
            "/": { "get": { "summary": "the web page: lookup, search, import", "tags": ["page"],
                "responses": { "200": { "description": "HTML", "content": { "text/html": { "schema": { "type": "string" } } } } } } },
            "/page.js": { "get": { "summary": "the web page's script", "tags": ["page"],
                "responses": { "200": { "description": "JavaScript", "content": { "text/javascript": { "schema": { "type": "string" } } } } } } },
            "/page.css": { "get": { "summary": "the web page's style", "tags": ["page"],
                "responses": { "200": { "description": "CSS", "content": { "text/css": { "schema": { "type": "string" } } } } } } },
            "/healthz": { "get": { "summary": "the process answers", "tags": ["operations"],
                "responses": ok("always", json!({ "type": "object" })) } },
            "/readyz": { "get": { "summary": "the store answers and the index is loaded", "tags": ["operations"],
                "responses": ok("ready", json!({ "type": "object" })) } },
            "/openapi.json": { "get": { "summary": "this document", "tags": ["operations"],
                "responses": ok("the document", json!({ "type": "object" })) } },
            "/metrics": { "get": { "summary": "request counts, latency histograms and entries, in Prometheus' text format",
                "tags": ["operations"], "security": read,
                "responses": { "200": { "description": "the metrics", "content": { "text/plain": { "schema": { "type": "string" } } } },
                               "default": { "$ref": "#/components/responses/Error" } } } },
            "/v1/lookup": { "post": {
                "summary": "exact and fuzzy matches of one segment, best first, adapted to it",
                "tags": ["lookup"], "security": read,
                "requestBody": { "required": true, "content": { "application/json": { "schema": {
                    "type": "object", "required": ["source_locale", "target_locale"], "properties": lookup_props,
                } } } },
                "responses": ok("the query and its matches", answer.clone()),
            } },
            "/v1/lookup/batch": { "post": {
                "summary": "look up to 1,000 segments; each answered in order, a failed one with its own error",
                "tags": ["lookup"], "security": read,
                "requestBody": { "required": true, "content": { "application/json": { "schema": {
                    "type": "object", "required": ["segments", "source_locale", "target_locale"], "properties": batch_props,
                } } } },
                "responses": ok("one result per segment", json!({ "type": "object", "properties": {
                    "results": { "type": "array", "items": { "type": "object" } } } })),
            } },
            "/v1/context": context_route(&read),
            "/v1/search": { "get": {
                "summary": "concordance search: entries whose text holds all the words, ranked, a page at a time",
                "tags": ["search"], "security": read,
                "parameters": [
                    { "name": "q", "in": "query", "required": true, "schema": { "type": "string" } },
                    { "name": "locale", "in": "query", "required": true, "schema": { "type": "string" } },
                    query_param("to", "string", "only translations in this locale"),
                    query_param("project", "string", "only entries of this project, or from this file (among the best max_search_hits)"),
                    query_param("limit", "integer", "hits per page (default 20)"),
                    query_param("offset", "integer", "hits to skip (default 0)"),
                    memory_query_param("the write memory, else the first"),
                ],
                "responses": ok("a page of hits; next_offset is null on the last", json!({ "type": "object", "properties": {
                    "hits": { "type": "array", "items": { "type": "object" } },
                    "offset": { "type": "integer" }, "limit": { "type": "integer" },
                    "next_offset": { "type": ["integer", "null"] },
                } })),
            } },
            "/v1/entries": { "post": {
                "summary": "add one entry or an array of them, all or none",
                "tags": ["entries"], "security": write, "parameters": [memory_write.clone()],
                "requestBody": { "required": true, "content": { "application/json": { "schema": {
                    "oneOf": [{ "$ref": "#/components/schemas/NewEntry" },
                              { "type": "array", "items": { "$ref": "#/components/schemas/NewEntry" } }],
                } } } },
                "responses": {
                    "201": { "description": "each entry's id and whether it was new or deduplicated",
                             "content": { "application/json": { "schema": { "type": "object" } } } },
                    "default": { "$ref": "#/components/responses/Error" },
                },
            } },
            "/v1/entries/{id}": {
                "get": { "summary": "one entry", "tags": ["entries"], "security": read, "parameters": [id.clone(), memory_read.clone()],
                         "responses": ok("the entry", json!({ "type": "object" })) },
                "put": {
                    "summary": "replace one entry's variants, point, unit and metadata at once, keeping its id",
                    "description": "One transaction: lookups see the old text or the new, never both. Origins \
                        are kept and the body's new ones appended; approvals are the body's. The body may carry \
                        the id a GET answered with, which must then be the path's. 404 when there is no such \
                        entry; 422 when the body is not a valid entry or would equal another entry.",
                    "tags": ["entries"], "security": write, "parameters": [id.clone(), memory_write.clone()],
                    "requestBody": { "required": true, "content": { "application/json": { "schema": {
                        "$ref": "#/components/schemas/NewEntry" } } } },
                    "responses": ok("the entry as stored", json!({ "type": "object" })),
                },
                "delete": { "summary": "delete one entry", "tags": ["entries"], "security": write,
                            "parameters": [id, memory_write.clone()],
                            "responses": { "204": { "description": "deleted" },
                                           "default": { "$ref": "#/components/responses/Error" } } },
            },
            "/v1/stats": { "get": { "summary": "entries, variants, locale pairs, size", "tags": ["stats"],
                "security": read, "parameters": [memory_read.clone()], "responses": ok("the counts", json!({ "type": "object" })) } },
            "/v1/versions": { "get": {
                "summary": "the prior answers of a content block, newest first",
                "tags": ["entries"], "security": read,
                "parameters": [
                    { "name": "unit", "in": "query", "required": true, "schema": { "type": "string" } },
                    query_param("point", "string", "narrow to one point (default: every point)"),
                    query_param("limit", "integer", "most versions, 1–100 (default 20)"),
                    memory_read.clone(),
                ],
                "responses": ok("the versions", json!({ "type": "object", "properties": {
                    "versions": { "type": "array", "items": { "type": "object" } } } })),
            } },
            "/v1/imports": {
                "post": {
                    "summary": import_summary,
                    "tags": ["imports"], "security": write,
                    "parameters": [
                        { "name": "format", "in": "query", "required": true,
                          "schema": { "type": "string", "enum": import_enum } },
                        query_param("from", "string", "source locale of entries whose file names none; a file naming another fails the job, storing nothing"),
                        query_param("to", "string", "target locale of entries whose file names none; as from"),
                        query_param("relabel", "boolean", "store every entry as from → to even where the file names other languages"),
                        query_param("strict", "boolean", "fail at the first problem"),
                        query_param("name", "string", "the file's name in messages"),
                        query_param("align", "boolean", "true: train the word model of from → to after the import whatever the pair's size; false: do not; unset: when the pair has 1,000 entries and no model, or grew by a tenth since its model was trained"),
                        memory_write,
                    ],
                    "requestBody": { "required": true, "content": { "application/octet-stream": {
                        "schema": { "type": "string", "format": "binary" } } } },
                    "responses": {
                        "202": { "description": "the job, running; Location names it",
                                 "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Job" } } } },
                        "default": { "$ref": "#/components/responses/Error" },
                    },
                },
                "get": { "summary": "every import job since the server started", "tags": ["imports"], "security": read,
                         "responses": ok("the jobs", json!({ "type": "object", "properties": {
                             "jobs": { "type": "array", "items": { "$ref": "#/components/schemas/Job" } } } })) },
            },
            "/v1/imports/{id}": { "get": {
                "summary": "an import job: its progress, and at the end its located problems",
                "tags": ["imports"], "security": read, "parameters": [path_param("id", "job id")],
                "responses": ok("the job", json!({ "$ref": "#/components/schemas/Job" })),
            } },
            "/v1/export": { "get": {
                "summary": "the memory as a file, streamed as it is read; a failure mid-way breaks the transfer",
                "tags": ["imports"], "security": read,
                "parameters": [
                    { "name": "format", "in": "query", "required": true,
                      "schema": { "type": "string", "enum": export_enum } },
                    query_param("from", "string", &format!("only entries with this locale, written first (needed by {})", one_pair.join(", "))),
                    query_param("to", "string", &format!("only entries with this locale (needed by {})", one_pair.join(", "))),
                    memory_query_param("the home memory"),
                ],
                "responses": {
                    "200": { "description": "the file", "content": export_media },
                    "default": { "$ref": "#/components/responses/Error" },
                },
            } },
            "/tmserver/languages/": languages_op(false),
            "/tmserver/{source}/{target}/unit/": unit_op(false, false),
            "/tmserver/{source}/{target}/unit/{text}": unit_op(true, false),
            "/api/v1/languages/": languages_op(false),
            "/api/v1/{source}/{target}/unit/": unit_op(false, false),
            "/api/v1/{source}/{target}/unit/{text}": unit_op(true, false),
            "/t/{token}/tmserver/languages/": languages_op(true),
            "/t/{token}/tmserver/{source}/{target}/unit/": unit_op(false, true),
            "/t/{token}/tmserver/{source}/{target}/unit/{text}": unit_op(true, true),
            "/t/{token}/api/v1/languages/": languages_op(true),
            "/t/{token}/api/v1/{source}/{target}/unit/": unit_op(false, true),
            "/t/{token}/api/v1/{source}/{target}/unit/{text}": unit_op(true, true),
        },
        "components": {
            "securitySchemes": { "bearer": { "type": "http", "scheme": "bearer" } },
            "responses": { "Error": { "description": "an error", "content": { "application/json": { "schema": {
                "type": "object", "required": ["error", "message", "details"],
                "properties": { "error": { "type": "string" }, "message": { "type": "string" }, "details": {} },
            } } } } },
            "schemas": {
                "Fragment": { "type": "object", "required": ["source", "words", "target", "agreeing", "seen"],
                    "description": "a stretch of the query the memory holds with a consistent translation",
                    "properties": {
                    "source": { "type": "string", "description": "the stretch, as the query writes it" },
                    "words": { "type": "array", "items": { "type": "integer" }, "minItems": 2, "maxItems": 2,
                        "description": "its first and last word, counted in the query's words from 0" },
                    "target": { "type": "string", "description": "the memory's translation of it" },
                    "agreeing": { "type": "integer", "description": "sightings translated so" },
                    "seen": { "type": "integer", "description": "sightings of the stretch" },
                    "example": { "type": "integer", "description": "an entry that holds the pair" } } },
                "FoundTerm": { "type": "object", "required": ["source", "target", "count", "seen", "share", "noun", "found"],
                    "description": "a term of the memory's glossary that the query holds",
                    "properties": {
                    "source": { "type": "string", "description": "the term, folded to lower case" },
                    "target": { "type": "string", "description": "the memory's translation of it" },
                    "count": { "type": "integer", "description": "sightings with that translation (0 when given)" },
                    "seen": { "type": "integer", "description": "sightings with any translation" },
                    "share": { "type": "number", "description": "count / seen" },
                    "noun": { "type": "boolean", "description": "likely a noun or noun phrase" },
                    "example": { "type": "integer", "description": "an entry that holds the pair" },
                    "found": { "type": "string", "description": "its words as the query writes them" },
                    "given": { "type": "boolean", "description": "from the list a user gave, not mined" } } },
                "Segment": { "type": "object", "required": ["text", "runs"], "properties": {
                    "locale": { "type": "string" }, "text": { "type": "string" },
                    "runs": { "type": "array", "items": { "type": "object" } } } },
                "Match": { "type": "object", "description": "the match view of `cmem lookup --json`",
                    "required": ["score", "percent", "match_type", "tier", "entry_id", "source", "target", "adapted_target"],
                    "properties": {
                        "score": { "type": "number" }, "percent": { "type": "number" },
                        "match_type": { "type": "string" }, "tier": { "type": "integer" },
                        "entry_id": { "type": "integer" }, "ambiguous": { "type": "boolean" },
                        "point": { "type": "string" }, "unit": { "type": "string" },
                        "source": { "$ref": "#/components/schemas/Segment" },
                        "target": { "$ref": "#/components/schemas/Segment" },
                        "adapted_target": { "$ref": "#/components/schemas/Segment" },
                        "origins": { "type": "array", "items": { "type": "object" } },
                        "approvals": { "type": "integer" },
                    } },
                "NewEntry": { "type": "object", "required": ["variants"], "properties": {
                    "variants": { "type": "array", "minItems": 2, "items": { "type": "object",
                        "required": ["locale", "runs"], "properties": {
                            "locale": { "type": "string" }, "runs": { "type": "array", "items": { "type": "object" } } } } },
                    "point": { "type": "string" }, "unit": { "type": "string" }, "project_id": { "type": "string" },
                    "origins": { "type": "array", "items": { "type": "object" } },
                    "metadata": { "type": "array", "items": { "type": "array", "items": { "type": "string" } } } } },
                "Job": { "type": "object", "required": ["id", "status"], "properties": {
                    "id": { "type": "integer" },
                    "status": { "type": "string", "enum": ["running", "succeeded", "failed", "cancelled"] },
                    "format": { "type": "string" }, "upload_bytes": { "type": "integer" },
                    "bytes_read": { "type": "integer" }, "read": { "type": "integer" },
                    "inserted": { "type": "integer" }, "deduplicated": { "type": "integer" },
                    "problems": { "type": "integer" },
                    "problem_messages": { "type": "array", "items": { "type": "string" } },
                    "error": { "type": ["string", "null"] },
                    "word_model": { "type": ["object", "null"], "description": "the word model trained after the import",
                        "properties": { "from": { "type": "string" }, "to": { "type": "string" },
                            "report": { "type": ["object", "null"] }, "error": { "type": ["string", "null"] } } } } },
                "AmagamaUnit": { "type": "object", "required": ["source", "target", "quality", "rank"], "properties": {
                    "source": { "type": "string" }, "target": { "type": "string", "description": "adapted to the query" },
                    "quality": { "type": "number" }, "rank": { "type": "number" } } },
            },
        },
    });
    revision_paths(&mut doc, &read, &write, &id);
    // One memory of several: each amaGama route again under `/m/{memory}`.
    for (_, path) in ROUTES {
        let base = path.replace("/m/{memory}", "");
        if base != *path {
            doc["paths"][*path] = in_memory(doc["paths"][&base].clone());
        }
    }
    // The `/v1` routes again below the pair a proxy routes on.
    let servers = json!([
        { "url": "/" },
        { "url": "/p/{source}/{target}",
          "description": "the pair in the path, for a reverse proxy that routes by pair: the body's locales \
            (source_locale and target_locale, an entry's variants, from and to, locale and to) must be the \
            path's (else 400); a pair the server does not serve is 421 before the request is read",
          "variables": {
            "source": { "default": "en", "description": "BCP 47 tag of the source locale" },
            "target": { "default": "de", "description": "BCP 47 tag of the target locale" } } },
    ]);
    if let Some(paths) = doc["paths"].as_object_mut() {
        for (path, item) in paths.iter_mut() {
            if path.starts_with("/v1/") {
                item["servers"] = servers.clone();
            }
        }
    }
    doc
}

/// `GET /openapi.json`.
pub(crate) async fn document() -> Json<Value> {
    Json(openapi())
}

/// `/v1/context` (its own function: one `json!` of the whole document would exceed the
/// macro's recursion limit).
fn context_route(read: &Value) -> Value {
    json!({ "post": {
        "summary": "the context of up to 1,000 segments for a translation producer: prior version, matches, examples covering each segment, glossary",
        "description": "Per segment: `prior_version` (the block's previous approved source and target, only when \
            `context_fingerprint` is the one its newest approval carries), `matches` (as /v1/lookup), `examples` \
            (at most `examples` source/target pairs chosen by greedy weighted coverage of the segment's words \
            and word pairs, each with `entry_id`, `score`, `match_score` and what it `covers`), `glossary` (term \
            pairs of the locale pair's word model; empty, with `word_model` false, when none is trained) and \
            `exact` (true when an exact match short-circuited examples and glossary). Every segment is checked \
            before any is answered: a 400 names the first bad one as `segments[INDEX].FIELD`. At most \
            max_batch segments (default 1,000; 413 over it).",
        "tags": ["lookup"], "security": read,
        "requestBody": { "required": true, "content": { "application/json": { "schema": {
            "type": "object", "required": ["segments", "source_locale", "target_locale"], "properties": {
                "segments": { "type": "array", "items": { "type": "object", "properties": {
                    "id": { "description": "echoed with the answer" },
                    "text": { "type": "string" }, "notation": { "type": "string" },
                    "runs": { "type": "array", "items": { "type": "object" } },
                    "unit": { "type": "string", "description": "the block the segment is a version of" },
                    "context_fingerprint": { "type": "string", "description": "must govern the prior version" },
                    "point": { "type": "string" },
                    "context": { "type": "object", "description": "the unit key and both neighbours' sources",
                                 "properties": { "key": { "type": "string" }, "pre": { "type": "string" }, "post": { "type": "string" } } },
                } } },
                "source_locale": { "type": "string" }, "target_locale": { "type": "string" },
                "threshold": { "type": "number", "description": "the matches' least score, percent (default 70)" },
                "limit": { "type": "integer", "description": "matches, 1–100 (default 10)" },
                "client_masks": { "type": "boolean" },
                "penalties": { "type": "array", "items": { "type": "string" } },
                "examples": { "type": "integer", "description": "at most this many examples, 0–20 (default 5)" },
                "max_example_chars": { "type": "integer", "description": "characters of all examples together, at most 100,000 (default 4,000)" },
                "min_example_score": { "type": "number", "description": "the least share of the segment an example holds alone, percent (default 10)" },
                "glossary": { "type": "integer", "description": "at most this many glossary pairs, 0–50 (default 10)" },
                "short_circuit_exact": { "type": "boolean", "description": "an exact match gives no examples and no glossary (default true)" },
                "memory": { "type": "string", "description": "of several memories served, the one asked (default: the home memory)" },
            },
        } } } },
        "responses": ok("one answer per segment, in order, each with its index", json!({ "type": "object", "properties": {
            "results": { "type": "array", "items": { "type": "object", "properties": {
                "index": { "type": "integer" }, "exact": { "type": "boolean" }, "word_model": { "type": "boolean" },
                "prior_version": { "type": "object" }, "matches": { "type": "array", "items": { "type": "object" } },
                "examples": { "type": "array", "items": { "type": "object" } },
                "glossary": { "type": "array", "items": { "type": "object" } },
            } } } } })),
    } })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn document_lists_exactly_the_routes() {
        let doc = openapi();
        let mut documented = BTreeSet::new();
        for (path, ops) in doc["paths"].as_object().unwrap() {
            for method in ops.as_object().unwrap().keys().filter(|k| *k != "servers") {
                documented.insert((method.clone(), path.clone()));
            }
        }
        let routes: BTreeSet<_> = ROUTES.iter().map(|(m, p)| (m.to_string(), p.to_string())).collect();
        assert_eq!(documented, routes);
    }

    #[test]
    fn format_enums_are_the_registrys() {
        let doc = openapi();
        let enum_of = |path: &str, method: &str| -> Vec<String> {
            let params = doc["paths"][path][method]["parameters"].as_array().unwrap();
            let format = params.iter().find(|p| p["name"] == "format").unwrap();
            format["schema"]["enum"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap().to_owned())
                .collect()
        };
        assert_eq!(enum_of("/v1/imports", "post"), registry::names(FormatSpec::can_import_stream));
        assert_eq!(enum_of("/v1/export", "get"), registry::names(FormatSpec::can_export));
        assert!(enum_of("/v1/export", "get")
            .iter()
            .all(|n| registry::by_name(n).is_some_and(FormatSpec::can_export)));
        let media = doc["paths"]["/v1/export"]["get"]["responses"]["200"]["content"].as_object().unwrap();
        assert!(
            media.contains_key("application/x-tmx+xml") && media.contains_key("text/x-gettext-translation")
        );
    }

    #[test]
    fn every_reference_resolves() {
        fn refs(v: &Value, out: &mut Vec<String>) {
            match v {
                Value::Object(m) => {
                    if let Some(Value::String(r)) = m.get("$ref") {
                        out.push(r.clone());
                    }
                    m.values().for_each(|v| refs(v, out));
                }
                Value::Array(a) => a.iter().for_each(|v| refs(v, out)),
                _ => {}
            }
        }
        let doc = openapi();
        let mut found = Vec::new();
        refs(&doc, &mut found);
        assert!(found.len() > 5);
        for r in found {
            let pointer = r.strip_prefix('#').unwrap();
            assert!(doc.pointer(pointer).is_some(), "{r} does not resolve");
        }
    }
}
