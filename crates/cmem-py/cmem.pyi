"""cmem: a translation / content memory (type stubs of the extension module)."""

import os
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

__version__: str

_Path = Union[str, "os.PathLike[str]"]
_Context = Dict[str, str]

class Error(Exception):
    """The base of every error cmem raises."""

class FormatError(Error):
    """A file or record that does not read."""

    file: str
    line: Optional[int]
    column: Optional[int]
    entry: Optional[int]
    kind: str

class InvalidInputError(Error):
    """A bad locale tag, point, query, option, record or entry."""

class UnsupportedError(Error):
    """Something this build or this memory's store does not do."""

class StoreError(Error):
    """The memory failed: a missing or damaged file, or its database."""

class LockedError(StoreError):
    """Another writer held the memory for longer than this one waits."""

class UnavailableError(StoreError):
    """The memory's database server cannot be reached now."""

class Match:
    """One match of a lookup."""

    @property
    def score(self) -> float: ...
    @property
    def percent(self) -> float: ...
    @property
    def match_type(self) -> str: ...
    @property
    def tier(self) -> int: ...
    @property
    def entry_id(self) -> int: ...
    @property
    def memory(self) -> Optional[str]: ...
    @property
    def ambiguous(self) -> bool: ...
    @property
    def point(self) -> str: ...
    @property
    def unit(self) -> str: ...
    @property
    def project_id(self) -> str: ...
    @property
    def source(self) -> str: ...
    @property
    def target(self) -> str: ...
    @property
    def adapted_text(self) -> str: ...
    @property
    def repairs(self) -> List[Dict[str, Any]]: ...
    @property
    def penalties(self) -> List[Dict[str, Any]]: ...
    @property
    def origins(self) -> List[Dict[str, Any]]: ...
    @property
    def diff(self) -> List[Dict[str, Any]]: ...
    @property
    def entity_adaptations(self) -> List[Dict[str, Any]]: ...
    @property
    def code_adaptations(self) -> List[Dict[str, Any]]: ...
    @property
    def approvals(self) -> int: ...
    @property
    def last_approved(self) -> str: ...
    @property
    def identical_source(self) -> bool: ...
    def to_dict(self) -> Dict[str, Any]: ...

class Memory:
    """A translation memory opened by address: a path, ":memory:" or "postgres://…"."""

    def __init__(
        self,
        address: _Path,
        create: bool = False,
        read_only: bool = False,
        write_wait: Optional[float] = None,
        pairs: Optional[Sequence[Tuple[str, str]]] = None,
        first_import_alone: bool = False,
    ) -> None: ...
    @property
    def address(self) -> str: ...
    @property
    def closed(self) -> bool: ...
    def close(self) -> None: ...
    def __enter__(self) -> "Memory": ...
    def __exit__(self, exc_type: Any = None, exc: Any = None, traceback: Any = None) -> bool: ...
    def import_file(
        self, path: _Path, *, source: Optional[str] = None, target: Optional[str] = None, strict: bool = False
    ) -> Dict[str, Any]: ...
    def import_records(
        self,
        records: Iterable[Dict[str, Any]],
        *,
        source: Optional[str] = None,
        target: Optional[str] = None,
        strict: bool = False,
    ) -> Dict[str, Any]: ...
    def lookup(
        self,
        text: str,
        source: str,
        target: str,
        *,
        threshold: float = 0.7,
        limit: int = 10,
        point: Optional[str] = None,
        context: Optional[_Context] = None,
        penalties: Optional[Sequence[str]] = None,
    ) -> List[Match]: ...
    def lookup_batch(
        self,
        texts: Iterable[str],
        source: str,
        target: str,
        *,
        threshold: float = 0.7,
        limit: int = 10,
        point: Optional[str] = None,
        contexts: Optional[Iterable[Optional[_Context]]] = None,
        penalties: Optional[Sequence[str]] = None,
        threads: int = 0,
    ) -> List[List[Match]]: ...
    def versions(self, unit: str, *, point: Optional[str] = None, limit: int = 0) -> List[Dict[str, Any]]: ...
    def prior_version(
        self,
        unit: str,
        fingerprint: str,
        source: str,
        target: str,
        *,
        point: Optional[str] = None,
        exclude: Optional[int] = None,
    ) -> Optional[Dict[str, Any]]: ...
    def recycle(
        self,
        input: _Path,
        output: _Path,
        *,
        source: Optional[str] = None,
        target: Optional[str] = None,
        threshold: float = 0.7,
        fill_threshold: float = 0.95,
        point: Optional[str] = None,
        overwrite: bool = False,
    ) -> Dict[str, Any]: ...
    def analyze(
        self,
        paths: Union[_Path, Iterable[_Path]],
        *,
        source: Optional[str] = None,
        target: Optional[str] = None,
        point: Optional[str] = None,
    ) -> Dict[str, Any]: ...
    def export(
        self, path: _Path, *, format: Optional[str] = None, source: Optional[str] = None, target: Optional[str] = None
    ) -> int: ...
    def stats(self) -> Dict[str, Any]: ...
    def search(self, words: str, locale: str, *, limit: int = 10) -> List[Dict[str, Any]]: ...
    def context(
        self,
        text: str,
        source: str,
        target: str,
        *,
        unit: str = "",
        fingerprint: str = "",
        point: Optional[str] = None,
        threshold: float = 0.7,
        limit: int = 10,
        examples: int = 5,
        max_example_chars: int = 4000,
        min_example_score: float = 0.1,
        glossary: int = 10,
        short_circuit_exact: bool = True,
    ) -> Dict[str, Any]: ...
    def fragments(
        self,
        text: str,
        source: str,
        target: str,
        *,
        context: Optional[_Context] = None,
        point: Optional[str] = None,
    ) -> List[Dict[str, Any]]:
        """The stretches of ``text`` the memory translates consistently, from the pair's
        word model (none without one): dicts with ``source``, ``words`` ([first, last],
        from 0), ``target``, ``agreeing``, ``seen`` and ``example`` (an entry id or None).
        ``context`` and ``point`` are checked as ``lookup``'s; fragments never fill."""
    def segment_terms(self, text: str, source: str, target: str) -> List[Dict[str, Any]]:
        """The glossary terms ``text`` holds as whole words, in its order: dicts with the
        term's ``source``, ``target``, ``count``, ``seen``, ``share``, ``noun`` and
        ``example``, plus ``found`` (as the text writes it) and ``given`` (from
        ``set_terms``)."""
    def terms(
        self,
        source: str,
        target: str,
        *,
        min_count: int = 3,
        min_share: float = 0.6,
        max_words: int = 4,
        min_usage: float = 0.9,
    ) -> List[Dict[str, Any]]:
        """The pair's glossary: the given terms first, then those mined from its word
        model (nouns first, then the most seen); dicts with ``source``, ``target``,
        ``count``, ``seen``, ``share``, ``noun`` and ``example``."""
    def given_terms(self, source: str, target: str) -> List[Dict[str, Any]]:
        """The term list kept for the pair with ``set_terms``; empty when none."""
    def set_terms(
        self,
        source: str,
        target: str,
        terms: Iterable[Union[Tuple[str, str], Sequence[str], Dict[str, str]]],
    ) -> None:
        """Keeps ``terms`` ((source, target) pairs or dicts with "source" and "target")
        as the pair's given list, replacing the one before; they take precedence over
        mined terms. A bad item raises naming it (``terms[2]``); nothing is kept."""
    def align(
        self, source: str, target: str, *, iterations: int = 5, tension: Optional[float] = 4.0
    ) -> Dict[str, int]:
        """Trains and keeps the pair's word model (``cmem align``); returns the report
        ``{"pairs", "skipped", "source_words", "target_words", "table_cells",
        "phrase_pairs"}`` (``pairs`` 0: no such pair, no model kept). ``tension=None``
        is plain IBM Model 1."""

class Memories:
    """Several named memories looked up as one."""

    def __init__(self, specs: Iterable[_Path], *, create: bool = False) -> None: ...
    @property
    def names(self) -> List[str]: ...
    def close(self) -> None: ...
    def __enter__(self) -> "Memories": ...
    def __exit__(self, exc_type: Any = None, exc: Any = None, traceback: Any = None) -> bool: ...
    def lookup(
        self,
        text: str,
        source: str,
        target: str,
        *,
        threshold: float = 0.7,
        limit: int = 10,
        point: Optional[str] = None,
        context: Optional[_Context] = None,
        penalties: Optional[Sequence[str]] = None,
    ) -> List[Match]: ...
    def lookup_batch(
        self,
        texts: Iterable[str],
        source: str,
        target: str,
        *,
        threshold: float = 0.7,
        limit: int = 10,
        point: Optional[str] = None,
        penalties: Optional[Sequence[str]] = None,
    ) -> List[List[Match]]: ...
