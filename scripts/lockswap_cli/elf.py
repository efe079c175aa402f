"""Everything the CLI reads from ELF files, on pyelftools (Debian package
python3-pyelftools): the class and whether the dynamic loader runs
(preloadable.py), and the GNU build ID (debug_files.py).

A file that is not ELF, or cannot be read or parsed, gives None: the
callers then judge nothing (a script) or fall back to what the statistics
file says.  pyelftools is imported on first use, so commands that read no
ELF file do not pay for its import (about 0.1 s).
"""
import struct

from .errors import ToolError

CLASSES = {32: "32-bit", 64: "64-bit"}


def _is_elf(path):
    """Whether PATH starts as an ELF file; False if it cannot be read."""
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"\x7fELF"
    except OSError:
        return False


def _reader():
    """pyelftools' ELFFile and what parsing a file can raise: the file is
    unreadable, or truncated or corrupt, which fails inside pyelftools'
    parsers with any of these.  Either way a file we cannot judge, not a
    crash of the command."""
    try:
        from elftools.common.exceptions import ELFError
        from elftools.elf.elffile import ELFFile
    except ImportError:
        raise ToolError("reading ELF files needs pyelftools (Debian package "
                        "python3-pyelftools)") from None
    return ELFFile, (OSError, ELFError, struct.error, ValueError, KeyError, IndexError,
                     EOFError, OverflowError, AttributeError, TypeError)


def _read(path, what):
    """what(elf) for the ELF file at PATH, or None: not ELF, or it cannot
    be read or parsed (_reader)."""
    if not _is_elf(path):
        return None
    ELFFile, errors = _reader()
    try:
        with open(path, "rb") as f:
            return what(ELFFile(f))
    except errors:
        return None


def facts(path):
    """(class in bits, has a PT_INTERP program header) of the ELF file at
    PATH, or None: not ELF, or not readable (the run itself then says
    why)."""
    def of(elf):
        if elf.elfclass not in CLASSES:
            return None
        return elf.elfclass, any(seg["p_type"] == "PT_INTERP" for seg in elf.iter_segments())
    return _read(path, of)


def _build_id_in(parts):
    for part in parts:
        for note in part.iter_notes():
            if note["n_type"] == "NT_GNU_BUILD_ID" and note["n_name"] == "GNU" and note["n_desc"]:
                return note["n_desc"]
    return None


def build_id(path):
    """The GNU build ID of the ELF file at PATH (hex, as readelf -n prints
    it), or None: not ELF, not readable, or no ID.  From its note sections,
    else (section headers stripped) its note segments."""
    def of(elf):
        sections = [s for s in elf.iter_sections() if s["sh_type"] == "SHT_NOTE"]
        if sections:
            return _build_id_in(sections)
        return _build_id_in(s for s in elf.iter_segments() if s["p_type"] == "PT_NOTE")
    return _read(path, of)
