#!/usr/bin/env python3
"""Reference values for Pettitt's change-point test (stats/change_point.hpp), computed independently.

K = max_t |U_t|, U_t = sum_{i<=t} sum_{j>t} sgn(x_i - x_j) (Pettitt 1979), straight from the double sum;
the p-value is P(K >= observed) over all n! orderings of the positions (brute force, itertools), so ties
and the enumeration of distinct arrangements in the C++ code are checked against a different method.
Also prints Pettitt's asymptotic approximation 2 exp(-6 K^2 / (n^3 + n^2)) for comparison.

    python3 tests/tools/pettitt_reference.py > tests/data/reference/pettitt.json
"""
import itertools
import json
import math


def sgn(v):
    return (v > 0) - (v < 0)


def u_values(x):
    n = len(x)
    return [sum(sgn(x[i] - x[j]) for i in range(t) for j in range(t, n)) for t in range(1, n)]


def statistic(x):
    us = [abs(u) for u in u_values(x)]
    k = max(us)
    return k, us.index(k) + 1


def case(name, x):
    k, index = statistic(x)
    n = len(x)
    count = total = 0
    for order in itertools.permutations(range(n)):
        total += 1
        count += statistic([x[i] for i in order])[0] >= k
    return {"name": name, "series": x, "statistic": k, "index": index, "p_value": count / total,
            "asymptotic_p": min(1.0, 2 * math.exp(-6 * k * k / (n ** 3 + n ** 2)))}


CASES = [
    ("clean 3% step at the sixth of ten", [100.0, 100.8, 99.6, 100.3, 100.1, 103.1, 103.9, 102.8, 103.3, 103.0]),
    ("no change, eight values", [5.0, 3.0, 8.0, 1.0, 7.0, 2.0, 6.0, 4.0]),
    ("ties across the change", [1.0, 1.0, 2.0, 1.0, 2.0, 2.0, 2.0]),
    ("step down at the third of seven", [9.0, 9.5, 7.0, 7.2, 6.9, 7.1, 7.0]),
    ("three values", [1.0, 2.0, 3.0]),
]

if __name__ == "__main__":
    print(json.dumps({"source": "tests/tools/pettitt_reference.py (brute force over all orderings)",
                      "cases": [case(n, x) for n, x in CASES]}, indent=1))
