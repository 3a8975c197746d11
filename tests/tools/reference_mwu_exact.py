#!/usr/bin/env python3
"""SciPy's exact permutation p-value for the heavily tied 3-vs-200 case in test_stats_mann_whitney.cpp.

  /usr/bin/python3 tests/tools/reference_mwu_exact.py     (Debian 12: python3-scipy)

base = [3, 3, 4]; head = [4 + (i*7) % 6 for i in 0..199] (values 4..9). Every one of the C(203, 3) =
1,373,701 ways to choose base's 3 values from the pooled 203 is enumerated by
scipy.stats.permutation_test(n_resamples=inf) with the Mann-Whitney U statistic (ties count 1/2), so the
p-value is the exact conditional one the C++ code must reproduce (alternative 'less': base smaller).
Prints the p-value with 16 significant digits.
"""
import numpy as np
from scipy import stats

base = np.array([3.0, 3.0, 4.0])
head = np.array([4.0 + (i * 7) % 6 for i in range(200)])


def u_statistic(x, y, axis=-1):
    # U of x: pairs (x_i, y_j) with x_i > y_j, plus 1/2 per tie.
    x = np.expand_dims(x, -1)
    y = np.expand_dims(y, -2)
    return (np.sum(x > y, axis=(-2, -1)) + 0.5 * np.sum(x == y, axis=(-2, -1)))


result = stats.permutation_test((base, head), u_statistic, permutation_type="independent",
                                alternative="less", n_resamples=np.inf, vectorized=True, batch=20000)
print(f"{result.pvalue:.16g}")
