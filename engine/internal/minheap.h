/* minheap.h - binary min-heap of uint32 values (internal). */
#ifndef DNNPART_MINHEAP_H
#define DNNPART_MINHEAP_H

#include <stdint.h>
#include <stdlib.h>

typedef struct dp_minheap {
	uint32_t *a;
	uint32_t len, cap;
} dp_minheap;

/* Room for cap values (never grows). Returns 0 or -1 on allocation failure. */
static inline int minheap_init(dp_minheap *h, uint32_t cap)
{
	h->a = malloc((size_t)(cap ? cap : 1) * sizeof *h->a);
	h->len = 0;
	h->cap = cap;
	return h->a ? 0 : -1;
}

static inline void minheap_free(dp_minheap *h)
{
	free(h->a);
	h->a = NULL;
}

static inline void minheap_push(dp_minheap *h, uint32_t v)
{
	uint32_t i = h->len++;
	while (i > 0) {
		uint32_t p = (i - 1) / 2;
		if (h->a[p] <= v)
			break;
		h->a[i] = h->a[p];
		i = p;
	}
	h->a[i] = v;
}

static inline uint32_t minheap_pop(dp_minheap *h)
{
	uint32_t top = h->a[0], v = h->a[--h->len], i = 0;
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= h->len)
			break;
		if (c + 1 < h->len && h->a[c + 1] < h->a[c])
			c++;
		if (v <= h->a[c])
			break;
		h->a[i] = h->a[c];
		i = c;
	}
	h->a[i] = v;
	return top;
}

#endif
