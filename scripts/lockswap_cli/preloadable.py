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
import struct

PT_INTERP = 3
CLASSES = {1: "32-bit", 2: "64-bit"}


def elf_facts(path):
    """(class, has PT_INTERP) of an ELF file, or None if path is not ELF
    (or cannot be read: the run itself will then say why)."""
    try:
        with open(path, "rb") as f:
            ident = f.read(16)
            if len(ident) < 16 or ident[:4] != b"\x7fELF" or ident[4] not in CLASSES:
                return None
            bits64 = ident[4] == 2
            order = "<" if ident[5] == 1 else ">"
            head = f.read(48 if bits64 else 36)
            if bits64:
                phoff, = struct.unpack_from(order + "Q", head, 16)
                phentsize, phnum = struct.unpack_from(order + "HH", head, 38)
            else:
                phoff, = struct.unpack_from(order + "I", head, 12)
                phentsize, phnum = struct.unpack_from(order + "HH", head, 26)
            f.seek(phoff)
            table = f.read(phentsize * phnum)
    except (OSError, struct.error):
        return None
    interp = any(struct.unpack_from(order + "I", table, i * phentsize)[0] == PT_INTERP
                 for i in range(phnum) if (i + 1) * phentsize <= len(table))
    return ident[4], interp


def problem(program, library):
    """None if LD_PRELOAD=library can reach program, else why not (one
    phrase, after the program's name)."""
    facts = elf_facts(program)
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
    lib = elf_facts(library) if library else None
    if lib is not None and lib[0] != cls:
        return (f"is a {CLASSES[cls]} program and {os.path.basename(library)} is "
                f"{CLASSES[lib[0]]}: the dynamic loader skips the library")
    return None
