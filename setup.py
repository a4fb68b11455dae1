"""The package layout; everything else about the distribution is in pyproject.toml.

The repository keeps the design card's top-level folders (``ir/``, ``flows/``, ...) and installs them as
subpackages of one import package, ``synthdocqa`` (setuptools' ``package_dir``): the wheel has one
top-level name, and the editable install maps the same names onto the checkout's folders.
"""

import ast
from pathlib import Path

from setuptools import find_namespace_packages, setup

ROOT = Path(__file__).resolve().parent


def _subpackages() -> tuple[str, ...]:
    """``synthdocqa.SUBPACKAGES``, read without importing the package (it is not installed yet)."""
    tree = ast.parse((ROOT / "synthdocqa" / "__init__.py").read_text("utf-8"))
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", None) == "SUBPACKAGES":
            return tuple(ast.literal_eval(node.value))
    raise RuntimeError("synthdocqa/__init__.py defines no SUBPACKAGES")


FOLDERS = _subpackages()
# namespace packages too, as pyproject's `find` did: folders of package data (templates, prompts, the shipped
# layout-CLIP) and ``corpus/views``, which has no __init__.py
packages = ["synthdocqa"] + [f"synthdocqa.{p}" for p in find_namespace_packages(
    where=str(ROOT), include=[*FOLDERS, *(f"{f}.*" for f in FOLDERS)]) if "__pycache__" not in p]
package_dir = {"synthdocqa": "synthdocqa", **{f"synthdocqa.{f}": f for f in FOLDERS}}

setup(packages=packages, package_dir=package_dir)
