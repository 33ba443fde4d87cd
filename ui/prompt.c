/* The modal line editor and questions: ui_prompt (a line of text,
 * prefilled), ui_confirm (y/N, one key) and ui_edit_line (the keys that edit
 * a line, shared with the list's live search and filter). A question or a
 * label wider than the screen wraps at its blanks over the rows above the
 * function bar; when even that is not enough its end (the destination, the
 * [y/N]) stays visible. Input wider than its row shows its end. */
#include "uipriv.h"
#include "draw.h"
#include "i18n.h"

#define NCURSES_WIDECHAR 1
#include <ncursesw/curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One key typed into a line of text: Backspace drops a whole UTF-8
 * character, Ctrl-U clears the line, Ctrl-W drops the word before the
 * cursor (and the blanks after it), as readline does; text, Korean
 * included, arrives byte by byte. True when the line changed. */
bool ui_edit_line(char *buf, size_t size, int ch)
{
	size_t len = strlen(buf);

	if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && len > 0) {
		while (len > 0 && ((unsigned char)buf[len - 1] & 0xc0) == 0x80)
			len--;
		if (len > 0)
			len--;
		buf[len] = '\0';
		return true;
	}
	if (ch == 21) { /* Ctrl-U */
		buf[0] = '\0';
		return len > 0;
	}
	if (ch == 23) { /* Ctrl-W */
		size_t n = len;
		while (n > 0 && (buf[n - 1] == ' ' || buf[n - 1] == '\t'))
			n--;
		while (n > 0 && buf[n - 1] != ' ' && buf[n - 1] != '\t')
			n--;
		buf[n] = '\0';
		return n != len;
	}
	if (ch >= 0x20 && ch <= 0xff && ch != 0x7f && len + 1 < size) {
		buf[len++] = (char)ch;
		buf[len] = '\0';
		return true;
	}
	return false;
}

/* The rows a modal text may take: the screen less its title row and the
 * function bar (at least one). */
static int max_rows(void)
{
	return draw_rows() - 2 > 1 ? draw_rows() - 2 : 1;
}

/* text wrapped at the screen width (at its blanks) in the rows that end
 * at row bottom, at most max of them; more: its last max rows, the first
 * marked as cut. *x gets the column after the text on its last row.
 * Returns the row of its first line shown. */
static int draw_block(const char *text, int bottom, int max, int attr, int *x)
{
	int cols = draw_cols() > 1 ? draw_cols() : 1;
	int n = draw_wrapped(0, 0, cols, 0, 0, text, true, 0), first = n > max ? n - max : 0, shown = n - first;
	int top = bottom - shown + 1;
	const char *last = text;
	size_t len = strlen(text), next;

	for (int i = 0; i + 1 < n; i++) {
		draw_wrap(last, cols, true, &next);
		last += next;
	}
	len = draw_wrap(last, cols, true, &next);
	for (int y = top; y <= bottom; y++)
		draw_blank(y, 0, -1, attr);
	draw_wrapped(top, 0, cols, shown, attr, text, true, first);
	if (first)
		draw_text(top, 0, 1, attr | A_BOLD, draw_sym("\u2026", "<"));
	char *l = strndup(last, len);
	*x = l ? draw_width(l) : 0;
	free(l);
	return top;
}

bool ui_prompt(struct ui *ui, const char *label, char *buf, size_t size)
{
	for (;;) {
		int cols = draw_cols() > 1 ? draw_cols() : 1, bottom = draw_rows() - 2, x;
		int lw = 0;
		/* The label over as many rows as it needs; the input after it
		 * when a third of the row is left, else on a row of its own. */
		int top = draw_block(label, bottom, max_rows(), draw_attr(COL_TITLE), &lw);
		int room = cols - 1 - lw; /* the last column keeps the cursor */
		int y = bottom;
		if (room < cols / 3 && top > 1) {
			draw_block(label, bottom - 1, max_rows() - 1, draw_attr(COL_TITLE), &lw);
			draw_blank(bottom, 0, -1, draw_attr(COL_NORMAL));
			x = 0;
			room = cols - 1;
		} else {
			x = lw;
			draw_blank(y, x, -1, draw_attr(COL_NORMAL));
		}
		int bw = draw_width(buf);
		if (room < 1)
			room = 1;
		if (bw <= room) {
			x += draw_text(y, x, room, draw_attr(COL_NORMAL), buf);
		} else { /* its end, where the cursor is, after a mark */
			int mark = draw_text(y, x, 1, draw_attr(COL_DIM) | A_BOLD, draw_sym("\u2026", "<"));
			x += mark;
			x += draw_text_skip(y, x, room - mark, draw_attr(COL_NORMAL), buf, bw - (room - mark));
		}
		draw_cursor(1, y, x < cols ? x : cols - 1);
		draw_flush();
		int ch = ui_modal_getch();
		if (ch == 27) {
			draw_cursor(0, 0, 0);
			ui->dirty = true;
			return false;
		}
		if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
			draw_cursor(0, 0, 0);
			ui->dirty = true;
			return true;
		}
		if (ch == KEY_RESIZE) { /* the screen under it at the new size */
			ui_redraw(ui);
			continue;
		}
		ui_edit_line(buf, size, ch);
	}
}

bool ui_confirm(struct ui *ui, const char *question)
{
	char *q = NULL;
	int x, ch;

	/* the question and its answer wrap as one text: [y/N] ends it */
	if (asprintf(&q, "%s%s", question, _(" [y/N] ")) < 0)
		q = NULL;
	for (;;) {
		draw_block(q ? q : question, draw_rows() - 2, max_rows(), draw_attr(COL_TITLE), &x);
		draw_flush();
		ch = ui_modal_getch();
		if (ch != KEY_RESIZE)
			break;
		ui_redraw(ui); /* a resize is no answer: asked again at the new size */
	}
	free(q);
	ui->dirty = true;
	return ch == 'y' || ch == 'Y';
}

bool ui_ask_file(struct ui *ui, const char *question, char *path, size_t size)
{
	if (!ui_prompt(ui, question, path, size) || !path[0])
		return false;
	return access(path, F_OK) != 0 || ui_confirm(ui, _("File exists. Overwrite?"));
}
