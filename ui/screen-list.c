/* Process list screen (minimal first version). */
#include "uipriv.h"
#include "draw.h"
#include "proc/stat.h"
#include "util.h"

#define NCURSES_WIDECHAR 1
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <ncursesw/curses.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct list_state {
	struct proc_stat *rows;
	int n, cap;
	int sel, top;
};

static void list_scan(struct list_state *ls)
{
	DIR *d = opendir("/proc");
	struct dirent *de;

	ls->n = 0;
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		int fd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (ls->n == ls->cap) {
			ls->cap = ls->cap ? ls->cap * 2 : 256;
			ls->rows = realloc(ls->rows, (size_t)ls->cap * sizeof(*ls->rows));
		}
		if (proc_stat_read(fd, &ls->rows[ls->n]) == 0)
			ls->n++;
		close(fd);
	}
	closedir(d);
	if (ls->sel >= ls->n)
		ls->sel = ls->n - 1;
	if (ls->sel < 0)
		ls->sel = 0;
}

static void list_draw(struct ui *ui, void *p, int y0, int rows)
{
	struct list_state *ls = p;

	draw_blank(y0, 0, -1, draw_attr(COL_HEADER));
	draw_text(y0, 0, -1, draw_attr(COL_HEADER), "    PID S COMMAND");
	int body = rows - 1;
	if (ls->sel < ls->top)
		ls->top = ls->sel;
	if (ls->sel >= ls->top + body)
		ls->top = ls->sel - body + 1;
	for (int i = 0; i < body && ls->top + i < ls->n; i++) {
		struct proc_stat *s = &ls->rows[ls->top + i];
		int attr = ls->top + i == ls->sel ? draw_attr(COL_SELECT) : 0;
		draw_blank(y0 + 1 + i, 0, -1, attr);
		draw_textf(y0 + 1 + i, 0, -1, attr, "%7d %c %s", (int)s->pid, s->state, s->comm);
	}
}

static bool list_key(struct ui *ui, void *p, int ch)
{
	struct list_state *ls = p;
	pid_t pid = ls->n ? ls->rows[ls->sel].pid : 0;

	switch (ch) {
	case KEY_UP: case 'k': ls->sel--; break;
	case KEY_DOWN: case 'j': ls->sel++; break;
	case KEY_NPAGE: ls->sel += LINES - 3; break;
	case KEY_PPAGE: ls->sel -= LINES - 3; break;
	case KEY_HOME: ls->sel = 0; break;
	case KEY_END: ls->sel = ls->n - 1; break;
	case '\n': case '\r': case KEY_ENTER: if (pid) screen_detail_open(ui, pid); break;
	case 's': if (pid) screen_stack_open(ui, pid); break;
	case 'h': if (pid) screen_hot_open(ui, pid); break;
	case 'C': if (pid) screen_core_open(ui, pid); break;
	case 27: return true; /* the list is the bottom screen */
	default: return false;
	}
	if (ls->sel >= ls->n)
		ls->sel = ls->n - 1;
	if (ls->sel < 0)
		ls->sel = 0;
	return true;
}

static void list_tick(struct ui *ui, void *p)
{
	list_scan(p);
}

static void list_destroy(void *p)
{
	struct list_state *ls = p;
	free(ls->rows);
	free(ls);
}

static const struct ui_fkey list_fkeys[] = {
	{ "F1", "Help" }, { "Enter", "Detail" }, { "s", "Stacks" }, { "h", "Hot" }, { "C", "Core" },
	{ "D", "Doors" }, { "F10", "Quit" }, { NULL, NULL },
};

static const struct screen_ops list_ops = {
	.name = "Processes",
	.help = "list",
	.fkeys = list_fkeys,
	.draw = list_draw,
	.key = list_key,
	.tick = list_tick,
	.destroy = list_destroy,
};

void screen_list_open(struct ui *ui)
{
	struct list_state *ls = calloc(1, sizeof(*ls));
	if (!ls)
		return;
	list_scan(ls);
	ui_push(ui, &list_ops, ls);
}
