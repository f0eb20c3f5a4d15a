#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""page_facts.py -- the facts of an ftio page, read from its HTML and SVG.

    page_facts.py PAGE.html EXPR
Exits 0 when the Python expression EXPR holds over `p`, a Page (below),
else prints what it saw and exits 1 (tests/plot/live_pages.sh).
"""
import re
import sys

from html_tree import Tree

UNITS = {"B": 1, "KiB": 1024, "MiB": 1024 ** 2, "GiB": 1024 ** 3, "TiB": 1024 ** 4}


class Page(Tree):
    VOID = Tree.VOID | {"circle", "rect", "line", "path"}

    def __init__(self, text):
        super().__init__()
        self.texts = []          # (text, ancestors incl. own element)
        self.scripts = "<script" in text.lower()
        self.feed(text)
        self.sections = [a.get("data-mode") for t, c, a, _ in self.elements
                         if t == "section" and "run" in c]
        self.meta = self._facts(lambda anc: any("meta" in c and "facts" in c for _, c, _ in anc))
        self.header = self._facts(lambda anc: not any("meta" in c for _, c, _ in anc), first=True)
        self.notes = [t for t, anc in self.texts if anc and anc[-1][0] == "p" and "note" in anc[-1][1]]
        self.activity_legend = [t[len("activity "):] if t.startswith("activity ") else t
                                for t, anc in self.texts
                                if any("activities" in c for _, c, _ in anc) and anc[-1][0] == "span"]

    def handle_data(self, data):
        if data.strip():
            # <title> of an SVG element: keep it apart from the page's text
            self.texts.append((data.strip(), list(self.stack)))

    def _facts(self, where, first=False):
        """{key: value} of the .fact boxes (of the first section only when first)."""
        out, section = {}, 0
        for t, anc in self.texts:
            sec = sum(1 for tag, c, _ in anc if tag == "section")
            if first and any(tag == "section" and a.get("id") not in (None, "run-1")
                             for tag, c, a in anc):
                continue
            if not anc or not any("fact" in c for _, c, _ in anc) or not where(anc):
                continue
            if "k" in anc[-1][1]:
                key = t
            elif "v" in anc[-1][1]:
                out.setdefault(key, t)
        return out

    def count(self, tag_or_cls, cls=None):
        if cls is None:
            return sum(1 for _, c, _, _ in self.elements if tag_or_cls in c)
        return sum(1 for t, c, _, _ in self.elements if t == tag_or_cls and cls in c)

    def _points(self, svgcls):
        return [a for t, c, a, anc in self.elements
                if t == "circle" and "history-point" in c
                and any(tag == "svg" and svgcls in cc for tag, cc, _ in anc)]

    def history_points(self, svgcls):
        return len(self._points(svgcls))

    def distinct_x(self, svgcls):
        return len({a.get("cx") for a in self._points(svgcls)})

    def disagree_period(self):
        for t, anc in self.texts:
            m = re.match(r"tallest: T = (.*) \(not the answer\)", t)
            if m:
                return m.group(1)
        return None

    def signal_volume(self):
        """Bytes drawn by the first bandwidth chart (its hint says them)."""
        for t, anc in self.texts:
            m = re.search(r"([0-9.]+) (B|KiB|MiB|GiB|TiB) drawn", t)
            if m and anc and "signal-volume" in anc[-1][1]:
                return float(m.group(1)) * UNITS[m.group(2)]
        return float("nan")


def main():
    path, expr = sys.argv[1], sys.argv[2]
    p = Page(open(path, encoding="utf-8").read())
    try:
        ok = eval(expr, {"p": p})
    except Exception as e:            # a missing fact is a failed check, said
        ok = False
        print("error: %r" % e)
    if not ok:
        print("sections %s\nheader %s\nmeta %s\nnotes %s\nactivities %s\ndisagree %s\nvolume %s"
              % (p.sections, p.header, p.meta, p.notes, p.activity_legend, p.disagree_period(),
                 p.signal_volume()))
    sys.exit(0 if ok else 1)


main()
