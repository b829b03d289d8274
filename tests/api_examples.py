#!/usr/bin/env python3
"""api_examples.py: run every curl example of docs/api.md against a running
westd and compare the answers with the documented ones (TAP output).

Usage: api_examples.py DOC ADDRESS SRCDIR [--update]

--update rewrites each documented answer that differs with the server's
(for a maintainer after a change of the server's answers: review the
diff, and put "..." back where a value depends on the run).

An example is a ```sh block followed by a ```json or ```text block.  The
command runs with 127.0.0.1:8080 replaced by ADDRESS, in SRCDIR.  Answers
are compared in full, so that the documentation cannot drift from the
server:

- JSON: the same members and array lengths, recursively, and the same
  values: strings equal, numbers within 1e-3 relative (the field's values
  differ in the last digits with the number of threads), except
  - the members named in VOLATILE, whose values depend on when and how
    fast the example runs (their presence is still checked);
  - a documented string with "..." in it, which stands for any text
    there (a long WKT written "PROJCS[...]").
- Text: equal, line by line, with the same "..." rule.

An example that posts a set and is answered with the field version it will
make (`field_version`) is followed by a wait until that version is
published and its snapshot written, so that the examples after it see both
however fast the solve is (without the wait, whether they saw the field
before or after it was a race).
"""
import json
import re
import subprocess
import sys
import time
import urllib.request

# Members whose values depend on the run, not on the documented inputs.
VOLATILE = {
    # clocks
    "published", "published_at", "published_seconds_ago", "age_seconds",
    "received_at", "uptime_seconds", "modified",
    # how fast, on how many threads, in which temporary directory
    "seconds", "last_seconds", "device", "dir", "bytes", "exchange_share",
    # the solver's residuals after it stopped (the last digits of sums)
    "end", "final",
    # the worker's counters while the examples post sets
    "queue",
    # a release's clock times and how long its run took
    "created", "started", "finished", "run_seconds",
}


def same_text(doc, got):
    """1 when got matches doc, "..." in doc matching any text."""
    if "..." not in doc:
        return doc == got
    pattern = ".*".join(re.escape(part) for part in doc.split("..."))
    return re.fullmatch(pattern, got, re.S) is not None


def value_diff(doc, got, path="$"):
    """The first difference between doc and got, or None."""
    if isinstance(doc, dict):
        if not isinstance(got, dict):
            return f"{path}: expected an object, got {type(got).__name__}"
        if set(doc) != set(got):
            return (f"{path}: members differ: missing {sorted(set(doc) - set(got))}, "
                    f"extra {sorted(set(got) - set(doc))}")
        for k in doc:
            if k in VOLATILE:
                continue
            d = value_diff(doc[k], got[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(doc, list):
        if not isinstance(got, list):
            return f"{path}: expected an array, got {type(got).__name__}"
        if len(doc) != len(got):
            return f"{path}: {len(got)} elements, documented {len(doc)}"
        for i, (a, b) in enumerate(zip(doc, got)):
            d = value_diff(a, b, f"{path}[{i}]")
            if d:
                return d
        return None
    if isinstance(doc, bool) or doc is None or isinstance(doc, str):
        ok = same_text(doc, got) if isinstance(doc, str) and isinstance(got, str) \
            else doc == got
        return None if ok else f"{path}: {got!r}, documented {doc!r}"
    if isinstance(doc, (int, float)):
        if isinstance(got, bool) or not isinstance(got, (int, float)):
            return f"{path}: {got!r}, documented the number {doc!r}"
        if abs(got - doc) <= 1e-3 * max(abs(got), abs(doc)) + 1e-9:
            return None
        return f"{path}: {got!r}, documented {doc!r}"
    return f"{path}: cannot compare {doc!r}"


def check(kind, documented, out):
    if kind == "text":
        doc_lines = documented.strip().splitlines()
        got_lines = out.strip().splitlines()
        if len(doc_lines) != len(got_lines) or not all(
                same_text(d, g) for d, g in zip(doc_lines, got_lines)):
            return f"expected {documented.strip()!r}, got {out.strip()[:300]!r}"
        return None
    try:
        got = json.loads(out)
    except ValueError:
        return f"not JSON: {out[:300]!r}"
    return value_diff(json.loads(documented), got)


def get_json(addr, path):
    try:
        with urllib.request.urlopen(f"http://{addr}{path}", timeout=10) as r:
            return json.load(r)
    except (OSError, ValueError):
        return {}


def wait_for_version(addr, version, timeout=120.0):
    """Poll until GET /v1/field's version is at least `version` and, with
    snapshots enabled, GET /v1/snapshots lists it."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        snaps = get_json(addr, "/v1/snapshots")
        if get_json(addr, "/v1/field").get("version", 0) >= version and (
                not snaps.get("enabled") or
                any(s.get("version", 0) >= version for s in snaps.get("snapshots", []))):
            return True
        time.sleep(0.05)
    return False


def promised_version(out):
    """The field_version a POST's answer promises, or None."""
    try:
        answer = json.loads(out)
    except ValueError:
        return None
    v = answer.get("field_version") if isinstance(answer, dict) else None
    return v if isinstance(v, int) else None


def main():
    update = "--update" in sys.argv
    doc_path, addr, srcdir = [a for a in sys.argv[1:] if a != "--update"][:3]
    text = open(doc_path, encoding="utf-8").read()
    examples = list(re.finditer(r"```sh\n(.*?)```\n```(json|text)\n(.*?)```", text, re.S))
    print(f"1..{len(examples)}")
    failed = 0
    edits = []
    for n, m in enumerate(examples, 1):
        cmd, kind, documented = m.groups()
        cmd = cmd.strip().replace("127.0.0.1:8080", addr)
        documented = documented.replace("127.0.0.1:8080", addr)
        out = ""
        try:
            out = subprocess.run(cmd, shell=True, cwd=srcdir, capture_output=True,
                                 text=True, timeout=60).stdout
            why = check(kind, documented, out)
            version = promised_version(out)
            if version is not None and not wait_for_version(addr, version):
                why = why or f"field version {version} not published within 120 s"
        except subprocess.TimeoutExpired:
            why = "timed out"
        name = cmd.splitlines()[0][:100]
        if why:
            failed += 1
            print(f"not ok {n} - {name}\n# {why}\n# got: {out.strip()}")
            if update and out.strip():
                edits.append((m.start(3), m.end(3),
                              out.strip().replace(addr, "127.0.0.1:8080") + "\n"))
        else:
            print(f"ok {n} - {name}")
    if edits:
        for start, end, new in reversed(edits):
            text = text[:start] + new + text[end:]
        open(doc_path, "w", encoding="utf-8").write(text)
        print(f"# --update: rewrote {len(edits)} answers in {doc_path}; review the diff")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
