#include "out/escape.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

/* Decode one UTF-8 sequence; returns its length, or 0 if invalid. */
static size_t utf8_decode(const unsigned char *s, size_t len, uint32_t *cp)
{
	unsigned char c = s[0];
	size_t n;
	uint32_t v, min;

	if (c < 0x80) {
		*cp = c;
		return 1;
	} else if ((c & 0xe0) == 0xc0) {
		n = 2, v = c & 0x1f, min = 0x80;
	} else if ((c & 0xf0) == 0xe0) {
		n = 3, v = c & 0x0f, min = 0x800;
	} else if ((c & 0xf8) == 0xf0) {
		n = 4, v = c & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	if (n > len)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = (v << 6) | (s[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return n;
}

bool utf8_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t cp;

	for (size_t i = 0; i < len;) {
		size_t n = utf8_decode(p + i, len - i, &cp);
		if (!n)
			return false;
		i += n;
	}
	return true;
}

char *utf8_repair(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	char *out = malloc(len * 3 + 1), *o = out;
	uint32_t cp;

	if (!out)
		return NULL;
	for (size_t i = 0; i < len;) {
		size_t n = utf8_decode(p + i, len - i, &cp);
		if (n) {
			memcpy(o, p + i, n);
			o += n;
			i += n;
		} else {
			memcpy(o, "\xef\xbf\xbd", 3); /* U+FFFD */
			o += 3;
			i++;
		}
	}
	*o = '\0';
	return out;
}

static bool is_format_char(uint32_t cp)
{
	return cp == 0x061c || (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069) || cp == 0xfeff || (cp >= 0x2028 && cp <= 0x2029);
}

size_t esc_display(const char *s, size_t len, char *out, size_t outsz)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, o = 0;

	if (!outsz)
		return 0;
	while (i < len) {
		char tmp[16];
		const char *piece = tmp;
		size_t plen;
		uint32_t cp;
		size_t n = utf8_decode(p + i, len - i, &cp);

		if (n == 0) {
			snprintf(tmp, sizeof(tmp), "\\x%02x", p[i]);
			plen = 4;
			n = 1;
		} else if (cp == '\n') {
			piece = "\\n", plen = 2;
		} else if (cp == '\t') {
			piece = "\\t", plen = 2;
		} else if (cp == 0x1b) {
			piece = "\\e", plen = 2;
		} else if (cp < 0x20 || cp == 0x7f) {
			snprintf(tmp, sizeof(tmp), "\\x%02x", (unsigned)cp);
			plen = 4;
		} else if ((cp >= 0x80 && cp <= 0x9f) || is_format_char(cp)) {
			plen = (size_t)snprintf(tmp, sizeof(tmp), "\\u%04x", (unsigned)cp);
		} else {
			piece = (const char *)p + i;
			plen = n;
		}
		if (o + plen + 1 > outsz)
			break;
		memcpy(out + o, piece, plen);
		o += plen;
		i += n;
	}
	out[o] = '\0';
	return o;
}

/* The rotating result buffers of esc() and pad(), one set per thread,
 * allocated at the thread's first call and freed when it exits. Static
 * thread-local arrays would be set up (zeroed, so resident) in the TLS of
 * every thread, 128 KiB each, whether the thread ever prints or not. */
#define RING_BUFS 16
#define RING_BUF_SIZE 4096
struct rot_bufs {
	char esc[RING_BUFS][RING_BUF_SIZE], pad[RING_BUFS][RING_BUF_SIZE];
	unsigned esc_next, pad_next;
};
static pthread_key_t rot_key;
static pthread_once_t rot_once = PTHREAD_ONCE_INIT;
static bool rot_key_ok;
static _Thread_local struct rot_bufs *rot;

static void rot_key_init(void)
{
	rot_key_ok = pthread_key_create(&rot_key, free) == 0;
}

/* This thread's buffers, NULL when out of memory. */
static struct rot_bufs *rot_bufs(void)
{
	if (rot)
		return rot;
	pthread_once(&rot_once, rot_key_init);
	if (!rot_key_ok)
		return NULL;
	rot = malloc(sizeof(*rot));
	if (!rot)
		return NULL;
	rot->esc_next = rot->pad_next = 0;
	if (pthread_setspecific(rot_key, rot) != 0) {
		free(rot);
		rot = NULL;
	}
	return rot;
}

const char *esc(const char *s)
{
	struct rot_bufs *rb = rot_bufs();
	char *b;

	if (!rb)
		return "?";
	b = rb->esc[rb->esc_next++ % RING_BUFS];
	if (!s)
		s = "";
	esc_display(s, strlen(s), b, RING_BUF_SIZE);
	return b;
}

/* Columns of the character at s (*len: its bytes). */
static int char_width(const unsigned char *s, size_t avail, size_t *len)
{
	uint32_t cp;
	size_t n = utf8_decode(s, avail, &cp);
	int cw;

	*len = n ? n : 1;
	if (!n)
		return 1;
	if (cp < 0x80)
		return cp >= 0x20 && cp != 0x7f;
	cw = wcwidth((wchar_t)cp);
	return cw < 0 ? 1 : cw;
}

int text_width(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s), n;
	int w = 0;

	for (size_t i = 0; i < len; i += n)
		w += char_width(p + i, len - i, &n);
	return w;
}

size_t text_fit(const char *s, int cols)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s), i = 0, n;
	int w = 0;

	while (i < len) {
		int cw = char_width(p + i, len - i, &n);
		if (w + cw > cols)
			break;
		w += cw;
		i += n;
	}
	return i;
}

const char *pad(const char *s, int width)
{
	struct rot_bufs *rb = rot_bufs();
	char *b;
	size_t len, room = RING_BUF_SIZE - 1;
	int fill, right = width < 0;

	if (!rb)
		return "?";
	b = rb->pad[rb->pad_next++ % RING_BUFS];
	if (!s)
		s = "";
	fill = (right ? -width : width) - text_width(s);
	if (fill < 0)
		fill = 0;
	len = strlen(s);
	if (len > room) { /* longer than any column: cut at a character boundary */
		len = room;
		while (len && ((unsigned char)s[len] & 0xc0) == 0x80)
			len--;
	}
	if ((size_t)fill > room - len)
		fill = (int)(room - len);
	if (right) {
		memset(b, ' ', (size_t)fill);
		memcpy(b + fill, s, len);
	} else {
		memcpy(b, s, len);
		memset(b + len, ' ', (size_t)fill);
	}
	b[len + (size_t)fill] = '\0';
	return b;
}
