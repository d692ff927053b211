"""docs/python.md's examples, run as written: its Python blocks in order, in a
directory holding the catalogs they name (copied from testdata/po)."""

import re
import shutil
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[3] / "docs" / "python.md"


def blocks():
    return re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)


def test_the_guide_has_its_examples():
    code = blocks()
    assert len(code) >= 4
    assert any("polib" in b for b in code) and any("few_shot_prompt" in b for b in code)


def test_the_guide_runs_as_written(testdata, tmp_path, monkeypatch, capsys):
    pytest.importorskip("polib", reason="the PO example needs polib (.ci/run installs it)")
    for name in ("eventcalendar-v75-ru.po", "eventcalendar-v76-template.pot"):
        shutil.copy(testdata / "po" / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    namespace = {}
    for code in blocks():
        exec(compile(code, str(DOC), "exec"), namespace)
    out = capsys.readouterr().out
    # The printed lines the guide shows as comments are what the code prints.
    for block in blocks():
        for shown in re.findall(r"^\s*# (\S.*)$", block, flags=re.M):
            if shown[0].isdigit() or shown.startswith(("tm ", "reference ", "en: ", "ru: ", "Translate")):
                assert shown in out, shown
    # The PO example wrote a Russian catalog with fills, fuzzy ones marked.
    import polib

    catalog = polib.pofile("eventcalendar-v76-ru.po")
    filled = [e for e in catalog if e.msgstr]
    assert len(filled) > 100
    assert any("fuzzy" in e.flags for e in filled)
    assert catalog.metadata["Language"] == "ru"
    # The prompt shows examples with their translations and ends where the model goes on.
    prompt = namespace["prompt"]
    assert prompt.rstrip().endswith("ru:")
    assert "en: HTTP Error %1: %2" in prompt and "ru: Ошибка соединения %1: %2" in prompt
