/* Unit tests: /proc stat/status parsers, the escaper, errors. */
#include "tap.h"
#include "error.h"
#include "doors/doors.h"
#include "out/escape.h"
#include "out/json.h"
#include "out/save.h"
#include "proc/cgroup.h"
#include "proc/stat.h"
#include "proc/status.h"
#include "util.h"

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>
#include <locale.h>
#include <pthread.h>

static void test_stat(void)
{
	char buf[2048];
	size_t n = tap_fixture("stat-hostile.txt", buf, sizeof(buf));
	struct proc_stat st;

	is_int(proc_stat_parse(buf, n, &st), 0, "stat with ') ' in comm parses");
	is_str(st.comm, "evil) x (y)", "comm keeps its spaces and parentheses");
	is_int(st.state, 'S', "state after the last ')'");
	is_int(st.ppid, 1, "ppid");
	is_int(st.utime, 10, "utime");
	is_int(st.stime, 5, "stime");
	is_int(st.num_threads, 2, "threads");
	is_int(st.starttime, 987654, "starttime");
	is_int(st.vsize, 12345678, "vsize");
	is_int(st.rss, 300, "rss pages");
	is_int(st.processor, 1, "last cpu");
	is_int(proc_stat_parse("12 (x", 5, &st), -EINVAL, "truncated stat is refused");
	is_int(proc_stat_parse("", 0, &st), -EINVAL, "empty stat is refused");
}

static void test_status(void)
{
	const char *s = "Name:\tcat\nState:\tR (running)\nTgid:\t10\nPid:\t10\nPPid:\t1\n"
			"TracerPid:\t77\nUid:\t1000\t1001\t1002\t1003\nVmRSS:\t  1024 kB\n"
			"CapEff:\t000001ffffffffff\nSeccomp:\t2\n";
	struct proc_status st;

	is_int(proc_status_parse(s, strlen(s), &st), 0, "status parses");
	is_str(st.name, "cat", "Name");
	is_int(st.tracer_pid, 77, "TracerPid");
	is_int(st.uid_real, 1000, "real uid");
	is_int(st.uid_eff, 1001, "effective uid");
	is_int(st.vm_rss, 1024, "VmRSS kB");
	is_int(st.vm_size, -1, "absent VmSize is -1");
	ok(st.cap_eff == 0x1ffffffffffull, "CapEff hex");
	is_int(st.seccomp, 2, "Seccomp mode");
	is_int(st.nspid_n, 0, "no NSpid line: 0");

	const char *ns = "Name:\tx\nNSpid:\t4242\t77\t1\nNStgid:\t4242\t77\t1\n";
	is_int(proc_status_parse(ns, strlen(ns), &st), 0, "status with NSpid parses");
	is_int(st.nspid_n, 3, "NSpid: three namespaces");
	is_int(st.nspid[0], 4242, "NSpid: ours first");
	is_int(st.nspid[2], 1, "NSpid: its own last");
	const char *bad = "NSpid:\t12\t-3\t99999999999\n";
	is_int(proc_status_parse(bad, strlen(bad), &st), 0, "hostile NSpid parses");
	is_int(st.nspid_n, 1, "NSpid stops at the first bad number");
}

static void test_escape(void)
{
	char out[256];

	esc_display("\033]2;PWNED\007", 10, out, sizeof(out));
	is_str(out, "\\e]2;PWNED\\x07", "OSC title sequence made visible");
	esc_display("a\nb\tc", 5, out, sizeof(out));
	is_str(out, "a\\nb\\tc", "newline and tab escaped");
	esc_display("\xe2\x80\xae" "abc", 6, out, sizeof(out));
	is_str(out, "\\u202eabc", "bidi override made visible");
	esc_display("\xc2\x9b" "31m", 5, out, sizeof(out));
	is_str(out, "\\u009b31m", "C1 CSI made visible");
	esc_display("\xff\xfe", 2, out, sizeof(out));
	is_str(out, "\\xff\\xfe", "invalid UTF-8 bytes escaped");
	esc_display("\xed\x95\x9c\xea\xb8\x80", 6, out, sizeof(out));
	is_str(out, "\xed\x95\x9c\xea\xb8\x80", "Korean text kept");
	esc_display("\x7f", 1, out, sizeof(out));
	is_str(out, "\\x7f", "DEL escaped");
	esc_display("abcdef", 6, out, 4);
	is_str(out, "abc", "truncated, terminated");
	esc_display("\033\033", 2, out, 4);
	is_str(out, "\\e", "truncation never splits an escape");
	ok(!utf8_valid("\xc0\x80", 2), "overlong UTF-8 is invalid");

	/* JSON strings stay raw: a string with an invalid byte is not
	 * display-escaped, only that byte becomes U+FFFD. */
	struct json_object *o = json_object_new_object();
	out_json_str(o, "a", "x\033]2;T\007\xff y\\n\xc3\xa9");
	out_json_str(o, "b", "\033ok\t");
	is_str(json_object_get_string(json_object_object_get(o, "a")), "x\033]2;T\007\xef\xbf\xbd y\\n\xc3\xa9",
	       "JSON: invalid byte replaced, controls and backslashes raw");
	is_str(json_object_get_string(json_object_object_get(o, "b")), "\033ok\t", "JSON: valid string raw");
	json_object_put(o);
	char *r = utf8_repair("\xed\xa0\x80\xf4\x90\x80\x80", 7);
	is_str(r, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", "surrogates and > U+10FFFF: one U+FFFD per byte");
	free(r);
}

/* Columns measured by display width: Hangul takes two (wcwidth, in a UTF-8
 * locale), so translated headings and labels pad to the right column. */
static void test_width(void)
{
	const char *ko = "\xed\x95\x9c\xea\xb5\xad\xec\x96\xb4"; /* 3 syllables */

	if (!setlocale(LC_CTYPE, "C.UTF-8") && !setlocale(LC_CTYPE, "en_US.UTF-8")) {
		printf("ok %d - # SKIP no UTF-8 locale\n", ++tap_n);
		return;
	}
	is_int(text_width("abc"), 3, "ASCII: one column a byte");
	is_int(text_width(ko), 6, "Hangul: two columns a syllable");
	is_int(text_width("a\xff" "b"), 3, "a byte that is not UTF-8 takes one column");
	is_str(pad(ko, 8), "\xed\x95\x9c\xea\xb5\xad\xec\x96\xb4  ", "left-aligned: padded to 8 columns, not 8 bytes");
	is_str(pad(ko, -7), " \xed\x95\x9c\xea\xb5\xad\xec\x96\xb4", "right-aligned: padded to 7 columns");
	is_str(pad("abcdef", 3), "abcdef", "wider than the field: never cut");
	is_str(pad("ab", 4), "ab  ", "as %%-4s for ASCII");
	is_int(text_fit(ko, 5), 6, "fit in 5 columns: two syllables (6 bytes), not a split one");
	is_int(text_fit(ko, 1), 0, "fit in 1 column: nothing");
	is_int(text_fit("abc", 10), 3, "fit: all of a short string");
	setlocale(LC_CTYPE, "C");
}

static void test_error(void)
{
	struct ps_error e;
	char buf[1024];

	is_int(ps_error_set(&e, EPERM, "cannot %s", "x"), -EPERM, "ps_error_set returns -code");
	is_str(e.msg, "cannot x", "message formatted");
	e.door = DOOR_PTRACE_SCOPE;
	snprintf(e.fix, sizeof(e.fix), "sysctl");
	is_str(ps_error_str(&e, buf, sizeof(buf)), "cannot x (door: kernel.yama.ptrace_scope; fix: sysctl)",
	       "error sentence names the door and the fix");
}

struct esc_run {
	const char *first, *text;
	bool kept;
};

static void *esc_thread(void *p)
{
	struct esc_run *r = p;

	r->first = esc("a\nb");
	for (int i = 0; i < 15; i++)
		esc("x");
	r->kept = !strcmp(r->first, "a\\nb");
	r->text = pad("ab", 4);
	r->kept = r->kept && !strcmp(r->text, "ab  ");
	return NULL;
}

/* esc() and pad() keep 16 rotating buffers per thread, allocated at the
 * thread's first call (not in every thread's TLS) and freed at its exit. */
static void test_esc_threads(void)
{
	const char *mine = esc("main");
	struct esc_run runs[2] = { { 0 } };
	pthread_t th[2];

	for (int i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, esc_thread, &runs[i]);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	ok(runs[0].kept && runs[1].kept, "a thread's esc result holds for 15 more calls; pad works there too");
	is_str(mine, "main", "another thread's calls leave this thread's buffers alone");
	for (int i = 0; i < 16; i++)
		esc("y");
	is_str(mine, "y", "the 17th call reuses the first buffer");
}

/* A library opened at first use: found, or the reason it is not. */
static char *(*zlib_version)(void);
static void *nosuch_fn;

static void test_lazy_lib(void)
{
	static const struct lazy_sym zsyms[] = { { "zlibVersion", (void **)&zlib_version }, { NULL, NULL } };
	static const struct lazy_sym bad[] = { { "zlibVersion", (void **)&zlib_version },
					       { "pscope_no_such_function", &nosuch_fn }, { NULL, NULL } };
	static struct lazy_lib z = { .soname = "libz.so.1", .package = "zlib1g", .syms = zsyms,
				     .lock = PTHREAD_MUTEX_INITIALIZER };
	static struct lazy_lib none = { .soname = "libpscope-no-such-library.so.9", .package = "none",
					.syms = zsyms, .lock = PTHREAD_MUTEX_INITIALIZER };
	static struct lazy_lib nofn = { .soname = "libz.so.1", .package = "zlib1g", .syms = bad,
					.lock = PTHREAD_MUTEX_INITIALIZER };

	ok(lazy_lib_open(&z), "libz.so.1 opened");
	ok(zlib_version && zlib_version()[0] == '1', "its function found and called (zlib %s)",
	   zlib_version ? zlib_version() : "?");
	ok(lazy_lib_open(&z), "a second call: still open");
	ok(!lazy_lib_open(&none), "a library that is not there: false");
	ok(strstr(none.why, "libpscope-no-such-library.so.9") != NULL, "... dlerror names it (%s)", none.why);
	ok(!lazy_lib_open(&nofn), "a function that is not there: false");
	ok(strstr(nofn.why, "pscope_no_such_function") != NULL, "... dlerror names it (%s)", nofn.why);
}

/* One shell word, for a command the user pastes (the core's gdb line). */
static void test_shell_word(void)
{
	char b[64];

	is_str(shell_word("/tmp/core.x.1", b, sizeof(b)), "/tmp/core.x.1", "a plain path stays as is");
	is_str(shell_word("/tmp/a b/core", b, sizeof(b)), "'/tmp/a b/core'", "a space: quoted");
	is_str(shell_word("/tmp/it's", b, sizeof(b)), "'/tmp/it'\\''s'", "a quote inside: '\\''");
	is_str(shell_word("$(rm x)`;&|*?~", b, sizeof(b)), "'$(rm x)`;&|*?~'", "shell syntax: quoted, inert");
	is_str(shell_word("", b, sizeof(b)), "''", "empty: ''");
	is_str(shell_word("/tmp/a b c d e f", b, 8), "'/tmp/a", "cut to fit");
}

static int write_hello(FILE *f, void *arg)
{
	return fputs(arg, f) < 0 ? -EIO : 0;
}

/* Safe writes (src/out/save.c): refused directories, a symlink at the
 * destination replaced rather than followed, nothing left behind. */
static void test_save(void)
{
	char base[] = "/tmp/pscope-test-save.XXXXXX", p[256], q[256], buf[64] = { 0 };
	struct ps_error e;

	ok(mkdtemp(base) != NULL, "a scratch directory");
	snprintf(p, sizeof(p), "%s/open", base);
	mkdir(p, 0700);
	chmod(p, 0777);
	ok(out_dir_open(p, &e) == -EPERM && strstr(e.msg, "without the sticky bit"), "0777 without sticky: refused (%s)", e.msg);
	chmod(p, 01777);
	int fd = out_dir_open(p, &e);
	ok(fd >= 0, "with the sticky bit: opened");
	if (fd >= 0)
		close(fd);
	snprintf(q, sizeof(q), "%s/link", base);
	ok(symlink(p, q) == 0 && (fd = out_dir_open(q, &e)) >= 0, "a link of our own is followed");
	if (fd >= 0)
		close(fd);
	snprintf(p, sizeof(p), "%s/target", base);
	snprintf(q, sizeof(q), "%s/out.txt", base);
	FILE *t = fopen(p, "w");
	fputs("keep", t);
	fclose(t);
	ok(symlink(p, q) == 0, "out.txt: a link to another file");
	ok(out_save(q, write_hello, "hello", &e) == 0, "out_save writes over it");
	struct stat st;
	ok(lstat(q, &st) == 0 && S_ISREG(st.st_mode), "... the link itself replaced by the file");
	t = fopen(p, "r");
	ok(t && fgets(buf, sizeof(buf), t) && !strcmp(buf, "keep"), "... the file it pointed to untouched");
	if (t)
		fclose(t);
	ok(out_save(base, write_hello, "x", &e) < 0, "a directory as the file: refused");
	snprintf(p, sizeof(p), "%s/none/x", base);
	ok(out_save(p, write_hello, "x", &e) == -ENOENT && strstr(e.msg, p), "a missing directory: named (%s)", e.msg);
	fd = out_scratch(base, &e);
	ok(fd >= 0 && write(fd, "s", 1) == 1, "a scratch file");
	if (fd >= 0)
		close(fd);
	/* A recording's way: begun unnamed, given up or named without
	 * replacing. */
	struct out_dest d;
	snprintf(p, sizeof(p), "%s/rec", base);
	ok(out_dest_begin(&d, p, "t", 0644, &e) == 0 && write(d.f.fd, "r", 1) == 1, "out_dest_begin: a file to write");
	out_dest_abort(&d);
	ok(access(p, F_OK) < 0, "... given up: no name");
	ok(out_dest_begin(&d, q, "t", 0644, &e) == 0, "out_dest_begin onto an existing name");
	ok(out_dest_commit(&d, false, &e) == -EEXIST && strstr(e.msg, "already exists: pscope never overwrites it"),
	   "... named without replacing: refused (%s)", e.msg);
	out_dest_abort(&d);
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "test \"$(ls -A %s | tr '\\n' ' ')\" = 'link open out.txt target '", base);
	ok(system(cmd) == 0, "nothing else left in the directory");
	if (geteuid() == 0) {
		/* Another user's directory, another user's name in a sticky one. */
		snprintf(p, sizeof(p), "%s/theirs", base);
		ok(mkdir(p, 0755) == 0 && chown(p, 65534, 65534) == 0, "a directory of uid 65534's");
		ok(out_dir_open(p, &e) == -EPERM && strstr(e.msg, "(uid 65534), mode 0755) belongs to another user"),
		   "... refused, naming its owner and mode (%s)", e.msg);
		snprintf(p, sizeof(p), "%s/open/f", base);
		t = fopen(p, "w");
		fputs("theirs", t);
		fclose(t);
		ok(chown(p, 65534, 65534) == 0, "a file of uid 65534's in a sticky directory");
		ok(out_save(p, write_hello, "x", &e) == -EEXIST && strstr(e.msg, "does not replace another user's file"),
		   "... never replaced (%s)", e.msg);
		t = fopen(p, "r");
		ok(t && fgets(buf, sizeof(buf), t) && !strcmp(buf, "theirs"), "... and untouched");
		if (t)
			fclose(t);
		ok(chown(p, 0, 0) == 0 && out_save(p, write_hello, "ours", &e) == 0, "root's own there: replaced");
	} else {
		for (int i = 0; i < 6; i++)
			printf("ok %d - # SKIP not root: no file of another user's to make\n", ++tap_n);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", base);
	system(cmd);
}

static void test_cgroup(void)
{
	struct proc_cgroup cg;
	const char *v2 = "0::/user.slice/user-1000.slice/user@1000.service/app.slice/foo.service\n";
	const char *hybrid = "4:memory:/machine/x\n1:name=systemd:/system.slice/ssh.service\n0::/system.slice/ssh.service\n";
	const char *docker = "0::/system.slice/docker-0123abcd.scope";

	proc_cgroup_parse(v2, strlen(v2), &cg);
	is_str(cg.path, "/user.slice/user-1000.slice/user@1000.service/app.slice/foo.service", "cgroup v2: the path");
	is_str(cg.unit, "foo.service", "... the deepest unit (a service under the user's manager)");
	is_str(cg.slice, "app.slice", "... and its slice");
	proc_cgroup_parse(hybrid, strlen(hybrid), &cg);
	is_str(cg.path, "/system.slice/ssh.service", "hybrid hierarchy: the unified (0::) line");
	is_str(cg.unit, "ssh.service", "... ssh.service");
	is_str(cg.v2, "/system.slice/ssh.service", "... and the unified path");
	proc_cgroup_parse(docker, strlen(docker), &cg);
	is_str(cg.unit, "docker-0123abcd.scope", "a scope without a newline at the end");
	is_str(cg.slice, "system.slice", "... in system.slice");
	proc_cgroup_parse("4:memory:/a\n", 12, &cg);
	ok(!strcmp(cg.path, "/a") && !cg.unit[0] && !cg.slice[0] && !cg.v2[0], "cgroup v1 only: the first line's path, no unit, no unified path");
	const char *legacy = "2:cpu:/\n1:name=systemd:/system.slice/cron.service\n0::/\n";
	proc_cgroup_parse(legacy, strlen(legacy), &cg);
	ok(!strcmp(cg.path, "/system.slice/cron.service") && !strcmp(cg.unit, "cron.service"),
	   "v1 layout (0:: is /): systemd's own hierarchy names the unit");
	is_str(cg.v2, "/", "... the unified path is still the root's");
	proc_cgroup_parse("0::/\n", 5, &cg);
	ok(!strcmp(cg.path, "/") && !cg.unit[0], "the root cgroup: no unit");
	proc_cgroup_parse("garbage", 7, &cg);
	ok(!cg.path[0] && !cg.unit[0], "no ID:CONTROLLERS:PATH line: nothing");
	proc_cgroup_parse("0::/a.service", 8, &cg);
	is_str(cg.path, "/a.se", "only len bytes are read");
}

int main(void)
{
	test_cgroup();
	test_shell_word();
	test_stat();
	test_status();
	test_escape();
	test_width();
	test_error();
	test_esc_threads();
	test_lazy_lib();
	test_save();
	return tap_done();
}
