"""Endpoint configuration of an OpenAI-compatible chat endpoint (vLLM, Ollama, OpenAI).

The API key is never a field of this model: the config names where the key comes from (an
environment variable, or a Prefect Secret block that ``flows/`` resolves and passes in as a value),
so a config can be logged, hashed and written to a report without leaking anything.
"""

from __future__ import annotations

import os
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, model_validator

ResponseFormat = Literal["json_schema", "json_object", "text"]
FORMAT_FALLBACK: dict[str, ResponseFormat] = {"json_schema": "json_object", "json_object": "text"}
"""What a client tries next when the server rejects a response format with HTTP 400."""


class EndpointConfig(BaseModel):
    """One judge / answerer endpoint: where it is, which model, how hard to push it."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(default="", description="short label used in reports; defaults to the model")
    base_url: str = Field(description="e.g. http://127.0.0.1:8000/v1 (the /chat/completions path is appended)")
    model: str = Field(min_length=1)
    api_key_env: str | None = Field(default=None, description="environment variable holding the API key")
    api_key_secret_block: str | None = Field(
        default=None, description="Prefect Secret block name; resolved in flows/ and passed to the client")
    timeout_s: float = Field(default=60.0, gt=0, description="per-request read/connect timeout")
    max_retries: int = Field(default=5, ge=0, description="retries after the first attempt on transient errors")
    backoff_base_s: float = Field(default=0.5, ge=0)
    backoff_max_s: float = Field(default=30.0, ge=0)
    retry_after_max_s: float = Field(default=120.0, ge=0, description="cap on an honoured Retry-After")
    max_concurrency: int = Field(default=4, ge=1, description="requests in flight at once")
    rate_limit_rps: float | None = Field(default=None, gt=0, description="request starts per second")
    temperature: float = Field(default=0.0, ge=0)
    seed: int | None = Field(default=0, description="sent as the OpenAI 'seed' parameter; None omits it")
    max_tokens: int | None = Field(default=512, ge=1)
    response_format: ResponseFormat = Field(
        default="json_schema",
        description="how a reply is constrained when the caller gives a JSON schema: json_schema (OpenAI "
                    "structured outputs; llama.cpp and vLLM accept it), json_object, or text (prompt only). A "
                    "server that rejects the format with HTTP 400 gets the next one (json_object, then text).")
    json_mode: bool | None = Field(default=None, description="deprecated: true means response_format json_object")
    repair_retries: int = Field(default=1, ge=0, le=3,
                                description="re-asks after an unparsable reply, quoting the parse error")
    price_per_1k_prompt: float = Field(default=0.0, ge=0, description="currency units per 1,000 prompt tokens")
    price_per_1k_completion: float = Field(default=0.0, ge=0)

    @model_validator(mode="after")
    def _one_key_source(self) -> EndpointConfig:
        if self.api_key_env and self.api_key_secret_block:
            raise ValueError("give api_key_env or api_key_secret_block, not both")
        if not self.base_url.startswith(("http://", "https://")):
            raise ValueError(f"base_url must start with http:// or https://, got {self.base_url!r}")
        if not self.name:
            self.name = self.model
        if self.json_mode is not None:
            if self.json_mode and "response_format" not in self.model_fields_set:
                self.response_format = "json_object"
            self.json_mode = None
        return self

    @property
    def chat_url(self) -> str:
        return self.base_url.rstrip("/") + "/chat/completions"

    def request_params(self) -> dict[str, object]:
        """The sampling parameters sent with every request (part of the body, so of the cache key)."""
        params: dict[str, object] = {"temperature": self.temperature}
        if self.seed is not None:
            params["seed"] = self.seed
        if self.max_tokens is not None:
            params["max_tokens"] = self.max_tokens
        return params

    @staticmethod
    def response_format_body(fmt: ResponseFormat, schema: dict[str, Any] | None, name: str = "reply"
                             ) -> dict[str, Any] | None:
        """The ``response_format`` request field for a format and an optional JSON schema (None: send none)."""
        if fmt == "json_schema" and schema is not None:
            return {"type": "json_schema", "json_schema": {"name": name, "strict": True, "schema": schema}}
        if fmt in ("json_schema", "json_object"):
            return {"type": "json_object"}
        return None

    def resolve_api_key(self, secret_value: str | SecretStr | None = None) -> SecretStr | None:
        """The key as a SecretStr: an explicit value (from a Secret block) wins, else the env var.

        A named env var that is unset is an error (naming the variable, never a value).
        """
        if secret_value is not None:
            return secret_value if isinstance(secret_value, SecretStr) else SecretStr(secret_value)
        if self.api_key_secret_block:
            raise ValueError(
                f"endpoint {self.name!r}: api_key_secret_block {self.api_key_secret_block!r} must be resolved "
                "by the flow and passed in")
        if self.api_key_env:
            value = os.environ.get(self.api_key_env)
            if not value:
                raise ValueError(f"endpoint {self.name!r}: environment variable {self.api_key_env} is not set")
            return SecretStr(value)
        return None

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (prompt_tokens * self.price_per_1k_prompt + completion_tokens * self.price_per_1k_completion) / 1000.0
