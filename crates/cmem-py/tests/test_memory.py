"""The verbs of cmem.Memory and cmem.Memories, on small real files."""

import json
import subprocess
import sys
import threading
import time

import pytest

import cmem

from conftest import UI


def test_lookup_adapts_codes_and_reports_the_match(tm):
    matches = tm.lookup("Open %d", "en", "de")
    assert len(matches) == 1
    best = matches[0]
    assert isinstance(best, cmem.Match)
    assert best.adapted_text == "%d öffnen"
    assert best.target == "%s öffnen"
    assert best.source == "Open %s"
    assert best.score == 1.0 and best.percent == 100.0
    assert best.match_type == "structural_exact" and best.tier == 2
    assert best.memory is None
    d = best.to_dict()
    assert d["adapted_target"]["text"] == "%d öffnen"
    assert d["match_type"] == best.match_type
    assert d["entry_id"] == best.entry_id
    assert "cmem.Match" in repr(best)


def test_fuzzy_match_repairs_penalties_and_diff(tm):
    best = tm.lookup("Save the file.", "en", "de")[0]
    assert 0.7 <= best.score < 1.0
    assert best.match_type.endswith("_fuzzy")
    # The query's final period is carried into the target and listed as a repair.
    assert best.adapted_text == "Datei speichern."
    assert best.repairs == [{"applied": True, "from": "", "kind": "punctuation", "to": "."}]
    assert best.diff
    assert isinstance(best.penalties, list) and isinstance(best.origins, list)
    # A changed word is not repaired without a word model: the stored target as it is.
    other = tm.lookup("Save the files", "en", "de")[0]
    assert other.adapted_text == "Datei speichern" and other.repairs == []


def test_threshold_limit_and_empty_answers(tm):
    assert tm.lookup("Save the files", "en", "de", threshold=0.99) == []
    assert tm.lookup("Something else entirely", "en", "de") == []
    assert tm.lookup("Print", "en", "fr") == []
    assert len(tm.lookup("Print", "en", "de", limit=1)) == 1


def test_lookup_batch_equals_single_lookups(tm):
    texts = ["Open %d", "Save the files", "nothing like it", "Print"]
    batch = tm.lookup_batch(texts, "en", "de", threads=2)
    single = [tm.lookup(t, "en", "de") for t in texts]
    assert [[m.to_dict() for m in ms] for ms in batch] == [[m.to_dict() for m in ms] for ms in single]
    assert tm.lookup_batch(iter(texts), "en", "de", threads=1)[3][0].target == "Drucken"
    assert tm.lookup_batch([], "en", "de") == []


def test_context_makes_a_context_match():
    records = [
        {"source": "Save", "target": "Speichern", "context": "x"},
    ]
    with cmem.Memory(":memory:", create=True) as tm:
        tm.import_records(records, source="en", target="de")
        plain = tm.lookup("Save", "en", "de", context={"key": "k", "pre": "", "post": ""})
        assert plain[0].score == 1.0
        with pytest.raises(cmem.InvalidInputError, match="pre"):
            tm.lookup("Save", "en", "de", context={"pre": "x"})
        with pytest.raises(cmem.InvalidInputError, match="contexts"):
            tm.lookup_batch(["Save", "Save"], "en", "de", contexts=[None])


def test_penalties_cost_points_by_attribute():
    with cmem.Memory(":memory:", create=True) as tm:
        tm.import_records([{"source": "Print", "target": "Drucken", "origin": "mt"}], source="en", target="de")
        free = tm.lookup("Print", "en", "de")[0]
        charged = tm.lookup("Print", "en", "de", penalties=["origin:mt=10"])
        # The attribute is metadata `jsonl:origin`, which the rule `origin` does not name:
        # whatever it matches, the rule parses and the lookup answers.
        assert charged and charged[0].score <= free.score
        with pytest.raises(cmem.InvalidInputError, match=r"penalties\[0\]"):
            tm.lookup("Print", "en", "de", penalties=["not a rule"])


def test_import_file_and_format_errors_name_the_line(testdata, tmp_path):
    with cmem.Memory(":memory:", create=True) as tm:
        report = tm.import_file(testdata / "cli" / "sample.jsonl", source="en", target="de")
        assert report["progress"]["inserted"] > 0
        with pytest.raises(cmem.FormatError) as e:
            tm.import_file(str(testdata / "invalid" / "malformed.tmx"))
        assert e.value.file.endswith("malformed.tmx")
        assert e.value.line == 10 and e.value.column == 30
        assert "line 10, column 30" in str(e.value)
        assert e.value.kind == "xml"
        # A bad JSON Lines line is a problem, or with strict an error on its line.
        lenient = tm.import_file(testdata / "invalid" / "bad-line.jsonl")
        assert lenient["progress"]["problems"] >= 1 and lenient["problems"]
        with pytest.raises(cmem.FormatError) as e:
            tm.import_file(testdata / "invalid" / "bad-line.jsonl", strict=True)
        assert e.value.line == 3


def test_import_records_errors_name_the_record():
    with cmem.Memory(":memory:", create=True) as tm:
        with pytest.raises(cmem.FormatError) as e:
            tm.import_records([{"source": "a", "target": "b"}, {"source": "c"}], source="en", target="de", strict=True)
        assert e.value.line == 2
        # All or nothing: the first record was not kept either.
        assert tm.stats()["entries"] == 0
        with pytest.raises(TypeError, match=r"records\[1\]"):
            tm.import_records([{"source": "a", "target": "b"}, "not a dict"], source="en", target="de")
        with pytest.raises(TypeError, match=r"records\[0\]\[\"source\"\]"):
            tm.import_records([{"source": b"bytes", "target": "b"}], source="en", target="de")


def test_sqlite_memory_persists_and_must_exist(tmp_path):
    path = tmp_path / "tm.db"
    with pytest.raises(cmem.StoreError, match="no memory"):
        cmem.Memory(path)
    with cmem.Memory(path, create=True) as tm:
        tm.import_records(UI, source="en", target="de")
        assert tm.address == str(path)
    with cmem.Memory(str(path), read_only=True) as tm:
        assert tm.stats()["entries"] == len(UI)
        assert tm.lookup("Print", "en", "de")[0].target == "Drucken"
        with pytest.raises(cmem.Error):
            tm.import_records([{"source": "x", "target": "y"}], source="en", target="de")


def test_closed_memory_raises(tm):
    tm.close()
    assert tm.closed
    with pytest.raises(cmem.Error, match="closed"):
        tm.lookup("Print", "en", "de")
    tm.close()


def test_a_held_write_lock_raises_locked_error(tmp_path):
    path = tmp_path / "tm.db"
    cmem.Memory(path, create=True).close()
    # Another process holds the write lock (POSIX locks do not exclude within a process).
    hold = (
        "import sqlite3, sys\n"
        f"c = sqlite3.connect({str(path)!r}, isolation_level=None)\n"
        "c.execute('BEGIN IMMEDIATE')\n"
        "print('held', flush=True)\n"
        "sys.stdin.read()\n"
    )
    holder = subprocess.Popen([sys.executable, "-c", hold], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with cmem.Memory(path, write_wait=0.2) as tm:
            with pytest.raises(cmem.LockedError, match="another writer"):
                tm.import_records(UI, source="en", target="de")
            assert tm.stats()["entries"] == 0
        assert issubclass(cmem.LockedError, cmem.StoreError)
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)


def test_threads_share_one_memory(tm):
    texts = ["Open %d", "Save the files", "Print", "Close the windows"] * 25
    expected = [[m.to_dict() for m in tm.lookup(t, "en", "de")] for t in texts]
    results = [None] * 4
    errors = []

    def work(k):
        try:
            results[k] = [[m.to_dict() for m in tm.lookup(t, "en", "de")] for t in texts]
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert all(r == expected for r in results)


def test_versions_and_prior_version():
    def version(source, target, fingerprint):
        return {
            "variants": [
                {"locale": "en", "runs": [{"text": source}]},
                {"locale": "de", "runs": [{"text": target}]},
            ],
            "unit": "home.title",
            "origins": [{"context_fingerprint": fingerprint}],
        }

    with cmem.Memory(":memory:", create=True) as tm:
        tm.import_records([version("Welcome", "Willkommen", "f1")])
        tm.import_records([version("Welcome back", "Willkommen zurück", "f1")])
        versions = tm.versions("home.title")
        assert len(versions) == 2
        assert versions[0]["entry"]["variants"][0]["runs"][0]["text"] == "Welcome back"
        prior = tm.prior_version("home.title", "f1", "en", "de")
        assert prior["target"] == "Willkommen zurück"
        assert tm.prior_version("home.title", "other", "en", "de") is None
        assert tm.prior_version("home.title", "f1", "en", "de", exclude=prior["entry_id"])["target"] == "Willkommen"
        with pytest.raises(cmem.InvalidInputError):
            tm.versions("")


def test_context_for_a_producer():
    records = [
        {"source": "Save the file", "target": "Datei speichern"},
        {"source": "Save the image", "target": "Bild speichern"},
        {"source": "Print the report", "target": "Bericht drucken"},
        {"source": "Close the report", "target": "Bericht schließen"},
        {"variants": [{"locale": "en", "runs": [{"text": "Export the report"}]},
                      {"locale": "de", "runs": [{"text": "Bericht exportieren"}]}],
         "unit": "menu.export", "origins": [{"context_fingerprint": "f1"}]},
    ]
    with cmem.Memory(":memory:", create=True) as tm:
        tm.import_records(records, source="en", target="de")
        answer = tm.context("Save the report", "en", "de", unit="menu.export", fingerprint="f1", examples=2)
        assert answer["query"]["text"] == "Save the report"
        assert len(answer["examples"]) == 2
        covered = {w for e in answer["examples"] for w in e["covers"]}
        # Two examples cover "save" and "report" between them, not two near-duplicates.
        assert {"save", "report"} <= {w.lower() for w in covered}, answer["examples"]
        assert all(isinstance(e["entry_id"], int) for e in answer["examples"])
        assert answer["prior_version"]["target"] == "Bericht exportieren"
        # Another fingerprint does not govern the block: no prior version.
        assert "prior_version" not in tm.context("Save the report", "en", "de", unit="menu.export", fingerprint="f2")
        assert answer["matches"] == [m.to_dict() for m in tm.lookup("Save the report", "en", "de")]
        with pytest.raises(cmem.InvalidInputError):
            tm.context("Save", "en", "de", examples=1000)
        with pytest.raises(cmem.InvalidInputError):
            tm.context("Save", "english", "de")


def test_recycle_and_analyze_a_po_catalog(testdata, tmp_path):
    with cmem.Memory(":memory:", create=True) as tm:
        tm.import_file(testdata / "po" / "eventcalendar-v75-ru.po")
        out = tmp_path / "ru.po"
        report = tm.recycle(testdata / "po" / "eventcalendar-v76-template.pot", out, target="ru")
        assert report["segments"] > 100 and report["filled"] > 50
        assert "msgstr" in out.read_text(encoding="utf-8")
        analysis = tm.analyze([testdata / "po" / "eventcalendar-v76-template.pot"], target="ru")
        assert len(analysis["files"]) == 1
        assert analysis["total"]["bands"]
        with pytest.raises(cmem.FormatError, match="not <xliff>"):
            tm.recycle(testdata / "tmx" / "cmem-features.tmx", tmp_path / "x.xlf")


@pytest.mark.parametrize("name", ["out.tmx", "out.jsonl", "out.kmb", "out.po"])
def test_export_round_trip(tm, tmp_path, name):
    path = tmp_path / name
    written = tm.export(path, source="en", target="de")
    assert written == len(UI)
    with cmem.Memory(":memory:", create=True) as again:
        again.import_file(path, source="en", target="de")
        assert again.stats()["entries"] == len(UI)
        assert again.lookup("Open %d", "en", "de")[0].adapted_text == "%d öffnen"


def test_export_weblate_and_unknown_formats(tm, tmp_path):
    path = tmp_path / "memory.json"
    assert tm.export(path, format="weblate") == len(UI)
    assert json.loads(path.read_text(encoding="utf-8"))
    with pytest.raises(cmem.UnsupportedError, match="format"):
        tm.export(tmp_path / "memory.xyz")
    with pytest.raises(cmem.InvalidInputError, match="source and target"):
        tm.export(tmp_path / "de.po")


def test_stats_and_search(tm):
    stats = tm.stats()
    assert stats["entries"] == len(UI)
    assert stats["pairs"][0]["source"] == "en" and stats["pairs"][0]["target"] == "de"
    hits = tm.search("file", "en")
    assert hits[0]["snippet"] == "Save the [file]"


def test_several_memories_with_a_penalty(tmp_path):
    project, client = tmp_path / "project.db", tmp_path / "client.db"
    with cmem.Memory(project, create=True) as tm:
        tm.import_records([{"source": "Save", "target": "Speichern"}], source="en", target="de")
    with cmem.Memory(client, create=True) as tm:
        tm.import_records([{"source": "Save", "target": "Sichern"}], source="en", target="de")
    with cmem.Memories([str(project), f"client={client},penalty=5,role=read"]) as both:
        assert both.names == ["project", "client"]
        found = both.lookup("Save", "en", "de")
        assert [(m.memory, m.adapted_text) for m in found] == [("project", "Speichern"), ("client", "Sichern")]
        assert found[1].score < found[0].score
        assert any(p["kind"] == "memory" for p in found[1].penalties)
        batch = both.lookup_batch(["Save", "Load"], "en", "de")
        assert [m.memory for m in batch[0]] == ["project", "client"] and batch[1] == []
    with pytest.raises(cmem.InvalidInputError, match="penalty"):
        cmem.Memories([f"{project},penalty=500"])


def test_help_shows_docstrings_and_the_stubs_ship():
    import pathlib

    assert "threshold" in cmem.Memory.lookup.__doc__
    assert "FormatError" in cmem.Memory.import_file.__doc__
    assert "adapted_text" in cmem.Match.__doc__
    assert cmem.Memory.lookup.__text_signature__.startswith("($self, text, source, target, *")
    package = pathlib.Path(cmem.__file__).parent
    assert (package / "py.typed").exists()
    stubs = list(package.glob("*.pyi"))
    assert stubs and "def lookup_batch" in stubs[0].read_text(encoding="utf-8")


def test_the_gil_is_released_during_engine_calls(tm):
    """While one thread is inside a long engine call, another runs Python code: were
    the GIL held for the call, the other thread would stand still until the call ended."""
    texts = ["Save the files", "Open %d", "Close the windows", "Print it"] * 10000
    done = threading.Event()
    took = []

    def batch():
        t = time.perf_counter()
        tm.lookup_batch(texts, "en", "de", threads=1)
        took.append(time.perf_counter() - t)
        done.set()

    worker = threading.Thread(target=batch)
    longest, last = 0.0, time.perf_counter()
    worker.start()
    while not done.is_set():
        now = time.perf_counter()
        longest, last = max(longest, now - last), now
    longest = max(longest, time.perf_counter() - last)
    worker.join()
    # The call is long enough to tell; the counting thread never waited for most of it
    # (it waits at most for the GIL's switch interval, and for the processor on a busy
    # machine).
    assert took[0] > 0.3, took
    assert longest < took[0] / 2, (longest, took[0])


def test_a_first_import_allowed_alone_writes_with_a_rollback_journal(tmp_path):
    """With first_import_alone=True an import into an empty SQLite memory holds the file
    alone while it writes: its header records a rollback journal instead of WAL (the
    database written once), and WAL again once the import ends. Without it, WAL."""

    def header(path):
        with open(path, "rb") as f:
            return f.read(100)

    def journal_modes(path, alone):
        path.write_text(
            "".join(
                json.dumps({"source": f"Close window number {i}", "target": f"Fenster {i} schließen"}) + "\n"
                for i in range(20000)
            ),
            encoding="utf-8",
        )
        seen = set()
        with cmem.Memory(tmp_path / (path.stem + ".db"), create=True, first_import_alone=alone) as tm:
            done = threading.Event()
            worker = threading.Thread(
                target=lambda: (tm.import_file(path, source="en", target="de"), done.set())
            )
            worker.start()
            while not done.is_set() and worker.is_alive():
                h = header(tmp_path / (path.stem + ".db"))
                if len(h) == 100:
                    seen.add(h[18])
                time.sleep(0.0005)
            worker.join()
            assert done.is_set(), "the import failed"
            assert tm.stats()["entries"] == 20000
        return seen, header(tmp_path / (path.stem + ".db"))[18]

    seen, after = journal_modes(tmp_path / "alone.jsonl", True)
    assert 1 in seen, seen
    assert after == 2
    seen, after = journal_modes(tmp_path / "shared.jsonl", False)
    assert seen == {2}, seen
    assert after == 2


def test_a_memory_opened_for_some_pairs_indexes_their_keys_alone(tmp_path):
    path = tmp_path / "pairs.db"
    with cmem.Memory(path, create=True) as tm:
        tm.import_records(UI, source="en", target="de")
        tm.import_records(
            [{"source": "Open the file now", "target": "Ouvrir le fichier maintenant"}], source="en", target="fr"
        )
    with cmem.Memory(path, pairs=[("en", "de")]) as tm:
        fuzzy = tm.lookup("Save the file.", "en", "de")
        assert fuzzy and fuzzy[0].target == "Datei speichern"
        # The en-fr entry's keys are not in this process's index: no fuzzy match.
        assert tm.lookup("Open the file now!", "en", "fr") == []
    # Its index file is apart from the file of every key.
    assert (tmp_path / "pairs.db-gix-en--de").exists()
    with cmem.Memory(path) as tm:
        assert tm.lookup("Open the file now!", "en", "fr")[0].target == "Ouvrir le fichier maintenant"
