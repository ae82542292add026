"""Order statistics of repetitions, the same definitions as common/include/copa/stats.hpp:
the median of an even count is the mean of the two middle samples; MAD is the median absolute
deviation from the median (not scaled to a normal sigma)."""


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
