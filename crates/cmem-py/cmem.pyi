"""cmem: a translation / content memory (type stubs of the extension module)."""

import os
from typing import Any, Dict, Iterable, List, Optional, Sequence, Union

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
        self, address: _Path, create: bool = False, read_only: bool = False, write_wait: Optional[float] = None
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
