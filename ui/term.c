/* The terminal: whether pscope can draw on it at all (a sentence, not a
 * curses abort, when it cannot), curses set up, the colour scheme, and the
 * terminal given back on a fatal signal. */
#include "uipriv.h"
#include "draw.h"
#include "i18n.h"
#include "out/escape.h"

#define NCURSES_WIDECHAR 1
#include <ncursesw/curses.h>
#include <ncursesw/term.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <termios.h>
#include <unistd.h>

static struct termios saved_tio;
static bool have_tio;

/* Restore the terminal from a fatal signal: async-signal-safe writes only. */
static void fatal_signal(int sig)
{
	static const char reset[] = "\033[0m\033[?1000l\033[?1006l\033[?25h\033[?1049l\r\n";
	ssize_t n = write(STDOUT_FILENO, reset, sizeof(reset) - 1);
	(void)n;
	if (have_tio)
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_tio);
	signal(sig, SIG_DFL);
	raise(sig);
}

int ui_term_open(void)
{
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "%s", _("pscope: the interactive view needs a terminal; use 'pscope list' for a snapshot\n"));
		return -1;
	}
	/* A terminal pscope cannot draw on gets a sentence, not a curses abort. */
	const char *term = getenv("TERM");
	int err = 0;
	if (!term || !term[0]) {
		fprintf(stderr, _("pscope: TERM is not set, so the interactive view cannot draw; set it to what your "
				  "terminal emulates (e.g. TERM=xterm-256color), or use 'pscope list' for a snapshot\n"));
		return -1;
	}
	if (setupterm(term, STDOUT_FILENO, &err) != OK) {
		fprintf(stderr, _("pscope: unknown terminal type '%s' (no terminfo entry for it); set TERM to what your "
				  "terminal emulates (e.g. TERM=xterm-256color), or use 'pscope list' for a snapshot\n"),
			esc(term));
		return -1;
	}
	const char *cup = tigetstr("cup");
	bool addressable = cup && cup != (const char *)-1;
	del_curterm(cur_term);
	if (!addressable) {
		fprintf(stderr, _("pscope: the terminal type '%s' cannot move the cursor, so the interactive view cannot "
				  "draw; set TERM to what your terminal emulates (e.g. TERM=xterm-256color), or use "
				  "'pscope list' for a snapshot\n"), esc(term));
		return -1;
	}
	if (tcgetattr(STDIN_FILENO, &saved_tio) == 0)
		have_tio = true;
	if (!newterm(NULL, stdout, stdin)) {
		fprintf(stderr, _("pscope: cannot use terminal type '%s'\n"), esc(term));
		return -1;
	}
	signal(SIGSEGV, fatal_signal);
	signal(SIGBUS, fatal_signal);
	signal(SIGABRT, fatal_signal);
	signal(SIGFPE, fatal_signal);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
	mouseinterval(0);
	return 0;
}

void ui_term_close(void)
{
	endwin();
}

bool ui_apply_theme(struct ui *ui)
{
	struct theme t;
	struct ps_error e;

	ps_error_clear(&e);
	if (theme_load(ui->cfg.theme, &t, &e) < 0) {
		draw_init(NULL, ui->colour);
		ui_error(ui, &e);
		return false;
	}
	draw_init(&t, ui->colour);
	ui->dirty = true;
	return true;
}
