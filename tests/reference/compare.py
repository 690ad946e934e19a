"""What the references share: comparing campaign's values with theirs, to 1e-9 relative."""

import math


class Comparison:
    def __init__(self, what):
        self.what, self.n, self.bad = what, 0, []

    def same(self, name, got, want, tolerance=1e-9):
        """One value: campaign's `got` (None when it has none) against the reference's `want`. NaN
        matches only NaN (a comparison with NaN is false, so `abs(got - want) > ...` would pass it)."""
        self.n += 1
        if got is None:
            same = False
        elif math.isnan(got) or math.isnan(want):
            same = math.isnan(got) and math.isnan(want)
        else:
            same = got == want or abs(got - want) <= tolerance * abs(want) + 1e-300
        if not same:
            self.bad.append("%s: campaign %r, reference %r" % (name, got, want))

    def differ(self, message):
        self.n += 1
        self.bad.append(message)

    def result(self):
        """Prints the differences (at most 20) and a summary line; the exit status."""
        for b in self.bad[:20]:
            print(b)
        print("%s: %d values compared, %d differ" % (self.what, self.n, len(self.bad)))
        return 1 if self.bad else 0
