"""Which file to read a frame's lines from, by the GNU build ID the
statistics file recorded for its object ("objects", written by the library
from the notes in memory):

- separate debug information found by that ID: `--debug-dir DIR`'s
  DIR/.build-id/xx/rest.debug, then /usr/lib/debug's (where Debian's
  -dbgsym packages put it), then debuginfod's cache
  (DEBUGINFOD_CACHE_PATH, else ~/.cache/debuginfod_client/ID/debuginfo).
  It gives a stripped library its lines, and the object itself need not be
  on this machine;
- else the object on disk, if it has the same ID.  An object with another
  ID (rebuilt or upgraded since the run) or none is not looked up: its
  frames keep object+offset, with one note on stderr, rather than lines of
  other code.

A file written before the library listed the objects has no IDs: its
objects are looked up as they are on disk (a rebuilt program then gives
wrong lines; the report cannot tell).
"""
import os
import sys

from . import elf

SYSTEM_DEBUG_DIR = "/usr/lib/debug"
_debug_dirs = []  # --debug-dir, searched before the system's
_warned = set()   # objects already reported as not the file that ran


def set_debug_dirs(dirs):
    """The folders of --debug-dir (each holding .build-id/xx/rest.debug)."""
    _debug_dirs[:] = list(dirs or [])


def debug_file(build_id):
    """The separate debug information of the object with BUILD_ID: in
    --debug-dir's folders, /usr/lib/debug, debuginfod's cache; or None."""
    if not build_id or len(build_id) < 4:
        return None
    rel = os.path.join(".build-id", build_id[:2], build_id[2:] + ".debug")
    cands = [os.path.join(d, rel) for d in _debug_dirs + [SYSTEM_DEBUG_DIR]]
    cache = os.environ.get("DEBUGINFOD_CACHE_PATH") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "debuginfod_client")
    cands.append(os.path.join(cache, build_id, "debuginfo"))
    return next((c for c in cands if os.path.isfile(c) and os.access(c, os.R_OK)), None)


def lookup_file(obj, recorded):
    """Where to look up lines for frames of OBJ, whose build ID in the run
    was RECORDED (None: the file did not say): its separate debug file,
    else OBJ itself if it is the file that ran, else None (with a note)."""
    if not recorded:
        return obj
    found = debug_file(recorded)
    if found:
        return found
    on_disk = elf.build_id(obj) if os.path.isfile(obj) else None
    if on_disk == recorded:
        return obj
    if os.path.isabs(obj) and obj not in _warned:
        _warned.add(obj)
        now = f"{on_disk} on disk" if on_disk else ("none on disk" if os.path.exists(obj)
                                                    else "the file is not on this machine")
        print(f"lockswap report: {obj} is not the file that ran (build ID {recorded} in the "
              f"run, {now}): no file:line for its frames (their names and object+offset stay)",
              file=sys.stderr)
    return None
