"""Answer one question about a lockswap library from a process of its own
(library.py _InChild): `PATH VERB [ARGS...]`, the answer as JSON on
stdout.  VERB is describe, check VAR VALUE, backend_name NAME, has_arms, or
arm_choose ARMS KEY; the same calls library.py makes in its own process."""
import ctypes
import json
import sys

from .library import _Loaded


def main(argv):
    path, verb, args = argv[0], argv[1], argv[2:]
    try:
        calls = _Loaded(ctypes.CDLL(path))
    except (OSError, AttributeError) as e:
        sys.exit(f"{e}")
    answer = getattr(calls, {"describe": "describe_text"}.get(verb, verb))(*args)
    json.dump(answer, sys.stdout)
