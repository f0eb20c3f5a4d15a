# SPDX-License-Identifier: BSD-3-Clause
"""html_tree.py -- the element tree of an HTML page, shared by the page tests'
readers (dom_count.py: a browser's dumped DOM; page_facts.py: ftio's own page).

Tree.elements lists every start tag as (tag, classes, attrs, ancestors), the
ancestors being the elements open around it, each (tag, classes, attrs); an
end tag closes its element and whatever was left open inside it.  Tags in
VOID never hold anything (a subclass widens it for SVG shapes written
without their end tag).
"""
from html.parser import HTMLParser


class Tree(HTMLParser):
    VOID = {"meta", "br", "img", "input", "link", "hr"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []          # open elements: (tag, classes, attrs)
        self.elements = []       # (tag, classes, attrs, ancestors)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        el = (tag, set((a.get("class") or "").split()), a)
        self.elements.append((*el, list(self.stack)))
        if tag not in self.VOID:
            self.stack.append(el)

    def handle_startendtag(self, tag, attrs):
        a = dict(attrs)
        self.elements.append((tag, set((a.get("class") or "").split()), a, list(self.stack)))

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                break
