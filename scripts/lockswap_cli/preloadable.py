"""Can the dynamic loader preload liblockswap.so into this program?

It cannot, and says nothing, when the program is statically linked (no
PT_INTERP program header: the kernel starts it without ld.so, which is
what reads LD_PRELOAD), when it runs set-user-ID or set-group-ID as
another user or group (the kernel sets AT_SECURE and ld.so drops
LD_PRELOAD of such a path), or when it is of another ELF class than the
library.  The library cannot report any of these, since it is never
loaded, so the CLI checks before anything runs.  A file that is not ELF
(a script) is not judged: its interpreter is what gets preloaded.
"""
import os
import stat

from . import elf


def problem(program, library):
    """None if LD_PRELOAD=library can reach program, else why not (one
    phrase, after the program's name)."""
    facts = elf.facts(program)
    if facts is None:
        return None
    cls, interp = facts
    if not interp:
        return ("is statically linked: the dynamic loader never runs, so LD_PRELOAD "
                "cannot replace its locks")
    try:
        st = os.stat(program)
    except OSError:
        return None
    if (st.st_mode & stat.S_ISUID and st.st_uid != os.getuid()) or \
            (st.st_mode & stat.S_ISGID and st.st_gid != os.getgid()):
        bit = "set-user-ID" if st.st_mode & stat.S_ISUID else "set-group-ID"
        return (f"is {bit}: the dynamic loader ignores LD_PRELOAD for it (secure "
                "execution), so its locks cannot be replaced")
    lib = elf.facts(library) if library else None
    if lib is not None and lib[0] != cls:
        return (f"is a {elf.CLASSES[cls]} program and {os.path.basename(library)} is "
                f"{elf.CLASSES[lib[0]]}: the dynamic loader skips the library")
    return None
