#!/usr/bin/env python3
"""Writes tests/data/reference/wilcoxon.json: reference values for stats/wilcoxon.hpp.

  /usr/bin/python3 tests/tools/wilcoxon_reference.py > tests/data/reference/wilcoxon.json

p values come from SciPy (scipy.stats.wilcoxon, zero_method="wilcox", correction=False), method "exact"
where stats/wilcoxon.cpp uses the exact distribution (no zero, no tie in |d|, n <= 50) and "approx"
otherwise. The Hodges–Lehmann estimate (median of the Walsh averages) and its interval [W_(C), W_(M+1-C)]
are computed here independently: C from the exact null distribution of T+ for n <= 50 (the subset-sum
recurrence, checked against an enumeration of all 2^n sign patterns for n <= 16), from the normal
approximation otherwise (Hollander & Wolfe 3.3).
"""
import itertools
import json
import math
import sys

import numpy as np
import scipy
from scipy import stats


def exact_cdf_by_enumeration(n):
    counts = [0] * (n * (n + 1) // 2 + 1)
    for signs in itertools.product((0, 1), repeat=n):
        counts[sum(rank for rank, s in zip(range(1, n + 1), signs) if s)] += 1
    total = 2 ** n
    return [c / total for c in counts]


def exact_pmf(n):
    counts = [1] + [0] * (n * (n + 1) // 2)
    for rank in range(1, n + 1):
        for t in range(len(counts) - 1, rank - 1, -1):
            counts[t] += counts[t - rank]
    pmf = [c / 2 ** n for c in counts]
    if n <= 16:
        assert pmf == exact_cdf_by_enumeration(n)
    return pmf


def walsh_hl(d, confidence):
    n = len(d)
    walsh = sorted((d[i] + d[j]) / 2 for i in range(n) for j in range(i, n))
    m = len(walsh)
    estimate = float(np.median(walsh))
    tail = (1 - confidence) / 2
    if n <= 50:
        pmf = exact_pmf(n)
        c, cumulative = 0, 0.0
        while c < len(pmf) and cumulative + pmf[c] <= tail * (1 + 1e-12):
            cumulative += pmf[c]
            c += 1
    else:
        z = stats.norm.ppf(1 - tail)
        value = m / 2 - z * math.sqrt(n * (n + 1) * (2 * n + 1) / 24)
        c = 0 if value < 1 else math.floor(value)
    low, high = (walsh[c - 1], walsh[m - c]) if 1 <= c <= m else (None, None)
    return {"estimate": estimate, "C": c, "low": low, "high": high}


def case(name, d, confidence=0.95):
    d = [float(v) for v in d]
    nonzero = [v for v in d if v != 0]
    absolute = [abs(v) for v in nonzero]
    exact = len(nonzero) == len(d) and len(set(absolute)) == len(absolute) and len(nonzero) <= 50
    method = "exact" if exact else "approx"
    p = {}
    for alternative in ("two-sided", "greater", "less"):
        result = stats.wilcoxon(d, zero_method="wilcox", correction=False, alternative=alternative, method=method)
        p[alternative] = {"statistic": float(result.statistic), "p": float(result.pvalue)}
    return {"name": name, "d": d, "exact": exact, "n_nonzero": len(nonzero), "p": p,
            "hodges_lehmann": walsh_hl(d, confidence), "confidence": confidence}


def main():
    rng = np.random.default_rng(20261204)
    cases = [
        case("paired log ratios of 8 runs, head slower", np.log([1.19, 1.33, 1.69, 1.21, 1.27, 1.45, 1.24, 1.31])),
        case("paired log ratios of 8 runs, same code", np.log([1.02, 0.97, 1.05, 0.99, 1.01, 0.96, 1.03, 1.00])),
        case("six pairs, mixed signs", [0.3, -0.1, 0.25, 0.05, -0.02, 0.4]),
        case("five pairs (no 95% interval)", [0.1, 0.2, 0.3, 0.4, 0.5]),
        case("twelve pairs, all negative", -rng.lognormal(0, 0.5, 12)),
        case("ties in |d| (normal approximation)", [0.1, -0.1, 0.2, 0.2, 0.3, -0.05, 0.4, 0.1, 0.15, 0.25]),
        case("a zero difference (dropped; normal approximation)", [0.0, 0.12, 0.3, -0.04, 0.22, 0.5, 0.07, 0.18]),
        case("twenty pairs of small shifts", rng.normal(0.03, 0.05, 20)),
        case("sixty pairs (normal approximation)", rng.normal(0.02, 0.1, 60)),
        case("90% interval of 10 pairs", rng.normal(0.1, 0.1, 10), confidence=0.90),
    ]
    json.dump({"generated_by": f"SciPy {scipy.__version__}, NumPy {np.__version__} (tests/tools/wilcoxon_reference.py)",
               "cases": cases}, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
