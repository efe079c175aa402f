/* exe_text.c - the program's own code range (exe_text.h). */
#include "exe_text.h"

#include <link.h>
#include <stddef.h>

/* Written by the constructors only, then read-only. */
static uintptr_t exe_lo, exe_hi;

static int find(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	(void)arg;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
		if (!exe_lo || lo < exe_lo)
			exe_lo = lo;
		if (hi > exe_hi)
			exe_hi = hi;
	}
	return 1; /* the first object is the program */
}

void ls_exe_text_find(void)
{
	if (!exe_hi)
		dl_iterate_phdr(find, NULL);
}

bool ls_exe_text_has(uintptr_t pc)
{
	return pc >= exe_lo && pc < exe_hi;
}
