/* The flame graph's speed on a 10,000-frame profile: the TUI view rebuilt
 * from a snapshot and drawn at 200x50 (ncurses writing to /dev/null, as
 * each new snapshot does), and the SVG written. Prints milliseconds per
 * frame, the SVG's time and size, and each against its goal:
 *   flame-bench FOLDED-OUT   (also writes the profile as folded lines, for
 *                             an anchor tool to draw the same profile) */
#include "out/folded.h"
#include "out/svg.h"
#include "sample/agg.h"
#include "sample/local.h"
#include "ui/draw.h"
#include "ui/flame-view.h"
#include "util.h"

#define NCURSES_WIDECHAR 1
#include <locale.h>
#include <ncursesw/curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NODES 10000

/* n stacks of 8 threads' worth down a fan-out of 6, names of realistic
 * length, weights uneven. */
static struct samp_snapshot *profile(unsigned n)
{
	struct agg *a = agg_new(SAMP_UNIT_SAMPLES);
	uint32_t fr[16];
	unsigned seed = 12345;

	for (unsigned s = 0; s < n; s++) {
		unsigned depth = 4 + s % 10;
		for (unsigned d = 0; d < depth; d++) {
			char name[64];
			seed = seed * 1103515245u + 12345u;
			snprintf(name, sizeof(name), "namespace::Module%u::function_%u_at_depth_%u", d, (seed >> 16) % 6, d);
			struct samp_fninfo fi = { .name = name, .module = d < 2 ? "/usr/lib/libc.so.6" : "/usr/bin/app" };
			fr[depth - 1 - d] = agg_func_loc(a, agg_func(a, &fi));
		}
		agg_add(a, 1 + s % 3, fr, depth, SAMP_NONE, 1 + (seed >> 20) % 50);
	}
	struct samp_thread th[3] = { { .tid = 1, .comm = "app" }, { .tid = 2, .comm = "worker" }, { .tid = 3, .comm = "io" } };
	struct samp_snapshot *s = calloc(1, sizeof(*s));
	agg_close_interval(a, 1);
	agg_finish(a, s, th, sizeof(th[0]), 3, NULL);
	agg_free(a);
	return s;
}

/* The profile with at least NODES frames in its tree. */
static struct samp_snapshot *big_profile(void)
{
	for (unsigned n = 1000;; n += n / 4) {
		struct samp_snapshot *s = profile(n);
		struct samp_flame f;
		unsigned nodes = samp_flame_build(s, SAMP_WIN_ALL, 0, &f) == 0 ? f.n : 0;
		samp_flame_free(&f);
		if (nodes >= NODES)
			return s;
		samp_snapshot_free(s);
	}
}

int main(int argc, char **argv)
{
	setlocale(LC_ALL, "");
	struct samp_snapshot *s = big_profile();
	struct flame_view v = { .open = true };
	FILE *null = fopen("/dev/null", "w");
	const int rounds = 50;

	setenv("TERM", "xterm-256color", 1);
	SCREEN *scr = newterm(NULL, null, stdin);
	if (!scr) {
		fprintf(stderr, "flame-bench: no terminal\n");
		return 1;
	}
	resizeterm(50, 200);
	draw_init(NULL, true);
	flame_view_update(&v, s, SAMP_WIN_ALL, 0);
	printf("profile: %u frames in the tree, %u stacks, depth %u\n", v.tree.n, s->nstacks, v.tree.maxdepth);
	uint64_t t0 = now_ns();
	for (int i = 0; i < rounds; i++) {
		flame_view_update(&v, s, SAMP_WIN_ALL, 0);
		erase();
		flame_view_draw(&v, 0, 50);
		refresh();
	}
	double ms = (double)(now_ns() - t0) / 1e6 / rounds;
	t0 = now_ns();
	for (int i = 0; i < rounds; i++) {
		erase();
		flame_view_draw(&v, 0, 50);
		refresh();
	}
	double ms_draw = (double)(now_ns() - t0) / 1e6 / rounds;
	endwin();
	delscreen(scr);
	flame_view_free(&v);

	FILE *f = tmpfile();
	t0 = now_ns();
	out_svg_write(f, s, SAMP_WIN_ALL, 0, NULL);
	fflush(f);
	double svg_ms = (double)(now_ns() - t0) / 1e6;
	long size = ftell(f);
	fclose(f);
	if (argc > 1) {
		FILE *fo = fopen(argv[1], "w");
		if (fo) {
			out_folded_write(fo, s, SAMP_WIN_ALL, 0, NULL);
			fclose(fo);
		}
	}
	printf("flame view at 200x50: %.2f ms a frame rebuilt from the snapshot and drawn, %.2f ms drawn only "
	       "(goal <= 20 ms: %.2fx of it)\n", ms, ms_draw, ms / 20);
	printf("SVG: %.1f ms, %.2f MB (goals <= 200 ms, <= 5 MB: %.2fx, %.2fx)\n", svg_ms, (double)size / 1e6,
	       svg_ms / 200, (double)size / 5e6);
	samp_snapshot_free(s);
	return ms <= 20 && svg_ms <= 200 && size <= 5000000 ? 0 : 1;
}
