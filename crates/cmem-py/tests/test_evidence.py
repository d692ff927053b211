"""The evidence verbs: the word model trained with `align`, the fragments and glossary
terms it yields, and a given term list taking precedence over the mined one."""

import re

import pytest

import cmem

VERBS = [
    ("Open", "Öffne"),
    ("Close", "Schließe"),
    ("Print", "Drucke"),
    ("Show", "Zeige"),
    ("Hide", "Verstecke"),
    ("Rename", "Benenne"),
    ("Move", "Verschiebe"),
    ("Copy", "Kopiere"),
    ("Select", "Wähle"),
    ("Lock", "Sperre"),
]
NOUNS = [
    ("file manager", "Dateiverwaltung"),
    ("web page", "Webseite"),
    ("text document", "Textdokument"),
    ("main window", "Hauptfenster"),
]
RECORDS = [
    {"source": f"{verb} the {noun}", "target": f"{verb_de} die {noun_de}"}
    for verb, verb_de in VERBS
    for noun, noun_de in NOUNS
]


@pytest.fixture
def trained():
    """A memory of ten verbs by four nouns, en → de, its word model trained."""
    with cmem.Memory(":memory:", create=True) as memory:
        memory.import_records(RECORDS, source="en", target="de")
        memory.align("en", "de")
        yield memory


def test_align_reports_its_training():
    with cmem.Memory(":memory:", create=True) as tm:
        tm.import_records(RECORDS, source="en", target="de")
        assert tm.fragments("Open the file manager", "en", "de") == []  # no model yet
        report = tm.align("en", "de", iterations=3)
        assert report["pairs"] == len(RECORDS) and report["skipped"] == 0
        assert report["source_words"] >= 15 and report["phrase_pairs"] > 0
        assert set(report) == {"pairs", "skipped", "source_words", "target_words", "table_cells", "phrase_pairs"}
        # Plain IBM Model 1 trains too.
        assert tm.align("en", "de", tension=None)["pairs"] == len(RECORDS)
        # A pair the memory does not hold: nothing to learn, no model kept.
        assert tm.align("en", "fr")["pairs"] == 0
        assert tm.terms("en", "fr") == []


def test_fragments_are_the_consistent_stretches(trained):
    text = "Please open the file manager"
    fragments = trained.fragments(text, "en", "de")
    assert fragments, "the trained model yields a fragment"
    manager = next(f for f in fragments if "Dateiverwaltung" in f["target"])
    assert set(manager) == {"source", "words", "target", "agreeing", "seen", "example"}
    assert "file manager" in manager["source"]
    first, last = manager["words"]
    assert text.split()[first : last + 1] == manager["source"].split()
    assert 2 <= manager["agreeing"] <= manager["seen"]
    assert isinstance(manager["example"], int)
    example = trained.search("file manager", "en", limit=50)
    assert manager["example"] in {h["entry"]["id"] for h in example}
    # lookup's context and point are accepted and checked.
    same = trained.fragments(text, "en", "de", point="web/ui", context={"key": "k", "pre": "", "post": ""})
    assert same == fragments
    assert trained.fragments("Nothing alike at all", "en", "de") == []


def test_terms_are_mined_nouns_first(trained):
    terms = trained.terms("en", "de")
    assert terms, "the trained model yields a term"
    assert set(terms[0]) == {"source", "target", "count", "seen", "share", "noun", "example"}
    manager = next(t for t in terms if t["target"] == "Dateiverwaltung")
    assert manager["source"] in ("manager", "file manager") and manager["noun"]
    assert manager["count"] >= 3 and 0.6 <= manager["share"] <= 1.0
    nouns = [t["noun"] for t in terms]
    assert nouns == sorted(nouns, reverse=True)
    # The knobs narrow the list: no phrase is seen a thousand times.
    assert trained.terms("en", "de", min_count=1000) == []
    assert len(trained.terms("en", "de", max_words=1)) <= len(terms)
    assert all(len(t["source"].split()) == 1 for t in trained.terms("en", "de", max_words=1))


def test_segment_terms_finds_the_glossary_in_a_text(trained):
    found = trained.segment_terms("Open the File Manager", "en", "de")
    manager = next(f for f in found if f["target"] == "Dateiverwaltung")
    assert manager["found"].endswith("Manager") and manager["given"] is False
    assert {"source", "target", "count", "seen", "share", "noun", "example", "found", "given"} <= set(manager)
    assert trained.segment_terms("Nothing alike at all", "en", "de") == []


def test_given_terms_take_precedence(trained):
    assert trained.given_terms("en", "de") == []
    mined = {t["source"]: t["target"] for t in trained.terms("en", "de")}
    assert mined["manager"] == "Dateiverwaltung"
    trained.set_terms("en", "de", [("Manager", "Verwalter"), {"source": "toolbar", "target": "Symbolleiste"}])
    given = trained.given_terms("en", "de")
    assert [(t["source"], t["target"]) for t in given] == [("manager", "Verwalter"), ("toolbar", "Symbolleiste")]
    assert given[0]["count"] == 0 and given[0]["example"] is None
    terms = trained.terms("en", "de")
    assert [t["target"] for t in terms[:2]] == ["Verwalter", "Symbolleiste"]
    assert not any(t["target"] == "Dateiverwaltung" for t in terms)
    assert len(terms) == len(mined) + 1  # the given source replaced the mined one
    found = trained.segment_terms("Open the File Manager", "en", "de")
    assert [(f["found"], f["target"], f["given"]) for f in found] == [
        ("Open", "Öffne", False),
        ("Manager", "Verwalter", True),
    ]
    # A given term of two words is found whole, over the one-word term it holds.
    trained.set_terms("en", "de", [("file manager", "Dateimanager")])
    found = trained.segment_terms("Open the File Manager", "en", "de")
    assert (found[-1]["found"], found[-1]["target"], found[-1]["given"]) == ("File Manager", "Dateimanager", True)
    # An empty list removes the given one: the mined term is back.
    trained.set_terms("en", "de", [])
    assert trained.given_terms("en", "de") == []
    assert {t["source"]: t["target"] for t in trained.terms("en", "de")} == mined


def test_given_terms_without_a_model():
    with cmem.Memory(":memory:", create=True) as tm:
        tm.set_terms("en", "de", iter([["web page", "Webseite"]]))
        assert tm.terms("en", "de")[0]["target"] == "Webseite"
        found = tm.segment_terms("Reload the Web Page", "en", "de")
        assert [(f["found"], f["target"], f["given"]) for f in found] == [("Web Page", "Webseite", True)]
        assert tm.fragments("Reload the web page", "en", "de") == []


@pytest.mark.parametrize(
    "terms, error, where",
    [
        ([("a", "b"), ("c",)], cmem.InvalidInputError, "terms[1]"),
        ([("a", "b"), ("c", "d"), ("", "x")], cmem.InvalidInputError, "terms[2]"),
        ([{"source": "a"}], cmem.InvalidInputError, "terms[0]"),
        ([{"source": "a", "target": "   "}], cmem.InvalidInputError, "terms[0]"),
        ([("a", "b", "c")], cmem.InvalidInputError, "terms[0]"),
        ([("a", None)], cmem.InvalidInputError, "terms[0]"),
        ([("a", "b"), ("c\ud800", "d")], cmem.InvalidInputError, "terms[1]"),
        ([("a", "b"), 5], TypeError, "terms[1]"),
        ([("a", 7)], TypeError, "terms[0]"),
        ("a,b", TypeError, "terms"),
        ({"source": "a", "target": "b"}, TypeError, "terms"),
        (None, TypeError, "terms"),
    ],
)
def test_set_terms_names_the_bad_item(tm, terms, error, where):
    tm.set_terms("en", "de", [("kept", "behalten")])
    with pytest.raises(error, match="^" + re.escape(where)):
        tm.set_terms("en", "de", terms)
    # Nothing was kept of the bad list.
    assert [t["source"] for t in tm.given_terms("en", "de")] == ["kept"]


def test_bad_options_raise(tm):
    invalid = [
        lambda: tm.fragments("Print", "en", "??"),
        lambda: tm.fragments("Print", "en", "de", point="a//b"),
        lambda: tm.fragments("Print", "en", "de", context={"pre": "only"}),
        lambda: tm.segment_terms("Print", "", "de"),
        lambda: tm.terms("en", "de", min_share=1.5),
        lambda: tm.terms("en", "de", min_usage=-0.1),
        lambda: tm.terms("en", "de", min_share=float("nan")),
        lambda: tm.terms("en", "de", max_words=0),
        lambda: tm.given_terms("x" * 300, "de"),
        lambda: tm.set_terms("en", "??", [("a", "b")]),
        lambda: tm.align("en", "de", iterations=0),
        lambda: tm.align("en", "de", tension=-1.0),
        lambda: tm.align("en", "de", tension=float("inf")),
        lambda: tm.align("??", "de"),
    ]
    for call in invalid:
        with pytest.raises(cmem.InvalidInputError):
            call()
    with pytest.raises(OverflowError):
        tm.terms("en", "de", min_count=-1)
    with pytest.raises(TypeError):
        tm.terms("en", "de", 3)  # the options are keyword-only


def test_a_read_only_memory_keeps_no_terms(tmp_path):
    path = tmp_path / "tm.db"
    with cmem.Memory(path, create=True) as tm:
        tm.import_records(RECORDS, source="en", target="de")
    with cmem.Memory(path, read_only=True) as tm:
        with pytest.raises(cmem.Error):
            tm.set_terms("en", "de", [("a", "b")])
        with pytest.raises(cmem.Error):
            tm.align("en", "de")
        assert tm.given_terms("en", "de") == []


def test_closed_memory_raises():
    tm = cmem.Memory(":memory:", create=True)
    tm.close()
    for call in (
        lambda: tm.fragments("Print", "en", "de"),
        lambda: tm.segment_terms("Print", "en", "de"),
        lambda: tm.terms("en", "de"),
        lambda: tm.given_terms("en", "de"),
        lambda: tm.set_terms("en", "de", []),
        lambda: tm.align("en", "de"),
    ):
        with pytest.raises(cmem.Error, match="closed"):
            call()


def test_help_shows_the_docstrings_and_the_stubs_name_the_verbs():
    import pathlib

    stubs = "".join(p.read_text(encoding="utf-8") for p in pathlib.Path(cmem.__file__).parent.glob("*.pyi"))
    for verb in ("fragments", "segment_terms", "terms", "given_terms", "set_terms", "align"):
        doc = getattr(cmem.Memory, verb).__doc__
        assert doc and len(doc) > 80, verb
        assert f"def {verb}(" in stubs, verb
    # The options are keyword-only, with the facade's defaults.
    assert cmem.Memory.terms.__text_signature__ == (
        "($self, source, target, *, min_count=3, min_share=0.6, max_words=4, min_usage=0.9)"
    )
    assert cmem.Memory.fragments.__text_signature__ == "($self, text, source, target, *, context=None, point=None)"
    assert cmem.Memory.align.__text_signature__ == "($self, source, target, *, iterations=5, tension=4.0)"
