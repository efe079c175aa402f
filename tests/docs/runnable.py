#!/usr/bin/python3
"""The README and docs/cli.md cannot drift from the tool:

  - every code block preceded by `<!-- runnable -->` runs as written (bash,
    from the tree's root, `lockswap` being scripts/lockswap) and exits 0;
  - every block preceded by `<!-- transcript -->` is a session: each `$ `
    line runs and its stdout+stderr match the lines under it (`...` inside
    a line stands for any text; a line that is only `...` for any lines);
  - every flag given to a `lockswap` command in them (code blocks, inline
    code, the flag tables of docs/cli.md's command sections) exists in
    that command's argparse parser;
  - the README's `report --by-arm` line reads where scripts/fleet-demo.sh
    writes.

Prints `ok - ...` / `FAIL - ...` lines (tests/lib.sh's format); exit 1 on
any failure.  Usage: runnable.py ROOT
"""
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
DOCS = ["README.md", "docs/cli.md"]
BLOCK_TIMEOUT = 120
failures = 0


def report(good, text):
    global failures
    print(("ok - " if good else "FAIL - ") + text)
    failures += not good


def blocks(text):
    """(marker or None, first line number, lines) of each fenced block."""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].startswith("```"):
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            k = i - 1
            while k >= 0 and not lines[k].strip():
                k -= 1
            m = re.match(r"<!-- (runnable|transcript) -->", lines[k].strip()) if k >= 0 else None
            yield (m.group(1) if m else None), i + 2, lines[i + 1:j]
            i = j + 1
        else:
            i += 1


def shim_dir():
    """A folder with `lockswap` = scripts/lockswap, first in PATH."""
    d = tempfile.mkdtemp(prefix="lockswap-docs-")
    path = os.path.join(d, "lockswap")
    with open(path, "w") as f:
        f.write(f'#!/bin/sh\nexec /usr/bin/python3 "{ROOT}/scripts/lockswap" "$@"\n')
    os.chmod(path, 0o755)
    return d


def environment(shim):
    env = {k: v for k, v in os.environ.items() if not k.startswith("LOCKSWAP_")}
    env.pop("LD_PRELOAD", None)
    env["PATH"] = shim + os.pathsep + env.get("PATH", os.defpath)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def run_block(name, line, body, env):
    script = "set -eu\n" + "\n".join(body) + "\n"
    try:
        p = subprocess.run(["bash", "-c", script], cwd=ROOT, env=env, capture_output=True,
                           text=True, timeout=BLOCK_TIMEOUT, stdin=subprocess.DEVNULL)
        good, why = p.returncode == 0, f"exit {p.returncode}: {p.stderr.strip()[-400:]}"
    except subprocess.TimeoutExpired:
        good, why = False, f"still running after {BLOCK_TIMEOUT} s"
    report(good, f"{name}:{line}: runnable block runs" + ("" if good else f" ({why})"))


def matches(expected, got):
    """expected lines (with `...`) against got lines."""
    def line_rx(e):
        return re.compile("^" + ".*".join(re.escape(p) for p in e.split("...")) + "$")
    memo = {}

    def go(i, j):
        if (i, j) in memo:
            return memo[i, j]
        if i == len(expected):
            r = j == len(got)
        elif expected[i].strip() == "...":
            r = any(go(i + 1, k) for k in range(j, len(got) + 1))
        else:
            r = j < len(got) and bool(line_rx(expected[i].rstrip()).match(got[j].rstrip())) \
                and go(i + 1, j + 1)
        memo[i, j] = r
        return r
    return go(0, 0)


def run_transcript(name, line, body, env):
    sessions, cmd, expect = [], None, []
    for l in body:
        if l.startswith("$ "):
            if cmd is not None:
                sessions.append((cmd, expect))
            cmd, expect = l[2:], []
        elif cmd is not None:
            expect.append(l)
    if cmd is not None:
        sessions.append((cmd, expect))
    for cmd, expect in sessions:
        shown = re.sub(r"\s+#.*$", "", cmd)
        p = subprocess.run(["bash", "-c", shown + " 2>&1"], cwd=ROOT, env=env,
                           capture_output=True, text=True, timeout=BLOCK_TIMEOUT,
                           stdin=subprocess.DEVNULL)
        got = [g for g in p.stdout.rstrip("\n").split("\n")] if p.stdout.strip() else []
        good = matches(expect, got)
        report(good, f"{name}:{line}: `{shown}` prints what the doc shows"
               + ("" if good else f" (got: {' | '.join(got)[:500]})"))


# --- flags -------------------------------------------------------------

def parsers():
    sys.path.insert(0, os.path.join(ROOT, "scripts"))
    from lockswap_cli.main import build_parser, load_modules
    top = build_parser(load_modules())
    subs = next(a for a in top._actions if a.__class__.__name__ == "_SubParsersAction")
    return top, dict(subs.choices)


def known(parser):
    return set(parser._option_string_actions)


FLAG = re.compile(r"^-{1,2}[A-Za-z][\w-]*$")


def invocations(text):
    """(line number, [words]) of each `lockswap ...` call in code: fenced
    lines (with backslash continuations joined) and inline code spans."""
    out = []
    lines = text.splitlines()
    fenced, joined, start, session = False, "", 0, False
    for n, l in enumerate(lines, 1):
        if l.startswith("```"):
            fenced = not fenced
            # A block with `$ ` prompts is a session: the rest is output.
            end = next((k for k in range(n, len(lines)) if lines[k].startswith("```")),
                       len(lines))
            session = fenced and any(x.startswith("$ ") for x in lines[n:end])
            continue
        if fenced and session and not l.startswith("$ ") and not joined:
            continue
        pieces = []
        if fenced:
            if not joined:
                start = n
            joined += " " + l.rstrip()
            if joined.endswith("\\"):
                joined = joined[:-1]
                continue
            pieces, joined = [joined], ""
        else:
            pieces = re.findall(r"`([^`]+)`", l)
            start = n
        for piece in pieces:
            for m in re.finditer(r"(?:^|[\s/$])lockswap((?:\s+\S+)+)", piece):
                out.append((start, m.group(1).split()))
    return out


def command_flags(words, subs):
    """(subcommand or None, [flags]) of a lockswap call's words, up to `--`."""
    sub, flags = None, []
    for w in words:
        if w in ("--", "#") or w.startswith("#"):
            break
        for part in re.split(r"[\[\]|()]", w):
            part = part.split("=")[0].rstrip(".,:;")
            if sub is None and part in subs:
                sub = part
            elif FLAG.match(part):
                flags.append(part)
    return sub, flags


def check_flags(name, text, top, subs):
    seen = 0
    for line, words in invocations(text):
        sub, flags = command_flags(words, subs)
        parser = subs[sub] if sub else top
        for f in flags:
            seen += 1
            ok = f in known(parser) or (sub is not None and f in known(top))
            if not ok:
                report(False, f"{name}:{line}: `lockswap {sub or ''}` has no flag {f}")
    # The flag tables of docs/cli.md's "## lockswap NAME" sections.
    section = None
    for n, l in enumerate(text.splitlines(), 1):
        m = re.match(r"^##+ lockswap (\w+)", l)
        if m:
            section = m.group(1) if m.group(1) in subs else None
        elif l.startswith("## "):
            section = None
        if section and l.startswith("| `-"):
            cell = l.split("|")[1]
            for code in re.findall(r"`([^`]+)`", cell):
                flag = code.split()[0].split("=")[0]
                if FLAG.match(flag):
                    seen += 1
                    if flag not in known(subs[section]):
                        report(False, f"{name}:{n}: `lockswap {section}` has no flag {flag}")
    return seen


def fleet_path(readme):
    demo = open(os.path.join(ROOT, "scripts/fleet-demo.sh")).read()
    out = re.search(r"OUT=\$\{FLEET_OUT:-([^}]+)\}", demo).group(1)
    lines = [l for l in readme.splitlines() if "report --by-arm" in l]
    report(bool(lines), "README shows a `report --by-arm` line")
    for l in lines:
        files = l.split("--by-arm", 1)[1].split()[0]
        report(files == f"{out}/stats/*.json",
               f"README's report --by-arm reads {files}, where fleet-demo.sh writes "
               f"({out}/stats/*.json)")


def main():
    shim = shim_dir()
    env = environment(shim)
    top, subs = parsers()
    for name in DOCS:
        text = open(os.path.join(ROOT, name)).read()
        kinds = {"runnable": 0, "transcript": 0}
        for marker, line, body in blocks(text):
            if marker == "runnable":
                kinds[marker] += 1
                run_block(name, line, body, env)
            elif marker == "transcript":
                kinds[marker] += 1
                run_transcript(name, line, body, env)
        report(sum(kinds.values()) > 0, f"{name}: {kinds['runnable']} runnable and "
               f"{kinds['transcript']} transcript blocks")
        n = check_flags(name, text, top, subs)
        report(n > 0, f"{name}: the {n} lockswap flags it names exist in the CLI's parsers "
               "(any missing one is listed above)")
    fleet_path(open(os.path.join(ROOT, "README.md")).read())
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
