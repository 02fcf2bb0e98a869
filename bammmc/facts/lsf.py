"""Facts of LSF's `bsub` shared by its reader, lowering and writer."""

from __future__ import annotations

import re
from typing import Final

#: a `-w` job name that the portable dependency value would take for a job id (`123`,
#: `123_4`, `123_*`, `123_[1-3]`): read from `done("123")`, it keeps its double quotes, and
#: the writer writes a value so quoted as the quoted name (IBM bsub -w)
ID_LIKE: Final = re.compile(r"[0-9]+(?:_(?:[0-9]+|\*|\[.*\]))?")
