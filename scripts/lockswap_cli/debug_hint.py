"""What `lockswap report` says under a table with unknown frames (`??
(libfoo.so+0x1234)`): per object, where its debug information can come
from, precisely.  A stripped library's frames get names and lines from its
separate debug file, found by the build ID the statistics file recorded
(debug_files.debug_file).  On Debian those files are the -dbgsym packages,
which live in the debian-debug archive, not in the normal sources (so
`apt-get install foo-dbgsym` fails until that archive is added), and on
Debian's debuginfod server; a library built here can be rebuilt with -g."""
import os
import re
import shutil
import subprocess

from . import symbolize

UNKNOWN = re.compile(r"\?\? \(([^()+]+)\+0x[0-9a-f]+\)")
HEAD = ("?? (object+offset): no symbol of the object covers that address (a stripped "
        "library); its separate debug information, found by the build ID the run recorded, "
        "names it:")


def debian_package(path):
    """The installed Debian package that holds PATH (dpkg-query -S, on this
    machine), or None."""
    tool = shutil.which("dpkg-query")
    if not tool:
        return None
    for p in dict.fromkeys((path, os.path.realpath(path))):
        try:
            r = subprocess.run([tool, "-S", p], capture_output=True, text=True, timeout=20)
        except (OSError, subprocess.TimeoutExpired):
            return None
        if r.returncode == 0 and ":" in r.stdout:
            return r.stdout.split(":", 1)[0].split(",")[0].strip()
    return None


def codename():
    try:
        with open("/etc/os-release") as f:
            for line in f:
                if line.startswith("VERSION_CODENAME="):
                    return line.split("=", 1)[1].strip().strip('"') or None
    except OSError:
        return None
    return None


def object_hint(path, build_id):
    name = os.path.basename(path)
    rel = f".build-id/{build_id[:2]}/{build_id[2:]}.debug" if build_id else None
    where = f"--debug-dir DIR holding DIR/{rel}" if rel else "--debug-dir DIR"
    pkg = debian_package(path) if os.path.isabs(path) else None
    if not pkg:
        return [f"  {name}" + (f" (build ID {build_id})" if build_id else "") +
                f": not from a Debian package here; rebuild it with -g, or keep its debug "
                f"information apart (objcopy --only-keep-debug) and give {where}"]
    suite = f"{codename()}-debug" if codename() else "<codename>-debug"
    lines = [f"  {name} (Debian package {pkg}" + (f", build ID {build_id}" if build_id else "") +
             f"): Debian ships its debug information as {pkg}-dbgsym in the debian-debug "
             "archive, which the normal sources do not carry:",
             f"    add `deb http://deb.debian.org/debian-debug {suite} main` to apt's sources, "
             f"install {pkg}-dbgsym of the same version (into /usr/lib/debug)"]
    if build_id:
        lines.append("    or fetch the one file by ID from Debian's debuginfod server, into the "
                     "cache the report reads: DEBUGINFOD_URLS=https://debuginfod.debian.net "
                     f"debuginfod-find debuginfo {build_id} (Debian package debuginfod)")
    lines.append(f"    or copy it from a machine that has it and give {where}")
    return lines


def note(doc, text):
    """The lines to print under TEXT (a report of DOC), or [] when it has
    no unknown frame."""
    names = set(UNKNOWN.findall(text))
    if not names:
        return []
    ids = symbolize.build_ids(doc)
    paths = sorted({f.get("_object") or f.get("object") for f in symbolize.frames_of(doc)
                    if os.path.basename(f.get("_object") or f.get("object") or "") in names})
    return [HEAD] + [line for p in paths for line in object_hint(p, ids.get(p))]
