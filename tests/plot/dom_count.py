#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""dom_count.py -- count elements in the DOM a browser dumped (chromium --dump-dom).

    dom_count.py DOM.html QUERY...
QUERY is TAG.CLASS (every class listed must be on the element), optionally
prefixed by scopes SCOPE/.../ that must each be an ancestor: an element id
(run-1) or TAG.CLASS (svg.history-period/circle.history-point);
prints one count per query, one per line (tests/plot/browser.sh).
"""
import sys
from html.parser import HTMLParser

VOID = {"meta", "br", "img", "input", "link", "hr"}


class Counter(HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack = []       # (tag, classes, id)
        self.elements = []    # (tag, classes, ancestors)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        el = (tag, set((a.get("class") or "").split()), a.get("id"))
        self.elements.append((el, list(self.stack)))
        if tag not in VOID:
            self.stack.append(el)

    def handle_startendtag(self, tag, attrs):
        a = dict(attrs)
        el = (tag, set((a.get("class") or "").split()), a.get("id"))
        self.elements.append((el, list(self.stack)))

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                break


def match(el, sel):
    tag, _, cls = sel.partition(".")
    return (not tag or el[0] == tag) and all(c in el[1] for c in cls.split(".") if c)


def count(c, query):
    *scopes, query = query.split("/")
    n = 0
    for el, anc in c.elements:
        if not match(el, query):
            continue
        if not all(any(a[2] == s or match(a, s) for a in anc) for s in scopes):
            continue
        n += 1
    return n


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    c = Counter()
    c.feed(open(sys.argv[1], encoding="utf-8", errors="replace").read())
    for q in sys.argv[2:]:
        print(count(c, q))
    return 0


if __name__ == "__main__":
    sys.exit(main())
