/* Unwind tables of modules linked without .eh_frame_hdr (gcc -static links
 * without one unless asked): the FDEs of .eh_frame indexed here as the
 * header's binary-search table would have them, so libunwind searches
 * them the same way. The section is found from the module's section
 * headers (the file), its bytes are read from the address space. */
#include "sym/local.h"
#include "util.h"

#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

/* ---- the pure parser ---- */

struct cur {
	const unsigned char *b;
	size_t len, off;
	bool bad;
};

static uint64_t get(struct cur *c, size_t n)
{
	uint64_t v = 0;
	if (c->off > c->len || c->len - c->off < n) {
		c->bad = true;
		c->off = c->len;
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)c->b[c->off + i] << (8 * i);
	c->off += n;
	return v;
}

static uint64_t uleb(struct cur *c)
{
	uint64_t v = 0;
	for (unsigned shift = 0; c->off < c->len; shift += 7) {
		unsigned char x = c->b[c->off++];
		if (shift < 64)
			v |= (uint64_t)(x & 0x7f) << shift;
		if (!(x & 0x80))
			return v;
	}
	c->bad = true;
	return 0;
}

/* A DW_EH_PE_* encoded value at c (field_addr: its run-time address, for
 * pcrel); the application part is applied only when apply is set. */
static bool encoded(struct cur *c, unsigned enc, uint64_t field_addr, bool apply, uint64_t *v)
{
	if (enc == 0xff) /* DW_EH_PE_omit */
		return false;
	switch (enc & 0x0f) {
	case 0x00: *v = get(c, 8); break;
	case 0x01: *v = uleb(c); break;
	case 0x02: *v = get(c, 2); break;
	case 0x03: *v = get(c, 4); break;
	case 0x04: *v = get(c, 8); break;
	case 0x09: *v = uleb(c); break; /* sleb: sizes alike, values unused */
	case 0x0a: *v = (uint64_t)(int64_t)(int16_t)get(c, 2); break;
	case 0x0b: *v = (uint64_t)(int64_t)(int32_t)get(c, 4); break;
	case 0x0c: *v = get(c, 8); break;
	default: c->bad = true; return false;
	}
	if (apply) {
		switch (enc & 0x70) {
		case 0x00: break;
		case 0x10: *v += field_addr; break; /* pcrel */
		default: return false; /* textrel, datarel, funcrel: not in .eh_frame */
		}
	}
	return !c->bad;
}

/* The FDE pointer encoding of the CIE at off (DW_EH_PE_absptr without 'R'). */
static int cie_encoding(const unsigned char *b, size_t len, size_t off)
{
	struct cur c = { b, len, off, false };
	uint64_t l = get(&c, 4);
	if (l == 0 || l == 0xffffffff || l > len - c.off || get(&c, 4) != 0)
		return -1;
	c.len = c.off - 4 + l;
	unsigned version = (unsigned)get(&c, 1);
	const char *aug = (const char *)b + c.off;
	size_t al = strnlen(aug, c.len - c.off);
	if (al == c.len - c.off)
		return -1;
	c.off += al + 1;
	if (strstr(aug, "eh"))
		get(&c, 8);
	uleb(&c);                      /* code alignment */
	uleb(&c);                      /* data alignment (sleb) */
	version == 1 ? get(&c, 1) : uleb(&c); /* return register */
	if (aug[0] != 'z')
		return c.bad ? -1 : 0;
	uleb(&c);                      /* augmentation data length */
	for (const char *a = aug + 1; *a && !c.bad; a++) {
		uint64_t v;
		switch (*a) {
		case 'R': return (int)get(&c, 1);
		case 'L': get(&c, 1); break;
		case 'P': { unsigned e = (unsigned)get(&c, 1); encoded(&c, e & 0x7f, 0, false, &v); break; }
		case 'S': case 'B': break;
		default: return 0;
		}
	}
	return c.bad ? -1 : 0;
}

static int fde_cmp(const void *a, const void *b)
{
	const struct sym_fde *x = a, *y = b;
	return x->pc < y->pc ? -1 : x->pc > y->pc;
}

ssize_t sym_ehframe_index(const void *buf, size_t len, uint64_t addr, struct sym_fde **out)
{
	const unsigned char *b = buf;
	size_t off = 0, n = 0, cap = 0;
	struct sym_fde *v = NULL;

	*out = NULL;
	while (len - off >= 8) {
		struct cur c = { b, len, off, false };
		uint64_t l = get(&c, 4);
		if (l == 0)
			break; /* the terminator */
		if (l == 0xffffffff || l > len - c.off || l < 4)
			break; /* 64-bit DWARF is not used in .eh_frame; or broken */
		size_t rec_end = c.off + (size_t)l;
		size_t id_at = c.off;
		uint64_t id = get(&c, 4);
		if (id != 0 && id <= id_at) {
			int enc = cie_encoding(b, len, id_at - (size_t)id);
			uint64_t pc, range;
			c.len = rec_end;
			if (enc >= 0 && encoded(&c, (unsigned)enc, addr + c.off, true, &pc) &&
			    encoded(&c, (unsigned)enc & 0x0f, 0, false, &range) && range && n < SYM_EHFRAME_MAX_FDES) {
				if (n == cap) {
					cap = cap ? cap * 2 : 256;
					struct sym_fde *nv = realloc(v, cap * sizeof(*v));
					if (!nv) {
						free(v);
						return -ENOMEM;
					}
					v = nv;
				}
				v[n].pc = pc;
				v[n].fde = addr + off;
				n++;
			}
		}
		off = rec_end;
	}
	if (n)
		sort_array(v, n, sizeof(*v), fde_cmp);
	*out = v;
	return (ssize_t)n;
}

/* ---- the section, from the module's file ---- */

int sym_module_section(struct sym_module *m, const char *name, uint64_t *vaddr, uint64_t *size)
{
	int r = -ENOENT;
	GElf_Addr bias;

	pthread_mutex_lock(&m->lock);
	Elf *elf = m->mod ? dwfl_module_getelf(m->mod, &bias) : NULL;
	size_t shstrndx;
	if (elf && elf_getshdrstrndx(elf, &shstrndx) == 0)
		for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
			GElf_Shdr sh;
			const char *nm = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
			if (nm && !strcmp(nm, name) && sh.sh_type != SHT_NOBITS && (sh.sh_flags & SHF_ALLOC)) {
				*vaddr = sh.sh_addr;
				*size = sh.sh_size;
				r = 0;
				break;
			}
		}
	pthread_mutex_unlock(&m->lock);
	return r;
}
