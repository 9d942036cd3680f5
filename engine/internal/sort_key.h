/* sort_key.h - the engine's one qsort key for "by score, then by position"
 * (internal).
 *
 * HEFT's and the simulator's priority lists, ParDNN's slicing, mapping and
 * polish orders all sort ops by a double, ties broken by a unique position
 * (a topological index or an op id), so that plans do not depend on qsort's
 * order among equals. A struct whose first member is a dpi_sort_key may be
 * sorted with the same comparators (the key is read through a pointer to
 * that first member). The engine's other qsort comparators chain DPI_CMP
 * over their fields with DPI_CMP_ORDER. And the one binary search over
 * sorted doubles.
 */
#ifndef DNNPART_SORT_KEY_H
#define DNNPART_SORT_KEY_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* -1, 0 or 1 as a sorts before, with or after b, ascending (swap a and b
 * for descending); any arithmetic type. */
#define DPI_CMP(a, b) (((a) > (b)) - ((a) < (b)))

/* The first of the n results of DPI_CMP that is not 0: the order by the
 * first field, ties broken by the next. */
static inline int dpi_cmp_order(const int *c, int n)
{
	for (int i = 0; i < n; i++)
		if (c[i])
			return c[i];
	return 0;
}

/* DPI_CMP_ORDER(DPI_CMP(x->a, y->a), DPI_CMP(y->b, x->b)): by a ascending,
 * then by b descending. */
#define DPI_CMP_ORDER(...)                                                     \
	dpi_cmp_order((const int[]){__VA_ARGS__},                              \
		      (int)(sizeof((int[]){__VA_ARGS__}) / sizeof(int)))

/* Defines the qsort comparator name over elements of type T, the order of
 * DPI_CMP_ORDER over the rest, where x and y point to the two elements:
 *	DPI_CMP_DEFINE(cmp_rec, rec, DPI_CMP(x->a, y->a), DPI_CMP(x->b, y->b))
 * (no ';' after it). */
#define DPI_CMP_DEFINE(name, T, ...)                                           \
	static int name(const void *pa, const void *pb)                        \
	{                                                                      \
		const T *x = pa, *y = pb;                                      \
		return DPI_CMP_ORDER(__VA_ARGS__);                             \
	}

/* qsort comparators for plain arrays of ids and keys, ascending. */
static inline int dpi_cmp_u32(const void *a, const void *b)
{
	return DPI_CMP(*(const uint32_t *)a, *(const uint32_t *)b);
}

static inline int dpi_cmp_u64(const void *a, const void *b)
{
	return DPI_CMP(*(const uint64_t *)a, *(const uint64_t *)b);
}

/* Sorts the n elements of elem bytes at a by cmp and drops repeats (those
 * cmp finds equal); the number of distinct elements, now first. */
static inline uint32_t dpi_sort_unique(void *a, uint32_t n, size_t elem,
				       int (*cmp)(const void *, const void *))
{
	char *b = a;
	qsort(a, n, elem, cmp);
	uint32_t w = 0;
	for (uint32_t i = 0; i < n; i++)
		if (w == 0 || cmp(b + (size_t)(w - 1) * elem, b + i * elem))
			memmove(b + (size_t)w++ * elem, b + i * elem, elem);
	return w;
}

typedef struct dpi_sort_key {
	double key;   /* the score */
	uint32_t tie; /* first tie-break, ascending: a topological index */
	uint32_t op;  /* last tie-break, ascending; the op it stands for */
} dpi_sort_key;

static inline int dpi_sort_key_ties(const dpi_sort_key *x,
				    const dpi_sort_key *y)
{
	if (x->tie != y->tie)
		return x->tie < y->tie ? -1 : 1;
	return (x->op > y->op) - (x->op < y->op);
}

/* qsort comparator: smallest key first, then tie, then op. */
static inline int dpi_sort_key_asc(const void *a, const void *b)
{
	const dpi_sort_key *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return dpi_sort_key_ties(x, y);
}

/* qsort comparator: largest key first, then tie, then op (ascending). */
static inline int dpi_sort_key_desc(const void *a, const void *b)
{
	const dpi_sort_key *x = a, *y = b;
	if (x->key != y->key)
		return x->key > y->key ? -1 : 1;
	return dpi_sort_key_ties(x, y);
}

/* First index i in the ascending array v[0..n) with v[i] >= x (n when
 * none): ParDNN's time windows, msr-fiddle's shared color classes. */
static inline uint32_t dpi_lower_bound(const double *v, uint32_t n, double x)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

#endif
