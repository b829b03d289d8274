#!/usr/bin/env python3
"""api_examples.py: run every curl example of docs/api.md against a running
westd and compare the answers with the documented ones (TAP output).

Usage: api_examples.py DOC ADDRESS SRCDIR

An example is a ```sh block followed by a ```json or ```text block.  The
command runs with 127.0.0.1:8080 replaced by ADDRESS, in SRCDIR.  JSON
answers must have the documented members, recursively (for arrays, those
of the first element), and a problem must have the documented status;
values are not compared (they depend on the time).  Text answers must equal
the documented text.
"""
import json
import re
import subprocess
import sys


def shape_diff(doc, got, path="$"):
    """The first difference in members between doc and got, or None."""
    if isinstance(doc, dict):
        if not isinstance(got, dict):
            return f"{path}: expected an object, got {type(got).__name__}"
        if set(doc) != set(got):
            return (f"{path}: members differ: missing {sorted(set(doc) - set(got))}, "
                    f"extra {sorted(set(got) - set(doc))}")
        for k in doc:
            d = shape_diff(doc[k], got[k], f"{path}.{k}")
            if d:
                return d
    elif isinstance(doc, list):
        if not isinstance(got, list):
            return f"{path}: expected an array, got {type(got).__name__}"
        if doc and got:
            return shape_diff(doc[0], got[0], f"{path}[0]")
    return None


def check(kind, documented, out):
    if kind == "text":
        if out.strip() != documented.strip():
            return f"expected {documented.strip()!r}, got {out.strip()[:300]!r}"
        return None
    try:
        got = json.loads(out)
    except ValueError:
        return f"not JSON: {out[:300]!r}"
    doc = json.loads(documented)
    if "status" in doc and "type" in doc and doc.get("status") != got.get("status"):
        return f"status {got.get('status')}, documented {doc['status']}: {out[:300]}"
    return shape_diff(doc, got)


def main():
    doc_path, addr, srcdir = sys.argv[1:4]
    text = open(doc_path, encoding="utf-8").read()
    examples = re.findall(r"```sh\n(.*?)```\n```(json|text)\n(.*?)```", text, re.S)
    print(f"1..{len(examples)}")
    failed = 0
    for n, (cmd, kind, documented) in enumerate(examples, 1):
        cmd = cmd.strip().replace("127.0.0.1:8080", addr)
        try:
            out = subprocess.run(cmd, shell=True, cwd=srcdir, capture_output=True,
                                 text=True, timeout=60).stdout
            why = check(kind, documented, out)
        except subprocess.TimeoutExpired:
            why = "timed out"
        name = cmd.splitlines()[0][:100]
        if why:
            failed += 1
            print(f"not ok {n} - {name}\n# {why}")
        else:
            print(f"ok {n} - {name}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
