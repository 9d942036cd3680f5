/* machine.c - devices, caps, speeds and link presets (see machine.h). */
#include "dnnpart/machine.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/units.h"

/* Bandwidths in bytes per µs (1 GB/s = 1000 bytes/µs, decimal GB). */
const dp_link_preset dp_machine_link_presets[] = {
	{"pardnn", 130000.0, 25.0,
	 "130 GB/s + 25 us: the setting of the ParDNN reference"},
	{"baechi", 5700.0, 134.0,
	 "5.7 GB/s + 134 us: the setting of the Baechi paper"},
	{"pcie4", 25000.0, 10.0, "25 GB/s + 10 us: PCIe 4.0 x16, effective"},
	{"nvlink", 300000.0, 5.0, "300 GB/s + 5 us: NVLink 3, per direction"},
	{NULL, 0, 0, NULL},
};

const dp_link_preset *dp_machine_find_link(const char *name)
{
	if (!name)
		return NULL;
	for (const dp_link_preset *p = dp_machine_link_presets; p->name; p++)
		if (strcmp(p->name, name) == 0)
			return p;
	return NULL;
}

const char *dp_machine_link_names(void)
{
	return "pardnn, baechi, pcie4, nvlink";
}

static dp_status check_k(int k, dp_err *err)
{
	if (k < 1 || k > DP_MAX_DEVICES)
		return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				  "bad number of devices %d: expected 1 to %d",
				  k, DP_MAX_DEVICES);
	return DP_OK;
}

dp_status dp_machine_init(dp_machine *m, int k, dp_err *err)
{
	memset(m, 0, sizeof *m);
	dp_status st = check_k(k, err);
	if (st)
		return st;
	m->cap = malloc((size_t)k * sizeof *m->cap);
	m->speed = malloc((size_t)k * sizeof *m->speed);
	if (!m->cap || !m->speed) {
		dp_machine_free(m);
		return dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				  "out of memory for %d devices", k);
	}
	m->k = k;
	m->kernel_us = DP_KERNEL_OVERHEAD_US;
	for (int d = 0; d < k; d++) {
		m->cap[d] = DP_CAP_UNLIMITED;
		m->speed[d] = 1.0;
	}
	return dp_machine_set_link(m, "pardnn", err);
}

void dp_machine_free(dp_machine *m)
{
	if (!m)
		return;
	free(m->cap);
	free(m->speed);
	m->cap = NULL;
	m->speed = NULL;
	m->k = 0;
}

dp_status dp_machine_copy(dp_machine *dst, const dp_machine *src, dp_err *err)
{
	dp_machine t = *src;
	t.cap = malloc((size_t)src->k * sizeof *t.cap);
	t.speed = malloc((size_t)src->k * sizeof *t.speed);
	if (!t.cap || !t.speed) {
		free(t.cap);
		free(t.speed);
		return dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				  "out of memory copying a machine");
	}
	memcpy(t.cap, src->cap, (size_t)src->k * sizeof *t.cap);
	memcpy(t.speed, src->speed, (size_t)src->k * sizeof *t.speed);
	*dst = t;
	return DP_OK;
}

dp_status dp_machine_resize(dp_machine *m, int k, dp_err *err)
{
	dp_status st = check_k(k, err);
	if (st)
		return st;
	int64_t *cap = malloc((size_t)k * sizeof *cap);
	double *speed = malloc((size_t)k * sizeof *speed);
	if (!cap || !speed) {
		free(cap);
		free(speed);
		return dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				  "out of memory for %d devices", k);
	}
	for (int d = 0; d < k; d++) {
		int from = d < m->k ? d : m->k - 1;
		cap[d] = from >= 0 ? m->cap[from] : DP_CAP_UNLIMITED;
		speed[d] = from >= 0 ? m->speed[from] : 1.0;
	}
	free(m->cap);
	free(m->speed);
	m->cap = cap;
	m->speed = speed;
	m->k = k;
	return DP_OK;
}

/* Splits a comma list into at most max trimmed entries (in place, in buf).
 * Returns the number of entries, or -1 when there are more than max. */
static int split_list(char *buf, char **items, int max)
{
	int n = 0;
	char *p = buf;
	for (;;) {
		char *c = strchr(p, ',');
		if (c)
			*c = '\0';
		while (isspace((unsigned char)*p))
			p++;
		char *e = p + strlen(p);
		while (e > p && isspace((unsigned char)e[-1]))
			*--e = '\0';
		if (n >= max)
			return -1;
		items[n++] = p;
		if (!c)
			break;
		p = c + 1;
	}
	return n;
}

/* Parses a per-device list (one entry for all or exactly m->k) with
 * parse_one, which writes entry i into out[i]. what names the setting in
 * messages ("cap", "speed"). */
typedef dp_status (*entry_fn)(const char *text, void *out, int i, dp_err *err);

static dp_status parse_per_device(const dp_machine *m, const char *spec,
				  const char *what, entry_fn fn, void *out,
				  dp_err *err)
{
	if (!spec)
		spec = "";
	size_t len = strlen(spec);
	char *buf = malloc(len + 1);
	char **items = malloc(((size_t)m->k + 1) * sizeof *items);
	if (!buf || !items) {
		free(buf);
		free(items);
		return dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				  "out of memory parsing %ss", what);
	}
	memcpy(buf, spec, len + 1);
	int n = split_list(buf, items, m->k + 1);
	dp_status st = DP_OK;
	if (n < 0 || (n != 1 && n != m->k)) {
		int count = 1;
		for (const char *p = spec; *p; p++)
			count += *p == ',';
		st = dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				"%s list '%s' has %d entries but the machine "
				"has %d device%s: give one %s for all devices "
				"or exactly %d, separated by commas",
				what, spec, count, m->k, m->k == 1 ? "" : "s",
				what, m->k);
	}
	for (int d = 0; !st && d < m->k; d++) {
		const char *text = items[n == 1 ? 0 : d];
		dp_err e;
		dp_err_clear(&e);
		if (fn(text, out, d, &e) != DP_OK) {
			if (n == 1)
				st = dp_err_set(err, e.code, NULL, 0, 0,
						"%s '%s': %s", what, text,
						e.msg);
			else
				st = dp_err_set(err, e.code, NULL, 0, 0,
						"%s entry %d of %d ('%s'): %s",
						what, d + 1, n, text, e.msg);
		}
	}
	free(buf);
	free(items);
	return st;
}

dp_status dp_machine_parse_cap(const char *text, int64_t *cap, dp_err *err)
{
	if (strcasecmp(text, "inf") == 0 || strcasecmp(text, "none") == 0 ||
	    strcasecmp(text, "unlimited") == 0) {
		*cap = DP_CAP_UNLIMITED;
		return DP_OK;
	}
	/* 0B is a cap too: every plan is then reported infeasible */
	return dp_units_parse_size(text, cap, err);
}

dp_status dp_machine_check_caps(const char *spec, dp_err *err)
{
	size_t len = strlen(spec ? spec : "");
	char *buf = malloc(len + 1);
	char **items = malloc((len / 2 + 2) * sizeof *items);
	dp_status st = DP_OK;
	if (!buf || !items) {
		st = dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				"out of memory parsing caps");
		goto out;
	}
	memcpy(buf, spec ? spec : "", len + 1);
	/* at most len / 2 + 1 entries: one comma between two */
	int n = split_list(buf, items, (int)(len / 2 + 2));
	for (int i = 0; !st && i < n; i++) {
		int64_t b;
		dp_err e;
		dp_err_clear(&e);
		if (dp_machine_parse_cap(items[i], &b, &e) == DP_OK)
			continue;
		st = n == 1 ? dp_err_set(err, e.code, NULL, 0, 0, "%s", e.msg)
			    : dp_err_set(err, e.code, NULL, 0, 0, "'%s': %s",
					 items[i], e.msg);
	}
out:
	free(buf);
	free(items);
	return st;
}

static dp_status cap_entry(const char *text, void *out, int i, dp_err *err)
{
	int64_t *caps = out;
	return dp_machine_parse_cap(text, &caps[i], err);
}

static dp_status speed_entry(const char *text, void *out, int i, dp_err *err)
{
	double *speeds = out, v;
	size_t n = dp_units_scan_number(text, &v);
	if (!n || text[n] != '\0')
		return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				  "expected a number > 0 such as 1 or 0.5");
	if (!(v > 0) || !isfinite(v))
		return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				  "a speed must be a finite number > 0");
	/* beyond these, op times leave the range of finite doubles
	 * (docs/reliability.md) */
	if (v < 1e-6 || v > 1e6)
		return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				  "a speed must be from 1e-6 to 1e6 (a factor "
				  "of the reference device's speed)");
	speeds[i] = v;
	return DP_OK;
}

/* Parses spec into a scratch copy of the k values of elem bytes at dst,
 * which it replaces only when every entry is good. */
static dp_status set_per_device(dp_machine *m, const char *spec,
				const char *what, entry_fn entry, void *dst,
				size_t elem, dp_err *err)
{
	void *tmp = malloc((size_t)m->k * elem);
	if (!tmp)
		return dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				  "out of memory parsing %ss", what);
	dp_status st = parse_per_device(m, spec, what, entry, tmp, err);
	if (!st)
		memcpy(dst, tmp, (size_t)m->k * elem);
	free(tmp);
	return st;
}

dp_status dp_machine_set_caps(dp_machine *m, const char *spec, dp_err *err)
{
	return set_per_device(m, spec, "cap", cap_entry, m->cap, sizeof *m->cap,
			      err);
}

dp_status dp_machine_set_speeds(dp_machine *m, const char *spec, dp_err *err)
{
	return set_per_device(m, spec, "speed", speed_entry, m->speed,
			      sizeof *m->speed, err);
}

dp_status dp_machine_set_link(dp_machine *m, const char *preset, dp_err *err)
{
	const dp_link_preset *p = dp_machine_find_link(preset);
	if (!p)
		return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				  "unknown link preset '%s': expected one of "
				  "%s (or give --bw and --lat)",
				  preset ? preset : "",
				  dp_machine_link_names());
	m->bw = p->bw;
	m->lat = p->lat;
	m->link_file = false;
	snprintf(m->link_name, sizeof m->link_name, "%s", p->name);
	return DP_OK;
}

void dp_machine_set_link_file(dp_machine *m)
{
	m->link_file = true;
	snprintf(m->link_name, sizeof m->link_name, "file");
}

dp_status dp_machine_init_from_hint(dp_machine *m, const dp_machine_hint *h,
				    dp_err *err)
{
	int k = h && h->devices > 0 ? h->devices : 1;
	if (k > DP_MAX_DEVICES) {
		memset(m, 0, sizeof *m);
		return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				  "the graph's machine settings ask for %d "
				  "devices: at most %d are supported",
				  k, DP_MAX_DEVICES);
	}
	dp_status st = dp_machine_init(m, k, err);
	if (st || !h)
		return st;
	if (h->memory_bytes > 0)
		for (int d = 0; d < k; d++)
			m->cap[d] = h->memory_bytes;
	if (h->bw_bytes_per_us > 0) {
		m->bw = h->bw_bytes_per_us;
		snprintf(m->link_name, sizeof m->link_name, "custom");
	}
	if (h->lat_us >= 0) {
		m->lat = h->lat_us;
		snprintf(m->link_name, sizeof m->link_name, "custom");
	}
	/* a hint equal to a preset keeps the preset's name */
	for (const dp_link_preset *p = dp_machine_link_presets; p->name; p++)
		if (p->bw == m->bw && p->lat == m->lat)
			snprintf(m->link_name, sizeof m->link_name, "%s",
				 p->name);
	return DP_OK;
}

double dp_machine_sum_speed(const dp_machine *m)
{
	double s = 0;
	for (int d = 0; d < m->k; d++)
		s += m->speed[d];
	return s;
}

double dp_machine_max_speed(const dp_machine *m)
{
	double s = 0;
	for (int d = 0; d < m->k; d++)
		if (m->speed[d] > s)
			s = m->speed[d];
	return s;
}

dp_status dp_machine_set_reserve(dp_machine *m, const char *spec, dp_err *err)
{
	if (!spec || !*spec)
		return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				  "empty reserve: expected a size (1GiB, "
				  "512MiB) or a percent of each cap (5%%)");
	if (!strcmp(spec, "none") || !strcmp(spec, "0")) {
		m->reserve_bytes = 0;
		m->reserve_frac = 0;
		return DP_OK;
	}
	size_t n = strlen(spec);
	if (spec[n - 1] == '%') {
		double v;
		size_t used = dp_units_scan_number(spec, &v);
		if (used != n - 1 || !(v >= 0) || !(v < 100))
			return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
					  "bad reserve '%s': expected a "
					  "percent from 0 to below 100 (5%%)",
					  spec);
		m->reserve_frac = v / 100.0;
		m->reserve_bytes = 0;
		return DP_OK;
	}
	double v;
	if (dp_units_scan_number(spec, &v) == n)
		return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				  "'%s' needs a unit: %sGiB, %sMiB, or %s%% "
				  "of each cap",
				  spec, spec, spec, spec);
	int64_t b;
	dp_err e;
	if (dp_units_parse_bytes(spec, &b, &e) != DP_OK)
		return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				  "bad reserve '%s': %s (or a percent of each "
				  "cap: 5%%)",
				  spec, e.msg);
	m->reserve_bytes = b;
	m->reserve_frac = 0;
	return DP_OK;
}

int64_t dp_machine_reserve(const dp_machine *m, int d)
{
	int64_t cap = m->cap[d];
	if (cap == DP_CAP_UNLIMITED)
		return 0;
	double r = (double)m->reserve_bytes + m->reserve_frac * (double)cap;
	if (r >= (double)cap)
		return cap;
	return r > 0 ? (int64_t)ceil(r) : 0;
}

int64_t dp_machine_usable_cap(const dp_machine *m, int d)
{
	int64_t cap = m->cap[d];
	if (cap == DP_CAP_UNLIMITED)
		return cap;
	return cap - dp_machine_reserve(m, d);
}

char *dp_machine_reserve_text(const dp_machine *m, char *buf, size_t size)
{
	if (m->reserve_frac > 0)
		dp_units_fmt_c(buf, size, "%g%%", m->reserve_frac * 100.0);
	else if (m->reserve_bytes > 0)
		dp_units_fmt_bytes(m->reserve_bytes, buf, size);
	else
		snprintf(buf, size, "none");
	return buf;
}
