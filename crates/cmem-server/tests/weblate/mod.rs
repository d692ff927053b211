//! Weblate's tmserver machinery, reproduced request for request: how it lists languages
//! and picks a pair, masks placeholders, cuts and quotes the text, reads the answer and
//! puts the placeholders back. Every test here asks `cmem serve` as that client does.

use cmem::formats::{Format, Input};
use cmem::{Memory, NewEntry, Recognizer, Variant};
use cmem_server::ServerConfig;
use serde_json::Value;

use super::{import_into, quote, Server};

/// Weblate's default threshold for machinery suggestions.
const THRESHOLD: i64 = 80;

/// The client, configured with only a URL (`base`: the path of the tmserver root).
struct Weblate<'a> {
    server: &'a Server,
    base: String,
}

/// One suggestion as Weblate keeps it: the quality as an integer, the texts unmasked.
#[derive(Debug, Clone, PartialEq)]
struct Suggestion {
    quality: i64,
    source: String,
    target: String,
}

impl<'a> Weblate<'a> {
    fn new(server: &'a Server, base: &str) -> Weblate<'a> {
        // A base URL's trailing slashes are stripped.
        Weblate { server, base: base.trim_end_matches('/').to_owned() }
    }

    /// `GET <base>/languages/` (the trailing slash is needed): the pairs supported.
    fn languages(&self) -> (Vec<String>, Vec<String>) {
        let (status, v) = self.server.get_json(&format!("{}/languages/", self.base), None);
        assert_eq!(status, 200, "{v}");
        let list = |k: &str| -> Vec<String> {
            v[k].as_array().unwrap().iter().map(|c| c.as_str().unwrap().to_owned()).collect()
        };
        (list("sourceLanguages"), list("targetLanguages"))
    }

    /// The codes Weblate tries for a language, best first: its code lower case with `_`,
    /// then cut at each `_` (`pt_BR` → `pt_br`, `pt`).
    fn possibilities(code: &str) -> Vec<String> {
        let code = code.replace('-', "_").to_lowercase();
        let mut out = vec![code.clone()];
        let mut rest = code.as_str();
        while let Some((head, _)) = rest.rsplit_once('_') {
            out.push(head.to_owned());
            rest = head;
        }
        out
    }

    /// The pair Weblate asks for, or `None` when the service does not support it.
    fn pair(&self, source: &str, target: &str) -> Option<(String, String)> {
        let (sources, targets) = self.languages();
        for s in Self::possibilities(source) {
            for t in Self::possibilities(target) {
                if sources.contains(&s) && targets.contains(&t) {
                    return Some((s, t));
                }
            }
        }
        None
    }

    /// Weblate's `cleanup_text`: every placeholder replaced, last first, by `[X<offset>X]`;
    /// the replacements to undo.
    fn mask(text: &str, placeholders: &[&str]) -> (String, Vec<(String, String)>) {
        let mut spans: Vec<(usize, &str)> = Vec::new();
        for p in placeholders {
            let mut from = 0;
            while let Some(at) = text[from..].find(p) {
                spans.push((from + at, p));
                from += at + p.len();
            }
        }
        spans.sort();
        let mut out = text.to_owned();
        let mut replacements = Vec::new();
        for &(at, p) in spans.iter().rev() {
            let offset = text[..at].chars().count();
            let mask = format!("[X{offset}X]");
            out.replace_range(at..at + p.len(), &mask);
            replacements.push((mask, p.to_owned()));
        }
        (out, replacements)
    }

    /// Weblate's `uncleanup_text`: each mask back, spaces allowed before its `]`.
    fn unmask(text: &str, replacements: &[(String, String)]) -> String {
        let mut out = text.to_owned();
        for (mask, original) in replacements {
            let head = &mask[..mask.len() - 1];
            let mut result = String::new();
            let mut rest = out.as_str();
            while let Some(at) = rest.find(head) {
                let after = &rest[at + head.len()..];
                let spaces = after.len() - after.trim_start_matches(' ').len();
                if after[spaces..].starts_with(']') {
                    result.push_str(&rest[..at]);
                    result.push_str(original);
                    rest = &after[spaces + 1..];
                } else {
                    result.push_str(&rest[..at + head.len()]);
                    rest = after;
                }
            }
            result.push_str(rest);
            out = result;
        }
        out
    }

    /// The suggestions for `text` in `source` → `target`, its placeholders (as Weblate's
    /// format check highlights them) masked, at Weblate's threshold.
    fn translate(&self, source: &str, target: &str, text: &str, placeholders: &[&str]) -> Vec<Suggestion> {
        let Some((s, t)) = self.pair(source, target) else { return Vec::new() };
        let (masked, replacements) = Self::mask(text, placeholders);
        let sent: String = masked.chars().take(500).collect::<String>().replace('\r', " ");
        let path = format!("{}/{}/{}/unit/{}", self.base, quote(&s), quote(&t), quote(&sent));
        let (status, v) = self.server.get_json(&path, None);
        assert_eq!(status, 200, "{path}: {v}");
        v.as_array()
            .unwrap()
            .iter()
            .map(|line| Suggestion {
                quality: line["quality"].as_f64().unwrap() as i64,
                source: Self::unmask(line["source"].as_str().unwrap(), &replacements),
                target: Self::unmask(line["target"].as_str().unwrap(), &replacements),
            })
            .filter(|s| s.quality >= THRESHOLD)
            .collect()
    }
}

/// Every placeholder of the query is in every suggestion, as often as in the query.
fn assert_keeps(text: &str, placeholders: &[&str], got: &[Suggestion]) {
    for s in got {
        for p in placeholders {
            assert_eq!(s.target.matches(p).count(), text.matches(p).count(), "{p} of {text:?} in {s:?}");
        }
    }
}

/// The sample memory and two Python-format entries, as an import recognizes them.
fn python_entries(memory: &Memory) {
    let rec = Recognizer::default();
    let pair = |s: &str, t: &str| {
        let (s, t) = rec.recognize_pair(s, t);
        NewEntry::pair(
            Variant::new(cmem::Locale::parse("en").unwrap(), s),
            Variant::new(cmem::Locale::parse("de").unwrap(), t),
        )
    };
    memory
        .write(&[
            pair("Deleted %(count)d files in %(folder)s", "%(count)d Dateien in %(folder)s gelöscht"),
            pair("Hello, %s!", "Hallo, %s!"),
        ])
        .unwrap();
}

#[test]
fn masked_format_strings_get_their_placeholders_back() {
    let s = Server::start_with(ServerConfig::new(), |memory| {
        import_into(
            memory,
            vec![Input::open(&super::testdata("cli/sample.jsonl"), Some(Format::Jsonl)).unwrap()],
        );
        python_entries(memory);
    });
    let weblate = Weblate::new(&s, "/tmserver/");

    // c-format, exact: the stored target with the query's placeholder where it had its
    // own; the translator's quotes kept.
    let text = "failed to parse gc.logExpiry value %s";
    let got = weblate.translate("en", "de", text, &["%s"]);
    assert_eq!(
        got.first(),
        Some(&Suggestion {
            quality: 100,
            source: text.to_owned(),
            target: "Fehler beim Parsen des Wertes '%s' von gc.logExpiry".to_owned()
        }),
        "{got:?}"
    );
    assert_keeps(text, &["%s"], &got);

    // c-format, fuzzy: the changed word costs its points, the placeholder stays.
    let text = "failed to remove the directory %s";
    let got = weblate.translate("en", "de", text, &["%s"]);
    assert!(!got.is_empty() && got[0].quality < 100, "{got:?}");
    assert_eq!(got[0].target, "konnte Verzeichnis %s nicht entfernen", "{got:?}");
    assert_keeps(text, &["%s"], &got);

    // A stored `%%` masked too.
    let text = "The %%var macro has no variable";
    let got = weblate.translate("en", "de", text, &["%%"]);
    assert_eq!((got[0].quality, got[0].target.as_str()), (100, "Das %%var-Makro hat keine Variable"));

    // python-format: two placeholders, in another order in the translation.
    let text = "Deleted %(count)d files in %(folder)s";
    let got = weblate.translate("en", "de", text, &["%(count)d", "%(folder)s"]);
    assert_eq!((got[0].quality, got[0].target.as_str()), (100, "%(count)d Dateien in %(folder)s gelöscht"));
    assert_keeps(text, &["%(count)d", "%(folder)s"], &got);

    // Weblate's own unmasking accepts spaces before `]`; so does the mask read here.
    let (status, v) = s.get_json(&format!("/tmserver/en/de/unit/{}", quote("Hello, [X7X ]!")), None);
    assert_eq!(status, 200);
    assert_eq!(v[0]["target"], "Hallo, [X7X ]!", "{v}");

    // A mask the stored target cannot carry is no suggestion at all: the sample's
    // "Automatic" has no placeholder to put `[X10X]` in. The library finds it (64 %).
    let (_, v) = s.get_json("/tmserver/en/de/unit/Automatic%20%5BX10X%5D?min_similarity=50", None);
    assert!(v.as_array().unwrap().iter().all(|u| u["target"].as_str().unwrap().contains("[X10X]")), "{v}");
    let body = serde_json::json!({
        "text": "Automatic [X10X]", "source_locale": "en", "target_locale": "de",
        "client_masks": true, "threshold": 50,
    });
    let (_, v) = s.post("/v1/lookup", None, &body);
    assert_eq!(v["matches"][0]["adapted_target"]["text"], "Automatisch", "{v}");

    // A text cut at 500 characters, `\r` sent as a space: still answered.
    let long = format!("failed to remove\rdirectory %s{}", " and more".repeat(80));
    let (masked, _) = Weblate::mask(&long, &["%s"]);
    let sent: String = masked.chars().take(500).collect::<String>().replace('\r', " ");
    let (status, v) = s.get_json(&format!("/tmserver/en/de/unit/{}", quote(&sent)), None);
    assert_eq!(status, 200, "{v}");
    assert!(v.is_array());
}

#[test]
fn masked_queries_on_the_native_route_by_option() {
    let s = Server::start(ServerConfig::new());
    let body = serde_json::json!({
        "text": "failed to parse gc.logExpiry value [X35X]",
        "source_locale": "en", "target_locale": "de", "client_masks": true,
    });
    let (status, v) = s.post("/v1/lookup", None, &body);
    assert_eq!(status, 200, "{v}");
    let first = &v["matches"][0];
    assert_eq!(first["score"], 1.0, "{v}");
    assert_eq!(
        first["adapted_target"]["text"], "Fehler beim Parsen des Wertes '[X35X]' von gc.logExpiry",
        "{v}"
    );
    // Without the option the mask is text: no exact match.
    let mut plain = body.clone();
    plain["client_masks"] = Value::Bool(false);
    let (_, v) = s.post("/v1/lookup", None, &plain);
    assert!(v["matches"][0]["score"].as_f64().unwrap_or(0.0) < 1.0, "{v}");
}

/// A TMX as Trados and memoQ write it: regional codes on both sides.
const REGIONAL_TMX: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<tmx version="1.4"><header creationtool="test" creationtoolversion="1" segtype="sentence" o-tmf="test" adminlang="en-US" srclang="en-US" datatype="plaintext"/>
<body>
<tu><tuv xml:lang="en-US"><seg>Open the file</seg></tuv><tuv xml:lang="de-DE"><seg>Datei öffnen</seg></tuv></tu>
<tu><tuv xml:lang="en-US"><seg>Could not open file %s</seg></tuv><tuv xml:lang="de-DE"><seg>Datei „%s“ lässt sich nicht öffnen</seg></tuv></tu>
</body></tmx>
"#;

#[test]
fn a_regional_memory_answers_weblate() {
    let s = Server::start_with(ServerConfig::new(), |memory| {
        import_into(memory, vec![Input::from_reader("regional.tmx", Format::Tmx, REGIONAL_TMX.as_bytes())]);
    });
    let weblate = Weblate::new(&s, "/tmserver");
    let (sources, targets) = weblate.languages();
    assert_eq!(
        (sources, targets),
        (vec!["en".to_owned(), "en_us".to_owned()], vec!["de".to_owned(), "de_de".to_owned()])
    );
    // Weblate's `de` and `en` are supported now, and answered from en-US → de-DE.
    assert_eq!(weblate.pair("en", "de"), Some(("en".to_owned(), "de".to_owned())));
    let got = weblate.translate("en", "de", "Open the file", &[]);
    assert_eq!(
        got,
        vec![Suggestion { quality: 100, source: "Open the file".into(), target: "Datei öffnen".into() }]
    );
    let text = "Could not open file %s";
    let got = weblate.translate("en", "de", text, &["%s"]);
    assert_eq!((got[0].quality, got[0].target.as_str()), (100, "Datei „%s“ lässt sich nicht öffnen"));
    // Weblate's de_CH asks for `de` (its first supported possibility) and gets 100 %.
    assert_eq!(weblate.translate("en", "de_CH", "Open the file", &[])[0].quality, 100);
    // Asked for de-CH itself, the de-DE answer is one point down.
    let (_, v) = s.get_json("/tmserver/en/de_ch/unit/Open%20the%20file", None);
    assert_eq!(v[0]["quality"], 99.0, "{v}");
}

#[test]
fn a_read_token_in_the_path_for_clients_without_headers() {
    let s = Server::start(ServerConfig::new().read_needs_token(true));
    // Configured with the plain URL, Weblate is refused (and would pause the service).
    let (status, _) = s.get_json("/tmserver/languages/", None);
    assert_eq!(status, 401);
    // With the token in the URL it works as it would without tokens.
    let weblate = Weblate::new(&s, &format!("/t/{}/tmserver/", s.read));
    assert_eq!(weblate.languages(), (vec!["en".to_owned()], vec!["de".to_owned()]));
    let got = weblate.translate("en", "de", "Automatic", &[]);
    assert_eq!(got[0].target, "Automatisch");
    let (status, v) = s.get_json(&format!("/t/{}/api/v1/en/de/unit/?source=Automatic", s.read), None);
    assert_eq!((status, v[0]["target"].clone()), (200, Value::from("Automatisch")));
    // A revoked or unknown token is refused; the path form only reads.
    for bad in [s.revoked.as_str(), "cmem_0000"] {
        let (status, _) = s.get_json(&format!("/t/{bad}/tmserver/languages/"), None);
        assert_eq!(status, 401, "{bad}");
    }
    let (status, _) = s.post(&format!("/t/{}/v1/entries", s.write), None, &super::en_de("a", "b"));
    assert_eq!(status, 404);
    // The metrics name the route's template, never the token.
    let (_, metrics, _) = s.get("/metrics", Some(&s.read));
    assert!(metrics.contains("/t/{token}/tmserver/{source}/{target}/unit/{text}"), "{metrics}");
    assert!(!metrics.contains(&s.read));
}

#[test]
fn answers_are_kept_until_the_memory_changes_and_carry_an_etag() {
    let s = Server::start(ServerConfig::new());
    let url = format!("{}/tmserver/en/de/unit/Automatic", s.base);
    let get = |etag: Option<&str>| {
        let mut req = s.agent.get(&url);
        if let Some(t) = etag {
            req = req.header("If-None-Match", t);
        }
        let resp = req.call().unwrap();
        let status = resp.status().as_u16();
        let tag = resp.headers().get("etag").map(|v| v.to_str().unwrap().to_owned());
        let cache = resp.headers().get("cache-control").map(|v| v.to_str().unwrap().to_owned());
        let body = resp.into_body().read_to_string().unwrap();
        (status, tag, cache, body)
    };
    let (status, tag, cache, body) = get(None);
    assert_eq!((status, cache.as_deref()), (200, Some("no-cache")), "{body}");
    let tag = tag.expect("an ETag");
    // The same answer again, and 304 to a client that has it.
    let (status, again, _, same) = get(None);
    assert_eq!((status, again.as_deref(), same.as_str()), (200, Some(tag.as_str()), body.as_str()));
    let (status, _, _, empty) = get(Some(&tag));
    assert_eq!((status, empty.as_str()), (304, ""));
    let (_, metrics, _) = s.get("/metrics", None);
    assert!(metrics.contains("cmem_answer_cache_total{result=\"hit\"} 2"), "{metrics}");

    // A write through the server: a new answer, a new tag.
    let (status, v) = s.post("/v1/entries", Some(&s.write), &super::en_de("Automatic", "Selbsttätig"));
    assert_eq!(status, 201, "{v}");
    let (status, changed, _, body) = get(Some(&tag));
    assert_eq!(status, 200);
    assert_ne!(changed.as_deref(), Some(tag.as_str()));
    assert!(body.contains("Selbsttätig"), "{body}");

    // A write by another program on the same file: seen as well.
    let other = Memory::open_with(s.path.to_str().unwrap(), &cmem::OpenOptions::new()).unwrap();
    other
        .write(&[NewEntry::pair(
            Variant::new(cmem::Locale::parse("en").unwrap(), vec![cmem::Run::text("Automatic")]),
            Variant::new(cmem::Locale::parse("de").unwrap(), vec![cmem::Run::text("Automatik")]),
        )])
        .unwrap();
    drop(other);
    let (status, latest, _, body) = get(changed.as_deref());
    assert_eq!(status, 200);
    assert_ne!(latest, changed);
    assert!(body.contains("Automatik"), "{body}");
}

/// A case of `testdata/weblate/client-requests.jsonl`: a string as Weblate 2026.10.1's
/// tmserver machinery asked for it (its own masking, cut and quoting, captured from the
/// real client), what its masks stood for, and what the memory holds for it.
#[derive(Debug, serde::Deserialize)]
struct ClientCase {
    source: String,
    kind: String,
    /// `exact` (the source is in the memory), `ambiguous` (exact, but the masked text has
    /// no word of its own: `[X0X][X3X][X5X]` reads back to `<b>%s</b>` as well as to
    /// `%1%2%3`), `unread` (exact, but a mask covers text and part of a code: Weblate masks
    /// the escaped `{{` of `@b{{quotation_arg}` where the store keeps `{` and the code
    /// `{quotation_arg}`, so no reading can carry the mask; docs/matching.md) or `fuzzy`.
    expect: String,
    /// The request paths below the tmserver root, as sent.
    requests: Vec<String>,
    replacements: std::collections::BTreeMap<String, String>,
    exact_targets: Vec<String>,
}

/// Weblate's `uncleanup_text`, mask by mask in its order, spaces allowed before `]`.
fn weblate_unmask(text: &str, replacements: &std::collections::BTreeMap<String, String>) -> String {
    let mut out = text.to_owned();
    for (mask, original) in replacements {
        let pattern =
            format!("{} *{}", regex::escape(&mask[..mask.len() - 1]), regex::escape(&mask[mask.len() - 1..]));
        out = regex::Regex::new(&pattern).unwrap().replace_all(&out, regex::NoExpand(original)).into_owned();
    }
    out
}

/// The placeholders, directives and tags of a string, counted: what Weblate's format and
/// markup checks compare between a source and a translation (printf with C99 and GCC
/// length letters, `%<PRIu64>`, Python's `%(name)s`, braces, tags).
fn codes_of(text: &str) -> std::collections::BTreeMap<String, usize> {
    let re = regex::Regex::new(
        r"%(?:\d+\$)?[-+ #0']*(?:\d+|\*)?(?:\.(?:\d+|\*))?(?:hh|h|ll|l|j|z|t|q|L|I64|I32|I)?[diouxXeEfFgGaAcspnm]|%<PRI[a-zA-Z0-9]+>|%\([a-z_0-9]+\)[a-z]|\{[a-z_0-9]*\}|</?[a-zA-Z]+[^<>]*>",
    )
    .unwrap();
    let mut out = std::collections::BTreeMap::new();
    for m in re.find_iter(text) {
        *out.entry(m.as_str().to_owned()).or_insert(0) += 1;
    }
    out
}

/// Weblate's own requests, replayed against a memory of the real entries they came from
/// (and 1,500 others with codes): every source that is exact in the memory is shown at
/// 99 or more with the stored translation, and no suggestion Weblate would show (80 or
/// more) loses, alters or adds a placeholder, directive or tag once Weblate has put its
/// masks back: `%ju` sent as `[X20X]u`, tags masked when the source parses as XML,
/// `{{name}}` split into masks and text, texts cut at 500 characters.
#[test]
fn weblate_s_own_requests_get_every_exact_source_and_keep_every_code() {
    let s = Server::start_with(ServerConfig::new(), |memory| {
        import_into(
            memory,
            vec![Input::open(&super::testdata("weblate/client-memory.jsonl"), Some(Format::Jsonl)).unwrap()],
        );
    });
    let text = std::fs::read_to_string(super::testdata("weblate/client-requests.jsonl")).unwrap();
    let cases: Vec<ClientCase> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(cases.len() > 150, "{}", cases.len());
    let (mut exact, mut shown, mut suggestions) = (0, 0, 0);
    let mut failures = Vec::new();
    for case in &cases {
        for path in &case.requests {
            let (status, v) = s.get_json(&format!("/tmserver{path}"), None);
            assert_eq!(status, 200, "{path}: {v}");
            let got: Vec<(i64, String, String)> = v
                .as_array()
                .unwrap()
                .iter()
                .map(|u| {
                    (
                        u["quality"].as_f64().unwrap() as i64,
                        weblate_unmask(u["source"].as_str().unwrap(), &case.replacements),
                        weblate_unmask(u["target"].as_str().unwrap(), &case.replacements),
                    )
                })
                .filter(|(quality, ..)| *quality >= THRESHOLD)
                .collect();
            for (quality, source, target) in &got {
                suggestions += 1;
                if codes_of(target) != codes_of(&case.source) {
                    failures.push(format!("{} {quality} {source:?} → {target:?}: codes differ", case.kind));
                }
            }
            if case.expect == "exact" {
                exact += 1;
                let hit = got.iter().find(|(q, source, _)| *q >= 99 && *source == case.source);
                match hit {
                    Some((_, _, target)) if case.exact_targets.contains(target) => shown += 1,
                    Some((_, _, target)) => {
                        failures.push(format!("{:?}: exact, but {target:?}", case.source))
                    }
                    None => failures.push(format!("{:?} ({path}): not at 99: {got:?}", case.source)),
                }
            }
        }
    }
    assert!(suggestions > 200 && exact > 120, "{suggestions} suggestions, {exact} exact");
    assert!(
        failures.is_empty(),
        "{shown} of {exact} exact shown; {} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// `languages/` with or without its slash, kept until the memory changes: a pair written
/// after the first answer is in the next.
#[test]
fn languages_with_or_without_the_slash_follow_writes() {
    let s = Server::start(ServerConfig::new());
    let (status, with) = s.get_json("/tmserver/languages/", None);
    assert_eq!(status, 200, "{with}");
    let (status, without) = s.get_json("/tmserver/languages", None);
    assert_eq!((status, &without), (200, &with));
    assert_eq!(with["targetLanguages"], serde_json::json!(["de"]));
    for path in ["/api/v1/languages", &format!("/t/{}/tmserver/languages", s.read)] {
        let (status, v) = s.get_json(path, None);
        assert_eq!((status, &v), (200, &with), "{path}");
    }
    let entry = serde_json::json!({"variants": [
        {"locale": "en", "runs": [{"text": "Quarterly zebra report"}]},
        {"locale": "pt-BR", "runs": [{"text": "Relatório trimestral de zebras"}]},
    ]});
    let (status, v) = s.post("/v1/entries", Some(&s.write), &entry);
    assert_eq!(status, 201, "{v}");
    let (_, after) = s.get_json("/tmserver/languages", None);
    assert_eq!(after["targetLanguages"], serde_json::json!(["de", "pt", "pt_br"]), "{after}");
}
