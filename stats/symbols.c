/*
 * symbols.c - names for return addresses, at report time only.
 *
 * dladdr1 gives the object and its load bias, and the dynamic symbol when
 * the address lies inside it.  Static functions, and every function of an
 * executable built without -rdynamic, are only in the ELF .symtab of the
 * file on disk: the object is mapped read-only for the duration of one
 * dump and its function symbols searched.  A return address is looked up
 * as pc - 1, so a call that ends a function still names that function.
 *
 * A name must never be a wrong guess.  A nearest-symbol lookup names the
 * symbol at or below the address even when the address lies past its end,
 * in a static or hidden function of a stripped library (musl's dladdr
 * does, and addr2line on a stripped file; glibc's dladdr checks the size
 * itself).  So the symbol's size is checked here too (RTLD_DL_SYMENT): an
 * address at or past st_size from its start is not in it, and the file's
 * own symbols decide, else the name is unknown and only the object and
 * offset are given.  C++ names are demangled
 * (demangle.c).
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/runtime/own_io.h"
#include "report.h"
#include "../core/runtime/cold.h"

#define MAX_FILES 32

struct elf_file {
	char path[256];
	const unsigned char *map;
	size_t size;
	const Elf64_Sym *syms;
	size_t nsyms;
	const char *strs;
	size_t strs_size;
	bool loaded;
};

static struct elf_file files[MAX_FILES] LS_COLD_BSS;
static int nfiles;

/* Results by pc for one dump: stacks share most of their frames. */
#define CACHE_CAP 4096
struct cached {
	uintptr_t pc; /* 0 = empty */
	bool named;
	struct ls_sym sym;
};
static struct cached *cache;

void ls_symbols_begin(void)
{
	nfiles = 0;
	ls_demangle_begin();
	void *p = mmap(NULL, CACHE_CAP * sizeof *cache, PROT_READ | PROT_WRITE,
	               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cache = p == MAP_FAILED ? NULL : p;
}

void ls_symbols_end(void)
{
	for (int i = 0; i < nfiles; i++)
		if (files[i].map)
			munmap((void *)files[i].map, files[i].size);
	nfiles = 0;
	if (cache)
		munmap(cache, CACHE_CAP * sizeof *cache);
	cache = NULL;
	ls_demangle_end();
}

static bool within(const struct elf_file *f, uint64_t off, uint64_t len)
{
	return off <= f->size && len <= f->size - off;
}

/* Find .symtab (or .dynsym) and its string table. */
static void elf_index(struct elf_file *f)
{
	if (f->size < sizeof(Elf64_Ehdr) || memcmp(f->map, ELFMAG, SELFMAG) != 0 ||
	    f->map[EI_CLASS] != ELFCLASS64)
		return;
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)f->map;
	if (!eh->e_shoff || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    !within(f, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)))
		return;
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(f->map + eh->e_shoff);
	const Elf64_Shdr *best = NULL;
	for (int i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type == SHT_SYMTAB)
			best = &sh[i];
		else if (sh[i].sh_type == SHT_DYNSYM && !best)
			best = &sh[i];
	}
	if (!best || best->sh_link >= eh->e_shnum || !within(f, best->sh_offset, best->sh_size))
		return;
	const Elf64_Shdr *str = &sh[best->sh_link];
	if (!within(f, str->sh_offset, str->sh_size))
		return;
	f->syms = (const Elf64_Sym *)(f->map + best->sh_offset);
	f->nsyms = best->sh_size / sizeof(Elf64_Sym);
	f->strs = (const char *)(f->map + str->sh_offset);
	f->strs_size = str->sh_size;
}

static struct elf_file *elf_open(const char *path)
{
	for (int i = 0; i < nfiles; i++)
		if (strcmp(files[i].path, path) == 0)
			return &files[i];
	if (nfiles == MAX_FILES)
		return NULL;
	struct elf_file *f = &files[nfiles++];
	memset(f, 0, sizeof *f);
	snprintf(f->path, sizeof f->path, "%s", path);
	int fd = ls_own_open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0)
		return f;
	if (fstat(fd, &st) == 0 && st.st_size > 0) {
		void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p != MAP_FAILED) {
			f->map = p;
			f->size = (size_t)st.st_size;
			elf_index(f);
		}
	}
	ls_own_close(fd);
	return f;
}

static bool elf_lookup(struct elf_file *f, uint64_t off, bool data, struct ls_sym *out)
{
	const Elf64_Sym *hit = NULL;
	for (size_t i = 0; f && i < f->nsyms; i++) {
		const Elf64_Sym *s = &f->syms[i];
		int type = ELF64_ST_TYPE(s->st_info);
		bool code = type == STT_FUNC || type == STT_GNU_IFUNC;
		if ((data ? type != STT_OBJECT : !code) || s->st_shndx == SHN_UNDEF)
			continue;
		if (off >= s->st_value && off < s->st_value + s->st_size && s->st_name < f->strs_size) {
			hit = s;
			if (ELF64_ST_BIND(s->st_info) != STB_LOCAL)
				break; /* prefer a global alias */
		}
	}
	if (!hit)
		return false;
	snprintf(out->name, sizeof out->name, "%s", f->strs + hit->st_name);
	out->in_sym = off - hit->st_value;
	return true;
}

/* The dynamic symbol dladdr found, if the address lies inside it. */
static bool inside_dynamic_symbol(uintptr_t at, const Dl_info *info)
{
	const ElfW(Sym) *sym = NULL;
	Dl_info again;
	if (!info->dli_sname || !info->dli_sname[0] ||
	    !dladdr1((void *)at, &again, (void **)&sym, RTLD_DL_SYMENT) || !sym)
		return false;
	return at - (uintptr_t)info->dli_saddr < sym->st_size;
}

static void readable(struct ls_sym *out)
{
	char plain[sizeof out->name];
	if (ls_demangle(out->name, plain, sizeof plain))
		memcpy(out->name, plain, sizeof plain);
}

/* A return address (looked up as pc - 1), or a data object's address. */
static bool resolve(uintptr_t pc, bool data, struct ls_sym *out)
{
	memset(out, 0, sizeof *out);
	Dl_info info;
	struct link_map *lm = NULL;
	uintptr_t at = data ? pc : pc - 1;
	if (!pc || !dladdr1((void *)at, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm)
		return false;
	const char *path = lm->l_name && lm->l_name[0] ? lm->l_name : "/proc/self/exe";
	snprintf(out->obj, sizeof out->obj, "%s", path);
	out->off = pc - lm->l_addr;
	if (inside_dynamic_symbol(at, &info)) {
		snprintf(out->name, sizeof out->name, "%s", info.dli_sname);
		out->in_sym = pc - (uintptr_t)info.dli_saddr;
	} else if (!elf_lookup(elf_open(path), at - lm->l_addr, data, out)) {
		return false;
	}
	readable(out);
	return true;
}

bool ls_symbolize_data(uintptr_t addr, struct ls_sym *out)
{
	if (!resolve(addr, true, out))
		return false;
	if (out->in_sym) { /* an element of an array or a member of a struct */
		size_t n = strlen(out->name);
		snprintf(out->name + n, sizeof out->name - n, "+%lu", (unsigned long)out->in_sym);
	}
	return true;
}

bool ls_symbolize(uintptr_t pc, struct ls_sym *out)
{
	struct cached *c = cache ? &cache[(pc * 0x9E3779B97F4A7C15ull) >> 52] : NULL;
	if (c && c->pc == pc) {
		*out = c->sym;
		return c->named;
	}
	bool named = resolve(pc, false, out);
	if (c) {
		c->pc = pc;
		c->named = named;
		c->sym = *out;
	}
	return named;
}

void ls_symbol_short(uintptr_t pc, char *buf, size_t len)
{
	struct ls_sym s;
	bool named = ls_symbolize(pc, &s);
	if (named) {
		ls_name_short(s.name, buf, len);
	} else if (s.obj[0]) {
		const char *base = strrchr(s.obj, '/');
		if (strcmp(s.obj, "/proc/self/exe") == 0)
			base = program_invocation_short_name - 1;
		snprintf(buf, len, "?? (%s+0x%lx)", base ? base + 1 : s.obj, (unsigned long)s.off);
	} else {
		snprintf(buf, len, "0x%lx", (unsigned long)pc);
	}
}
