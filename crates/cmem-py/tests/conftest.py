"""Shared fixtures: the repository's testdata and small memories."""

from pathlib import Path

import pytest

import cmem

TESTDATA = Path(__file__).resolve().parents[3] / "testdata"

UI = [
    {"source": "Open %s", "target": "%s öffnen"},
    {"source": "Save the file", "target": "Datei speichern"},
    {"source": "Close the window", "target": "Fenster schließen"},
    {"source": "Print", "target": "Drucken"},
]


@pytest.fixture
def testdata():
    return TESTDATA


@pytest.fixture
def tm():
    """An in-memory memory holding four en → de user-interface strings."""
    with cmem.Memory(":memory:", create=True) as memory:
        memory.import_records(UI, source="en", target="de")
        yield memory
