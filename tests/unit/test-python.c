/* CPython reader, pure parts: line tables (bytes compiled by each
 * interpreter, lines as it reports them), unicode payloads, the layout
 * tables and the 3.13 debug offsets check, the page cache over a fake
 * memory with holes, the walker over hostile structures the fuzzer found
 * (tests/fuzz/fuzz-pymem.c). */
#include "tap.h"
#include "python/decode.h"
#include "python/layout.h"
#include "python/internal.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../fixtures/py-linetables.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void check_table(const char *ver, enum py_linefmt fmt, const unsigned char *t, size_t len, int first,
			const int (*lines)[2], size_t n)
{
	size_t bad = 0;
	for (size_t i = 0; i < n; i++) {
		int got = py_line_for(fmt, t, len, first, lines[i][0]);
		if (got != lines[i][1]) {
			if (!bad)
				printf("# %s offset %d: got %d, expected %d\n", ver, lines[i][0], got, lines[i][1]);
			bad++;
		}
	}
	ok(bad == 0, "%s: the line of each of %zu instructions", ver, n);
	is_int(py_line_for(fmt, t, len, first, -1), first, "%s: before the first instruction: firstlineno", ver);
	/* Truncated tables never read past their end. */
	for (size_t cut = 0; cut < len; cut++) {
		unsigned char *c = malloc(cut + 1);
		memcpy(c, t, cut);
		(void)py_line_for(fmt, c, cut, first, lines[n - 1][0]);
		free(c);
	}
	ok(1, "%s: every truncation decoded without reading past it", ver);
}

static void test_lines(void)
{
	check_table("3.9", PY_LNOTAB, lt_39, sizeof(lt_39), lt_39_first, lt_39_lines, N(lt_39_lines));
	check_table("3.10", PY_LINETABLE, lt_310, sizeof(lt_310), lt_310_first, lt_310_lines, N(lt_310_lines));
	check_table("3.11", PY_LOCATIONS, lt_311, sizeof(lt_311), lt_311_first, lt_311_lines, N(lt_311_lines));
	check_table("3.12", PY_LOCATIONS, lt_312, sizeof(lt_312), lt_312_first, lt_312_lines, N(lt_312_lines));
	check_table("3.13", PY_LOCATIONS, lt_313, sizeof(lt_313), lt_313_first, lt_313_lines, N(lt_313_lines));
	is_int(py_line_for(PY_LOCATIONS, NULL, 0, 7, 4), 0, "no table: line unknown");
	unsigned char garbage[] = { 0x7f, 0x01, 0x02 };
	is_int(py_line_for(PY_LOCATIONS, garbage, sizeof(garbage), 7, 4), 0, "not an entry start: unknown");
	unsigned char endless[] = { 0x80 | (14 << 3), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	is_int(py_line_for(PY_LOCATIONS, endless, sizeof(endless), 7, 0), 0, "endless varint: unknown");
}

static void test_unicode(void)
{
	char out[64];
	is_int(py_unicode_to_utf8("handle", 6, 1, out, sizeof(out)), 6, "ascii length");
	is_str(out, "handle", "ascii");
	const unsigned char latin1[] = { 'c', 0xe9 };
	py_unicode_to_utf8(latin1, 2, 1, out, sizeof(out));
	is_str(out, "c\xc3\xa9", "latin-1 to UTF-8");
	const uint16_t ucs2[] = { 0xd55c, 0xad6d, 0xd800 };
	py_unicode_to_utf8(ucs2, 3, 2, out, sizeof(out));
	is_str(out, "\xed\x95\x9c\xea\xb5\xad\xef\xbf\xbd", "UCS-2 Korean; a lone surrogate becomes U+FFFD");
	const uint32_t ucs4[] = { 0x1f40d, 0x110000 };
	py_unicode_to_utf8(ucs4, 2, 4, out, sizeof(out));
	is_str(out, "\xf0\x9f\x90\x8d\xef\xbf\xbd", "UCS-4; beyond U+10FFFF becomes U+FFFD");
	is_int(py_unicode_to_utf8(ucs4, 1, 4, out, 4), 0, "no room for a whole character: cut before it");
	is_int(py_unicode_to_utf8("x", 1, 3, out, sizeof(out)), -1, "kind 3 is refused");
}

static void test_layouts(void)
{
	for (int minor = 9; minor <= 12; minor++) {
		const struct py_layout *L = py_layout_table(minor);
		ok(L && L->minor == minor, "3.%d has a table", minor);
	}
	ok(!py_layout_table(8) && !py_layout_table(13), "no table for 3.8 or 3.13 (debug offsets)");
	unsigned char dbg[8 * 80] = "xdebugpy";
	struct py_layout L;
	is_int(py_layout_from_debug(dbg, sizeof(dbg), 13, &L), -EPROTO, "debug offsets of zeros are refused");
	is_int(py_layout_from_debug(dbg, 16, 13, &L), -EPROTO, "short debug offsets are refused");
	memset(dbg, 0xff, sizeof(dbg));
	memcpy(dbg, "xdebugpy", 8);
	is_int(py_layout_from_debug(dbg, sizeof(dbg), 13, &L), -EPROTO, "debug offsets of 0xff are refused");
}

/* A fake address space: [0x10000, 0x12000) readable, the rest not. */
static unsigned char space[0x2000];
static int reads;
static int fake_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	(void)arg;
	reads++;
	if (addr < 0x10000 || addr + len > 0x12000)
		return -EFAULT;
	memcpy(buf, space + (addr - 0x10000), len);
	return 0;
}

static void test_cache(void)
{
	struct py_mem under = { fake_read, NULL }, m;
	for (size_t i = 0; i < sizeof(space); i++)
		space[i] = (unsigned char)i;
	struct py_cache *c = py_cache_new(&under, 16);
	py_cache_mem(c, &m);
	unsigned char buf[64];
	reads = 0;
	is_int(m.read(m.arg, 0x10ff0, buf, 32), 0, "read across a page boundary");
	ok(buf[0] == 0xf0 && buf[16] == 0x00, "bytes from both pages");
	is_int(m.read(m.arg, 0x10100, buf, 8), 0, "cached page");
	is_int(reads, 2, "two pages read once each");
	is_int(m.read(m.arg, 0x11ff8, buf, 16), -EFAULT, "a read running off the mapping fails");
	is_int(m.read(m.arg, 0, buf, 8), -EFAULT, "NULL page fails");
	is_int(m.read(m.arg, 0xfffffffffffffff0ull, buf, 64), -EFAULT, "wrapping address fails");
	py_cache_free(c);
}

static void put64(uint64_t addr, uint64_t v)
{
	memcpy(space + (addr - 0x10000), &v, 8);
}

/* Found by fuzz-pymem: an f_lasti near INT_MAX overflowed when doubled
 * (3.10 counts code units), and a thread without frames made the walker
 * add 0 to a NULL pool. Both give a thread, a frame of unknown line. */
static void test_hostile_walk(void)
{
	struct py_proc *p = calloc(1, sizeof(*p));
	struct py_mem m = { fake_read, NULL };
	struct py_snapshot s = { 0 };
	struct ps_error e;
	const uint64_t rt = 0x10000, interp = 0x10400, ts = 0x10800, fr = 0x10c00, code = 0x11000;

	p->minor = 10;
	p->runtime = rt;
	p->L = *py_layout_table(10);
	memset(space, 0, sizeof(space));
	put64(rt + p->L.rt_interp_head, interp);
	put64(interp + p->L.is_tstate_head, ts);
	put64(ts + p->L.ts_frame, 0);
	is_int(py_snapshot_take(p, &m, NULL, &s, &e), 0, "a thread state without frames: read");
	ok(s.n == 1 && s.threads[0].n == 0 && !s.threads[0].frames && !s.threads[0].error,
	   "... one thread, no frames, no pool");
	put64(ts + p->L.ts_frame, fr);
	put64(fr + p->L.fr_code, code);
	int32_t lasti = 1493172224;
	memcpy(space + (fr + p->L.fr_instr - 0x10000), &lasti, 4);
	is_int(py_snapshot_take(p, &m, NULL, &s, &e), 0, "an f_lasti near INT_MAX: read");
	ok(s.n == 1 && s.threads[0].n == 1 && s.threads[0].frames[0].lasti == -1,
	   "... its instruction is unknown, not an overflowed offset");
	py_snapshot_free(&s);
	py_proc_free(p);
}

int main(void)
{
	test_lines();
	test_unicode();
	test_layouts();
	test_cache();
	test_hostile_walk();
	return tap_done();
}
