/* The goroutines of a Go process (golang.h). */
#include "golang/golang.h"
#include "i18n.h"
#include "sym/sym.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define ALLGS_MAX (1u << 16)    /* goroutines read (the rest: cut, and said) */
#define CHUNK 512               /* allgs entries per read */
#define WAIT_REASONS_MAX 256

static long member_off(Dwarf_Die *st, const char *name, Dwarf_Word *size)
{
	Dwarf_Die c;

	if (dwarf_child(st, &c) != 0)
		return -1;
	do {
		Dwarf_Attribute a;
		Dwarf_Word off;
		const char *n = dwarf_tag(&c) == DW_TAG_member ? dwarf_diename(&c) : NULL;
		if (!n || strcmp(n, name))
			continue;
		if (dwarf_formudata(dwarf_attr(&c, DW_AT_data_member_location, &a), &off) != 0)
			return -1;
		if (size) {
			Dwarf_Die t;
			*size = 0;
			if (dwarf_attr(&c, DW_AT_type, &a) && dwarf_formref_die(&a, &t)) {
				int s = dwarf_bytesize(&t);
				*size = s > 0 ? (Dwarf_Word)s : 0;
			}
		}
		return off < (1u << 16) ? (long)off : -1;
	} while (dwarf_siblingof(&c, &c) == 0);
	return -1;
}

/* The structures of package runtime, from the unit that defines them. */
static int read_layout(int fd, struct go_layout *L)
{
	Dwarf *dw = dwarf_begin(fd, DWARF_C_READ);
	Dwarf_Off off = 0, next;
	size_t hsize;
	int found = 0;

	memset(L, 0xff, sizeof(*L)); /* every field -1 */
	if (!dw)
		return -ENOTSUP;
	while (found < 3 && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, c;
		if (dwarf_offdie(dw, off + hsize, &cu) && dwarf_child(&cu, &c) == 0) {
			do {
				const char *n = dwarf_tag(&c) == DW_TAG_structure_type ? dwarf_diename(&c) : NULL;
				Dwarf_Word ws;
				if (!n)
					continue;
				if (!strcmp(n, "runtime.g") && L->g_sched < 0) {
					L->g_sched = member_off(&c, "sched", NULL);
					L->g_status = member_off(&c, "atomicstatus", NULL);
					L->g_goid = member_off(&c, "goid", NULL);
					L->g_wait = member_off(&c, "waitreason", &ws);
					L->wait_size = (long)ws;
					L->g_m = member_off(&c, "m", NULL);
					found++;
				} else if (!strcmp(n, "runtime.gobuf") && L->buf_sp < 0) {
					L->buf_sp = member_off(&c, "sp", NULL);
					L->buf_pc = member_off(&c, "pc", NULL);
					L->buf_bp = member_off(&c, "bp", NULL);
					found++;
				} else if (!strcmp(n, "runtime.m") && L->m_procid < 0) {
					L->m_procid = member_off(&c, "procid", NULL);
					found++;
				}
			} while (dwarf_siblingof(&c, &c) == 0);
		}
		off = next;
	}
	dwarf_end(dw);
	if (L->g_sched < 0 || L->g_status < 0 || L->g_goid < 0 || L->buf_sp < 0 || L->buf_pc < 0 || L->buf_bp < 0)
		return -EPROTO;
	return 0;
}

const char *go_state_name(uint32_t s)
{
	static const char *const names[] = { N_("idle"), N_("runnable"), N_("running"), N_("syscall"), N_("waiting"),
					     N_("moribund"), N_("dead"), N_("enqueue"), N_("copystack"), N_("preempted") };
	return s < sizeof(names) / sizeof(names[0]) ? names[s] : N_("unknown state");
}

static int rd64(const struct go_mem *m, uint64_t a, uint64_t *v)
{
	return m->read(m->arg, a, v, 8);
}

static bool ptr_ok(uint64_t p)
{
	return p >= 4096 && p < 0x800000000000ull && !(p & 7);
}

/* A parked goroutine's top frames: its saved pc, then the frame-pointer
 * chain from its saved bp (Go keeps frame pointers on amd64). */
static void walk(const struct go_mem *m, uint64_t pc, uint64_t bp, uint64_t sp, struct go_g *g)
{
	g->n = 0;
	if (pc)
		g->pcs[g->n++] = pc;
	for (unsigned k = 0; ptr_ok(bp) && k < 64; k++) {
		uint64_t fr[2];
		if (bp < sp || m->read(m->arg, bp, fr, sizeof(fr)) < 0 || !fr[1])
			break;
		if (g->n == GO_TOP_FRAMES) {
			g->more = true;
			break;
		}
		g->pcs[g->n++] = fr[1];
		if (fr[0] <= bp) /* frames go up the stack */
			break;
		sp = bp;
		bp = fr[0];
	}
}

int go_goroutines(int exe_fd, struct sym_proc *syms, const struct go_mem *m, struct go_list *out,
		  struct ps_error *e)
{
	struct go_layout L;
	uint64_t allgs, allgs_size, wr = 0, wr_size = 0;

	memset(out, 0, sizeof(*out));
	if (sym_symbol_addr(syms, NULL, "runtime.allgs", &allgs, &allgs_size) < 0)
		return ps_error_set(e, ENOENT, _("not a Go program (no runtime.allgs)"));
	int r = read_layout(exe_fd, &L);
	if (r == -ENOTSUP)
		return ps_error_set(e, ENOTSUP, _("a Go program without DWARF (built with -ldflags=-w): goroutines not read"));
	if (r < 0)
		return ps_error_set(e, EPROTO, _("a Go program whose DWARF lacks runtime.g's fields: goroutines not read"));
	sym_symbol_addr(syms, NULL, "runtime.waitReasonStrings", &wr, &wr_size);
	return go_walk(&L, allgs, wr, wr_size, 0, m, out, e);
}

int go_walk(const struct go_layout *Lp, uint64_t allgs, uint64_t wr, uint64_t wr_size, size_t max,
	    const struct go_mem *m, struct go_list *out, struct ps_error *e)
{
	const struct go_layout L = *Lp;
	uint64_t slice[2];

	memset(out, 0, sizeof(*out));
	if (rd64(m, allgs, &slice[0]) < 0 || rd64(m, allgs + 8, &slice[1]) < 0)
		return ps_error_set(e, EFAULT, _("runtime.allgs at 0x%llx cannot be read"), (unsigned long long)allgs);
	uint64_t n = slice[1];
	if (!max || max > ALLGS_MAX)
		max = ALLGS_MAX;
	if (n > max) {
		n = max;
		out->cut = true;
	}
	if (n && !ptr_ok(slice[0]))
		return ps_error_set(e, EPROTO, _("runtime.allgs makes no sense (array at 0x%llx)"), (unsigned long long)slice[0]);
	uint64_t chunk[CHUNK];
	size_t cap = 0;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t ga, sp, pc, bp, mp;
		uint32_t st;
		int64_t goid;
		if (i % CHUNK == 0) {
			size_t k = n - i < CHUNK ? (size_t)(n - i) : CHUNK;
			if (m->read(m->arg, slice[0] + 8 * i, chunk, 8 * k) < 0) {
				out->cut = true; /* the rest of the array is unreadable */
				break;
			}
		}
		ga = chunk[i % CHUNK];
		if (!ptr_ok(ga))
			continue;
		if (m->read(m->arg, ga + (uint64_t)L.g_status, &st, 4) < 0 || m->read(m->arg, ga + (uint64_t)L.g_goid, &goid, 8) < 0)
			continue;
		st &= ~0x1000u; /* _Gscan */
		if (st == 6) { /* _Gdead */
			out->n_dead++;
			continue;
		}
		if (out->n == cap) {
			size_t nc = cap ? cap * 2 : 64;
			void *v = realloc(out->g, nc * sizeof(*out->g));
			if (!v) {
				go_list_free(out);
				return ps_error_set(e, ENOMEM, _("out of memory"));
			}
			out->g = v;
			cap = nc;
		}
		struct go_g *g = &out->g[out->n++];
		memset(g, 0, sizeof(*g));
		g->addr = ga;
		g->goid = goid;
		g->status = st;
		g->state = go_state_name(st);
		if (st < sizeof(out->by_state) / sizeof(out->by_state[0]))
			out->by_state[st]++;
		if (L.g_wait >= 0 && st == 4 && wr && L.wait_size >= 1 && L.wait_size <= 8) {
			uint64_t idx = 0, s[2];
			if (m->read(m->arg, ga + (uint64_t)L.g_wait, &idx, (size_t)L.wait_size) == 0 && idx < wr_size / 16 &&
			    idx < WAIT_REASONS_MAX && m->read(m->arg, wr + 16 * idx, s, sizeof(s)) == 0 && s[1] &&
			    s[1] < sizeof(g->wait) && m->read(m->arg, s[0], g->wait, s[1]) == 0)
				g->wait[s[1]] = '\0';
			else
				g->wait[0] = '\0';
			for (char *c = g->wait; *c; c++)
				if ((unsigned char)*c < 0x20 || *c == 0x7f)
					*c = '?';
		}
		if ((st == 2 || st == 3) && L.g_m >= 0 && L.m_procid >= 0 && rd64(m, ga + (uint64_t)L.g_m, &mp) == 0 &&
		    ptr_ok(mp)) {
			uint64_t tid;
			if (rd64(m, mp + (uint64_t)L.m_procid, &tid) == 0 && tid > 0 && tid < (1u << 22))
				g->tid = (pid_t)tid;
		}
		/* A running goroutine's registers are its thread's: no frames
		 * here (the thread's stack shows them). */
		if (st == 2)
			continue;
		uint64_t b = ga + (uint64_t)L.g_sched;
		if (rd64(m, b + (uint64_t)L.buf_sp, &sp) == 0 && rd64(m, b + (uint64_t)L.buf_pc, &pc) == 0 &&
		    rd64(m, b + (uint64_t)L.buf_bp, &bp) == 0)
			walk(m, pc, bp, sp, g);
	}
	return 0;
}

void go_list_free(struct go_list *l)
{
	free(l->g);
	memset(l, 0, sizeof(*l));
}
