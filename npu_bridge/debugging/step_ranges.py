"""The original adapter's step syntax: "0|5|10-20" means steps 0, 5 and 10 to 20.

Steps count training steps from 0: step k is the step that runs while the
global step reads k. ``None`` means every step.
"""

import re

_ITEM = re.compile(r"^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$")


class StepRanges(object):
    """A set of steps given as "a|b|c-d" (None: all steps)."""

    def __init__(self, text=None, what="dump_step"):
        self.text = text
        self._ranges = None if text is None else _parse(text, what)

    @property
    def every_step(self):
        return self._ranges is None

    @property
    def ranges(self):
        """[(first, last), ...] sorted, inclusive; None for every step."""
        return None if self._ranges is None else list(self._ranges)

    def __contains__(self, step):
        if self._ranges is None:
            return True
        return any(first <= step <= last for first, last in self._ranges)

    def next_at_or_after(self, step):
        """The first named step >= ``step``, or None when there is none."""
        if self._ranges is None:
            return step
        later = [max(first, step) for first, last in self._ranges if last >= step]
        return min(later) if later else None

    def run_size(self, size, step):
        """Cut a run of ``size`` steps starting at ``step`` so named steps run alone."""
        if step in self:
            return 1
        following = self.next_at_or_after(step)
        if following is None:
            return size
        return max(1, min(size, following - step))

    def __repr__(self):
        return "StepRanges(%r)" % (self.text,)

    def __str__(self):
        return "every step" if self._ranges is None else self.text


def _parse(text, what):
    if not isinstance(text, str):
        raise TypeError("%s must be a string such as '0|5|10-20' (or None for every step); "
                        "got %s %r." % (what, type(text).__name__, text))
    ranges = []
    for item in text.split("|"):
        match = _ITEM.match(item)
        if not match:
            raise ValueError("%s must look like '0|5|10-20' (steps or first-last ranges "
                             "joined by '|'); got %r, bad part %r." % (what, text, item))
        first = int(match.group(1))
        last = int(match.group(2)) if match.group(2) is not None else first
        if last < first:
            raise ValueError("%s: range %r ends before it starts (in %r)." % (what, item, text))
        ranges.append((first, last))
    return sorted(ranges)
