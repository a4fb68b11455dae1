"""OpenAI-compatible chat-completions client for judges and answerers (httpx, threads).

Public API (reused by the hallucination and OSCE judges)::

    cfg = EndpointConfig(base_url="http://127.0.0.1:8000/v1", model="qwen2.5-7b", api_key_env="OPENAI_API_KEY")
    with ChatClient(cfg, api_key=cfg.resolve_api_key(), cache=ResponseCache("cache.sqlite"), rng=Rng(0)) as c:
        results = c.complete_many([ChatRequest(key="item-1", prompt_hash=p.sha256, messages=msgs)],
                                  parse=p.parse_verdict)
    c.stats  # ClientStats: HTTP calls, retries, cache hits, ok/invalid counts, tokens, cost

Every request ends as a ``ChatResult`` with ``status="ok"`` (content, and ``verdict`` when a parser
was given) or ``status="invalid"`` with an ``invalid_reason``: ``unparseable`` (the reply was not a
valid verdict), ``quota`` (429 insufficient_quota, 402, 403: never retried), ``auth`` (401),
``http_error`` (other 4xx), ``retries_exhausted`` (429/5xx/timeouts/truncated bodies past
``max_retries``). Nothing is dropped and nothing is guessed. Transient failures are retried with
exponential backoff and jitter drawn from a seeded ``Rng`` (forked per item and attempt, so the
schedule does not depend on thread timing), or after the server's ``Retry-After`` when it sends one.
Concurrency is bounded by ``max_concurrency`` and request starts by ``rate_limit_rps``. The API key
lives only in the Authorization header of the httpx client; it is never logged, cached or raised.

Structured replies: a request that carries a JSON ``schema`` is sent with the endpoint's response format
(``EndpointConfig.response_format``: OpenAI ``json_schema`` by default). A server that rejects the format
(HTTP 400/422 naming ``response_format``) gets the next one: the llama-cpp-python style
``{"type": "json_object", "schema": ...}``, then plain ``json_object``, then the prompt alone; the rejection is
remembered in the cache, so a rerun does not ask again. A reply the parser rejects is asked once more
(``repair_retries``), quoting the parse error; the result keeps the first raw reply and the error.

One module, though long: retries, format fallback, repair and accounting are stages of one request's life
in ``ChatClient`` and share its state, so they read best together.
"""

from __future__ import annotations

import email.utils
import json
import logging
import re
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Literal

import httpx
from pydantic import BaseModel, Field, SecretStr

from synthdocqa.ir.rng import Rng

from .cache import CachedReply, ResponseCache, cache_key, endpoint_identity
from .config import EndpointConfig

WireFormat = Literal["json_schema", "json_object+schema", "json_object", "text"]
WIRE_ORDER: tuple[WireFormat, ...] = ("json_schema", "json_object+schema", "json_object", "text")
"""Response formats from most to least constrained; a client starts at its endpoint's configured one and
steps down when the server rejects a format."""
_START: dict[str, WireFormat] = {"json_schema": "json_schema", "json_object": "json_object+schema", "text": "text"}

log = logging.getLogger("synthdocqa.judges.llm")

InvalidReason = Literal["unparseable", "quota", "auth", "http_error", "retries_exhausted"]
Parser = Callable[[str], dict[str, Any]]


_BEARER = re.compile(r"(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}")
"""A bearer token in a reply's text (redacted whatever key it is)."""


class VerdictError(ValueError):
    """Raised by a parser when a reply is not a valid verdict (the result becomes ``invalid``)."""


class ChatRequest(BaseModel):
    key: str = Field(min_length=1, description="item key: unique per item within one prompt")
    prompt_hash: str = Field(default="", description="content hash of the prompt template (cache key part)")
    messages: list[dict[str, Any]] = Field(min_length=1)
    schema_: dict[str, Any] | None = Field(default=None, alias="schema",
                                           description="JSON schema the reply must follow (structured output)")
    repair_hint: str = Field(default="", description="what a valid reply looks like, quoted in a repair request")

    model_config = {"populate_by_name": True}


class Usage(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0


class ChatResult(BaseModel):
    key: str
    model: str
    status: Literal["ok", "invalid"]
    content: str | None = None
    verdict: dict[str, Any] | None = None
    invalid_reason: InvalidReason | None = None
    error: str | None = Field(default=None, description="short cause; never holds headers or keys")
    attempts: int = Field(default=0, description="HTTP requests made for this item (0 when cached)")
    cached: bool = False
    usage: Usage = Field(default_factory=Usage)
    raw: str | None = Field(default=None, description="the first reply when it was not a valid verdict "
                                                      "(kept whether or not a repair succeeded)")
    repaired: bool = Field(default=False, description="the verdict came from a repair request")
    response_format: str | None = Field(default=None, description="the response format the reply was asked with")


class ClientStats(BaseModel):
    """Counters over the life of a client; ``ok + sum(invalid.values()) == items``."""

    items: int = 0
    http_calls: int = 0
    retries: int = 0
    cache_hits: int = 0
    ok: int = 0
    invalid: dict[str, int] = Field(default_factory=dict)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    cached_prompt_tokens: int = 0
    cached_completion_tokens: int = 0
    repairs: int = Field(default=0, description="repair requests sent or read from the cache")
    repaired: int = Field(default=0, description="verdicts that a repair made valid")
    format_fallbacks: list[str] = Field(default_factory=list, description="response formats the server rejected")


class _RateLimiter:
    """Spaces request starts at least ``1/rps`` apart across threads."""

    def __init__(self, rps: float | None, clock: Callable[[], float], sleep: Callable[[float], None]) -> None:
        self.interval = 0.0 if rps is None else 1.0 / rps
        self._next = 0.0
        self._lock = threading.Lock()
        self._clock, self._sleep = clock, sleep

    def acquire(self) -> None:
        if self.interval <= 0:
            return
        with self._lock:
            now = self._clock()
            start = max(now, self._next)
            self._next = start + self.interval
        if start > now:
            self._sleep(start - now)


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header (delta-seconds or HTTP date); None when absent/garbled."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _error_message(resp: httpx.Response, limit: int = 160) -> str:
    """The server's own words for a refused request (``error.message`` or the body's text), one line, short:
    "HTTP 400" alone does not tell a user that the prompt outgrew the model's context."""
    try:
        body = resp.json()
        err = body.get("error") if isinstance(body, dict) else None
        text = str(err.get("message") or "") if isinstance(err, dict) else str(body.get("detail") or "") \
            if isinstance(body, dict) else ""
    except ValueError:
        text = resp.text
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _error_code(resp: httpx.Response) -> str:
    try:
        body = resp.json()
    except ValueError:
        return ""
    err = body.get("error") if isinstance(body, dict) else None
    if isinstance(err, dict):
        return str(err.get("code") or err.get("type") or "")
    return ""


class _Attempt(BaseModel):
    content: str | None = None
    usage: Usage | None = None
    final_reason: InvalidReason | None = None
    transient: bool = False
    retry_after: float | None = None
    error: str | None = None
    format_rejected: bool = False


class _Exchange(BaseModel):
    """The outcome of one logical request (cache or HTTP): a reply, or a failure reason."""

    content: str | None = None
    usage: Usage = Field(default_factory=Usage)
    attempts: int = 0
    cached: bool = False
    failure: InvalidReason | None = None
    error: str | None = None
    format_rejected: bool = False
    fmt: str | None = None


def _repair_text(error: str, hint: str) -> str:
    want = f" {hint}" if hint else ""
    return (f"Your reply could not be read ({error}). Reply again with only the JSON object, no other text."
            f"{want}")


class ChatClient:
    """One endpoint; thread-safe. Use ``complete_many`` for bounded-concurrency batches."""

    def __init__(
        self,
        config: EndpointConfig,
        *,
        api_key: SecretStr | str | None = None,
        cache: ResponseCache | None = None,
        rng: Rng | None = None,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        progress: Callable[[ClientStats], None] | None = None,
    ) -> None:
        self.config = config
        self.cache = cache
        self.progress = progress
        self._endpoint = endpoint_identity(config.base_url)
        rejected = cache.rejected_formats(self._endpoint, config.model) if cache is not None else set()
        start = WIRE_ORDER.index(_START[config.response_format])
        self._format: WireFormat = next((f for f in WIRE_ORDER[start:] if f not in rejected), "text")
        self.rng = rng if rng is not None else Rng(0)
        self.stats = ClientStats()
        self._sleep = sleep
        self._stats_lock = threading.Lock()
        self._sem = threading.BoundedSemaphore(config.max_concurrency)
        self._limiter = _RateLimiter(config.rate_limit_rps, clock, sleep)
        headers = {"Content-Type": "application/json"}
        self._redact_pattern: re.Pattern[str] | None = None
        if api_key is not None:
            secret = api_key.get_secret_value() if isinstance(api_key, SecretStr) else api_key
            headers["Authorization"] = f"Bearer {secret}"
            if secret:
                self._redact_pattern = re.compile(re.escape(secret))
        self._http = httpx.Client(
            headers=headers, timeout=httpx.Timeout(config.timeout_s), transport=transport,
            limits=httpx.Limits(max_connections=config.max_concurrency,
                                max_keepalive_connections=config.max_concurrency))

    # -- public -------------------------------------------------------------------------------
    def complete(self, request: ChatRequest, parse: Parser | None = None) -> ChatResult:
        """Ask once (cache first, then HTTP with retries), repairing an unparsable reply; always a result."""
        first = self._exchange(request, request.messages)
        if first.failure is not None or parse is None:
            result = self._result(request, first, parse=None if first.failure is not None else parse)
            self._count(result)
            return result
        result = self._result(request, first, parse)
        attempts, usage, raw = first.attempts, first.usage, first.content
        tries = 0
        while result.status == "invalid" and result.invalid_reason == "unparseable" and \
                tries < self.config.repair_retries:
            tries += 1
            messages = [*request.messages, {"role": "assistant", "content": raw or ""},
                        {"role": "user", "content": _repair_text(result.error or "", request.repair_hint)}]
            again = self._exchange(request, messages)
            with self._stats_lock:
                self.stats.repairs += 1
            attempts += again.attempts
            usage = usage.model_copy(update={k: getattr(usage, k) + getattr(again.usage, k)
                                             for k in ("prompt_tokens", "completion_tokens", "cost")})
            if again.failure is not None:
                break
            fixed = self._result(request, again, parse)
            if fixed.status == "ok":
                with self._stats_lock:
                    self.stats.repaired += 1
                result = fixed.model_copy(update={"repaired": True, "error": f"first reply: {result.error}"})
                break
            raw = again.content
            result = fixed.model_copy(update={"error": f"{result.error}; after repair: {fixed.error}"})
        result = result.model_copy(update={"attempts": attempts, "usage": usage, "raw": first.content
                                           if result.repaired or result.status == "invalid" else None,
                                           "cached": attempts == 0})
        self._count(result)
        return result

    def complete_many(self, requests: Sequence[ChatRequest], parse: Parser | None = None) -> list[ChatResult]:
        """All requests, ``max_concurrency`` at a time; results in request order.

        Requests with the same content (prompt, messages, schema) are asked once and the reply is shared, counted
        as a cache hit: the number of calls does not depend on thread timing."""
        keys = [r.key for r in requests]
        if len(set(keys)) != len(keys):
            dup = next(k for k in keys if keys.count(k) > 1)
            raise ValueError(f"duplicate request key {dup!r}")
        sigs = [json.dumps([r.prompt_hash, r.messages, r.schema_], sort_keys=True, default=str) for r in requests]
        first: dict[str, int] = {}
        unique: list[ChatRequest] = []
        for r, sig in zip(requests, sigs, strict=True):
            if sig not in first:
                first[sig] = len(unique)
                unique.append(r)
        if self.config.max_concurrency == 1 or len(unique) <= 1:
            done = [self.complete(r, parse) for r in unique]
        else:
            with ThreadPoolExecutor(max_workers=self.config.max_concurrency, thread_name_prefix="llm") as pool:
                done = list(pool.map(lambda r: self.complete(r, parse), unique))
        out = []
        for r, sig in zip(requests, sigs, strict=True):
            res = done[first[sig]]
            if res.key != r.key:
                res = res.model_copy(update={"key": r.key, "cached": True, "attempts": 0,
                                             "usage": res.usage.model_copy(update={"cost": 0.0})})
                self._count(res)
            out.append(res)
        return out

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> ChatClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:  # never shows headers
        return f"ChatClient(model={self.config.model!r}, base_url={self.config.base_url!r})"

    # -- internals ----------------------------------------------------------------------------
    def _body(self, messages: list[dict[str, Any]], schema: dict[str, Any] | None, fmt: WireFormat
              ) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.config.model, "messages": messages, **self.config.request_params()}
        if schema is not None:
            if fmt == "json_schema":
                body["response_format"] = {"type": "json_schema",
                                           "json_schema": {"name": "reply", "strict": True, "schema": schema}}
            elif fmt == "json_object+schema":
                body["response_format"] = {"type": "json_object", "schema": schema}
            elif fmt == "json_object":
                body["response_format"] = {"type": "json_object"}
        return body

    def _exchange(self, request: ChatRequest, messages: list[dict[str, Any]]) -> _Exchange:
        """One logical request: the cache, else HTTP with retries; steps down the response formats the server
        rejects."""
        while True:
            fmt = self._format
            body = self._body(messages, request.schema_, fmt)
            key = cache_key(self.config.base_url, body, request.prompt_hash)
            if self.cache is not None:
                hit = self.cache.get(key)
                if hit is not None:
                    usage = Usage(prompt_tokens=hit.prompt_tokens, completion_tokens=hit.completion_tokens)
                    return _Exchange(content=hit.content, usage=usage, cached=True, fmt=fmt)
            got = self._ask(request.key, body)
            if got.format_rejected and request.schema_ is not None and fmt != "text":
                self._reject(fmt)
                continue
            if got.content is not None:  # a reply that echoes the request's headers must not carry the key on
                got = got.model_copy(update={"content": self._redact(got.content)})
            if got.content is not None and self.cache is not None:
                self.cache.put(key, model=self.config.model, prompt_hash=request.prompt_hash, item_key=request.key,
                               reply=CachedReply(content=got.content, prompt_tokens=got.usage.prompt_tokens,
                                                 completion_tokens=got.usage.completion_tokens))
            return got.model_copy(update={"fmt": fmt})

    def _redact(self, text: str) -> str:
        """The reply with any credential taken out: this client's key wherever it appears, and any bearer token
        (``Authorization: Bearer ...`` echoed by a proxy or a misconfigured server)."""
        if self._redact_pattern is not None:
            text = self._redact_pattern.sub("[redacted]", text)
        return _BEARER.sub(r"\1[redacted]", text)

    def _reject(self, fmt: WireFormat) -> None:
        with self._stats_lock:
            if self._format == fmt:
                self._format = WIRE_ORDER[WIRE_ORDER.index(fmt) + 1]
                self.stats.format_fallbacks.append(fmt)
                log.warning("%s rejected response format %s; using %s", self.config.name, fmt, self._format)
                if self.cache is not None:
                    self.cache.reject_format(self._endpoint, self.config.model, fmt)

    def _ask(self, item_key: str, body: dict[str, Any]) -> _Exchange:
        attempts = 0
        last: _Attempt | None = None
        for attempt in range(self.config.max_retries + 1):
            if attempt > 0:
                with self._stats_lock:
                    self.stats.retries += 1
                self._sleep(self._wait(item_key, attempt - 1, last.retry_after if last else None))
            attempts += 1
            last = self._once(body)
            if last.content is not None:
                usage = last.usage or Usage()
                usage.cost = self.config.cost(usage.prompt_tokens, usage.completion_tokens)
                return _Exchange(content=last.content, usage=usage, attempts=attempts)
            if last.format_rejected and "response_format" in body:
                return _Exchange(format_rejected=True, attempts=attempts, failure="http_error", error=last.error)
            if not last.transient:
                return _Exchange(failure=last.final_reason or "http_error", error=last.error, attempts=attempts)
            log.info("retrying %s on %s (attempt %d): %s", self.config.name, item_key, attempt + 1, last.error)
        return _Exchange(failure="retries_exhausted", error=last.error if last else None, attempts=attempts)

    def _wait(self, item_key: str, retry_index: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(retry_after, self.config.retry_after_max_s)
        cap = min(self.config.backoff_max_s, self.config.backoff_base_s * (2 ** retry_index))
        jitter = self.rng.fork("backoff", item_key, retry_index).uniform(0.5, 1.0)
        return cap * jitter

    def _once(self, body: dict[str, Any]) -> _Attempt:
        self._limiter.acquire()
        with self._sem:
            with self._stats_lock:
                self.stats.http_calls += 1
            try:
                resp = self._http.post(self.config.chat_url, json=body)
            except httpx.TimeoutException:
                return _Attempt(transient=True, error="timeout")
            except httpx.TransportError as exc:
                return _Attempt(transient=True, error=f"transport error: {type(exc).__name__}")
        code = resp.status_code
        if code == 200:
            try:
                data = resp.json()
                message = data["choices"][0]["message"]
                content = message.get("content")
                usage_raw = data.get("usage") or {}
                usage = Usage(prompt_tokens=int(usage_raw.get("prompt_tokens") or 0),
                              completion_tokens=int(usage_raw.get("completion_tokens") or 0))
            except (ValueError, KeyError, IndexError, TypeError, AttributeError):
                return _Attempt(transient=True, error="malformed or truncated response body")
            return _Attempt(content=content if isinstance(content, str) else "", usage=usage)
        retry_after = parse_retry_after(resp.headers.get("retry-after"))
        if code == 429:
            if _error_code(resp) == "insufficient_quota":
                return _Attempt(final_reason="quota", error="429 insufficient_quota")
            return _Attempt(transient=True, retry_after=retry_after, error="429 rate limited")
        if code in (400, 422, 500) and ("response_format" in resp.text or "json_schema" in resp.text):
            # 500: llama-cpp-python's server answers a request-validation error with it
            return _Attempt(final_reason="http_error", format_rejected=True,
                            error=f"HTTP {code}: response format rejected")
        if code in (402, 403):
            return _Attempt(final_reason="quota", error=f"HTTP {code}")
        if code == 401:
            return _Attempt(final_reason="auth", error="HTTP 401 (check the API key source)")
        if code == 408 or code >= 500:
            return _Attempt(transient=True, retry_after=retry_after, error=f"HTTP {code}")
        why = _error_message(resp)
        return _Attempt(final_reason="http_error", error=f"HTTP {code}: {why}" if why else f"HTTP {code}")

    def _result(self, request: ChatRequest, ex: _Exchange, parse: Parser | None) -> ChatResult:
        usage = ex.usage.model_copy(update={"cost": 0.0}) if ex.cached else ex.usage
        base: dict[str, Any] = dict(key=request.key, model=self.config.model, usage=usage, attempts=ex.attempts,
                                    cached=ex.cached, response_format=ex.fmt if request.schema_ is not None else None)
        if ex.failure is not None:
            return ChatResult(status="invalid", invalid_reason=ex.failure, error=ex.error, **base)
        if parse is None:
            return ChatResult(status="ok", content=ex.content, **base)
        try:
            verdict = parse(ex.content or "")
        except VerdictError as exc:
            return ChatResult(status="invalid", invalid_reason="unparseable", error=str(exc)[:200],
                              content=ex.content, **base)
        return ChatResult(status="ok", verdict=verdict, content=ex.content, **base)

    def _count(self, result: ChatResult) -> None:
        with self._stats_lock:
            s = self.stats
            s.items += 1
            if result.cached:
                s.cache_hits += 1
                s.cached_prompt_tokens += result.usage.prompt_tokens
                s.cached_completion_tokens += result.usage.completion_tokens
            else:
                s.prompt_tokens += result.usage.prompt_tokens
                s.completion_tokens += result.usage.completion_tokens
                s.cost += result.usage.cost
            if result.status == "ok":
                s.ok += 1
            else:
                reason = result.invalid_reason or "unparseable"
                s.invalid[reason] = s.invalid.get(reason, 0) + 1
            snapshot = s.model_copy(deep=True) if self.progress is not None else None
        if snapshot is not None and self.progress is not None:
            self.progress(snapshot)
