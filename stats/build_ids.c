/*
 * build_ids.c - the JSON's "objects": every object loaded in the process
 * with the GNU build ID its linker wrote (an ELF note, NT_GNU_BUILD_ID).
 *
 * Why: `lockswap report` looks up file:line at report time, in the files
 * named by the frames (object + offset).  Two things need to know which
 * file ran: a program or library rebuilt (or upgraded) since the run has
 * other code at those offsets, and its lines would be wrong; and a
 * stripped library's debug information lives in a separate file named by
 * the build ID (Debian's -dbgsym packages: /usr/lib/debug/.build-id/xx/
 * rest.debug; debuginfod's cache), found only with the ID.
 *
 * The notes are read from memory, where the loader mapped them (a PT_NOTE
 * segment lies inside the object's first, read-only PT_LOAD): no file is
 * opened and no debug information is read inside the host program.
 * Called in a dump only (report.h): dl_iterate_phdr takes the loader's
 * lock, as dladdr in symbols.c does.
 */
#include <elf.h>
#include <link.h>
#include <string.h>

#include "report.h"

/* A note's name and descriptor are padded to the segment's alignment: 4
 * bytes (the build ID's segment), or 8 (x86-64's .note.gnu.property
 * segment, whose notes follow the 8-byte rule). */
static size_t padded(size_t n, size_t align)
{
	return (n + align - 1) & ~(align - 1);
}

/* The build ID among the notes of [p, end), padded to `align`, or NULL
 * (its length in *len). */
static const unsigned char *build_id_in(const unsigned char *p, const unsigned char *end,
                                        size_t align, size_t *len)
{
	while ((size_t)(end - p) >= sizeof(ElfW(Nhdr))) {
		const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)(const void *)p;
		size_t name = padded(n->n_namesz, align), desc = padded(n->n_descsz, align);
		const unsigned char *body = p + sizeof *n;
		if (name > (size_t)(end - body) || desc > (size_t)(end - body) - name)
			return NULL; /* a malformed note: stop rather than read past */
		if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && memcmp(body, "GNU", 4) == 0) {
			*len = n->n_descsz;
			return body + name;
		}
		p = body + name + desc;
	}
	return NULL;
}

struct listing {
	struct ls_out *o;
	unsigned n; /* objects written so far */
};

static int one_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct listing *l = arg;
	struct ls_out *o = l->o;
	const unsigned char *id = NULL;
	size_t len = 0;
	for (int i = 0; i < info->dlpi_phnum && !id; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
		id = build_id_in(p, p + ph->p_memsz, ph->p_align == 8 ? 8 : 4, &len);
	}
	if (!id || !len)
		return 0;
	/* Named as the frames name it (symbols.c resolve): the main program,
	 * whose name the loader leaves empty, is /proc/self/exe. */
	const char *path = info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name : "/proc/self/exe";
	ls_out_put(o, l->n++ ? ",\n{\"path\":" : "\n{\"path\":");
	ls_out_json_str(o, path);
	ls_out_put(o, ",\"build_id\":\"");
	for (size_t i = 0; i < len; i++)
		ls_out_printf(o, "%02x", id[i]);
	ls_out_put(o, "\"}");
	return 0;
}

void ls_stats_write_objects(struct ls_out *o)
{
	struct listing l = { o, 0 };
	ls_out_put(o, ",\"objects\":[");
	dl_iterate_phdr(one_object, &l);
	ls_out_put(o, "]");
}
