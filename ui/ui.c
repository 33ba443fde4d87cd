/* The event loop: poll(stdin, ring eventfd, timerfd, signalfd), the screen
 * stack, the status line and the function-key bar. */
#include "uipriv.h"
#include "draw.h"
#include "util.h"
#include "i18n.h"
#include "proc/ptable.h"

#define NCURSES_WIDECHAR 1
#include <errno.h>
#include <ncursesw/curses.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#define MAX_SCREENS 16

struct screen_slot {
	const struct screen_ops *ops;
	void *st;
};

static struct screen_slot stack[MAX_SCREENS];
static int depth;

void ui_push(struct ui *ui, const struct screen_ops *ops, void *st)
{
	if (depth == MAX_SCREENS) {
		if (ops->destroy)
			ops->destroy(st);
		ui_message(ui, true, "%s", _("too many screens open: press Esc to go back"));
		return;
	}
	stack[depth].ops = ops;
	stack[depth].st = st;
	depth++;
	ui->dirty = true;
}

void *ui_top_state(struct ui *ui, const struct screen_ops *ops)
{
	(void)ui;
	return depth > 0 && stack[depth - 1].ops == ops ? stack[depth - 1].st : NULL;
}

void ui_pop(struct ui *ui)
{
	if (depth <= 1)
		return;
	depth--;
	if (stack[depth].ops->destroy)
		stack[depth].ops->destroy(stack[depth].st);
	ui->dirty = true;
}

void ui_remove(struct ui *ui, void *st)
{
	for (int i = depth - 1; i > 0; i--) {
		if (stack[i].st != st)
			continue;
		const struct screen_ops *ops = stack[i].ops;
		memmove(&stack[i], &stack[i + 1], (size_t)(depth - i - 1) * sizeof(stack[0]));
		depth--;
		if (ops->destroy)
			ops->destroy(st);
		ui->dirty = true;
		return;
	}
}

static struct screen_slot *slot_below(void *st)
{
	for (int i = depth - 1; i > 0; i--)
		if (stack[i].st == st)
			return &stack[i - 1];
	return NULL;
}

void ui_below_draw(struct ui *ui, void *st, int y0, int rows)
{
	struct screen_slot *b = slot_below(st);
	if (b && rows > 0)
		b->ops->draw(ui, b->st, y0, rows);
}

bool ui_below_key(struct ui *ui, void *st, int ch)
{
	struct screen_slot *b = slot_below(st);
	return b && ui_screen_key(ui, b->ops, b->st, ch) == UI_KEY_DONE;
}

void ui_below_tick(struct ui *ui, void *st)
{
	struct screen_slot *b = slot_below(st);
	if (b && b->ops->tick)
		b->ops->tick(ui, b->st);
}

void ui_message(struct ui *ui, bool error, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ui->status, sizeof(ui->status), fmt, ap);
	va_end(ap);
	ui->status_error = error;
	ui->status_until = now_s() + (error ? 8 : 4);
	ui->dirty = true;
}

void ui_error(struct ui *ui, const struct ps_error *e)
{
	char buf[1024];
	ui_message(ui, true, "%s", ps_error_str(e, buf, sizeof(buf)));
}

void ui_set_delay(struct ui *ui, long tenths)
{
	if (tenths < 1)
		tenths = 1;
	if (tenths > 600)
		tenths = 600;
	ui->delay_tenths = tenths;
	ui_message(ui, false, _("refresh every %.1f s"), (double)tenths / 10);
}

void ui_redraw(struct ui *ui)
{
	struct screen_slot *top = &stack[depth - 1];
	int rows = draw_rows() - 1;

	draw_clear();
	draw_cursor(0, 0, 0);
	if (ui->status[0] && now_s() > ui->status_until)
		ui->status[0] = '\0';
	/* A long message wraps (at spaces) onto a few rows above the
	 * function bar: a refusal names its door and the fix. */
	int cols = draw_cols() > 0 ? draw_cols() : 1, nmsg = 0;
	if (ui->status[0]) {
		nmsg = draw_wrapped(0, 0, cols, 0, 0, ui->status, true, 0); /* rows it takes */
		if (nmsg > rows / 3)
			nmsg = rows / 3;
		if (nmsg < 1)
			nmsg = 1;
		rows -= nmsg;
	}
	if (rows > 0)
		top->ops->draw(ui, top->st, 0, rows);
	if (nmsg)
		draw_wrapped(draw_rows() - 1 - nmsg, 0, cols, nmsg, draw_attr(ui->status_error ? COL_ERROR : COL_WARN) | A_BOLD,
			     ui->status, true, 0);
	ui_draw_fbar(top->ops, draw_rows() - 1);
	draw_flush();
	ui->dirty = false;
}

static void arm_timer(int tfd, long tenths)
{
	struct itimerspec it;
	memset(&it, 0, sizeof(it));
	it.it_interval.tv_sec = tenths / 10;
	it.it_interval.tv_nsec = (tenths % 10) * 100000000L;
	it.it_value = it.it_interval;
	timerfd_settime(tfd, 0, &it, NULL);
}

static void dispatch_ring(struct ui *ui)
{
	struct ring_msg msgs[64];
	size_t n;

	while ((n = ring_drain(ui->ring, msgs, 64)) > 0) {
		/* Each message goes to the handler its job was submitted with. */
		for (size_t i = 0; i < n; i++)
			if (!workers_dispatch(ui->workers, &msgs[i]))
				ring_msg_release(&msgs[i]);
		ui->dirty = true;
	}
}

/* The process the user is looking at: the topmost screen that names one. */
static pid_t selected_pid(void)
{
	struct target_id id;

	for (int s = depth - 1; s >= 0; s--)
		if (stack[s].ops->selected && stack[s].ops->selected(stack[s].st, &id) && id.pid > 0)
			return id.pid;
	return 0;
}

/* The identity of the top screen's process, for s, h and C: as the user
 * saw it, so a PID reused meanwhile is refused, never acted on (a start
 * time of 0 is the process with that PID when the screen's check runs). */
bool ui_selected_target(struct ui *ui, struct target_id *id)
{
	struct screen_slot *top = &stack[depth - 1];

	(void)ui;
	return top->ops->selected && top->ops->selected(top->st, id) && id->pid > 0;
}

/* ---- the loop's keys: every screen's unless it takes them ---- */

static bool k_quit(struct ui *ui, void *st, int ch)
{
	ui->quit = true;
	return true;
}

static bool k_back(struct ui *ui, void *st, int ch)
{
	ui_pop(ui);
	return true;
}

static bool k_help(struct ui *ui, void *st, int ch)
{
	ui_help(ui);
	return true;
}

/* s, h, C: the screen for the process the top screen names. */
static bool open_on_selected(struct ui *ui, void (*open)(struct ui *ui, const struct target_id *id))
{
	struct target_id id;

	if (ui_selected_target(ui, &id))
		open(ui, &id);
	return true;
}

/* The first press of a key that means something else in htop says, once
 * in the session, what it does here and where htop's meaning is. */
enum { NOTE_S = 1, NOTE_H = 2, NOTE_C = 4 };

static void htop_note(struct ui *ui, unsigned which)
{
	if (ui->htop_noted & which)
		return;
	ui->htop_noted |= which;
	ui_message(ui, false, "%s",
		   which == NOTE_S ? _("s dumps every thread's stack (htop's s, strace: W shows the system calls); said once")
		   : _("h samples the hot functions (htop's h, help: F1 or ?); said once"));
}

static bool k_stack(struct ui *ui, void *st, int ch)
{
	open_on_selected(ui, screen_stack_open);
	htop_note(ui, NOTE_S);
	return true;
}

static bool k_hot(struct ui *ui, void *st, int ch)
{
	open_on_selected(ui, screen_hot_open);
	htop_note(ui, NOTE_H);
	return true;
}

static bool k_time(struct ui *ui, void *st, int ch)
{
	return open_on_selected(ui, screen_time_open);
}

static bool k_core(struct ui *ui, void *st, int ch)
{
	/* The path prompt takes the status line while it asks: the core
	 * screen says the note when it is answered (screen-core.c). */
	if (!(ui->htop_noted & NOTE_C))
		ui->core_note = true;
	ui->htop_noted |= NOTE_C;
	return open_on_selected(ui, screen_core_open);
}

static bool k_doors(struct ui *ui, void *st, int ch)
{
	screen_doors_open(ui, selected_pid());
	return true;
}

static bool k_cores(struct ui *ui, void *st, int ch)
{
	screen_cores_open(ui);
	return true;
}

static bool k_redraw(struct ui *ui, void *st, int ch)
{
	clearok(curscr, TRUE);
	return true;
}

const struct ui_key ui_loop_keys[] = {
	UI_KEY("F1, ?", k_help, N_("Help"), N_("this help"), KEY_F(1), '?'),
	UI_KEY_BRIEF("s", k_stack, N_("Stack"), N_("Stk"), N_("dump every thread's stack (short ptrace attach)"), 's'),
	UI_KEY("h", k_hot, N_("Hot"), N_("hot functions (perf sampling)"), 'h'),
	UI_KEY("W", k_time, N_("Time"), N_("where the time goes: on CPU, run queue, blocked and why"), 'W'),
	UI_KEY("C", k_core, N_("Core"), N_("write a core file"), 'C'),
	UI_KEY_BRIEF("D", k_doors, N_("Doors"), N_("Door"), N_("doors: what the kernel lets pscope do"), 'D'),
	UI_KEY("O", k_cores, N_("Cores"), N_("the core files the kernel wrote (pscope cores); Enter opens one"), 'O'),
	UI_KEY("Esc", k_back, N_("Back"), N_("back to the screen you came from (Left only scrolls)"), 27),
	UI_KEY("Ctrl-L", k_redraw, NULL, N_("draw the whole screen again"), 12),
	UI_KEY("F10, q", k_quit, N_("Quit"), N_("quit pscope, from every screen"), KEY_F(10), 'q'),
	UI_KEYS_END,
};

void ui_help(struct ui *ui)
{
	struct screen_slot *top = &stack[depth - 1];

	screen_help_open(ui, top->ops->help, _(top->ops->name), top->ops->keys);
}

static void handle_key(struct ui *ui, int ch)
{
	struct screen_slot *top = &stack[depth - 1];

	if (ch == KEY_RESIZE) {
		ui->dirty = true;
		return;
	}
	if (ui_screen_key(ui, top->ops, top->st, ch) != UI_KEY_DONE)
		ui_keys_dispatch(ui, ui_loop_keys, NULL, ch);
	ui->dirty = true;
}

/* Set when the terminal hung up or a quit signal (INT/TERM/HUP/QUIT)
 * arrived: every loop, modal or not, ends. */
static bool must_quit;
static int sig_fd = -1;

/* Read the signalfd; true if a signal asks us to quit. */
static bool read_quit_signal(void)
{
	struct signalfd_siginfo si;
	bool quit = false;

	while (read(sig_fd, &si, sizeof(si)) == sizeof(si))
		if (si.ssi_signo != SIGPIPE)
			quit = true;
	return quit;
}

/* A nested modal read (prompt, confirmation). Returns Esc when the terminal
 * goes away or a quit signal arrives, and marks it so the main loop quits. */
int ui_modal_getch(void)
{
	for (;;) {
		struct pollfd p[2] = {
			{ .fd = STDIN_FILENO, .events = POLLIN },
			{ .fd = sig_fd, .events = POLLIN },
		};
		int ch = getch();
		if (ch != ERR)
			return ch;
		if (must_quit)
			return 27;
		int r = poll(p, 2, 500);
		if ((r < 0 && errno != EINTR) || (r > 0 && (p[0].revents & (POLLHUP | POLLERR | POLLNVAL))) ||
		    (r > 0 && (p[1].revents & POLLIN) && read_quit_signal())) {
			must_quit = true;
			return 27;
		}
	}
}

/* -p PID: the detail screen of the process that has that PID now (its
 * source finds out which one, or says there is none). */
static void open_detail_of(struct ui *ui, pid_t pid)
{
	struct target_id id = { .pid = pid };

	screen_detail_open(ui, &id);
}

int ui_run(const struct ui_opts *o)
{
	struct ui ui;
	sigset_t mask;
	int sfd, tfd, rc = 0;

	memset(&ui, 0, sizeof(ui));
	ui.opts = o;
	ui.ring = ring_new(256);
	if (!ui.ring)
		return 1;
	ui_settings_load(&ui, o);
	if (ui_term_open() < 0) {
		ring_free(ui.ring);
		return 1;
	}
	ui_apply_theme(&ui);
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGQUIT);
	sigaddset(&mask, SIGPIPE);
	/* Block before the workers start, so they inherit the mask. */
	pthread_sigmask(SIG_BLOCK, &mask, NULL);
	sfd = sig_fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	ui.workers = workers_new(ui.ring);
	arm_timer(tfd, ui.delay_tenths);

	if (o->core)
		screen_coreread_open(&ui, o->core_id, o->core_exe);
	else
		screen_list_open(&ui);
	if (o->pid > 0)
		open_detail_of(&ui, o->pid);
	ui.dirty = true;

	long armed = ui.delay_tenths;
	while (!ui.quit) {
		struct pollfd fds[4] = {
			{ .fd = STDIN_FILENO, .events = POLLIN },
			{ .fd = ring_fd(ui.ring), .events = POLLIN },
			{ .fd = tfd, .events = POLLIN },
			{ .fd = sfd, .events = POLLIN },
		};
		if (ui.dirty)
			ui_redraw(&ui);
		if (poll(fds, 4, ui.status[0] ? 1000 : -1) < 0) {
			if (errno == EINTR) { /* SIGWINCH: ncurses queues KEY_RESIZE */
				int ch;
				while ((ch = getch()) != ERR)
					handle_key(&ui, ch);
				continue;
			}
			rc = 1;
			break;
		}
		if ((fds[3].revents & POLLIN) && read_quit_signal())
			must_quit = true;
		if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			int ch, got = 0;
			while ((ch = getch()) != ERR && !ui.quit) {
				handle_key(&ui, ch);
				got++;
			}
			if (!got && (fds[0].revents & (POLLHUP | POLLERR | POLLNVAL)))
				must_quit = true;
		}
		if (fds[1].revents & POLLIN)
			dispatch_ring(&ui);
		if (fds[2].revents & POLLIN) {
			uint64_t exp;
			if (read(tfd, &exp, sizeof(exp)) > 0) {
				struct screen_slot *top = &stack[depth - 1];
				if (top->ops->tick)
					top->ops->tick(&ui, top->st);
				ui.dirty = true;
			}
		}
		if (armed != ui.delay_tenths) {
			armed = ui.delay_tenths;
			arm_timer(tfd, armed);
		}
		if (ui.status[0] && now_s() > ui.status_until)
			ui.dirty = true;
		if (must_quit)
			ui.quit = true; /* terminal gone or quit signal (also from a modal read) */
	}

	/* Cancel jobs first: a running attach detaches before we go. */
	workers_free(ui.workers);
	ui.workers = NULL; /* screens destroyed below must not cancel jobs on it */
	while (depth > 0) {
		depth--;
		if (stack[depth].ops->destroy)
			stack[depth].ops->destroy(stack[depth].st);
	}
	screen_core_free(&ui);
	ui_term_close();
	ring_free(ui.ring);
	close(tfd);
	close(sfd);
	ui_settings_save(&ui);
	return rc;
}
