/* grow.h - the engine's one growable array (internal).
 *
 * Arrays that are appended to one element at a time (the graph's ops and
 * edges, the list schedulers' heaps and copies, HEFT's transfers, the
 * generator's records, the simulator's result buffers) grow by half again,
 * so that appending is amortized O(1) without doubling the memory of the
 * largest ones, and stay untouched when memory runs out.
 */
#ifndef DNNPART_INTERNAL_GROW_H
#define DNNPART_INTERNAL_GROW_H

#include <stddef.h>
#include <stdint.h>

/* Makes room for need elements of elem bytes in the array *p of *cap
 * elements: the capacity starts at first and then grows by half again,
 * or straight to need when that is more (at most UINT32_MAX). 0 when there is room, -1 when out of memory
 * or need > UINT32_MAX (*p and *cap untouched). Call it as
 * dpi_grow((void **)&a, &cap, len + 1, sizeof *a, 64). */
int dpi_grow(void **p, uint32_t *cap, uint64_t need, size_t elem,
	     uint32_t first);

#endif
