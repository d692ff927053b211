"""Malformed input to every verb: each raises a Python exception, none crashes the
interpreter (no Rust panic crosses into Python). Every call runs in this process, so a
crash would end the whole suite."""

import math

import pytest

import cmem

from conftest import UI

# What a call may raise: cmem's own errors, and Python's for arguments of the wrong
# type or range (a str where a number goes, a negative limit, a lone surrogate).
ALLOWED = (cmem.Error, TypeError, ValueError, OverflowError, UnicodeError)

BAD_TEXTS = [None, 7, b"bytes", "\ud800", "x" * 20_000, "\x00", "", "{1}unclosed", "%"]
BAD_LOCALES = [None, "", "??", "x" * 300, "en\x00", 5, "\ud800"]
BAD_NUMBERS = [-1, math.nan, math.inf, 2.0, -0.5, 10**30, "0.7", None]


def calls(tm, tmp):
    """(name, thunk) for every verb with bad arguments."""
    missing = tmp / "missing.tmx"
    garbage = tmp / "garbage.xlf"
    garbage.write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff\xfe" * 50)
    empty = tmp / "empty.po"
    empty.write_text("", encoding="utf-8")
    yield "open: no address", lambda: cmem.Memory("")
    yield "open: sqlite without path", lambda: cmem.Memory("sqlite:")
    yield "open: a directory", lambda: cmem.Memory(tmp)
    yield "open: not a database", lambda: cmem.Memory(garbage)
    yield "open: a number", lambda: cmem.Memory(42)
    yield "open: postgres nowhere", lambda: cmem.Memory("postgres://nobody@127.0.0.1:1/none")
    yield "open: negative wait", lambda: cmem.Memory(":memory:", create=True, write_wait=-1)
    yield "open: nan wait", lambda: cmem.Memory(":memory:", create=True, write_wait=math.nan)
    yield "open: bad pair", lambda: cmem.Memory(":memory:", create=True, pairs=[("en", "not a tag!")])
    for text in BAD_TEXTS:
        yield f"lookup text {text!r:.20}", lambda t=text: tm.lookup(t, "en", "de")
        yield f"batch text {text!r:.20}", lambda t=text: tm.lookup_batch([t], "en", "de")
        yield f"search {text!r:.20}", lambda t=text: tm.search(t, "en")
        yield f"versions {text!r:.20}", lambda t=text: tm.versions(t)
        yield f"prior {text!r:.20}", lambda t=text: tm.prior_version(t, t, "en", "de")
        yield f"context text {text!r:.20}", lambda t=text: tm.context(t, "en", "de")
        yield f"fragments text {text!r:.20}", lambda t=text: tm.fragments(t, "en", "de")
        yield f"segment_terms text {text!r:.20}", lambda t=text: tm.segment_terms(t, "en", "de")
    for loc in BAD_LOCALES:
        yield f"lookup locale {loc!r:.20}", lambda l=loc: tm.lookup("Print", l, "de")
        yield f"batch locale {loc!r:.20}", lambda l=loc: tm.lookup_batch(["Print"], "en", l)
        yield f"search locale {loc!r:.20}", lambda l=loc: tm.search("Print", l)
        yield f"prior locale {loc!r:.20}", lambda l=loc: tm.prior_version("u", "f", l, "de")
        yield f"context locale {loc!r:.20}", lambda l=loc: tm.context("Print", "en", l)
        yield f"fragments locale {loc!r:.20}", lambda l=loc: tm.fragments("Print", l, "de")
        yield f"segment_terms locale {loc!r:.20}", lambda l=loc: tm.segment_terms("Print", "en", l)
        yield f"terms locale {loc!r:.20}", lambda l=loc: tm.terms(l, "de")
        yield f"given_terms locale {loc!r:.20}", lambda l=loc: tm.given_terms("en", l)
        yield f"set_terms locale {loc!r:.20}", lambda l=loc: tm.set_terms(l, "de", [("a", "b")])
        yield f"align locale {loc!r:.20}", lambda l=loc: tm.align("en", l)
        yield f"import locale {loc!r:.20}", lambda l=loc: tm.import_records(UI, source=l, target="de")
        yield f"export locale {loc!r:.20}", lambda l=loc: tm.export(tmp / "x.tmx", source=l)
        yield f"recycle locale {loc!r:.20}", lambda l=loc: tm.recycle(empty, tmp / "o.po", target=l)
        yield f"analyze locale {loc!r:.20}", lambda l=loc: tm.analyze([empty], source=l)
    for n in BAD_NUMBERS:
        yield f"threshold {n!r}", lambda n=n: tm.lookup("Print", "en", "de", threshold=n)
        yield f"limit {n!r}", lambda n=n: tm.lookup("Print", "en", "de", limit=n)
        yield f"batch threads {n!r}", lambda n=n: tm.lookup_batch(["Print"], "en", "de", threads=n)
        yield f"versions limit {n!r}", lambda n=n: tm.versions("u", limit=n)
        yield f"search limit {n!r}", lambda n=n: tm.search("Print", "en", limit=n)
        yield f"context examples {n!r}", lambda n=n: tm.context("Print", "en", "de", examples=n)
        yield f"context threshold {n!r}", lambda n=n: tm.context("Print", "en", "de", threshold=n)
        yield f"recycle threshold {n!r}", lambda n=n: tm.recycle(empty, tmp / "o.po", target="de", threshold=n)
        yield f"prior exclude {n!r}", lambda n=n: tm.prior_version("u", "f", "en", "de", exclude=n)
        yield f"terms min_count {n!r}", lambda n=n: tm.terms("en", "de", min_count=n)
        yield f"terms min_share {n!r}", lambda n=n: tm.terms("en", "de", min_share=n)
        yield f"terms max_words {n!r}", lambda n=n: tm.terms("en", "de", max_words=n)
        yield f"terms min_usage {n!r}", lambda n=n: tm.terms("en", "de", min_usage=n)
        yield f"align iterations {n!r}", lambda n=n: tm.align("en", "de", iterations=n)
        yield f"align tension {n!r}", lambda n=n: tm.align("en", "de", tension=n)
    for point in ["//", "a//b", "\x00", 5, "x" * 5000]:
        yield f"point {point!r:.20}", lambda p=point: tm.lookup("Print", "en", "de", point=p)
        yield f"versions point {point!r:.20}", lambda p=point: tm.versions("u", point=p)
        yield f"fragments point {point!r:.20}", lambda p=point: tm.fragments("Print", "en", "de", point=p)
    for context in ["text", 5, {"pre": 1, "post": 2}, {"bogus": "x"}, {"pre": "only"}, [1, 2]]:
        yield f"context {context!r:.20}", lambda c=context: tm.lookup("Print", "en", "de", context=c)
        yield f"contexts {context!r:.20}", lambda c=context: tm.lookup_batch(["Print"], "en", "de", contexts=[c])
        yield f"fragments context {context!r:.20}", lambda c=context: tm.fragments("Print", "en", "de", context=c)
    for penalties in ["origin:mt=10", [5], ["=="], ["origin:mt=1000"], [None]]:
        yield f"penalties {penalties!r:.20}", lambda p=penalties: tm.lookup("Print", "en", "de", penalties=p)
    for records in [None, 5, "text", [None], [[1, 2]], [{"source": {"nested": 1}, "target": "x"}],
                    [{"source": "a", "target": "b", "x": float("nan")}], [{1: "a"}],
                    [{"variants": "nope"}], [{"variants": [{"locale": "en"}]}], [{"source": "a", "target": 10**40}]]:
        yield f"records {records!r:.30}", lambda r=records: tm.import_records(r, source="en", target="de", strict=True)
    for terms in [None, 5, "a,b", {"source": "a", "target": "b"}, [None], [5], [("a",)], [("a", "b", "c")],
                  [("", "b")], [(" ", "b")], [("a", None)], [(1, 2)], [{"source": "a"}], [{"target": "b"}],
                  [{"source": b"a", "target": "b"}], [("a\ud800", "b")], [["x" * 20_000, "y"]]]:
        yield f"set_terms {terms!r:.30}", lambda t=terms: tm.set_terms("en", "de", t)
    for path in [missing, tmp, garbage, empty, "", "-", None, 3, b"bytes"]:
        yield f"import_file {path!r:.30}", lambda p=path: tm.import_file(p, strict=True)
        yield f"recycle {path!r:.30}", lambda p=path: tm.recycle(p, tmp / "out.xlf")
        yield f"recycle out {path!r:.30}", lambda p=path: tm.recycle(empty, p, target="de")
        yield f"analyze {path!r:.30}", lambda p=path: tm.analyze(p)
        yield f"export {path!r:.30}", lambda p=path: tm.export(p)
    for fmt in ["", "exe", None, 5]:
        yield f"export format {fmt!r}", lambda f=fmt: tm.export(tmp / "x", format=f)
    for specs in [None, "one.db", [""], ["x.db,penalty=-1"], ["a=memory:", "a=memory:"], [5], ["x.db,role=owner"]]:
        yield f"memories {specs!r:.30}", lambda s=specs: cmem.Memories(s, create=True)


def test_every_verb_refuses_malformed_input(tmp_path):
    with cmem.Memory(":memory:", create=True) as tm:
        tm.import_records(UI, source="en", target="de")
        outcomes = {}
        for name, thunk in calls(tm, tmp_path):
            try:
                thunk()
                outcomes[name] = "ok"
            except ALLOWED as e:
                outcomes[name] = type(e).__name__
            except BaseException as e:  # a PanicException would land here
                pytest.fail(f"{name}: {type(e).__module__}.{type(e).__name__}: {e}")
        # Most of them must be refused outright, not quietly accepted.
        refused = [n for n, o in outcomes.items() if o != "ok"]
        assert len(refused) > 0.8 * len(outcomes), [n for n, o in outcomes.items() if o == "ok"]
        # The memory still answers afterwards.
        assert tm.lookup("Open %d", "en", "de")[0].adapted_text == "%d öffnen"
