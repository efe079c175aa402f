/*
 * out.c - a buffered writer for the reports: write(2) in 16 KiB
 * pieces, JSON string escaping, durations in human units.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../core/runtime/own_io.h"
#include "report.h"

void ls_out_init(struct ls_out *o, int fd)
{
	o->fd = fd;
	o->failed = false;
	o->n = 0;
}

bool ls_out_flush(struct ls_out *o)
{
	const char *p = o->buf;
	size_t n = o->n;
	while (n && !o->failed) {
		ssize_t w = ls_own_write(o->fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			o->failed = true;
			break;
		}
		p += w;
		n -= (size_t)w;
	}
	o->n = 0;
	return !o->failed;
}

void ls_out_putn(struct ls_out *o, const char *s, size_t n)
{
	while (n) {
		if (o->n == sizeof o->buf)
			ls_out_flush(o);
		size_t k = sizeof o->buf - o->n;
		if (k > n)
			k = n;
		memcpy(o->buf + o->n, s, k);
		o->n += k;
		s += k;
		n -= k;
	}
}

void ls_out_put(struct ls_out *o, const char *s)
{
	ls_out_putn(o, s, strlen(s));
}

void ls_out_printf(struct ls_out *o, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (n > 0)
		ls_out_putn(o, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

void ls_out_json_str(struct ls_out *o, const char *s)
{
	ls_out_putn(o, "\"", 1);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\') {
			char e[2] = { '\\', (char)*p };
			ls_out_putn(o, e, 2);
		} else if (*p < 0x20 || *p == 0x7f) {
			ls_out_printf(o, "\\u%04x", *p);
		} else {
			ls_out_putn(o, (const char *)p, 1);
		}
	}
	ls_out_putn(o, "\"", 1);
}

void ls_fmt_ns(char *buf, size_t len, double ns)
{
	static const struct { double scale; const char *unit; } units[] = {
		{ 1e9, "s" }, { 1e6, "ms" }, { 1e3, "\xc2\xb5s" },
	};
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
		double v = ns / units[i].scale;
		if (v < 1)
			continue;
		snprintf(buf, len, v < 10 ? "%.2f %s" : v < 100 ? "%.1f %s" : "%.0f %s", v, units[i].unit);
		return;
	}
	snprintf(buf, len, "%.0f ns", ns);
}
