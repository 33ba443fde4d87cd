/* Unit tests: `pscope doors --report`'s Markdown, exactly, for two fixed
 * reports (an instructor's root shell on a Debian machine; a student's
 * shell in a sandbox, with a probed process), in English and in Korean.
 * The expected files are tests/fixtures/doors-report/NAME.LANG.md. */
#include "tap.h"
#include "config.h"
#include "doors/doors.h"
#include "doors/report.h"
#include "error.h"
#include "i18n.h"

#include <linux/capability.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static struct door_report root_report(void)
{
	struct door_report r;

	memset(&r, 0, sizeof(r));
	snprintf(r.sys.kernel, sizeof(r.sys.kernel), "Linux 6.1.0-28-amd64 #1 SMP PREEMPT_DYNAMIC Debian 6.1.119-1 x86_64");
	r.sys.k.ptrace_scope = -1;
	r.sys.k.perf_paranoid = 3;
	r.sys.k.kptr_restrict = 0;
	r.sys.k.perf_max_sample_rate = 100000;
	r.sys.debian_kernel = true;
	snprintf(r.sys.core_pattern, sizeof(r.sys.core_pattern), "core");
	r.sys.perf_mlock_kb = 516;
	r.sys.suid_dumpable = 0;
	r.sys.pmu = 0;
	r.self.pid = 100;
	r.self.cap_eff = r.self.cap_prm = (1ull << 41) - 1;
	r.probed_at = 1764605400; /* 2025-12-01 16:10:00 UTC */
	return r;
}

static struct door_report student_report(void)
{
	struct door_report r = root_report();

	r.sys.k.ptrace_scope = 1;
	r.sys.k.perf_paranoid = 2;
	r.sys.debian_kernel = false;
	r.sys.k.kptr_restrict = 1;
	snprintf(r.sys.core_pattern, sizeof(r.sys.core_pattern), "|/usr/lib/systemd/systemd-coredump %%P %%u %%g %%s %%t");
	r.sys.suid_dumpable = -1;
	r.sys.pmu = 1;
	r.self.uid = r.self.euid = r.self.gid = 1000;
	r.self.cap_eff = r.self.cap_prm = 0;
	r.self.seccomp = 2;
	r.have_target = true;
	r.target.pid = 4242;
	snprintf(r.target.comm, sizeof(r.target.comm), "lab|nodump\x1b]2;x");
	for (int op = 0; op < PS_OP_COUNT; op++)
		r.ops[op].state = DOOR_OPEN;
	snprintf(r.ops[PS_OP_SAMPLE].note, sizeof(r.ops[PS_OP_SAMPLE].note), "user space only");
	r.ops[PS_OP_ATTACH].state = DOOR_CLOSED;
	snprintf(r.ops[PS_OP_ATTACH].err.msg, sizeof(r.ops[PS_OP_ATTACH].err.msg),
		 "cannot attach to process 4242: it is not dumpable");
	r.ops[PS_OP_ATTACH].err.door = DOOR_DUMPABLE;
	snprintf(r.ops[PS_OP_ATTACH].err.fix, sizeof(r.ops[PS_OP_ATTACH].err.fix), "run pscope as root");
	r.ops[PS_OP_CORE].state = DOOR_NA;
	snprintf(r.ops[PS_OP_CORE].err.msg, sizeof(r.ops[PS_OP_CORE].err.msg), "not tried: attach is closed");
	return r;
}

static char *render(const struct door_report *r, const char *host)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	if (door_report_markdown(f, r, host) < 0) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	return buf;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;
	FILE *m;
	int c;

	if (!f)
		return NULL;
	m = open_memstream(&buf, &len);
	while ((c = fgetc(f)) != EOF)
		fputc(c, m);
	fclose(m);
	fclose(f);
	return buf;
}

/* The first line that differs, to read in the log. */
static void first_diff(const char *got, const char *want)
{
	int line = 1;
	const char *g = got, *w = want;

	while (*g && *g == *w) {
		if (*g == '\n')
			line++;
		g++;
		w++;
	}
	while (g > got && g[-1] != '\n')
		g--;
	while (w > want && w[-1] != '\n')
		w--;
	printf("#   line %d differs:\n#   got:  %.*s\n#   want: %.*s\n", line, (int)strcspn(g, "\n"), g,
	       (int)strcspn(w, "\n"), w);
}

static void check(const char *name, const char *lang, const struct door_report *r, const char *host)
{
	char path[4096];
	const char *src = getenv("top_srcdir");
	char *got = render(r, host), *want;

	snprintf(path, sizeof(path), "%s/tests/fixtures/doors-report/%s.%s.md", src ? src : ".", name, lang);
	want = slurp(path);
	ok(got && want && !strcmp(got, want), "%s report in %s is %s", name, lang, path + (src ? strlen(src) + 1 : 0));
	if (getenv("PSCOPE_WRITE_FIXTURES") && got) {
		FILE *f = fopen(path, "w");
		if (f) {
			fputs(got, f);
			fclose(f);
		}
	} else if (got && want && strcmp(got, want)) {
		first_diff(got, want);
	} else if (!want) {
		printf("#   cannot read %s\n", path);
	}
	free(got);
	free(want);
}

int main(void)
{
	struct door_report root = root_report(), student = student_report();
	const struct door_tool *stack = NULL, *hot = NULL, *py = NULL;

	setenv("TZ", "UTC", 1);
	tzset();
	for (size_t i = 0; i < door_tools_count; i++) {
		if (!strcmp(door_tools[i].tool, "pscope stack dump"))
			stack = &door_tools[i];
		if (!strcmp(door_tools[i].tool, "pscope hot functions"))
			hot = &door_tools[i];
		if (!strcmp(door_tools[i].tool, "pscope hot functions, CPython"))
			py = &door_tools[i];
	}
	/* A pod: no capabilities, perf refused by the runtime's seccomp. */
	ok(stack && hot && py, "the tools looked at are in the table");
	if (stack && hot && py) {
		is_str(door_tool_expect_pod(hot, &root), "closed", "pod: perf is closed even where root may sample");
		is_str(door_tool_expect_pod(py, &root), "open", "pod: the CPython sampler reads memory: open");
		is_str(door_tool_expect_pod(stack, &root), "open", "pod: stacks of its own processes, no Yama");
		is_str(door_tool_expect_pod(stack, &student), "descendants only", "pod: Yama 1 still applies");
	}

	setlocale(LC_ALL, "C");
	check("root", "C", &root, "lab-01");
	check("student", "C", &student, NULL);

#ifdef ENABLE_NLS
	if (!setlocale(LC_ALL, "ko_KR.UTF-8")) {
		printf("ok %d - # SKIP the ko_KR.UTF-8 locale is not generated here\n", ++tap_n);
		printf("ok %d - # SKIP the ko_KR.UTF-8 locale is not generated here\n", ++tap_n);
	} else {
		unsetenv("LANGUAGE");
		bindtextdomain(PACKAGE, PSCOPE_BUILDDIR "/po/locale");
		bind_textdomain_codeset(PACKAGE, "UTF-8");
		textdomain(PACKAGE);
		check("root", "ko", &root, "lab-01");
		check("student", "ko", &student, NULL);
	}
#else
	printf("ok %d - # SKIP built without NLS\n", ++tap_n);
	printf("ok %d - # SKIP built without NLS\n", ++tap_n);
#endif
	return tap_done();
}
