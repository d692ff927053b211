//! `ServerConfig::pairs` (`cmem serve --pairs`): a server of some locale pairs answers
//! another pair `421` on every route that names one, lists only its pairs, and serves
//! the `/v1` routes again under `/p/{source}/{target}/` for a proxy to route on.

use cmem_server::{Pairs, ServerConfig};
use serde_json::{json, Value};

use super::{assert_error, en_de, Server};

fn serving(pairs: &str) -> Server {
    Server::start(ServerConfig::new().pairs(Some(Pairs::parse(pairs).unwrap())))
}

fn lookup(source: &str, target: &str) -> Value {
    json!({"text": "Automatic", "source_locale": source, "target_locale": target})
}

/// A `421` that names the pairs served.
fn misdirected((status, v): (u16, Value), served: &str) {
    assert_eq!(status, 421, "{v}");
    assert_error(&v, "pair_not_served");
    assert_eq!(v["details"]["pairs"][0]["target"], served, "{v}");
}

#[test]
fn a_server_of_other_pairs_answers_421_on_every_route_naming_one_and_lists_none_of_them() {
    // The sample memory holds en → de only.
    let s = serving("en-fr,en-ja");
    misdirected(s.get_json("/tmserver/en/de/unit/Automatic", None), "fr");
    misdirected(s.get_json(&format!("/t/{}/tmserver/en_US/de_de/unit/Automatic", s.read), None), "fr");
    misdirected(s.post("/v1/lookup", None, &lookup("en", "de")), "fr");
    misdirected(
        s.post(
            "/v1/lookup/batch",
            None,
            &json!({"segments": [{"text": "Automatic"}], "source_locale": "en", "target_locale": "de"}),
        ),
        "fr",
    );
    misdirected(
        s.post(
            "/v1/context",
            None,
            &json!({"segments": [{"text": "Automatic"}], "source_locale": "en", "target_locale": "de"}),
        ),
        "fr",
    );
    misdirected(s.post("/v1/entries", Some(&s.write), &en_de("Hello", "Hallo")), "fr");
    misdirected(
        s.send("PUT", "/v1/entries/1", Some(&s.write), Some(&en_de("Hello", "Hallo").to_string())),
        "fr",
    );
    misdirected(s.get_json("/v1/search?q=file&locale=en&to=de", None), "fr");
    misdirected(s.get_json("/v1/export?format=tmx&from=en&to=de", None), "fr");
    misdirected(s.get_json("/p/en/de/v1/stats", None), "fr");
    // The pairs listed are the served pairs the memory holds: none.
    assert_eq!(
        s.get_json("/tmserver/languages/", None),
        (200, json!({"sourceLanguages": [], "targetLanguages": []}))
    );
    let (status, stats) = s.get_json("/v1/stats", None);
    assert_eq!((status, &stats["pairs"]), (200, &json!([])), "{stats}");
    assert_eq!(stats["entries"], 193, "the totals are the memory's: {stats}");
    let (_, ready) = s.get_json("/readyz", None);
    assert_eq!(ready["pairs"], json!([{"source": "en", "target": "fr"}, {"source": "en", "target": "ja"}]));
    // What names no pair is answered.
    assert_eq!(s.get_json("/v1/entries/1", None).0, 200);
    assert_eq!(s.get_json("/v1/search?q=file&locale=en", None).0, 200);
    // A pair that cannot match (one language twice, no locale) is amaGama's empty answer.
    assert_eq!(s.get_json("/tmserver/en/en_GB/unit/Automatic", None), (200, json!([])));
}

#[test]
fn a_pair_prefixed_route_answers_its_pair_with_the_lookups_fallback_and_the_body_must_agree() {
    let s = serving("en-de");
    let (status, v) = s.get_json("/tmserver/en_US/de_CH/unit/Automatic", None);
    assert_eq!((status, &v[0]["target"]), (200, &json!("Automatisch")), "{v}");
    for path in ["/p/en/de/v1/lookup", "/p/en-US/de/v1/lookup", "/v1/lookup"] {
        let (status, v) = s.post(path, None, &lookup("en", "de"));
        assert_eq!((status, &v["matches"][0]["target"]["text"]), (200, &json!("Automatisch")), "{path}: {v}");
    }
    let (status, v) = s.post("/p/en/de/v1/lookup", None, &lookup("en", "fr"));
    assert_eq!(status, 400, "{v}");
    assert_eq!(v["details"]["field"], "target_locale", "{v}");
    assert!(v["message"].as_str().unwrap().contains("/p/en/fr/"), "{v}");
    // Writes under the path hold its pair; routes with captures of their own are served.
    let (status, v) = s.post("/p/en/de/v1/entries", Some(&s.write), &en_de("Hello pairs", "Hallo Paare"));
    assert_eq!(status, 201, "{v}");
    let id = v["entries"][0]["id"].as_i64().unwrap();
    let (status, v) = s.get_json(&format!("/p/en/de/v1/entries/{id}"), None);
    assert_eq!((status, &v["variants"][1]["runs"][0]["text"]), (200, &json!("Hallo Paare")), "{v}");
    let ja = json!({"variants": [
        {"locale": "en", "runs": [{"text": "Hello"}]}, {"locale": "ja", "runs": [{"text": "こんにちは"}]},
    ]});
    let (status, v) = s.post("/p/en/de/v1/entries", Some(&s.write), &json!([en_de("A", "B"), ja]));
    assert_eq!((status, &v["details"]["field"]), (400, &json!("entries[1]")), "{v}");
    misdirected(s.post("/v1/entries", Some(&s.write), &ja), "de");
    // Below the prefix, the /v1 routes only; a locale that does not read names its place.
    let (status, v) = s.get_json("/p/en/de/tmserver/languages/", None);
    assert_eq!(status, 404, "{v}");
    let (status, v) = s.get_json("/p/english/de/v1/stats", None);
    assert_eq!((status, &v["details"]["field"]), (400, &json!("source")), "{v}");
    let (status, v) = s.get_json("/p/en%2DUS/de/v1/stats", None);
    assert_eq!(status, 200, "{v}");
}

#[test]
fn where_reads_need_a_token_the_pairs_are_named_only_to_a_reader() {
    let s =
        Server::start(ServerConfig::new().read_needs_token(true).pairs(Some(Pairs::parse("en-fr").unwrap())));
    let (status, v) = s.get_json("/p/en/de/v1/stats", None);
    assert_eq!(status, 421, "{v}");
    assert_eq!(v["details"]["pairs"], Value::Null, "{v}");
    assert_eq!(s.post("/v1/lookup", None, &lookup("en", "de")).0, 401);
    misdirected(s.post("/v1/lookup", Some(&s.read), &lookup("en", "de")), "fr");
}
