/* The pane registry drives everything about a pane: built here with one
 * pane more (tests/unit/pane-scratch.c, and PANE(scratch) added to a copy
 * of src/pane/panes.h -- nothing else), the new pane has its place, its
 * name for `pscope show --pane` and pscoperc, and a pscoperc written
 * before it existed still loads, the new pane after the others. */
#include "pane/pane.h"
#include "settings.h"
#include "tap.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

int main(void)
{
	struct pscope_config c;
	struct ps_error e;
	char buf[4096], names[256], path[4096];

	is_int(PANE_COUNT, 6, "the registry has the five panes and the new one");
	ok(pane_descs[PANE_ID_scratch] == &pane_desc_scratch && PANE_ID_scratch == PANE_COUNT - 1,
	   "the new pane is last in tab order, where its name is in the list");
	ok(pane_descs[PANE_ID_status] == &pane_desc_status && pane_descs[PANE_ID_threads] == &pane_desc_threads,
	   "the others keep their places");
	is_int(pane_find("scratch", false), PANE_ID_scratch, "found by its name");
	is_int(pane_find("throwaway", true), PANE_ID_scratch, "... and by its alias, for --pane");
	is_int(pane_find("throwaway", false), -1, "... but not by its alias in pscoperc");
	is_str(pane_names(names, sizeof(names), false), "status, fd, maps, mem, threads, scratch",
	       "the names `pscope show --pane` lists");
	is_str(pane_names(names, sizeof(names), true), "status, fds, maps, memory, threads, scratch",
	       "the titles `pscope --help` lists");
	is_str(cfg_pane_name(PANE_ID_scratch), "scratch", "its pscoperc name");

	cfg_defaults(&c);
	is_int(c.pane_order[PANE_COUNT - 1], PANE_ID_scratch, "by default it is the last tab");

	/* A pscoperc that a pscope with five panes wrote. */
	const char *top = getenv("top_srcdir");
	snprintf(path, sizeof(path), "%s/tests/fixtures/pscoperc-5-panes", top ? top : ".");
	ps_error_clear(&e);
	is_int(cfg_load(path, &c, &e), 0, "the old pscoperc loads (%s)", e.msg);
	ok(!c.warning[0], "... without a warning (%s)", c.warning);
	is_int(c.sort_key, PSORT_MEM, "... its settings apply");
	ok(c.pane_order[0] == PANE_ID_threads && c.pane_order[1] == PANE_ID_fd && c.pane_order[4] == PANE_ID_status,
	   "... its pane order kept");
	is_int(c.pane_order[5], PANE_ID_scratch, "... and the new pane after them");
	size_t n = cfg_format(&c, buf, sizeof(buf));
	ok(n < sizeof(buf) && strstr(buf, "\npane_order=threads fd maps mem status scratch\n"),
	   "written back with the new pane");

	/* And a pscoperc of a pscope with a pane this one lacks. */
	const char *newer = "pane_order=scratch gpu fd\n";
	ok(cfg_parse(newer, strlen(newer), &c, &e) == 0 && c.pane_order[0] == PANE_ID_scratch &&
		   c.pane_order[1] == PANE_ID_fd && c.pane_order[2] == PANE_ID_status,
	   "an unknown pane is ignored, the missing ones appended");
	is_str(c.warning, "pscoperc line 1: pane_order: unknown pane 'gpu' (ignored)", "... and warned about");
	return tap_done();
}
