"""Order statistics of repetitions, the same definitions as common/include/copa/stats.hpp:
the median of an even count is the mean of the two middle samples; MAD is the median absolute
deviation from the median (not scaled to a normal sigma)."""
import math


def median(values):
    v = sorted(values)
    n = len(v)
    if n == 0:
        raise ValueError("median of no values")
    mid = n // 2
    return v[mid] if n % 2 else 0.5 * (v[mid - 1] + v[mid])


def mad(values):
    m = median(values)
    return median([abs(x - m) for x in values])


def mann_whitney_p(x, y):
    """Two-sided p-value of the Mann-Whitney U test (Mann & Whitney 1947): the probability, when x
    and y come from one distribution, of a rank-sum statistic at least as far from its mean n1 n2 / 2
    as the one observed. Exact (the permutation distribution of U, by counting rank subsets) when
    n1 n2 <= 400 and there are no ties; otherwise the normal approximation with the tie correction
    of the variance, sigma^2 = n1 n2 / 12 ((n + 1) - sum(t^3 - t) / (n (n - 1))), and a continuity
    correction of 1/2."""
    n1, n2 = len(x), len(y)
    if n1 == 0 or n2 == 0:
        raise ValueError("Mann-Whitney test of an empty sample")
    pooled = sorted([(v, 0) for v in x] + [(v, 1) for v in y])
    ranks, ties, i = [0.0] * len(pooled), [], 0
    while i < len(pooled):
        j = i
        while j + 1 < len(pooled) and pooled[j + 1][0] == pooled[i][0]:
            j += 1
        for k in range(i, j + 1):
            ranks[k] = 0.5 * (i + j) + 1
        ties.append(j - i + 1)
        i = j + 1
    r1 = sum(r for r, (_, side) in zip(ranks, pooled) if side == 0)
    u = r1 - n1 * (n1 + 1) / 2
    mean = n1 * n2 / 2
    if n1 * n2 <= 400 and all(t == 1 for t in ties):
        counts = _u_distribution(n1, n2)
        total = sum(counts)
        distance = abs(u - mean)
        extreme = sum(c for value, c in enumerate(counts) if abs(value - mean) >= distance - 1e-9)
        return min(1.0, extreme / total)
    n = n1 + n2
    var = n1 * n2 / 12 * ((n + 1) - sum(t ** 3 - t for t in ties) / (n * (n - 1)))
    if var <= 0:
        return 1.0
    z = max(0.0, abs(u - mean) - 0.5) / math.sqrt(var)
    return math.erfc(z / math.sqrt(2))


def _u_distribution(n1, n2):
    """counts[u] = number of the C(n1 + n2, n1) rank assignments whose U statistic is u, by the
    recurrence f(n1, n2, u) = f(n1 - 1, n2, u - n2) + f(n1, n2 - 1, u) (the largest value belongs to
    the first or the second sample)."""
    table = {}

    def f(a, b):
        if (a, b) not in table:
            if a == 0 or b == 0:
                table[(a, b)] = [1]
            else:
                left, right = f(a - 1, b), f(a, b - 1)
                out = [0] * (a * b + 1)
                for u, c in enumerate(left):
                    out[u + b] += c
                for u, c in enumerate(right):
                    out[u] += c
                table[(a, b)] = out
        return table[(a, b)]

    return f(n1, n2)
