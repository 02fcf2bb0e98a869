"""The real-world corpus files each reader is known to refuse (each format's corpus test lists
them with the reason), for tests that convert every corpus file: a refused file must be one of
these, and is then checked to be refused rather than skipped."""

from __future__ import annotations

import functools


@functools.cache
def known_faulty() -> frozenset[str]:
    """Names of the corpus files some reader refuses, or that hold no complete job."""
    from tests.formats import (
        test_htcondor_corpus,
        test_lsf_corpus,
        test_pbs_corpus,
        test_sge_corpus,
        test_slurm_corpus,
    )

    names: set[str] = set(test_htcondor_corpus.FRAGMENTS)
    for module in (
        test_htcondor_corpus,
        test_lsf_corpus,
        test_pbs_corpus,
        test_sge_corpus,
        test_slurm_corpus,
    ):
        names |= set(module.FAULTY)
    return frozenset(names)
