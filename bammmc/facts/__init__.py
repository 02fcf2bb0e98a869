"""Per-format facts (STYLE.md §1): the tables a format's frontend, lowering and backend share,
so that no stage imports another stage's module."""
