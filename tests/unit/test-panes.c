/* The pane registry drives everything about a pane: built here with one
 * pane more (tests/unit/pane-throwaway.c, and PANE(throwaway) added to a copy
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

	ok(PANE_COUNT >= 6, "the registry has the five panes and the new one (%d)", PANE_COUNT);
	ok(pane_descs[PANE_ID_throwaway] == &pane_desc_throwaway && PANE_ID_throwaway == PANE_COUNT - 1,
	   "the new pane is last in tab order, where its name is in the list");
	ok(pane_descs[PANE_ID_status] == &pane_desc_status && pane_descs[PANE_ID_threads] == &pane_desc_threads,
	   "the others keep their places");
	is_int(pane_find("throwaway", false), PANE_ID_throwaway, "found by its name");
	is_int(pane_find("thrown", true), PANE_ID_throwaway, "... and by its alias, for --pane");
	is_int(pane_find("thrown", false), -1, "... but not by its alias in pscoperc");
	pane_names(names, sizeof(names), false);
	ok(!strncmp(names, "status, fd, maps, mem, threads, ", 32) && strstr(names, ", throwaway") &&
		   !strcmp(strstr(names, ", throwaway"), ", throwaway"),
	   "the names `pscope show --pane` lists, the new one last (%s)", names);
	pane_names(names, sizeof(names), true);
	ok(!strncmp(names, "status, fds, maps, memory, threads, ", 36) && strstr(names, ", throwaway"),
	   "the titles `pscope --help` lists (%s)", names);
	is_str(cfg_pane_name(PANE_ID_throwaway), "throwaway", "its pscoperc name");

	cfg_defaults(&c);
	is_int(c.pane_order[PANE_COUNT - 1], PANE_ID_throwaway, "by default it is the last tab");

	/* A pscoperc that a pscope with five panes wrote. */
	const char *top = getenv("top_srcdir");
	snprintf(path, sizeof(path), "%s/tests/fixtures/pscoperc-5-panes", top ? top : ".");
	ps_error_clear(&e);
	is_int(cfg_load(path, &c, &e), 0, "the old pscoperc loads (%s)", e.msg);
	ok(!c.warning[0], "... without a warning (%s)", c.warning);
	is_int(c.sort_key, PSORT_MEM, "... its settings apply");
	ok(c.pane_order[0] == PANE_ID_threads && c.pane_order[1] == PANE_ID_fd && c.pane_order[4] == PANE_ID_status,
	   "... its pane order kept");
	bool after = true;
	for (int i = 5; i < PANE_COUNT; i++)
		after &= c.pane_order[i] == i; /* the panes it does not name, in registry order */
	ok(after && c.pane_order[PANE_COUNT - 1] == PANE_ID_throwaway, "... and the new pane after them");
	size_t n = cfg_format(&c, buf, sizeof(buf));
	ok(n < sizeof(buf) && strstr(buf, "\npane_order=threads fd maps mem status ") && strstr(buf, " throwaway\n"),
	   "written back with the new pane");

	/* And a pscoperc of a pscope with a pane this one lacks. */
	const char *newer = "pane_order=throwaway gpu fd\n";
	ok(cfg_parse(newer, strlen(newer), &c, &e) == 0 && c.pane_order[0] == PANE_ID_throwaway &&
		   c.pane_order[1] == PANE_ID_fd && c.pane_order[2] == PANE_ID_status,
	   "an unknown pane is ignored, the missing ones appended");
	is_str(c.warning, "pscoperc line 1: pane_order: unknown pane 'gpu' (ignored)", "... and warned about");
	return tap_done();
}
