#!/usr/bin/env python3
"""Checks the relative links of every Markdown file of the repository (standard library only).

Usage: check_links.py [REPO_ROOT]   (default: the current directory)

Scans the Markdown files git knows (tracked, plus untracked files that are not ignored; never
node_modules) for inline links and images `[text](path#anchor)` and reference definitions
`[label]: path#anchor`. A link fails when its path does not resolve to a file or directory
inside the repository, or when its `#anchor` names no heading of the target Markdown file
(GitHub's slugs: inline markup dropped, lowercase, punctuation other than `-` and `_` dropped,
spaces to hyphens, repeated headings get -1, -2, ...). Links with a scheme (http:, https:,
mailto:, ...), links inside fenced code blocks and inside code spans are skipped. Prints
FILE:LINE: message for each bad link and exits 1 if there is any, else exits 0.
"""

import os
import re
import subprocess
import sys
import unicodedata
import urllib.parse

FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
HEADING_RE = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$")
HTML_ANCHOR_RE = re.compile(r"<a\s+[^>]*?(?:name|id)\s*=\s*[\"']([^\"']+)[\"']", re.IGNORECASE)
# [text](target) or ![alt](target); text may hold one level of nested brackets.
INLINE_LINK_RE = re.compile(r"!?\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(\s*(<[^>]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)")
REF_DEF_RE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
CODE_SPAN_RE = re.compile(r"(`+)(.+?)\1")
SCHEME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def git_files(root):
    out = subprocess.run(
        ["git", "-C", root, "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        check=True, stdout=subprocess.PIPE).stdout.decode("utf-8")
    files = set()
    for path in out.split("\0"):
        if path and "node_modules" not in path.split("/") and os.path.exists(os.path.join(root, path)):
            files.add(path)
    return files


def strip_code_spans(line):
    """The line with code spans blanked (same length), so links inside them are not seen."""
    return CODE_SPAN_RE.sub(lambda m: " " * len(m.group(0)), line)


def heading_text(raw):
    """A heading's rendered text: closing #s, links, images, code ticks, emphasis, HTML removed."""
    text = re.sub(r"[ \t]+#+[ \t]*$", "", raw)
    if re.fullmatch(r"#+", text):
        text = ""
    text = re.sub(r"!?\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\([^)]*\)", r"\1", text)  # links -> text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML tags
    text = text.replace("`", "")
    text = re.sub(r"(\*+|_+)(\S(?:.*?\S)?)\1", r"\2", text)  # emphasis
    text = text.replace("\\", "")
    return text.strip()


def slugify(text):
    """GitHub's anchor for a heading text (before the duplicate suffix)."""
    out = []
    for ch in text.lower():
        cat = unicodedata.category(ch)
        if ch in "-_ " or cat[0] in ("L", "N") or cat.startswith("M"):
            out.append("-" if ch == " " else ch)
    return "".join(out)


def iter_lines_outside_fences(text):
    """(line number, line) for each line that is not inside a fenced code block."""
    fence = None
    for lineno, line in enumerate(text.split("\n"), start=1):
        m = FENCE_RE.match(line)
        if fence is None:
            if m:
                fence = m.group(1)
                continue
            yield lineno, line
        elif m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) \
                and line.strip() == m.group(1):
            fence = None


_anchor_cache = {}


def anchors_of(path):
    """The set of anchors a Markdown file defines (heading slugs with duplicate suffixes)."""
    if path in _anchor_cache:
        return _anchor_cache[path]
    with open(path, encoding="utf-8") as f:
        text = f.read()
    anchors, counts = set(), {}
    for _, line in iter_lines_outside_fences(text):
        for name in HTML_ANCHOR_RE.findall(line):
            anchors.add(name)
        m = HEADING_RE.match(line)
        if not m:
            continue
        slug = slugify(heading_text(m.group(2) or ""))
        n = counts.get(slug, 0)
        counts[slug] = n + 1
        anchors.add(slug if n == 0 else "%s-%d" % (slug, n))
    _anchor_cache[path] = anchors
    return anchors


def check_target(root, files, dirs, md_path, target):
    """An error message for a link target in md_path (relative to root), or None if it is good."""
    if target.startswith("<") and target.endswith(">"):
        target = target[1:-1]
    if not target or SCHEME_RE.match(target) or target.startswith("//"):
        return None
    path_part, _, anchor = target.partition("#")
    path_part = urllib.parse.unquote(path_part.split("?", 1)[0])
    anchor = urllib.parse.unquote(anchor)
    if path_part == "":
        resolved = md_path
    else:
        base = "" if path_part.startswith("/") else os.path.dirname(md_path)
        resolved = os.path.normpath(os.path.join(base, path_part.lstrip("/")))
        if resolved == ".":
            resolved = ""
        if resolved == ".." or resolved.startswith("../") or os.path.isabs(resolved):
            return "path leaves the repository"
        if resolved not in files and resolved not in dirs:
            if os.path.exists(os.path.join(root, resolved)):
                return "path is not part of the repository (ignored or untracked)"
            return "no such file or directory"
    if anchor and resolved in files and resolved.lower().endswith(".md"):
        if anchor not in anchors_of(os.path.join(root, resolved)):
            return "no heading for #%s in %s" % (anchor, resolved or ".")
    return None


def main(argv):
    root = os.path.abspath(argv[1] if len(argv) > 1 else ".")
    files = git_files(root)
    dirs = {""}
    for path in files:
        parent = os.path.dirname(path)
        while parent and parent not in dirs:
            dirs.add(parent)
            parent = os.path.dirname(parent)
    md_files = sorted(p for p in files if p.lower().endswith(".md"))
    errors, checked = [], 0
    for md in md_files:
        with open(os.path.join(root, md), encoding="utf-8") as f:
            text = f.read()
        for lineno, line in iter_lines_outside_fences(text):
            visible = strip_code_spans(line)
            targets = [m.group(2) for m in INLINE_LINK_RE.finditer(visible)]
            m = REF_DEF_RE.match(visible)
            if m:
                targets.append(m.group(1))
            for target in targets:
                checked += 1
                problem = check_target(root, files, dirs, md, target)
                if problem:
                    errors.append("%s:%d: bad link (%s): %s" % (md, lineno, target, problem))
    for e in errors:
        print(e)
    print("check_links: %d Markdown files, %d links checked, %d bad"
          % (len(md_files), checked, len(errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
