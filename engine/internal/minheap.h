/* minheap.h - the engine's one binary min-heap (internal).
 *
 * DPI_HEAP_DEFINE(name, T, less) defines, for values of type T ordered by
 * less(const T *a, const T *b) (a strict weak order), static functions over
 * an array h holding *n values:
 *   name_push(h, n, v)  adds v (the array must have room for one more);
 *   name_pop(h, n)      removes and returns the smallest value (*n > 0);
 *   name_down(h, n, i)  restores the heap below index i (for heapify:
 *                       for i from n/2 - 1 down to 0).
 * Ties are broken the same way everywhere: a value moves up only past a
 * strictly larger parent, down only below a strictly smaller child, the
 * left child first. With a total order (every user's less ends on a
 * unique id) the sequence of pops does not depend on the push order, so
 * plans stay the same byte for byte.
 *
 * The list scheduler's ready lists, its memory release events, the
 * simulator's event queue and ready lists, ParDNN's memory-phase
 * candidates and the graph's topological order all use it.
 */
#ifndef DNNPART_MINHEAP_H
#define DNNPART_MINHEAP_H

#include <stdint.h>

#define DPI_HEAP_DEFINE(name, T, less)                                         \
	static inline void name##_push(T *h, uint32_t *n, T v)                 \
	{                                                                      \
		uint32_t i = (*n)++;                                           \
		while (i > 0) {                                                \
			uint32_t p = (i - 1) / 2;                              \
			if (!less(&v, &h[p]))                                  \
				break;                                         \
			h[i] = h[p];                                           \
			i = p;                                                 \
		}                                                              \
		h[i] = v;                                                      \
	}                                                                      \
	static inline void name##_down(T *h, uint32_t n, uint32_t i)           \
	{                                                                      \
		T v = h[i];                                                    \
		for (;;) {                                                     \
			uint32_t c = 2 * i + 1;                                \
			if (c >= n)                                            \
				break;                                         \
			if (c + 1 < n && less(&h[c + 1], &h[c]))               \
				c++;                                           \
			if (!less(&h[c], &v))                                  \
				break;                                         \
			h[i] = h[c];                                           \
			i = c;                                                 \
		}                                                              \
		h[i] = v;                                                      \
	}                                                                      \
	static inline T name##_pop(T *h, uint32_t *n)                          \
	{                                                                      \
		T top = h[0];                                                  \
		if (--(*n) > 0) {                                              \
			h[0] = h[*n];                                          \
			name##_down(h, *n, 0);                                 \
		}                                                              \
		return top;                                                    \
	}

static inline int dpi_u32_less(const uint32_t *a, const uint32_t *b)
{
	return *a < *b;
}

/* dpi_u32heap_push/pop/down: plain uint32 values, smallest first (the
 * simulator's ready lists, the graph's topological order). */
DPI_HEAP_DEFINE(dpi_u32heap, uint32_t, dpi_u32_less)

#endif
