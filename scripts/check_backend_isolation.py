#!/usr/bin/env python3
"""Checks that no backend reaches into another (standard library only).

Usage: check_backend_isolation.py [REPO_ROOT]   (default: the current directory)

Every backend lives in its own directory under backends/ (scalar, simd, wasm, ...); what they
share sits at the top of backends/ (kernel_abi.h, params/, the loop templates). A file of
backend X fails when it includes a file of backend Y ("y/...", "../y/..."), names Y's kernel
namespace (`y::`) or its table (kYBackend): fallback between backends belongs to the op layer's
kernel chains, never to a kernel. Prints FILE:LINE: message per violation; exits 1 if any.
"""

import os
import re
import sys

SOURCE_SUFFIXES = (".cc", ".h", ".inc")
SHARED_DIRS = {"params"}  # not backends: shared headers


def backend_dirs(backends_root):
    return sorted(
        d
        for d in os.listdir(backends_root)
        if os.path.isdir(os.path.join(backends_root, d)) and d not in SHARED_DIRS
    )


def strip_comment(line):
    i = line.find("//")
    return line if i < 0 else line[:i]


def violations(root):
    backends_root = os.path.join(root, "backends")
    names = backend_dirs(backends_root)
    found = []
    for own in names:
        others = [n for n in names if n != own]
        include_re = re.compile(
            r'#\s*include\s*"(?:\.\./)?(%s)/' % "|".join(map(re.escape, others))
        )
        namespace_re = re.compile(r"\b(%s)::" % "|".join(map(re.escape, others)))
        table_re = re.compile(
            r"\bk(%s)Backend\b" % "|".join(n.capitalize() for n in others)
        )
        own_dir = os.path.join(backends_root, own)
        for dirpath, _, files in os.walk(own_dir):
            for name in sorted(files):
                if not name.endswith(SOURCE_SUFFIXES):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                with open(path, encoding="utf-8") as f:
                    for number, line in enumerate(f, 1):
                        code = strip_comment(line)
                        for regex, what in (
                            (include_re, "includes backend"),
                            (namespace_re, "calls into backend"),
                            (table_re, "reaches the table of backend"),
                        ):
                            m = regex.search(code)
                            if m:
                                found.append(f"{rel}:{number}: {what} '{m.group(1).lower()}'")
    return names, found


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    names, found = violations(root)
    for v in found:
        print(v)
    if len(names) < 2:
        print(f"check_backend_isolation: expected backends under {root}/backends, found {names}")
        return 1
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
