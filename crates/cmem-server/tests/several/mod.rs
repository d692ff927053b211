//! A server over several memories (`App::several`): merged and ranked lookups naming
//! each match's memory, one memory alone on its amaGama path, writes to the memory
//! chosen; and penalties and a context on the `/v1` lookups of one memory, answered as
//! the library (and so `cmem lookup`) answers them.

use cmem::{
    AttributePenalty, Locale, LookupOptions, LookupRequest, Memories, Memory, MemorySpec, NewEntry,
    OpenOptions, QueryContext, QueryText, Recognizer, Role, Run, Variant,
};
use cmem_server::{App, Scope, ServerConfig, Tokens};
use serde_json::{json, Value};

use super::{assert_error, en_de, Server};

fn entry(source: &str, target: &str, unit: &str, metadata: &[(&str, &str)]) -> NewEntry {
    let mut e = NewEntry::pair(
        Variant::new(Locale::parse("en").unwrap(), vec![Run::text(source)]),
        Variant::new(Locale::parse("de").unwrap(), vec![Run::text(target)]),
    );
    e.unit = unit.to_owned();
    e.metadata = metadata.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
    e
}

/// A server over `project` (writable, no penalty) and `client` (of `client_role`, 5
/// points of penalty), two SQLite files; both hold "Save", each its own translation.
fn two(client_role: Role) -> Server {
    let dir = tempfile::tempdir().unwrap();
    let open = |name: &str, entries: &[NewEntry]| {
        let path = dir.path().join(format!("{name}.db"));
        let memory = Memory::open_with(path.to_str().unwrap(), &OpenOptions::new().create(true)).unwrap();
        memory.record_rule_set(Some(&Recognizer::default())).unwrap();
        memory.write(entries).unwrap();
        (path, memory)
    };
    let (project_path, project) = open(
        "project",
        &[entry("Save", "Speichern", "", &[]), entry("Open the file", "Datei öffnen", "", &[])],
    );
    let (client_path, client) = open(
        "client",
        &[entry("Save", "Sichern", "", &[]), entry("Print preview", "Druckvorschau", "", &[])],
    );
    // Tokens are kept in the home memory: the first of two writable, the one writable
    // of one.
    let (read, _) = Tokens::create(&project, Scope::Read, "reader").unwrap();
    let (write, _) = Tokens::create(&project, Scope::Write, "writer").unwrap();
    let (revoked, record) = Tokens::create(&project, Scope::Admin, "gone").unwrap();
    assert!(Tokens::revoke(&project, &record.id).unwrap());
    let spec =
        |path: &std::path::Path, name: &str| MemorySpec::new(path.to_str().unwrap()).unwrap().name(name);
    let memories = Memories::new(vec![
        (spec(&project_path, "project"), project),
        (spec(&client_path, "client").role(client_role).penalty(5), client),
    ])
    .unwrap();
    let app = App::several(memories, ServerConfig::new()).unwrap();
    Server::serve(app, dir, project_path, [read, write, revoked], Vec::new())
}

fn targets(matches: &Value) -> Vec<(String, String, f64)> {
    matches
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["memory"].as_str().unwrap_or("").to_owned(),
                m["adapted_target"]["text"].as_str().unwrap().to_owned(),
                m["score"].as_f64().unwrap(),
            )
        })
        .collect()
}

fn lookup(text: &str) -> Value {
    json!({"text": text, "source_locale": "en", "target_locale": "de"})
}

#[test]
fn a_lookup_over_two_memories_ranks_the_penalized_equal_match_second_and_names_both() {
    let s = two(Role::Write);
    let (status, v) = s.post("/v1/lookup", None, &lookup("Save"));
    assert_eq!(status, 200, "{v}");
    let found = targets(&v["matches"]);
    assert_eq!(found.len(), 2, "{v}");
    assert_eq!((found[0].0.as_str(), found[0].1.as_str()), ("project", "Speichern"));
    assert_eq!((found[1].0.as_str(), found[1].1.as_str()), ("client", "Sichern"));
    assert!((found[0].2 - found[1].2 - 0.05).abs() < 1e-9, "{found:?}");
    assert!(v["matches"][1]["penalties"].to_string().contains("memory"), "{v}");

    // The memories a lookup names, only.
    let mut body = lookup("Save");
    body["memories"] = json!(["client"]);
    let (status, v) = s.post("/v1/lookup", None, &body);
    assert_eq!(status, 200, "{v}");
    let found = targets(&v["matches"]);
    assert_eq!(found.len(), 1, "{v}");
    assert_eq!((found[0].0.as_str(), found[0].1.as_str()), ("client", "Sichern"));

    // A batch merges alike.
    let (status, v) = s.post(
        "/v1/lookup/batch",
        None,
        &json!({"source_locale": "en", "target_locale": "de", "memories": ["project", "client"],
                "segments": [{"text": "Print preview"}, {"text": "Save"}]}),
    );
    assert_eq!(status, 200, "{v}");
    assert_eq!(targets(&v["results"][0]["matches"])[0].0, "client");
    assert_eq!(targets(&v["results"][1]["matches"]).len(), 2, "{v}");

    for names in [json!(["nobody"]), json!([])] {
        let mut body = lookup("Save");
        body["memories"] = names;
        let (status, v) = s.post("/v1/lookup", None, &body);
        assert_eq!(status, 400, "{v}");
        assert_eq!(v["details"]["field"], "memories", "{v}");
    }
    let (status, v) = s.get_json("/readyz", None);
    assert_eq!((status, v["memories"].clone()), (200, json!(["project", "client"])));
    // The entries metric counts every memory's.
    let (status, text, _) = s.get("/metrics", None);
    assert_eq!(status, 200);
    assert!(text.lines().any(|l| l == "cmem_memory_entries 4"), "{text}");
}

#[test]
fn each_memory_answers_alone_on_its_own_amagama_path() {
    let s = two(Role::Write);
    let units = |path: &str| {
        let (status, v) = s.get_json(path, None);
        assert_eq!(status, 200, "{path}: {v}");
        v.as_array().unwrap().iter().map(|u| u["target"].as_str().unwrap().to_owned()).collect::<Vec<_>>()
    };
    assert_eq!(units("/tmserver/en/de/unit/Save"), ["Speichern", "Sichern"]);
    assert_eq!(units("/m/client/tmserver/en/de/unit/Save"), ["Sichern"]);
    assert_eq!(units("/m/project/api/v1/en/de/unit/?source=Save"), ["Speichern"]);
    assert!(units("/m/project/tmserver/en/de/unit/Print%20preview").is_empty());
    let (status, v) = s.get_json("/m/client/tmserver/languages/", None);
    assert_eq!(status, 200);
    assert!(v["sourceLanguages"].as_array().unwrap().contains(&json!("en")), "{v}");
    // With a read token in the path, as Weblate gives it.
    assert_eq!(units(&format!("/t/{}/m/client/tmserver/en/de/unit/Save", s.read)), ["Sichern"]);
    let (status, _) = s.get_json(&format!("/t/{}/m/client/api/v1/languages/", s.read), None);
    assert_eq!(status, 200);
    let (status, v) = s.get_json(&format!("/t/{}/m/client/tmserver/en/de/unit/Save", s.revoked), None);
    assert_eq!(status, 401, "{v}");
    let (status, v) = s.get_json("/m/nobody/tmserver/en/de/unit/Save", None);
    assert_eq!(status, 400);
    assert_error(&v, "unknown_memory");

    // The combined answer is kept until any member changes: a write to the second
    // memory changes both it and its ETag.
    let (_, _, before) = s.get("/tmserver/en/de/unit/Save", None);
    let (_, _, again) = s.get("/tmserver/en/de/unit/Save", None);
    assert_eq!(before.get("etag"), again.get("etag"));
    let (status, v) = s.post("/v1/entries?memory=client", Some(&s.write), &en_de("Save", "Ablegen"));
    assert_eq!(status, 201, "{v}");
    let (_, _, after) = s.get("/tmserver/en/de/unit/Save", None);
    assert_ne!(before.get("etag"), after.get("etag"));
    assert!(units("/tmserver/en/de/unit/Save").contains(&"Ablegen".to_owned()));
    assert!(units("/m/client/tmserver/en/de/unit/Save").contains(&"Ablegen".to_owned()));
    assert!(!units("/m/project/tmserver/en/de/unit/Save").contains(&"Ablegen".to_owned()));
}

/// Every amaGama route answers: under each prefix (none, one memory, a read token in the
/// path, both), each root (`tmserver/`, `api/v1/`), the unit with its text in the path
/// and as `?source=`, `languages` with and without its slash; each is counted under its
/// own route template, refuses a bad token in the path and only reads.
#[test]
fn every_amagama_route_answers_under_every_prefix() {
    let s = two(Role::Write);
    let both = json!(["Speichern", "Sichern"]);
    let client = json!(["Sichern"]);
    // The prefix requested, the template it is counted under, "Save"'s suggestions.
    let prefixes = [
        (String::new(), "", &both),
        ("/m/client".to_owned(), "/m/{memory}", &client),
        (format!("/t/{}", s.read), "/t/{token}", &both),
        (format!("/t/{}/m/client", s.read), "/t/{token}/m/{memory}", &client),
    ];
    let held = json!({"sourceLanguages": ["en"], "targetLanguages": ["de"]});
    let mut routes = Vec::new();
    for (prefix, template, suggestions) in &prefixes {
        for root in ["/tmserver", "/api/v1"] {
            let table = [
                ("/en/de/unit/Save", "/{source}/{target}/unit/{text}", *suggestions),
                ("/en/de/unit/?source=Save", "/{source}/{target}/unit/", *suggestions),
                ("/languages/", "/languages/", &held),
                ("/languages", "/languages", &held),
            ];
            for (path, route, expected) in table {
                let url = format!("{prefix}{root}{path}");
                let (status, v) = s.get_json(&url, None);
                assert_eq!(status, 200, "{url}: {v}");
                let got = match v.as_array() {
                    Some(units) => Value::from(units.iter().map(|u| u["target"].clone()).collect::<Vec<_>>()),
                    None => v,
                };
                assert_eq!(&got, expected, "{url}");
                let (status, v) = s.post(&url, Some(&s.write), &json!({}));
                assert_eq!(status, 405, "{url}: {v}");
                assert_error(&v, "method_not_allowed");
                if !prefix.is_empty() && template.starts_with("/t/") {
                    let bad = url.replacen(&s.read, &s.revoked, 1);
                    let (status, v) = s.get_json(&bad, None);
                    assert_eq!(status, 401, "{bad}: {v}");
                }
                routes.push(format!("{template}{root}{route}"));
            }
        }
    }
    assert_eq!(routes.len(), 32);
    let (_, metrics, _) = s.get("/metrics", None);
    for route in routes {
        let line = format!("cmem_http_requests_total{{route=\"{route}\",method=\"GET\",status=\"200\"}} 1");
        assert!(metrics.lines().any(|l| l == line), "{line} not in\n{metrics}");
    }
    assert!(!metrics.contains(&s.read), "the metrics name no token");
}

#[test]
fn writes_go_to_the_memory_chosen_and_are_refused_when_none_is() {
    let s = two(Role::Write);
    let (status, v) = s.post("/v1/entries", Some(&s.write), &en_de("Close", "Schließen"));
    assert_eq!(status, 409, "{v}");
    assert_error(&v, "choose_memory");
    assert!(v["message"].as_str().unwrap().contains("project, client"), "{v}");
    let (status, v) = s.send("DELETE", "/v1/entries/1", Some(&s.write), None);
    assert_eq!(status, 409, "{v}");
    let (status, v) = s.post("/v1/entries?memory=nobody", Some(&s.write), &en_de("Close", "Schließen"));
    assert_eq!((status, v["details"]["field"].clone()), (400, json!("memory")), "{v}");
    let (status, v) = s.post("/v1/entries?memory=client", Some(&s.write), &en_de("Close", "Schließen"));
    assert_eq!(status, 201, "{v}");
    let id = v["entries"][0]["id"].as_i64().unwrap();
    let (status, v) = s.get_json(&format!("/v1/entries/{id}?memory=client"), None);
    assert_eq!((status, v["variants"][1]["runs"][0]["text"].clone()), (200, json!("Schließen")), "{v}");
    let (_, v) = s.post("/v1/lookup", None, &lookup("Close"));
    assert_eq!(targets(&v["matches"])[0].0, "client", "{v}");
    // A revision goes to the memory named, and only there; unnamed, it is refused.
    let revise = json!({"locale": "de", "base": [{"text": "Schließen"}], "text": "Zumachen"});
    let (status, v) = s.post(&format!("/v1/entries/{id}/revise"), Some(&s.write), &revise);
    assert_eq!((status, v["error"].clone()), (409, json!("choose_memory")), "{v}");
    let (status, v) = s.post(&format!("/v1/entries/{id}/revise?memory=client"), Some(&s.write), &revise);
    assert_eq!(status, 200, "{v}");
    let (status, v) = s.get_json(&format!("/v1/entries/{id}/history?memory=client"), None);
    assert_eq!(status, 200, "{v}");
    assert!(v.to_string().contains("Zumachen") && v.to_string().contains("Schließen"), "{v}");
    let (_, v) = s.post("/v1/lookup", None, &lookup("Close"));
    assert_eq!(targets(&v["matches"])[0].1, "Zumachen", "{v}");
    let (_, v) = s.get_json("/v1/stats?memory=project", None);
    assert_eq!(v["entries"], 2, "{v}");

    // One writable memory takes the writes that name none; the read-only one refuses.
    let s = two(Role::Read);
    let (status, v) = s.post("/v1/entries", Some(&s.write), &en_de("Close", "Schließen"));
    assert_eq!(status, 201, "{v}");
    let (status, v) = s.post("/v1/entries?memory=client", Some(&s.write), &en_de("Close", "Zu"));
    assert_eq!(status, 409, "{v}");
    assert!(v["message"].as_str().unwrap().contains("read-only"), "{v}");
    let (_, v) = s.post("/v1/lookup", None, &lookup("Close"));
    assert_eq!(targets(&v["matches"])[0].0, "project", "{v}");
}

/// The matches of the library's answer to `text` with `options` and `context`: what
/// `cmem lookup --json` prints.
fn library(memory: &Memory, text: &str, options: LookupOptions, context: QueryContext) -> Value {
    let runs = cmem::prepare_query(QueryText::Plain(text), Some(&Recognizer::default())).unwrap();
    let req = LookupRequest::new(runs, Locale::parse("en").unwrap(), Locale::parse("de").unwrap())
        .options(options)
        .context(context);
    serde_json::to_value(memory.answer(&req).unwrap()).unwrap()["matches"].clone()
}

#[test]
fn penalties_and_a_context_change_the_ranking_as_the_cli_does() {
    let mut expected = Vec::new();
    let s = Server::start_with(ServerConfig::new(), |memory| {
        memory.record_rule_set(Some(&Recognizer::default())).unwrap();
        memory
            .write(&[
                entry("Open the file", "Die Datei öffnen", "", &[("origin", "mt")]),
                entry("Open the file", "Datei öffnen", "", &[("origin", "human")]),
                entry("Close", "Schließen", "menu.close", &[]),
                entry("Close", "Zumachen", "dialog.close", &[]),
            ])
            .unwrap();
        let mt: AttributePenalty = "origin:mt=10".parse().unwrap();
        let default = LookupOptions::default();
        let key = |k: &str| QueryContext { key: k.to_owned(), ..QueryContext::default() };
        expected.push(library(memory, "Open the file", default.clone().penalties(vec![mt]), key("")));
        expected.push(library(memory, "Close", default.clone(), key("dialog.close")));
        expected.push(library(memory, "Close", default, key("menu.close")));
    });
    let mut body = lookup("Open the file");
    body["penalties"] = json!(["origin:mt=10"]);
    let (status, v) = s.post("/v1/lookup", None, &body);
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["matches"], expected[0]);
    let found = targets(&v["matches"]);
    assert_eq!(found[0].1, "Datei öffnen");
    assert!((found[0].2 - found[1].2 - 0.10).abs() < 1e-9, "{found:?}");
    // Without the penalty the two are equal.
    let (_, v) = s.post("/v1/lookup", None, &lookup("Open the file"));
    let found = targets(&v["matches"]);
    assert!((found[0].2 - found[1].2).abs() < 1e-9, "{found:?}");

    for (key, first, want) in
        [("dialog.close", "Zumachen", &expected[1]), ("menu.close", "Schließen", &expected[2])]
    {
        let mut body = lookup("Close");
        body["context"] = json!({"key": key});
        let (status, v) = s.post("/v1/lookup", None, &body);
        assert_eq!(status, 200, "{v}");
        assert_eq!(&v["matches"], want);
        assert_eq!(targets(&v["matches"])[0].1, first, "{v}");
        assert_eq!(v["matches"][0]["match_type"], "context_exact", "{v}");
    }

    // Per segment in a batch, the penalties shared.
    let (status, v) = s.post(
        "/v1/lookup/batch",
        None,
        &json!({"source_locale": "en", "target_locale": "de", "penalties": ["origin:mt=10"], "segments": [
            {"text": "Open the file"},
            {"text": "Close", "context": {"key": "dialog.close"}},
            {"text": "Close", "context": {"key": "menu.close"}},
            {"text": "Close", "context": {"pre": "Open the file"}},
        ]}),
    );
    assert_eq!(status, 200, "{v}");
    let results = &v["results"];
    assert_eq!(results[0]["matches"], expected[0]);
    assert_eq!(results[1]["matches"], expected[1]);
    assert_eq!(results[2]["matches"], expected[2]);
    assert_error(&results[3]["error"], "invalid_query");
    assert_eq!(results[3]["error"]["details"]["field"], "segments[3].context");

    // Bad values are located.
    let mut body = lookup("Close");
    body["penalties"] = json!(["origin:mt=10", "colour:red=5"]);
    let (status, v) = s.post("/v1/lookup", None, &body);
    assert_eq!(status, 400, "{v}");
    assert_eq!(v["details"]["field"], "penalties[1]", "{v}");
    assert!(v["message"].as_str().unwrap().contains("unknown attribute \"colour\""), "{v}");
    body["penalties"] = json!(["origin:mt=101"]);
    let (status, v) = s.post("/v1/lookup", None, &body);
    assert_eq!((status, v["details"]["field"].clone()), (400, json!("penalties[0]")), "{v}");
    let mut body = lookup("Close");
    body["context"] = json!({"post": "x"});
    let (status, v) = s.post("/v1/lookup", None, &body);
    assert_eq!((status, v["details"]["field"].clone()), (400, json!("context")), "{v}");
    body["context"] = json!({"key": "k", "colour": 1});
    let (status, v) = s.post("/v1/lookup", None, &body);
    assert_eq!(status, 400, "{v}");
    assert_error(&v, "invalid_json");
}

#[test]
fn import_jobs_go_to_the_memory_chosen() {
    let s = two(Role::Write);
    let file = b"{\"source\": \"Quarterly zebra report\", \"target\": \"Zebrabericht\", \"source_locale\": \"en\", \"target_locale\": \"de\"}\n".to_vec();
    // Refused before the upload is read: no job is made.
    let (status, v, location) = s.upload("format=jsonl", Some(&s.write), file.clone());
    assert_eq!((status, v["error"].clone(), location), (409, json!("choose_memory"), None), "{v}");
    let (status, v, _) = s.upload("format=jsonl&memory=nobody", Some(&s.write), file.clone());
    assert_eq!((status, v["details"]["field"].clone()), (400, json!("memory")), "{v}");
    let (_, jobs) = s.get_json("/v1/imports", None);
    assert_eq!(jobs["jobs"], json!([]), "{jobs}");

    let (status, v, location) = s.upload("format=jsonl&memory=client", Some(&s.write), file);
    assert_eq!(status, 202, "{v}");
    let job = s.finished(&location.unwrap());
    assert_eq!((job["status"].clone(), job["inserted"].clone()), (json!("succeeded"), json!(1)), "{job}");
    let (_, client) = s.get_json("/v1/stats?memory=client", None);
    let (_, project) = s.get_json("/v1/stats?memory=project", None);
    assert_eq!((client["entries"].clone(), project["entries"].clone()), (json!(3), json!(2)));
    let (_, v) = s.post("/v1/lookup", None, &lookup("Quarterly zebra report"));
    assert_eq!(targets(&v["matches"])[0].0, "client", "{v}");
}

#[test]
fn an_export_names_the_memory_it_streams() {
    let s = two(Role::Read);
    let export = |query: &str| s.get(&format!("/v1/export?format=jsonl{query}"), None);
    let (status, body, _) = export("&memory=client");
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("Druckvorschau") && !body.contains("Datei öffnen"), "{body}");
    // Unnamed: the home memory, the one writable.
    let (status, body, _) = export("");
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("Datei öffnen") && !body.contains("Druckvorschau"), "{body}");
    let (status, body, _) = export("&memory=nobody");
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!((status, v["details"]["field"].clone()), (400, json!("memory")), "{v}");
}
