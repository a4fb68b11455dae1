"""OpenAI-compatible LLM client shared by the judges: config, client, SQLite cache, prompts.

See ``judges.llm.client`` for the API contract (statuses, retries, accounting).
"""

from .cache import CachedReply, ResponseCache, cache_key
from .client import (
    ChatClient,
    ChatRequest,
    ChatResult,
    ClientStats,
    Usage,
    VerdictError,
    parse_retry_after,
)
from .config import EndpointConfig
from .prompts import (
    PROMPT_DIR,
    PromptTemplate,
    escape_untrusted,
    load_prompt,
    make_verdict_parser,
    parse_json_object,
)

__all__ = [
    "CachedReply", "ChatClient", "ChatRequest", "ChatResult", "ClientStats", "EndpointConfig", "PROMPT_DIR",
    "PromptTemplate", "ResponseCache", "Usage", "VerdictError", "cache_key", "escape_untrusted", "load_prompt",
    "make_verdict_parser", "parse_json_object", "parse_retry_after",
]
