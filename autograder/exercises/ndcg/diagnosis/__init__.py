"""The nDCG exercise's diagnosis: probes, the ways of computing a DCG, models, matching."""

from .matching import diagnose
from .probes import ALL_PROBES

__all__ = ["ALL_PROBES", "diagnose"]
