/* arrays.h - several work arrays allocated, grown and freed at once
 * (internal).
 *
 * Most algorithms and the simulator keep a handful of parallel arrays (one
 * entry per op, per device, per edge). Rather than a malloc, a NULL check
 * and a free per array, they list the arrays once:
 *
 *	const dpi_arr a[] = {DPI_ARR(s->start, n), DPI_ARR0(s->dev, n)};
 *	if (dpi_arrays_alloc(a, DPI_NARR(a)))
 *		return nomem(err);
 *	...
 *	DPI_FREE_ALL(s->start, s->dev);
 *
 * On failure nothing is freed: the caller's one free function (DPI_FREE_ALL
 * over the same arrays) releases what was allocated, as before.
 */
#ifndef DNNPART_INTERNAL_ARRAYS_H
#define DNNPART_INTERNAL_ARRAYS_H

#include <stddef.h>

/* One array: where its pointer is kept, how many elements, how large each,
 * and whether it starts zeroed. */
typedef struct dpi_arr {
	void **p;
	size_t count;
	size_t elem;
	int zero;
} dpi_arr;

/* An entry for the array a of count elements of its own type (malloc);
 * DPI_ARR0 for one that starts zeroed (calloc). */
#define DPI_ARR(a, count)                                                      \
	{                                                                      \
		(void **)&(a), (count), sizeof *(a), 0                         \
	}
#define DPI_ARR0(a, count)                                                     \
	{                                                                      \
		(void **)&(a), (count), sizeof *(a), 1                         \
	}
#define DPI_NARR(table) (sizeof(table) / sizeof *(table))
/* The name of v in names, a table indexed by an enum; none when v is out
 * of it. */
#define DPI_NAME_OF(names, v, none)                                            \
	((unsigned)(v) < DPI_NARR(names) ? (names)[v] : (none))

/* Allocates every array of the table (at least one element each, so that an
 * empty graph is not out of memory). 0, or -1 when out of memory or a size
 * overflows (the arrays allocated so far are kept for the caller to free). */
int dpi_arrays_alloc(const dpi_arr *a, size_t n);

/* Resizes every array of the table to its count elements (realloc; the new
 * part is not zeroed). 0, or -1 when out of memory: each array is then still
 * valid and at least as large as before. */
int dpi_arrays_resize(const dpi_arr *a, size_t n);

/* Frees the n pointers of p (free(NULL) is a no-op). */
void dpi_free_ptrs(void *const *p, size_t n);

/* Frees every pointer named: DPI_FREE_ALL(a, b, c). */
#define DPI_FREE_ALL(...)                                                      \
	dpi_free_ptrs((void *const[]){__VA_ARGS__},                            \
		      sizeof((void *const[]){__VA_ARGS__}) / sizeof(void *))

#endif
