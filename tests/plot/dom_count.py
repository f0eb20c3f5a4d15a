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

from html_tree import Tree


def match(el, sel):
    tag, _, cls = sel.partition(".")
    return (not tag or el[0] == tag) and all(c in el[1] for c in cls.split(".") if c)


def count(tree, query):
    *scopes, query = query.split("/")
    n = 0
    for *el, anc in tree.elements:
        if not match(el, query):
            continue
        if not all(any(a[2].get("id") == s or match(a, s) for a in anc) for s in scopes):
            continue
        n += 1
    return n


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    tree = Tree()
    tree.feed(open(sys.argv[1], encoding="utf-8", errors="replace").read())
    for q in sys.argv[2:]:
        print(count(tree, q))
    return 0


if __name__ == "__main__":
    sys.exit(main())
