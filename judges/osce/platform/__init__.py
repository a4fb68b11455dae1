"""The OSCE practice platform: students take a case's history from a virtual standardized patient in the browser;
dialogues are kept only under research consent (``store``) and exported for the study and the scheduled
evaluation. ``app`` is the web application (Starlette, Jinja2, no JavaScript build)."""
