"""``python -m bammmc``: the same as the ``bammmc`` command."""

from bammmc.cli import main

main()
