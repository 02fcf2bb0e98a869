"""The Lark grammars, one `.lark` file per language, and the one place their parsers are built.

Every parser is LALR with a contextual lexer, one per start rule (so a language's lexer knows only
its own terminals), built on first use and cached in-process (`functools.cache`) and on disk
(Lark `cache=True`, 2-3x faster to load than building).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lark import Lark


@functools.cache
def parser(grammar: str, start: str) -> Lark:
    """The LALR parser of `grammars/<grammar>.lark` for one start rule."""
    from lark import Lark

    return Lark.open_from_package(
        "bammmc",
        f"{grammar}.lark",
        ("grammars",),
        parser="lalr",
        lexer="contextual",
        start=start,
        cache=True,
    )
