/* The SVG flame graph (svg.h): the tree of sample/flame.h laid out as an
 * icicle (callers on top), one <g class="f"> per frame in depth-first
 * order: <title> the frame's name as the folded lines write it, <rect>,
 * <text> its name cut to fit; data-x/data-n/data-d its place, weight and
 * depth, which the script (svg-script.h) zooms and searches with. */
#include "out/svg.h"
#include "i18n.h"
#include "out/escape.h"
#include "out/folded.h"
#include "sample/flame.h"
#include "target.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "out/svg-script.h"

#define SVG_WIDTH 1200
#define SVG_X0 10
#define SVG_ROW 16
#define SVG_TOP 48
#define SVG_CHAR 7.2 /* px per column of the 12 px monospace font */

/* s as XML text: &<>"' escaped; U+FFFE and U+FFFF (not XML characters:
 * esc() leaves them) as U+FFFD. s has been through esc(): no controls. */
static void put_xml(FILE *f, const char *s, size_t len)
{
	for (size_t i = 0; i < len && s[i]; i++) {
		const unsigned char *u = (const unsigned char *)s + i;
		switch (*u) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default:
			if (u[0] == 0xef && u[1] == 0xbf && (u[2] == 0xbe || u[2] == 0xbf)) {
				fputs("\xef\xbf\xbd", f);
				i += 2;
			} else {
				fputc(*u, f);
			}
		}
	}
}

static unsigned hash_name(const char *s)
{
	unsigned h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* flamegraph.pl's palettes by kind, varied by the name. */
static void fill_of(enum samp_flame_kind k, const char *name, char *buf, size_t size)
{
	unsigned h = hash_name(name);
	unsigned v1 = h % 100, v2 = h / 100 % 100, v3 = h / 10000 % 100;

	switch (k) {
	case FLAME_K_THREAD: snprintf(buf, size, "rgb(%u,%u,%u)", 190 + v1 / 5, 190 + v1 / 5, 200 + v1 / 5); break;
	case FLAME_K_KERNEL: snprintf(buf, size, "rgb(%u,%u,%u)", 200 + v1 / 2, 140 + v2 / 2, 40 + v3 / 5); break;
	case FLAME_K_PYTHON: snprintf(buf, size, "rgb(%u,%u,%u)", 80 + v1 / 2, 150 + v2 / 2, 210 + v3 / 3); break;
	case FLAME_K_JIT: snprintf(buf, size, "rgb(%u,%u,%u)", 60 + v1 / 2, 190 + v2 / 2, 60 + v3 / 3); break;
	case FLAME_K_UNKNOWN: snprintf(buf, size, "rgb(%u,%u,%u)", 180 + v1 / 4, 160 + v2 / 4, 160 + v3 / 4); break;
	default: snprintf(buf, size, "rgb(%u,%u,%u)", 205 + v1 / 2, v2 * 23 / 10, v3 * 55 / 100); break;
	}
}

static void put_frame(FILE *f, const struct samp_snapshot *s, const struct samp_flame *fl, unsigned i)
{
	const struct samp_flame_node *n = &fl->nodes[i];
	double total = fl->nodes[0].total ? (double)fl->nodes[0].total : 1;
	double x = SVG_X0 + (double)n->x / total * SVG_WIDTH, w = (double)n->total / total * SVG_WIDTH;
	int y = SVG_TOP + (int)n->depth * SVG_ROW;
	char name[OUT_FRAME_NAME_MAX], fill[32], v[32];
	const char *nm = !i ? "all" : n->func == FLAME_NONE ? out_folded_thread(s, n->tid, name, sizeof(name))
							: out_folded_frame(s, n->func, name, sizeof(name));
	int room = (int)((w - 6) / SVG_CHAR);
	size_t len = strlen(nm);

	fill_of(samp_flame_kind(s, fl, i), nm, fill, sizeof(fill));
	fprintf(f, "<g class=\"f\" data-x=\"%llu\" data-n=\"%llu\" data-d=\"%u\" data-v=\"%s\"><title>", n->x, n->total,
		n->depth, samp_unit_format(fl->unit, n->total, v, sizeof(v)));
	put_xml(f, nm, len);
	fprintf(f, "</title><rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\" rx=\"2\"/>"
		   "<text x=\"%.2f\" y=\"%d\">",
		x, y, w, SVG_ROW - 1, fill, x + 3, y + SVG_ROW - 4);
	if (text_width(nm) <= room) {
		put_xml(f, nm, len);
	} else if (room >= 3) {
		put_xml(f, nm, text_fit(nm, room - 2));
		fputs("..", f);
	}
	fputs("</text></g>\n", f);
}

int out_svg_write(FILE *f, const struct samp_snapshot *s, enum samp_window w, pid_t tid, unsigned long long *total)
{
	struct samp_flame fl;
	char v[32];
	int h, r = samp_flame_build(s, w, tid, &fl);

	if (r < 0)
		return r;
	h = SVG_TOP + (int)(fl.maxdepth + 1) * SVG_ROW + 32;
	fprintf(f, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		   "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		   "viewBox=\"0 0 %d %d\" onload=\"init(evt)\" data-w=\"%d\" data-x0=\"%d\" data-total=\"%llu\" "
		   "data-unit=\"%s\" data-ask=\"",
		SVG_WIDTH + 2 * SVG_X0, h, SVG_WIDTH + 2 * SVG_X0, h, SVG_WIDTH, SVG_X0, fl.nodes[0].total,
		s->unit == SAMP_UNIT_NS_BLOCKED || s->unit == SAMP_UNIT_NS_SYSCALL ? "" : samp_unit_key(s->unit));
	put_xml(f, esc(_("Search for (case-insensitive):")), SIZE_MAX);
	fputs("\" data-matched=\"", f);
	put_xml(f, esc(_("Matched:")), SIZE_MAX);
	fprintf(f, "\">\n<style>text { font-family: monospace; font-size: 12px; fill: #000; }\n"
		   "g.f:hover rect { stroke: #000; stroke-width: 0.5; } g.f { cursor: pointer; }\n"
		   "#title { font-size: 16px; } .btn { cursor: pointer; fill: #333; }</style>\n"
		   "<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n"
		   "<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" fill=\"#f4f4ee\"/>\n"
		   "<text id=\"title\" x=\"%d\" y=\"22\">",
		svg_script, SVG_X0);
	{
		char t[512];
		snprintf(t, sizeof(t), "%s", s->machine ? _("pscope: every process") : "pscope: ");
		put_xml(f, t, SIZE_MAX);
		if (!s->machine) {
			put_xml(f, esc(s->comm), SIZE_MAX);
			fprintf(f, " (%d)", (int)s->target.pid);
		}
		fprintf(f, " \xe2\x80\x94 %s %s, ", samp_unit_format(s->unit, fl.nodes[0].total, v, sizeof(v)),
			s->unit == SAMP_UNIT_NS_BLOCKED || s->unit == SAMP_UNIT_NS_SYSCALL ? "" : samp_unit_key(s->unit));
		put_xml(f, esc(samp_window_name(w)), SIZE_MAX);
		if (s->event[0])
			fprintf(f, ", %s", s->python[0] ? "CPython" : s->event);
	}
	fprintf(f, "</text>\n<text id=\"reset\" class=\"btn\" x=\"%d\" y=\"40\" style=\"display:none\">", SVG_X0);
	put_xml(f, esc(_("Reset zoom")), SIZE_MAX);
	fprintf(f, "</text>\n<text id=\"search\" class=\"btn\" x=\"%d\" y=\"22\" text-anchor=\"end\">", SVG_WIDTH);
	put_xml(f, esc(_("Search")), SIZE_MAX);
	fprintf(f, "</text>\n<text id=\"matched\" x=\"%d\" y=\"40\" text-anchor=\"end\"></text>\n"
		   "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n<g id=\"frames\">\n",
		SVG_WIDTH, SVG_X0, h - 12);
	/* Depth first, callers before callees. */
	for (uint32_t i = 0; i != FLAME_NONE;) {
		put_frame(f, s, &fl, i);
		if (fl.nodes[i].child != FLAME_NONE) {
			i = fl.nodes[i].child;
			continue;
		}
		while (i != FLAME_NONE && fl.nodes[i].next == FLAME_NONE)
			i = fl.nodes[i].parent;
		if (i != FLAME_NONE)
			i = fl.nodes[i].next;
	}
	fputs("</g>\n</svg>\n", f);
	if (total)
		*total = fl.nodes[0].total;
	samp_flame_free(&fl);
	return ferror(f) ? -(errno ? errno : EIO) : 0; /* ENOSPC as the write said */
}
