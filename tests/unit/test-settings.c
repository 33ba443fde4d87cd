/* pscoperc (parse, format, load, save: a broken file is reported and left
 * alone), colour schemes, and the parsers behind the new list columns and
 * actions: /proc/PID/io, TTY names, rates, container names, CPU lists and
 * I/O priorities. */
#include "settings.h"
#include "theme.h"
#include "actions.h"
#include "proc/io.h"
#include "proc/ptable.h"
#include "pane/pane.h"
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static void test_settings(void)
{
	struct pscope_config c, d;
	struct ps_error e;
	char buf[4096], buf2[4096];

	cfg_defaults(&c);
	is_int(c.ncolumns, 12, "defaults: the twelve classic columns");
	ok(c.hide_kthreads && c.hide_uthreads, "defaults: kernel and userland threads hidden, as htop's K");
	is_int(c.sort_key, PSORT_CPU, "defaults: sorted by CPU%%");

	/* round trip of everything */
	c.ncolumns = 0;
	c.columns[c.ncolumns++] = PSORT_PID;
	c.columns[c.ncolumns++] = PSORT_IO_READ;
	c.columns[c.ncolumns++] = PSORT_CONTAINER;
	c.columns[c.ncolumns++] = PSORT_COMMAND;
	c.sort_key = PSORT_CTXT;
	c.sort_desc = false;
	c.tree = true;
	c.hide_kthreads = false;
	c.delay_tenths = 7;
	c.meters = 1u << CFG_M_LOAD | 1u << CFG_M_CPUS;
	snprintf(c.theme, sizeof(c.theme), "monochrome");
	c.pane_order[0] = 4, c.pane_order[4] = 0;
	size_t n = cfg_format(&c, buf, sizeof(buf));
	ok(n < sizeof(buf), "format fits");
	ok(strstr(buf, "columns=pid io_read_rate container command\n") != NULL, "columns by name, in order");
	ok(cfg_parse(buf, n, &d, &e) == 0, "what we write parses");
	cfg_format(&d, buf2, sizeof(buf2));
	is_str(buf2, buf, "round trip: the same text");
	is_int(d.sort_key, PSORT_CTXT, "sort key kept");
	ok(!d.sort_desc && d.tree && !d.hide_kthreads && d.hide_uthreads, "flags kept");
	is_int(d.delay_tenths, 7, "delay kept");
	is_int(d.meters, 1u << CFG_M_LOAD | 1u << CFG_M_CPUS, "meters kept");
	is_str(d.theme, "monochrome", "colour scheme kept");
	is_int(d.pane_order[0], 4, "pane order kept");

	for (int i = 0; i < PANE_COUNT; i++)
		is_str(cfg_pane_name(i), pane_descs[i]->name, "pane_order names follow the pane registry (%d)", i);

	/* comments, blanks, CRLF, spaces around = */
	const char *ok1 = "# hi\n\n  sort_key = mem\r\ntree_view=yes\n";
	ok(cfg_parse(ok1, strlen(ok1), &d, &e) == 0 && d.sort_key == PSORT_MEM && d.tree, "comments, CRLF, spaces");

	static const struct {
		const char *text, *why;
	} bad[] = {
		{ "sort_key=cpu\nthis is not a setting\n", "line 2: no '='" },
		{ "columns=pid nosuch\n", "line 1: unknown column 'nosuch'" },
		{ "columns=pid pid\n", "column 'pid' twice" },
		{ "delay=0\n", "delay is 1..600" },
		{ "tree_view=maybe\n", "tree_view is 0 or 1" },
		{ "frobnicate=1\nsort_key=zzz\n", "line 2: unknown sort key 'zzz'" },
		{ "pane_order=fd status fd\n", "pane 'fd' twice" },
		{ "color_scheme=../../etc/passwd\n", "bad color_scheme name" },
		{ "config_version=9\n", "unsupported config_version" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ps_error_clear(&e);
		int r = cfg_parse(bad[i].text, strlen(bad[i].text), &d, &e);
		ok(r == -EINVAL && strstr(e.msg, bad[i].why), "refused: %s (%s)", bad[i].why, e.msg);
		is_int(d.sort_key, PSORT_CPU, "refused file: defaults in effect");
	}
	ok(cfg_parse("a\0b", 3, &d, &e) == -EINVAL, "a NUL byte: not a text file");

	/* A pane_order that leaves panes out (written before they were added)
	 * or names one this pscope does not have (a newer one's) still loads:
	 * the missing ones follow, the unknown one is warned about. */
	const char *fewer = "pane_order=fd status\n";
	ok(cfg_parse(fewer, strlen(fewer), &d, &e) == 0, "pane_order naming fewer panes loads (%s)", e.msg);
	ok(d.pane_order[0] == PANE_ID_fd && d.pane_order[1] == PANE_ID_status && d.pane_order[2] == PANE_ID_maps &&
		   d.pane_order[PANE_COUNT - 1] == PANE_COUNT - 1 && !d.warning[0],
	   "... its panes first, the others after them in registry order, no warning");
	const char *unknown = "pane_order=threads gpu fd\n";
	ok(cfg_parse(unknown, strlen(unknown), &d, &e) == 0, "pane_order naming an unknown pane loads (%s)", e.msg);
	is_str(d.warning, "pscoperc line 1: pane_order: unknown pane 'gpu' (ignored)", "... with a warning naming it");
	ok(d.pane_order[0] == PANE_ID_threads && d.pane_order[1] == PANE_ID_fd && d.pane_order[2] == PANE_ID_status,
	   "... the known ones in its order, the rest after");
	cfg_format(&d, buf, sizeof(buf));
	ok(strstr(buf, "\npane_order=threads fd status maps mem") != NULL, "... and written back with every pane");

	/* An unknown key (a newer pscope's): a warning, the rest applies, the
	 * line is written back as it was. */
	const char *newer = "sort_key=mem\n  unknown_key = 5 \r\ntree_view=1\n";
	ps_error_clear(&e);
	ok(cfg_parse(newer, strlen(newer), &d, &e) == 0, "an unknown key is no error (%s)", e.msg);
	ok(d.sort_key == PSORT_MEM && d.tree, "an unknown key: the other settings apply");
	is_str(d.warning, "pscoperc line 2: unknown setting 'unknown_key' (ignored, kept in the file)",
	       "an unknown key: warned with its line and name");
	is_str(d.unknown, "  unknown_key = 5 \n", "the line kept as it was");
	n = cfg_format(&d, buf, sizeof(buf));
	ok(strstr(buf, "\n  unknown_key = 5 \n") != NULL && strstr(buf, "sort_key=mem\n"), "and written back");
	struct pscope_config d2;
	ok(cfg_parse(buf, n, &d2, &e) == 0 && !strcmp(d2.unknown, d.unknown), "which parses again, kept again");
	const char *two = "a_key=1\nsort_key=pid\nb_key=2\nc_key=3\n";
	ok(cfg_parse(two, strlen(two), &d, &e) == 0 &&
		   !strcmp(d.warning, "pscoperc line 1: unknown setting 'a_key' and 2 more (ignored, kept in the file)"),
	   "three unknown keys: the first named, the others counted (%s)", d.warning);
	is_str(d.unknown, "a_key=1\nb_key=2\nc_key=3\n", "all three kept, in order");
	cfg_defaults(&d2);
	ok(!d2.warning[0] && !d2.unknown[0], "defaults: no warning, nothing kept");
	char many[8192];
	size_t o = 0;
	for (int i = 0; i < 200; i++)
		o += (size_t)snprintf(many + o, sizeof(many) - o, "future_setting_%03d=1\n", i);
	ps_error_clear(&e);
	ok(cfg_parse(many, o, &d, &e) == -E2BIG && strstr(e.msg, "too many unknown settings"),
	   "more unknown lines than can be kept: refused (so never lost on a save) (%s)", e.msg);
	const char *badval = "unknown_key=5\ndelay=abc\n";
	ok(cfg_parse(badval, strlen(badval), &d, &e) == -EINVAL && strstr(e.msg, "line 2: delay is"),
	   "a bad value for a known key is still an error (%s)", e.msg);

	/* path */
	setenv("XDG_CONFIG_HOME", "/x/y", 1);
	ok(cfg_path(buf, sizeof(buf)) == 0 && !strcmp(buf, "/x/y/pscope/pscoperc"), "XDG_CONFIG_HOME (%s)", buf);
	setenv("XDG_CONFIG_HOME", "relative", 1);
	setenv("HOME", "/home/u", 1);
	ok(cfg_path(buf, sizeof(buf)) == 0 && !strcmp(buf, "/home/u/.config/pscope/pscoperc"),
	   "a relative XDG_CONFIG_HOME is ignored: ~/.config (%s)", buf);

	/* load and save */
	char dir[] = "/tmp/pscope-test-settings.XXXXXX", path[256], text[256];
	ok(mkdtemp(dir) != NULL, "temp dir");
	snprintf(path, sizeof(path), "%s/deep/pscope/pscoperc", dir);
	ok(cfg_load(path, &d, &e) == 1, "no file: defaults, not an error");
	ok(cfg_save(path, &c, &e) == 0, "save creates the directories (%s)", e.msg);
	struct stat sb;
	ok(stat(path, &sb) == 0 && (sb.st_mode & 0777) == 0600, "written mode 0600");
	ok(cfg_load(path, &d, &e) == 0 && d.sort_key == PSORT_CTXT, "load reads it back");
	int fd = open(path, O_WRONLY | O_TRUNC);
	const char *corrupt = "sort_key=cpu\ncolumns=pid ???\n";
	ok(fd >= 0 && write(fd, corrupt, strlen(corrupt)) == (ssize_t)strlen(corrupt), "corrupt it");
	close(fd);
	ps_error_clear(&e);
	ok(cfg_load(path, &d, &e) < 0 && strstr(e.msg, "line 2"), "corrupt file reported with its line (%s)", e.msg);
	fd = open(path, O_RDONLY);
	ssize_t got = read(fd, text, sizeof(text) - 1);
	close(fd);
	text[got > 0 ? got : 0] = '\0';
	is_str(text, corrupt, "loading never rewrites the file");
	snprintf(text, sizeof(text), "rm -rf '%s'", dir);
	ok(system(text) == 0, "cleanup");
}

/* What is written on quit: the file, plus what the session changed; what
 * the command line alone set keeps the file's value. */
static void test_merge(void)
{
	struct pscope_config file, start, now, out;

	cfg_defaults(&file);
	file.sort_key = PSORT_MEM;
	file.delay_tenths = 20;
	start = file; /* -d 50 -s pid -t */
	start.delay_tenths = 50;
	start.sort_key = PSORT_PID;
	start.sort_desc = false;
	start.tree = true;
	now = start;
	ok(!cfg_merge(&out, &file, &start, &now), "options only: nothing to write");
	ok(cfg_same(&out, &file) && out.delay_tenths == 20 && out.sort_key == PSORT_MEM && !out.tree,
	   "options only: the file's delay, sort and tree");
	now.sort_key = PSORT_TIME;
	now.sort_desc = true;
	ok(cfg_merge(&out, &file, &start, &now), "a sort changed in the session: written");
	ok(out.sort_key == PSORT_TIME && out.sort_desc, "the session's sort");
	ok(out.delay_tenths == 20 && !out.tree, "the options' delay and tree not written");
	now = start;
	now.sort_desc = true; /* I on the option's PID sort: the sort as a whole */
	ok(cfg_merge(&out, &file, &start, &now) && out.sort_key == PSORT_PID && out.sort_desc,
	   "the direction changed: key and direction saved together");
	now = start;
	now.tree = false; /* t toggled off in a session started with -t */
	ok(!cfg_merge(&out, &file, &start, &now) && !out.tree, "back to the file's value: nothing to write");
	now = start;
	now.ncolumns--;
	now.meters = 0;
	snprintf(now.theme, sizeof(now.theme), "monochrome");
	ok(cfg_merge(&out, &file, &start, &now) && out.ncolumns == file.ncolumns - 1 && !out.meters &&
		   !strcmp(out.theme, "monochrome") && out.delay_tenths == 20,
	   "F2's columns, meters and scheme written, the option's delay not");
}

static void test_theme(void)
{
	struct theme t;
	struct ps_error e;
	const char *good = "# x\nselect default default reverse bold\nheader white blue\n";

	ok(theme_parse(good, strlen(good), &t, &e) == 0, "theme parses");
	ok(t.role[2].fg == -1 && t.role[2].attrs == (THEME_REVERSE | THEME_BOLD), "select: reverse bold, no colour");
	ok(t.role[1].fg == 7 && t.role[1].bg == 4, "header: white on blue");
	ok(t.role[0].fg == -1, "roles not named keep the default");
	ok(theme_parse("nosuch red blue\n", 16, &t, &e) == -EINVAL, "unknown role refused");
	ok(theme_parse("select pink blue\n", 17, &t, &e) == -EINVAL, "unknown colour refused");
	ok(theme_parse("select red blue blink\n", 22, &t, &e) == -EINVAL, "unknown attribute refused");
	static const char *const names[] = { "default", "monochrome", "black-on-white" };
	for (int i = 0; i < 3; i++)
		ok(theme_load(names[i], &t, &e) == 0, "data/themes/%s.theme loads (%s)", names[i], e.msg);
	ok(theme_load("monochrome", &t, &e) == 0 && t.role[2].fg == -1 && t.role[2].bg == -1 &&
		   (t.role[2].attrs & THEME_REVERSE),
	   "monochrome: the selection in reverse video, no colour");
	ok(theme_load("../etc", &t, &e) < 0, "a path is not a scheme name");
}

static void test_columns(void)
{
	struct proc_io io;
	char b[64];
	const char *iot = "rchar: 100\nwchar: 200\nsyscr: 3\nsyscw: 4\nread_bytes: 4096\nwrite_bytes: 8192\n"
			  "cancelled_write_bytes: 0\n";

	ok(proc_io_parse(iot, strlen(iot), &io) == 0, "/proc/PID/io parses");
	ok(io.read_bytes == 4096 && io.write_bytes == 8192 && io.rchar == 100, "read_bytes, write_bytes, rchar");
	ok(proc_io_parse("rchar: 1\n", 9, &io) == -EINVAL, "without read_bytes: refused");

	is_str(proc_fmt_tty(0, b, sizeof(b)), "?", "no tty");
	is_str(proc_fmt_tty(136 << 8 | 3, b, sizeof(b)), "pts/3", "pts/3");
	is_str(proc_fmt_tty(4 << 8 | 1, b, sizeof(b)), "tty1", "tty1");
	is_str(proc_fmt_tty(4 << 8 | 64, b, sizeof(b)), "ttyS0", "ttyS0");
	is_str(proc_fmt_rate(0, b, sizeof(b)), "0", "rate 0");
	is_str(proc_fmt_rate(2048, b, sizeof(b)), "2.0K", "rate 2 KiB/s");
	is_str(proc_fmt_rate(5.5 * 1024 * 1024, b, sizeof(b)), "5.5M", "rate 5.5 MiB/s");

	static const struct {
		const char *path, *want;
	} ct[] = {
		{ "/system.slice/docker-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope", "0123456789ab" },
		{ "/docker/fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210", "fedcba987654" },
		{ "/kubepods/burstable/pod1234/abcdefabcdef0123456789", "abcdefabcdef" },
		{ "/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-aaaabbbbccccdddd.scope", "aaaabbbbcccc" },
		{ "/lxc/web1", "web1" },
		{ "/lxc.payload.db2/init.scope", "db2" },
		{ "/machine.slice/machine-box.scope", "box" },
		{ "/user.slice/user-0.slice/session-3.scope", "" },
		{ "/", "" },
	};
	for (size_t i = 0; i < sizeof(ct) / sizeof(ct[0]); i++) {
		proc_cgroup_container(ct[i].path, b, sizeof(b));
		is_str(b, ct[i].want, "container of %s", ct[i].path);
	}
	for (int k = 0; k < PSORT_COUNT; k++)
		ok(proc_sort_parse(proc_sort_name((enum proc_sort)k)) == k &&
			   proc_sort_parse(proc_sort_title((enum proc_sort)k)) == k,
		   "column %s / %s parses back", proc_sort_name((enum proc_sort)k), proc_sort_title((enum proc_sort)k));
	ok(proc_sort_extra(PSORT_IO_READ) == PX_IO && proc_sort_extra(PSORT_PID) == 0,
	   "IO columns need /proc/PID/io; PID needs nothing beyond stat");
}

static void test_actions(void)
{
	cpu_set_t s;
	char b[64];
	int cls, lvl;

	ok(act_cpulist_parse("0-2,5", 8, &s) == 0 && CPU_COUNT(&s) == 4 && CPU_ISSET(5, &s), "0-2,5");
	is_str(act_cpulist_fmt(&s, b, sizeof(b)), "0-2,5", "formatted back");
	ok(act_cpulist_parse("9", 8, &s) == -EINVAL, "a CPU beyond the machine refused");
	ok(act_cpulist_parse("3-1", 8, &s) == -EINVAL, "backwards range refused");
	ok(act_cpulist_parse("", 8, &s) == -EINVAL, "empty set refused");
	ok(act_cpulist_parse("1,x", 8, &s) == -EINVAL, "garbage refused");
	ok(act_ioprio_parse("be4", &cls, &lvl) == 0 && cls == ACT_IOPRIO_BE && lvl == 4, "be4");
	ok(act_ioprio_parse("rt 0", &cls, &lvl) == 0 && cls == ACT_IOPRIO_RT && lvl == 0, "rt 0");
	ok(act_ioprio_parse("idle", &cls, &lvl) == 0 && cls == ACT_IOPRIO_IDLE, "idle");
	ok(act_ioprio_parse("be8", &cls, &lvl) == -EINVAL, "be8 refused");
	is_str(act_ioprio_fmt(ACT_IOPRIO_BE, 7, b, sizeof(b)), "be7", "be7 formatted");
}

int main(void)
{
	test_settings();
	test_merge();
	test_theme();
	test_columns();
	test_actions();
	return tap_done();
}
