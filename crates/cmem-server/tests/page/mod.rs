//! The web page as a translator uses it, in headless Chromium over the DevTools pipe:
//! copying a suggestion in one key with the query's codes, notes and origins shown, and
//! the page checked by axe-core (no serious or critical violation) in light and dark
//! colours and at a phone's width. Screenshots go to the build's test directory.

use serde_json::{json, Value};

use super::{quote, Browser, Server};
use cmem_server::ServerConfig;

/// `<i>the</i>` as runs (type and data as the recognizer gives them).
fn italic(inner: &str) -> Vec<Value> {
    vec![
        json!({"pc_open": {"id": "1", "type": "x-html-i", "data": "<i>"}}),
        json!({"text": inner}),
        json!({"pc_close": {"id": "1", "type": "x-html-i", "data": "</i>"}}),
    ]
}

/// A server on the sample memory with three more entries: one with codes, from a file of
/// project `writer-ui`, one without, of project `help`, and one English → French.
fn server() -> Server {
    let s = Server::start(ServerConfig::new());
    let mut en = vec![json!({"text": "Open "})];
    en.extend(italic("the"));
    en.push(json!({"text": " file"}));
    let mut de = italic("Die");
    de.push(json!({"text": " Datei öffnen"}));
    let coded = json!({
        "variants": [{"locale": "en", "runs": en}, {"locale": "de", "runs": de}],
        "project_id": "writer-ui",
        "metadata": [["jsonl:origin", "ui/dialogs.po"]],
    });
    let plain = json!({
        "variants": [{"locale": "en", "runs": [{"text": "Open the files"}]},
                     {"locale": "de", "runs": [{"text": "Dateien öffnen"}]}],
        "project_id": "help",
    });
    let french = json!({
        "variants": [{"locale": "en", "runs": [{"text": "Open the files"}]},
                     {"locale": "fr", "runs": [{"text": "Ouvrir les fichiers"}]}],
    });
    let (status, v) = s.post("/v1/entries", Some(&s.write), &json!([coded, plain, french]));
    assert_eq!(status, 201, "{v}");
    s
}

fn open(b: &mut Browser, url: &str) {
    b.call("Page.navigate", json!({"url": url}));
    b.wait_for(
        "document.readyState === 'complete' && /entries/.test(document.getElementById('memory').textContent)",
    );
}

fn clipboard(b: &mut Browser) -> String {
    b.read_async("navigator.clipboard.readText()").as_str().unwrap_or_default().to_owned()
}

#[test]
fn one_key_copies_a_suggestion_with_the_querys_codes_beside_its_notes_and_origins() {
    let s = server();
    let mut b = Browser::start();
    b.call_browser(
        "Browser.grantPermissions",
        json!({"origin": s.base, "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]}),
    );
    open(&mut b, &format!("{}/?q={}&from=en&to=de", s.base, quote("Open <b>the</b> file")));
    b.wait_for("document.querySelectorAll('#lookup-results .match').length === 2");
    // Origins are read from each entry after the matches are shown.
    b.wait_for("/ui\\/dialogs\\.po/.test(document.querySelector('#match-1 .origin').textContent)");

    // The query's codes are named; the first suggestion carries them (adapted from the
    // stored <i>), the second cannot and says so.
    let note = b.read("document.querySelector('.query-note').textContent");
    assert!(note.as_str().unwrap().contains("<b> </b>"), "{note}");
    let first = b.read("document.querySelector('#match-1').textContent").as_str().unwrap().to_owned();
    assert!(first.contains("1. Exact"), "{first}");
    assert!(first.contains("<b>Die</b> Datei öffnen"), "{first}");
    assert!(first.contains("project writer-ui") && first.contains("memory sample"), "{first}");
    let second = b.read("document.querySelector('#match-2').textContent").as_str().unwrap().to_owned();
    assert!(second.contains("2. Fuzzy"), "{second}");
    assert!(second.contains("project help"), "{second}");
    assert!(second.contains("could not be placed in the translation: <b> </b>"), "{second}");

    // 1 (focus outside a text field) copies the first suggestion, codes as in the file.
    b.click("#lookup-title");
    b.press("1", 49, "1", 0);
    b.wait_for("/Copied suggestion 1/.test(document.getElementById('copy-status').textContent)");
    assert_eq!(clipboard(&mut b), "<b>Die</b> Datei öffnen");
    assert_eq!(b.read("document.getElementById('copy-status').getAttribute('role')"), "status");

    // In the text field, digits are typed; Alt+2 copies the second suggestion.
    b.click("#lookup-text");
    b.press("2", 50, "", 1);
    b.wait_for("/Copied suggestion 2/.test(document.getElementById('copy-status').textContent)");
    assert_eq!(clipboard(&mut b), "Dateien öffnen");
    assert_eq!(b.read("document.getElementById('lookup-text').value"), "Open <b>the</b> file");

    // Codes copied as numbers, the choice remembered for the next visit.
    b.click("#lookup-title");
    b.tab_to("lookup-codes", false);
    b.press("ArrowDown", 40, "", 0);
    assert_eq!(b.read("document.getElementById('lookup-codes').value"), "numbered");
    b.press("1", 49, "", 1);
    b.wait_for("/Copied suggestion 1: \\{1\\}/.test(document.getElementById('copy-status').textContent)");
    assert_eq!(clipboard(&mut b), "{1}Die{/1} Datei öffnen");
    // The target language is picked from the memory's pairs, and remembered too.
    let targets = b.read("Array.from(document.getElementById('lookup-to').options).map((o) => o.value)");
    assert_eq!(targets, json!(["de", "fr"]));
    b.tab_to("lookup-to", true);
    b.press("ArrowDown", 40, "", 0);
    assert_eq!(b.read("document.getElementById('lookup-to').value"), "fr");
    open(&mut b, &format!("{}/", s.base));
    assert_eq!(b.read("document.getElementById('lookup-codes').value"), "numbered");
    assert_eq!(
        b.read("[document.getElementById('lookup-from').value, document.getElementById('lookup-to').value]"),
        json!(["en", "fr"])
    );
    b.click("#lookup-text");
    b.type_text("Open the files");
    b.enter();
    b.wait_for("document.querySelector('#match-1') !== null");
    assert_eq!(b.read("document.querySelector('#match-1 .use').textContent"), "Ouvrir les fichiers");
}

/// axe-core's `axe.min.js`: `$CMEM_AXE` (`.ci/run` installs npm's `axe-core` and sets
/// it). Missing, the check fails under CI and is skipped, saying so, elsewhere.
fn axe_source() -> Option<String> {
    match std::env::var("CMEM_AXE").ok().and_then(|p| std::fs::read_to_string(p).ok()) {
        Some(source) => Some(source),
        None if std::env::var_os("CI").is_some() => {
            panic!("CMEM_AXE does not name axe-core's axe.min.js (npm install axe-core@4); CI must run the check")
        }
        None => {
            eprintln!(
                "skipping the axe-core check: set CMEM_AXE to axe-core's axe.min.js (npm install axe-core@4)"
            );
            None
        }
    }
}

/// The serious and critical violations axe-core finds in the page as it is now.
fn violations(b: &mut Browser) -> Value {
    b.read_async(
        "axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations \
         .filter((v) => v.impact === 'serious' || v.impact === 'critical') \
         .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')) })))",
    )
}

#[test]
fn the_page_passes_axe_in_light_and_dark_and_fits_a_phone() {
    let s = server();
    let mut b = Browser::start();
    let axe = axe_source();
    // Lookup and concordance views filled from one link.
    open(
        &mut b,
        &format!("{}/?q={}&from=en&to=de&search=file&locale=en", s.base, quote("Open <b>the</b> file")),
    );
    b.wait_for("document.querySelectorAll('#lookup-results .match').length === 2");
    b.wait_for("document.querySelector('#search-results mark') !== null");
    b.click("#match-1 details summary");
    b.click("#match-1 .actions button:nth-child(3)");
    b.wait_for("document.querySelector('#match-1 .history') !== null");
    b.click("#match-2 .actions button:nth-child(2)");
    b.wait_for("document.querySelector('#match-2 .edit-form textarea') !== null");

    // The import view, with a located problem listed: a file chosen as a person would
    // (the file dialog's answer), the format picked with the arrow keys, the token typed.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("strings.jsonl");
    std::fs::write(
        &file,
        "{\"source\": \"Zebra crossing\", \"target\": \"Zebrastreifen\"}\n{\"source\": 3}\n",
    )
    .unwrap();
    let root = b.call("DOM.getDocument", json!({}));
    let input =
        b.call("DOM.querySelector", json!({"nodeId": root["root"]["nodeId"], "selector": "#import-file"}));
    b.call("DOM.setFileInputFiles", json!({"nodeId": input["nodeId"], "files": [file.to_str().unwrap()]}));
    b.tab_to("import-format", false);
    b.press("ArrowDown", 40, "", 0);
    b.press("ArrowDown", 40, "", 0);
    assert_eq!(b.read("document.getElementById('import-format').value"), "jsonl");
    b.click("#import-from");
    b.type_text("en");
    b.click("#import-to");
    b.type_text("de");
    b.click("#write-token");
    b.type_text(&s.write);
    b.click("#import-form button[type=submit]");
    b.wait_for("document.querySelector('#import-problems li') !== null");
    let problem = b.read("document.querySelector('#import-problems li').textContent");
    assert!(problem.as_str().unwrap().contains("line 2"), "the problem is located: {problem}");
    let status = b.read("document.getElementById('import-status').textContent");
    assert!(status.as_str().unwrap().contains("1 new"), "{status}");
    assert_eq!(b.read("document.getElementById('import-progress').value === 1"), true);

    b.screenshot("cmem-page-light.png");
    if let Some(source) = &axe {
        b.call("Runtime.evaluate", json!({"expression": source}));
        let found = violations(&mut b);
        assert_eq!(found, json!([]), "light colours");
    }
    // The confirmation a delete asks for, too.
    b.click("#match-2 .actions button:nth-child(4)");
    b.wait_for("document.getElementById('confirm').open");
    b.screenshot("cmem-page-confirm.png");
    if axe.is_some() {
        let found = violations(&mut b);
        assert_eq!(found, json!([]), "the confirmation");
    }
    b.press("Escape", 27, "", 0);
    b.wait_for("!document.getElementById('confirm').open");

    // Dark colours when the system asks for them, still without violations.
    b.call(
        "Emulation.setEmulatedMedia",
        json!({"features": [{"name": "prefers-color-scheme", "value": "dark"}]}),
    );
    assert_eq!(b.read("getComputedStyle(document.body).backgroundColor"), "rgb(22, 22, 22)");
    b.screenshot("cmem-page-dark.png");
    if axe.is_some() {
        let found = violations(&mut b);
        assert_eq!(found, json!([]), "dark colours");
    }

    // Motion only for those who have not asked for less.
    let transition = "getComputedStyle(document.getElementById('copy-status')).transitionDuration";
    b.call(
        "Emulation.setEmulatedMedia",
        json!({"features": [{"name": "prefers-reduced-motion", "value": "no-preference"}]}),
    );
    assert_eq!(b.read(transition), "0.3s");
    b.call(
        "Emulation.setEmulatedMedia",
        json!({"features": [{"name": "prefers-reduced-motion", "value": "reduce"}]}),
    );
    assert_eq!(b.read(transition), "0s");

    // A phone's 375 px: nothing wider than the screen, every control reachable.
    b.call(
        "Emulation.setDeviceMetricsOverride",
        json!({"width": 375, "height": 800, "deviceScaleFactor": 1, "mobile": true}),
    );
    b.wait_for("window.innerWidth === 375");
    let wide = b.read(
        "Array.from(document.querySelectorAll('body *')).filter((e) => e.getBoundingClientRect().right > 376 \
         && e.getClientRects().length > 0 && !e.closest('dialog')).map((e) => e.tagName + '#' + e.id + '.' + e.className)",
    );
    assert_eq!(wide, json!([]), "wider than 375 px");
    assert_eq!(b.read("document.documentElement.scrollWidth <= 375"), true);
    b.screenshot("cmem-page-375.png");
}

#[test]
fn a_delete_asks_first_and_can_be_undone() {
    let s = server();
    let mut b = Browser::start();
    open(&mut b, &format!("{}/?q={}&from=en&to=de", s.base, quote("Open the files")));
    b.wait_for("document.querySelector('#match-1') !== null");
    let id = b.read("matches[0].entry_id").as_i64().unwrap();

    // Without a token the page asks for one, and deletes nothing.
    b.click("#match-1 .actions button:nth-child(4)");
    b.wait_for("document.activeElement.id === 'write-token'");
    assert!(!b.read("document.getElementById('confirm').open").as_bool().unwrap());
    b.type_text(&s.write);

    // Cancel keeps the entry.
    b.click("#match-1 .actions button:nth-child(4)");
    b.wait_for("document.getElementById('confirm').open");
    b.press("Escape", 27, "", 0);
    b.wait_for("!document.getElementById('confirm').open");
    assert_eq!(s.get_json(&format!("/v1/entries/{id}"), None).0, 200);

    // Cancelled and asked again in one go, so the first showing's close event arrives
    // while the second is open: it answers neither, and the second answer counts.
    b.click("#match-1 .actions button:nth-child(4)");
    b.wait_for("document.getElementById('confirm').open");
    b.read(
        "document.getElementById('confirm').close('cancel'); \
         document.querySelector('#match-1 .actions button:nth-child(4)').click(); \
         document.getElementById('confirm').open",
    );
    b.wait_for("document.getElementById('confirm').open");
    assert_eq!(s.get_json(&format!("/v1/entries/{id}"), None).0, 200);

    // Confirmed, it is gone; Undo writes it back as it was read.
    b.click("#confirm-ok");
    b.wait_for("/Deleted entry/.test(document.querySelector('#match-1 .edit-status').textContent)");
    assert_eq!(s.get_json(&format!("/v1/entries/{id}"), None).0, 404);
    assert_eq!(b.focused(), "button:Undo");
    b.enter();
    b.wait_for("/Restored as entry/.test(document.querySelector('#match-1 .edit-status').textContent)");
    let back = b.read("matches[0].entry_id").as_i64().unwrap();
    let (status, entry) = s.get_json(&format!("/v1/entries/{back}"), None);
    assert_eq!(status, 200);
    assert_eq!(entry["project_id"], "help", "{entry}");
    assert_eq!(entry["variants"][1]["runs"], json!([{"text": "Dateien öffnen"}]), "{entry}");
}

#[test]
fn repairs_are_named_and_marked_in_the_text_to_use_and_the_source() {
    let s = server();
    let (status, v) = s.post(
        "/v1/entries",
        Some(&s.write),
        &super::en_de("Welcome to LibreOffice 4.2", "Willkommen bei LibreOffice 4.2"),
    );
    assert_eq!(status, 201, "{v}");
    let mut b = Browser::start();
    open(&mut b, &format!("{}/?q={}&from=en&to=de", s.base, quote("Welcome to LibreOffice 24.2!")));
    b.wait_for("document.querySelector('#match-1') !== null");
    let read = |b: &mut Browser, selector: &str| {
        b.read(&format!("Array.from(document.querySelectorAll({selector:?})).map((e) => e.textContent)"))
    };
    assert_eq!(read(&mut b, "#match-1 .label"), json!(["1. Fuzzy 92 %"]));
    assert_eq!(read(&mut b, "#match-1 .repaired-label"), json!(["Repaired: numbers / punctuation"]));
    assert_eq!(read(&mut b, "#match-1 .use"), json!(["Willkommen bei LibreOffice 24.2!"]));
    assert_eq!(read(&mut b, "#match-1 .use ins.repaired"), json!(["24.2!"]));
    // The CLI's direction: the stored 4.2 struck, the query's 24.2! underlined as repaired.
    assert_eq!(read(&mut b, "#match-1 .source del"), json!(["4.2"]));
    assert_eq!(read(&mut b, "#match-1 .source ins.repaired"), json!(["24.2!"]));

    // A penalty in words: an answer written for another region.
    let germany = json!({"variants": [{"locale": "en", "runs": [{"text": "Print the page"}]},
                                      {"locale": "de-DE", "runs": [{"text": "Seite drucken"}]}]});
    assert_eq!(s.post("/v1/entries", Some(&s.write), &germany).0, 201);
    open(&mut b, &format!("{}/?q={}&from=en&to=de-CH", s.base, quote("Print the page")));
    b.wait_for("document.querySelector('#match-1') !== null");
    assert_eq!(read(&mut b, "#match-1 .notes li"), json!(["Written for another region (en → de-DE) (−1 %)"]));
}

/// A word repair: the page names it, marks the replaced word in the text to use with its
/// evidence, keeps the stored translation beside it, and lists the evidence in the details.
#[test]
fn a_word_repair_is_named_marked_and_its_evidence_shown() {
    use cmem::align::AlignOptions;
    use cmem::{Locale, NewEntry, Run, Variant};
    let s = Server::start_with(ServerConfig::new(), |memory| {
        let (en, de) = (Locale::parse("en").unwrap(), Locale::parse("de").unwrap());
        let pairs = [
            ("Open the file", "Datei öffnen"),
            ("Save the file", "Datei speichern"),
            ("Open the folder", "Ordner öffnen"),
            ("Save the folder", "Ordner speichern"),
            ("Delete the file", "Datei löschen"),
            ("Delete the folder", "Ordner löschen"),
            ("Print the file", "Datei drucken"),
        ];
        let entries: Vec<NewEntry> = pairs
            .iter()
            .map(|(s, t)| {
                NewEntry::pair(
                    Variant::new(en.clone(), vec![Run::text(*s)]),
                    Variant::new(de.clone(), vec![Run::text(*t)]),
                )
            })
            .collect();
        memory.write(&entries).unwrap();
        let opts = AlignOptions::default().tension(None).iterations(10);
        memory.train_word_model(&en, &de, &opts).unwrap();
    });
    let mut b = Browser::start();
    open(&mut b, &format!("{}/?q={}&from=en&to=de", s.base, quote("Print the folder")));
    b.wait_for("document.querySelector('#match-1') !== null");
    let read = |b: &mut Browser, selector: &str| {
        b.read(&format!("Array.from(document.querySelectorAll({selector:?})).map((e) => e.textContent)"))
    };
    assert_eq!(read(&mut b, "#match-1 .repaired-label"), json!(["Repaired: words"]));
    assert_eq!(read(&mut b, "#match-1 .use"), json!(["Ordner drucken"]));
    assert_eq!(read(&mut b, "#match-1 .use ins.repaired"), json!(["Ordner"]));
    let title = b.read("document.querySelector('#match-1 .use ins.repaired').title");
    assert_eq!(
        title,
        json!("repaired from the memory: \"Datei\" → \"Ordner\", phrase pair seen 3× in the memory"),
    );
    assert_eq!(read(&mut b, "#match-1 .target"), json!(["Datei drucken"]));
    assert_eq!(
        read(&mut b, "#match-1 .word-repairs"),
        json!(["\"Datei\" → \"Ordner\" (phrase pair seen 3× in the memory)"])
    );
    // No evidence for a word: left as stored, and said so.
    b.read(
        "document.getElementById('lookup-threshold').value = '50'; \
         document.getElementById('lookup-text').value = 'Print the zebra'; \
         document.getElementById('lookup-form').requestSubmit(); true",
    );
    b.wait_for("document.querySelector('#match-1 .notes') !== null");
    assert_eq!(read(&mut b, "#match-1 .repaired-label"), json!([]));
    assert_eq!(
        read(&mut b, "#match-1 .notes li"),
        json!(["Not repaired (words \"file\" → \"zebra\"): the memory has no evidence for it"])
    );
}

/// Clicks the export link, the export format chosen `down` places below TMX, and waits
/// for the file the browser saves in `dir`.
fn download(b: &mut Browser, dir: &std::path::Path, down: usize) -> String {
    b.call_browser(
        "Browser.setDownloadBehavior",
        json!({"behavior": "allow", "downloadPath": dir.to_str().unwrap()}),
    );
    b.tab_to("export-format", false);
    for _ in 0..down {
        b.press("ArrowDown", 40, "", 0);
    }
    b.click("#export-link");
    let started = std::time::Instant::now();
    loop {
        let done: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_none_or(|x| x != "crdownload"))
            .collect();
        if let [file] = done.as_slice() {
            return std::fs::read_to_string(file).unwrap();
        }
        assert!(started.elapsed().as_secs() < 20, "no download in {}: {done:?}", dir.display());
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

#[test]
fn the_memory_downloads_as_a_file() {
    let s = Server::start(ServerConfig::new());
    let mut b = Browser::start();
    open(&mut b, &format!("{}/", s.base));
    let dir = tempfile::tempdir().unwrap();
    let jsonl = download(&mut b, dir.path(), 2);
    assert_eq!(jsonl.lines().count(), 193, "{jsonl}");
    assert!(jsonl.contains("Automatisch"));
}

#[test]
fn a_server_that_needs_a_token_for_reading_takes_the_one_entered() {
    let s = Server::start(ServerConfig::new().read_needs_token(true));
    let mut b = Browser::start();
    b.call("Page.navigate", json!({"url": format!("{}/", s.base)}));
    b.wait_for("document.readyState === 'complete' && /enter one under Write access/.test(document.getElementById('memory').textContent)");
    b.click("#write-token");
    b.type_text(&s.read);
    b.tab(false);
    b.wait_for("/193 entries/.test(document.getElementById('memory').textContent)");
    assert_eq!(b.read("document.getElementById('lookup-from').value"), "en");
    b.click("#lookup-text");
    b.type_text("Automatic");
    b.enter();
    b.wait_for("document.querySelector('#match-1') !== null");
    assert_eq!(b.read("document.querySelector('#match-1 .use').textContent"), "Automatisch");

    // The export link cannot send the token: the page fetches the file with it.
    let dir = tempfile::tempdir().unwrap();
    let jsonl = download(&mut b, dir.path(), 2);
    assert_eq!(jsonl.lines().count(), 193, "{jsonl}");
}

#[test]
fn a_translation_with_codes_is_edited_with_numbered_codes_that_keep_their_markup() {
    let s = server();
    let mut b = Browser::start();
    open(&mut b, &format!("{}/?q={}&from=en&to=de", s.base, quote("Open <i>the</i> file")));
    b.wait_for("document.querySelector('#match-1') !== null");
    let id = b.read("matches[0].entry_id").as_i64().unwrap();
    b.click("#write-token");
    b.type_text(&s.write);
    b.click("#match-1 .actions button:nth-child(2)");
    b.wait_for(&format!("document.activeElement.id === 'edit-target-{id}'"));
    assert_eq!(b.read("document.activeElement.value"), "{1}Die{/1} Datei öffnen");

    // A code the translation does not have is refused where it stands.
    b.select_all();
    b.type_text("Die {7}Datei{/7} öffnen");
    b.enter();
    b.wait_for("/\\{7\\} at character 5 is not one of this translation's/.test(document.querySelector('#match-1 .edit-status').textContent)");

    // Moved codes keep their type and markup.
    b.click(&format!("#edit-target-{id}"));
    b.select_all();
    b.type_text("Die {1}Datei{/1} öffnen");
    b.enter();
    b.wait_for("document.getElementById('confirm').open");
    b.click("#confirm-ok");
    b.wait_for("/Saved entry/.test(document.querySelector('#match-1 .edit-status').textContent)");
    let (_, entry) = s.get_json(&format!("/v1/entries/{id}"), None);
    assert_eq!(
        entry["variants"][1]["runs"],
        json!([{"text": "Die "}, {"pc_open": {"id": "1", "type": "x-html-i", "data": "<i>"}}, {"text": "Datei"},
               {"pc_close": {"id": "1", "type": "x-html-i", "data": "</i>"}}, {"text": " öffnen"}]),
        "{entry}"
    );
    assert_eq!(b.read("document.querySelector('#match-1 .use').textContent"), "Die <i>Datei</i> öffnen");
}
