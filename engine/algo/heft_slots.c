/* heft_slots.c - busy intervals of one processor for HEFT's insertion
 * policy (see internal/heft_slots.h). */
#include "internal/heft_slots.h"

#include "internal/grow.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A block is skipped when its longest gap is shorter than dur by more than
 * rounding could explain; blocks that might fit are scanned with the exact
 * test, so the result is the plain scan's. */
static int may_fit(const hs_block *x, double dur)
{
	double tol = 1e-9 + 1e-12 * fabs(x->f[x->len - 1]);
	return x->maxgap + tol >= dur;
}

double dpi_heft_slots_find(const heft_slots *ps, double ready, double dur,
			   hs_pos *pos)
{
	if (ps->nb == 0) {
		*pos = (hs_pos){0, 0};
		return ready;
	}
	/* the first block, then the first interval, that ends after ready */
	uint32_t lo = 0, hi = ps->nb;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const hs_block *x = ps->b[mid];
		if (x->f[x->len - 1] <= ready)
			lo = mid + 1;
		else
			hi = mid;
	}
	double t = ready;
	for (uint32_t bi = lo; bi < ps->nb; bi++) {
		const hs_block *x = ps->b[bi];
		uint32_t j = 0;
		if (bi == lo) {
			uint32_t a = 0, z = x->len;
			while (a < z) {
				uint32_t mid = a + (z - a) / 2;
				if (x->f[mid] <= ready)
					a = mid + 1;
				else
					z = mid;
			}
			j = a;
		} else if (!may_fit(x, dur)) {
			if (x->f[x->len - 1] > t)
				t = x->f[x->len - 1];
			continue;
		}
		for (; j < x->len; j++) {
			if (t + dur <= x->s[j]) {
				*pos = (hs_pos){bi, j};
				return t;
			}
			if (x->f[j] > t)
				t = x->f[j];
		}
	}
	*pos = (hs_pos){ps->nb - 1, ps->b[ps->nb - 1]->len};
	return t;
}

static void block_maxgap(hs_block *x)
{
	double m = 0;
	for (uint32_t i = 0; i < x->len; i++)
		if (i == 0 || x->gap[i] > m)
			m = x->gap[i];
	x->maxgap = m;
}

/* Makes room for one more block after index at; returns the new block or
 * NULL when out of memory. */
static hs_block *add_block(heft_slots *ps, uint32_t at)
{
	if (dpi_grow((void **)&ps->b, &ps->cap, ps->nb + 1, sizeof *ps->b, 8))
		return NULL;
	hs_block *x = malloc(sizeof *x);
	if (!x)
		return NULL;
	x->len = 0;
	x->maxgap = 0;
	memmove(ps->b + at + 1, ps->b + at,
		(size_t)(ps->nb - at) * sizeof *ps->b);
	ps->b[at] = x;
	ps->nb++;
	return x;
}

int dpi_heft_slots_insert(heft_slots *ps, hs_pos pos, double s, double f)
{
	if (ps->nb == 0) {
		if (!add_block(ps, 0))
			return -1;
		pos = (hs_pos){0, 0};
	}
	hs_block *x = ps->b[pos.block];
	if (x->len == HS_BLOCK) {
		/* split: the upper half moves to a new block after x */
		hs_block *y = add_block(ps, pos.block + 1);
		if (!y)
			return -1;
		uint32_t half = HS_BLOCK / 2, rest = HS_BLOCK - half;
		memcpy(y->s, x->s + half, rest * sizeof *y->s);
		memcpy(y->f, x->f + half, rest * sizeof *y->f);
		memcpy(y->gap, x->gap + half, rest * sizeof *y->gap);
		y->len = rest;
		x->len = half;
		block_maxgap(x);
		block_maxgap(y);
		if (pos.idx > half) {
			pos.block++;
			pos.idx -= half;
			x = y;
		}
	}
	uint32_t i = pos.idx;
	memmove(x->s + i + 1, x->s + i, (x->len - i) * sizeof *x->s);
	memmove(x->f + i + 1, x->f + i, (x->len - i) * sizeof *x->f);
	memmove(x->gap + i + 1, x->gap + i, (x->len - i) * sizeof *x->gap);
	x->s[i] = s;
	x->f[i] = f;
	x->len++;
	/* the gap before the new interval, and the one after it */
	double prev = 0;
	if (i > 0)
		prev = x->f[i - 1];
	else if (pos.block > 0)
		prev = ps->b[pos.block - 1]->f[ps->b[pos.block - 1]->len - 1];
	x->gap[i] = s - prev;
	if (i + 1 < x->len) {
		x->gap[i + 1] = x->s[i + 1] - f;
	} else if (pos.block + 1 < ps->nb) {
		hs_block *y = ps->b[pos.block + 1];
		y->gap[0] = y->s[0] - f;
		block_maxgap(y);
	}
	block_maxgap(x);
	return 0;
}

void dpi_heft_slots_free(heft_slots *ps)
{
	for (uint32_t i = 0; i < ps->nb; i++)
		free(ps->b[i]);
	free(ps->b);
	ps->b = NULL;
	ps->nb = ps->cap = 0;
}
