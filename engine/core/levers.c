/* levers.c - the levers' names, parsers, the precision rule by op type and
 * the GPU presets (levers.h). The transforms are in graph_levers.c. */
#include "dnnpart/levers.h"

#include <stdio.h>
#include <string.h>

#include "internal/names.h"

static const char *const prec_names[DP_PREC_COUNT] = {"fp32", "bf16", "fp16"};
static const char *const recomp_names[DP_RECOMP_COUNT] = {"none", "selective",
							  "full", "auto"};

bool dp_levers_active(const dp_levers *lv)
{
	return lv && (lv->precision != DP_PREC_FP32 ||
		      lv->recompute != DP_RECOMP_NONE || lv->fuse ||
		      lv->offload != DP_OFFLOAD_NONE);
}

static const char *const offload_names[DP_OFFLOAD_COUNT] = {
	"none", "optimizer", "params"};

const char *dp_offload_name(dp_offload o)
{
	return (int)o >= 0 && o < DP_OFFLOAD_COUNT ? offload_names[o] : "";
}

const char *dp_precision_name(dp_precision p)
{
	return (int)p >= 0 && p < DP_PREC_COUNT ? prec_names[p] : "";
}

const char *dp_recompute_name(dp_recompute r)
{
	return (int)r >= 0 && r < DP_RECOMP_COUNT ? recomp_names[r] : "";
}

dp_status dp_precision_parse(const char *s, dp_precision *out, dp_err *err)
{
	int i = 0;
	dp_status st = dpi_parse_name(s, prec_names, DP_PREC_COUNT, "precision",
				      "fp32, bf16 or fp16", &i, err);
	*out = st ? *out : (dp_precision)i;
	return st;
}

dp_status dp_offload_parse(const char *s, dp_offload *out, dp_err *err)
{
	int i = 0;
	dp_status st =
		dpi_parse_name(s, offload_names, DP_OFFLOAD_COUNT, "offload",
			       "none, optimizer or params", &i, err);
	*out = st ? *out : (dp_offload)i;
	return st;
}

dp_status dp_recompute_parse(const char *s, dp_recompute *out, dp_err *err)
{
	int i = 0;
	dp_status st = dpi_parse_name(s, recomp_names, DP_RECOMP_COUNT,
				      "recomputation",
				      "none, selective, full or auto", &i, err);
	*out = st ? *out : (dp_recompute)i;
	return st;
}

/* Parses auto's layers "0-3.7" ("-": none) into lv->rc_sel. */
static bool parse_ranges(const char *s, size_t len, dp_levers *lv)
{
	memset(lv->rc_sel, 0, sizeof lv->rc_sel);
	if (len == 1 && s[0] == '-')
		return true;
	size_t i = 0;
	while (i < len) {
		unsigned long a = 0, b;
		size_t d = i;
		while (i < len && s[i] >= '0' && s[i] <= '9' && a < DP_RC_MAX_LAYERS)
			a = a * 10 + (unsigned long)(s[i++] - '0');
		if (i == d || a >= DP_RC_MAX_LAYERS)
			return false;
		b = a;
		if (i < len && s[i] == '-') {
			d = ++i;
			b = 0;
			while (i < len && s[i] >= '0' && s[i] <= '9' &&
			       b < DP_RC_MAX_LAYERS)
				b = b * 10 + (unsigned long)(s[i++] - '0');
			if (i == d || b >= DP_RC_MAX_LAYERS || b < a)
				return false;
		}
		for (unsigned long j = a; j <= b; j++)
			dp_levers_rc_set(lv, (uint32_t)j);
		if (i < len && s[i++] != '.')
			return false;
		if (i == len && s[len - 1] == '.')
			return false;
	}
	return true;
}

/* One recomputation token of length n: "none", "selective", "full",
 * "auto" or "auto:LAYERS" into lv. */
static bool recompute_token(const char *p, size_t n, dp_levers *lv)
{
	if (n > 5 && !strncmp(p, "auto:", 5)) {
		if (!parse_ranges(p + 5, n - 5, lv))
			return false;
		lv->recompute = DP_RECOMP_AUTO;
		lv->rc_chosen = true;
		return true;
	}
	for (int j = 0; j < DP_RECOMP_COUNT; j++)
		if (strlen(recomp_names[j]) == n &&
		    !strncmp(p, recomp_names[j], n)) {
			lv->recompute = (dp_recompute)j;
			lv->rc_chosen = false;
			return true;
		}
	return false;
}

dp_status dp_levers_parse_recompute(const char *s, dp_levers *lv,
				    dp_err *err)
{
	dp_levers t = *lv;
	if (!recompute_token(s, strlen(s), &t))
		return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				  "unknown recomputation '%.80s': expected "
				  "none, selective, full, auto or auto:LAYERS "
				  "(layers and ranges joined by '.': auto:0-5.9)",
				  s);
	*lv = t;
	return DP_OK;
}

dp_status dp_fuse_parse(const char *s, unsigned *out, dp_err *err)
{
	unsigned f = 0;
	const char *p = s;
	for (;;) {
		size_t n = strcspn(p, ",");
		if (n == 9 && !strncmp(p, "attention", 9))
			f |= DP_FUSE_ATTENTION;
		else if (n == 11 && !strncmp(p, "elementwise", 11))
			f |= DP_FUSE_ELEMENTWISE;
		else if (!(n == 4 && !strncmp(p, "none", 4)))
			return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
					  "unknown fusion '%.*s': expected "
					  "attention, elementwise or none",
					  (int)(n > 80 ? 80 : n), p);
		if (!p[n])
			break;
		p += n + 1;
	}
	*out = f;
	return DP_OK;
}

const char *dp_fuse_name(unsigned fuse)
{
	static const char *const names[4] = {"none", "attention", "elementwise",
					     "attention,elementwise"};
	return names[fuse & 3u];
}

dp_status dp_levers_parse_set(const char *s, dp_levers *out, dp_err *err)
{
	dp_levers lv;
	memset(&lv, 0, sizeof lv);
	const char *p = s;
	for (;;) {
		size_t n = strcspn(p, "+");
		char tok[16];
		int i = -1;
		if (n >= 4 && recompute_token(p, n, &lv))
			i = 0; /* selective, full, auto, auto:LAYERS */
		else if (n < sizeof tok) {
			memcpy(tok, p, n);
			tok[n] = 0;
			for (int j = 0; j < DP_PREC_COUNT && i < 0; j++)
				if (!strcmp(tok, prec_names[j]))
					lv.precision = (dp_precision)(i = j);
			if (i < 0 && !strcmp(tok, "attention"))
				lv.fuse |= DP_FUSE_ATTENTION, i = 0;
			if (i < 0 && !strcmp(tok, "elementwise"))
				lv.fuse |= DP_FUSE_ELEMENTWISE, i = 0;
			if (i < 0 && !strcmp(tok, "none"))
				i = 0;
		}
		if (i < 0 && n == 17 && !strncmp(p, "offload-optimizer", n))
			lv.offload = DP_OFFLOAD_OPTIMIZER, i = 0;
		if (i < 0 && n == 14 && !strncmp(p, "offload-params", n))
			lv.offload = DP_OFFLOAD_PARAMS, i = 0;
		if (i < 0)
			return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
					  "unknown lever '%.*s' in '%.80s': "
					  "expected levers joined by '+' "
					  "(fp32, bf16, fp16, selective, full, "
					  "auto, auto:LAYERS, attention, "
					  "elementwise, offload-optimizer, "
					  "offload-params, none)",
					  (int)(n > 40 ? 40 : n), p, s);
		if (!p[n])
			break;
		p += n + 1;
	}
	*out = lv;
	return DP_OK;
}

/* Appends auto's layers to buf (used bytes *n of size): "0-3.7", "-"
 * (ranges joined by '.': ',' separates lever sets, '+' levers). */
static void rc_ranges(const dp_levers *lv, char *buf, size_t size, size_t *n)
{
	bool any = false;
	for (uint32_t i = 0; i < DP_RC_MAX_LAYERS; i++) {
		if (!dp_levers_rc_has(lv, i))
			continue;
		uint32_t j = i;
		while (dp_levers_rc_has(lv, j + 1))
			j++;
		int w = j > i ? snprintf(buf + *n, size - *n, "%s%u-%u",
					 any ? "." : "", i, j)
			      : snprintf(buf + *n, size - *n, "%s%u",
					 any ? "." : "", i);
		if (w < 0 || (size_t)w >= size - *n)
			return;
		*n += (size_t)w;
		any = true;
		i = j;
	}
	if (!any && *n + 1 < size) {
		buf[(*n)++] = '-';
		buf[*n] = 0;
	}
}

char *dp_levers_set_name(const dp_levers *lv, char *buf, size_t size)
{
	if (!dp_levers_active(lv)) {
		snprintf(buf, size, "none");
		return buf;
	}
	int w = snprintf(buf, size, "%s%s",
			 lv->precision ? prec_names[lv->precision] : "",
			 lv->recompute ? (lv->precision ? "+" : "") : "");
	size_t n = w < 0 ? 0 : (size_t)w < size ? (size_t)w : size - 1;
	if (lv->recompute) {
		dp_levers_recompute_str(lv, buf + n, size - n);
		n += strlen(buf + n);
	}
	if (lv->fuse & DP_FUSE_ATTENTION) {
		snprintf(buf + n, size - n, "%s%s", n ? "+" : "", "attention");
		n += strlen(buf + n);
	}
	if (lv->fuse & DP_FUSE_ELEMENTWISE) {
		snprintf(buf + n, size - n, "%s%s", n ? "+" : "",
			 "elementwise");
		n += strlen(buf + n);
	}
	if (lv->offload)
		snprintf(buf + n, size - n, "%soffload-%s", n ? "+" : "",
			 offload_names[lv->offload]);
	return buf;
}

char *dp_levers_recompute_str(const dp_levers *lv, char *buf, size_t size)
{
	size_t n = (size_t)snprintf(buf, size, "%s",
				    dp_recompute_name(lv->recompute));
	if (lv->recompute == DP_RECOMP_AUTO && lv->rc_chosen && n + 2 < size) {
		buf[n++] = ':';
		buf[n] = 0;
		rc_ranges(lv, buf, size, &n);
	}
	return buf;
}

dp_status dp_levers_check_file(const dp_graph *g, const char *file,
			       dp_err *err)
{
	const char *mine = dp_graph_levers(g);
	if (!file || !file[0] || !strcmp(file, mine[0] ? mine : "none"))
		return DP_OK;
	const char *rc = strstr(file, "auto:");
	size_t n = rc ? strcspn(rc, "+") : 0;
	return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
			  "levers: the file was made with the levers "
			  "'%.60s', this run has '%.60s': give the same "
			  "--precision, --recompute, --fuse and --offload%s%.*s%s "
			  "(docs/memory.md)",
			  file, mine[0] ? mine : "none",
			  rc ? " (auto's layers: --recompute " : "",
			  (int)(n > 200 ? 200 : n), rc ? rc : "", rc ? ")" : "");
}

/* Op types autocast keeps in fp32 (torch.autocast's "ops that autocast to
 * float32" on CUDA, as our op types name them; the loss by role). */
static const char *const fp32_types[] = {
	"Softmax", "LogSoftmax", "Exp",	 "Log",	    "Pow",
	"Rsqrt",   "Sum",	 "Mean", "LayerNorm", "SparseSoftmaxCrossEntropyWithLogits",
	"SoftmaxCrossEntropyWithLogits", NULL};

bool dp_levers_keeps_fp32(const char *type)
{
	size_t n = strlen(type);
	/* a gradient op `TGrad` runs in T's precision */
	if (n > 4 && !strcmp(type + n - 4, "Grad"))
		n -= 4;
	for (const char *const *t = fp32_types; *t; t++)
		if (strlen(*t) == n && !strncmp(type, *t, n))
			return true;
	return false;
}

#define GIB ((int64_t)1 << 30)

/* Vendors' data sheets: NVIDIA Tesla V100 (SXM2 16 GB), A100 (SXM4 80 GB)
 * and H100 (SXM5 80 GB); dense rates, NVLink bandwidth per direction. */
static const dp_gpu_preset gpu_presets[] = {
	{"v100", 16 * GIB, 15.7, 0.0, 125.0, 150000.0, 5.0,
	 "V100 SXM2 16 GB: 15.7 TFLOP/s fp32, 125 fp16 tensor, no bf16, "
	 "NVLink 2 150 GB/s per direction"},
	{"a100", 80 * GIB, 19.5, 312.0, 312.0, 300000.0, 5.0,
	 "A100 SXM4 80 GB: 19.5 TFLOP/s fp32, 312 bf16/fp16 tensor, NVLink 3 "
	 "300 GB/s per direction"},
	{"h100", 80 * GIB, 67.0, 989.4, 989.4, 450000.0, 5.0,
	 "H100 SXM5 80 GB: 67 TFLOP/s fp32, 989 bf16/fp16 tensor, NVLink 4 "
	 "450 GB/s per direction"},
	{NULL, 0, 0, 0, 0, 0, 0, NULL},
};

const dp_gpu_preset *dp_gpu_find(const char *name)
{
	for (const dp_gpu_preset *p = gpu_presets; name && p->name; p++)
		if (!strcmp(p->name, name))
			return p;
	return NULL;
}

const char *dp_gpu_names(void)
{
	return "v100, a100, h100";
}
