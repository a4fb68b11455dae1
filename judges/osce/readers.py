"""Read a table as study teams export it: CSV in any common encoding/delimiter, Excel .xlsx, Parquet, JSONL.

Text encoding: an explicit ``encoding`` wins; otherwise a UTF-8/UTF-16 byte-order mark, then strict
UTF-8, then CP949 (Korean Windows Excel; a superset of EUC-KR) when the decoded text's non-ASCII
characters are overwhelmingly Hangul of the common KS X 1001 set. Anything else is an error that asks
for ``--encoding``: guessing a single-byte code page silently would corrupt names. The delimiter is the
one of ``, ; tab`` that splits the header line most often (European Excel writes ``;``).
"""

from __future__ import annotations

import codecs
import io
import os
from pathlib import Path

import pandas as pd
from pydantic import BaseModel

TEXT_SUFFIXES = (".csv", ".tsv", ".txt")
SUFFIXES = (*TEXT_SUFFIXES, ".xlsx", ".parquet", ".pq", ".jsonl", ".ndjson", ".json")
KOREAN_SHARE = 0.9


class ReadError(ValueError):
    """The file cannot be read as a table; the message says what to change."""


class ReadInfo(BaseModel):
    """How a file was read (printed by the CLI so a wrong guess is visible)."""

    format: str
    encoding: str | None = None
    encoding_detected: bool = False
    delimiter: str | None = None
    sheet: str | None = None


def _is_korean(text: str) -> bool:
    wide = [ch for ch in text if ord(ch) > 127]
    if not wide:
        return False
    common = 0
    for ch in wide:
        try:
            ch.encode("euc_kr")
            common += "\uac00" <= ch <= "\ud7a3" or "\u3131" <= ch <= "\u318e"
        except UnicodeEncodeError:
            pass
    return common / len(wide) >= KOREAN_SHARE


def decode_text(raw: bytes, encoding: str | None = None) -> tuple[str, str, bool]:
    """``(text, encoding used, detected?)`` under the rules in the module doc."""
    if encoding:
        try:
            codecs.lookup(encoding)
        except LookupError:
            raise ReadError(f"unknown encoding {encoding!r}") from None
        try:
            text = raw.decode(encoding)
        except UnicodeDecodeError as err:
            line = raw[: err.start].count(b"\n") + 1
            raise ReadError(f"not valid {encoding} at byte {err.start} (line {line}); try another --encoding") from None
        return text.lstrip("\ufeff"), encoding, False
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return raw.decode("utf-16"), "utf-16", True
    try:
        return raw.decode("utf-8-sig"), "utf-8", True
    except UnicodeDecodeError as err:
        first_bad = err.start
    try:
        text = raw.decode("cp949")
    except UnicodeDecodeError:
        text = None
    if text is not None and _is_korean(text):
        return text, "cp949", True
    line = raw[:first_bad].count(b"\n") + 1
    raise ReadError(f"not UTF-8 (byte 0x{raw[first_bad]:02x} at line {line}) and not Korean CP949/EUC-KR; "
                    "pass --encoding (e.g. cp1252, latin-1, shift_jis)")


def sniff_delimiter(text: str) -> str:
    header = text.split("\n", 1)[0]
    counts = {d: header.count(d) for d in (",", ";", "\t")}
    best = max(counts, key=lambda d: counts[d])
    return best if counts[best] else ","


def read_any(path: str | os.PathLike[str], *, encoding: str | None = None,
             sheet: str | None = None) -> tuple[pd.DataFrame, ReadInfo]:
    """A DataFrame (text cells as given) from any supported file, and how it was read."""
    p = Path(path)
    if not p.is_file():
        raise ReadError("file not found")
    suffix = p.suffix.lower()
    if suffix not in SUFFIXES:
        hint = " (save it as .xlsx)" if suffix in (".xls", ".xlsm", ".ods") else ""
        raise ReadError(f"unsupported suffix {suffix!r}{hint} (expected one of {', '.join(SUFFIXES)})")
    try:
        if suffix in TEXT_SUFFIXES:
            text, used, detected = decode_text(p.read_bytes(), encoding)
            delim = sniff_delimiter(text)
            df = pd.read_csv(io.StringIO(text), sep=delim, dtype=str, keep_default_na=False, na_values=[""])
            return df, ReadInfo(format="csv", encoding=used, encoding_detected=detected, delimiter=delim)
        if suffix == ".xlsx":
            return _read_xlsx(p, sheet)
        if suffix in (".parquet", ".pq"):
            return pd.read_parquet(p), ReadInfo(format="parquet")
        return pd.read_json(p, lines=suffix != ".json", dtype=False), ReadInfo(format="json")
    except ReadError:
        raise
    except (ValueError, OSError, pd.errors.ParserError) as err:
        raise ReadError(f"unreadable {suffix} file: {' '.join(str(err).split())[:200]}") from None


def _read_xlsx(p: Path, sheet: str | None) -> tuple[pd.DataFrame, ReadInfo]:
    try:
        import openpyxl  # noqa: F401 (pandas' engine; checked here for a clear message)
    except ImportError:
        raise ReadError("reading .xlsx needs openpyxl (pip install openpyxl)") from None
    book = pd.ExcelFile(p, engine="openpyxl")
    names = [str(s) for s in book.sheet_names]
    if sheet is not None and sheet not in names:
        raise ReadError(f"no sheet {sheet!r} (sheets: {', '.join(names)})")
    name = sheet if sheet is not None else names[0]
    df = pd.read_excel(book, sheet_name=name, dtype=str, keep_default_na=False, na_values=[""])
    empty = df.isna().all(axis=1).to_numpy()
    end = len(df)
    while end and empty[end - 1]:  # formatted but empty rows at the bottom; inner ones keep their numbers
        end -= 1
    df = df.iloc[:end]
    return df, ReadInfo(format="xlsx", sheet=name)


__all__ = ["SUFFIXES", "ReadError", "ReadInfo", "decode_text", "read_any", "sniff_delimiter"]
