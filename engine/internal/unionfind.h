/* unionfind.h - union-find over ids 0..n-1 in one parent array (internal).
 *
 * Start with par[x] = x for every x. dpi_uf_find halves paths as it walks;
 * dpi_uf_union makes the smaller root the root of both sets, so the result
 * does not depend on the order of the unions (deterministic labels).
 */
#ifndef DNNPART_INTERNAL_UNIONFIND_H
#define DNNPART_INTERNAL_UNIONFIND_H

#include <stdint.h>

static inline uint32_t dpi_uf_find(uint32_t *par, uint32_t x)
{
	while (par[x] != x) {
		par[x] = par[par[x]];
		x = par[x];
	}
	return x;
}

static inline void dpi_uf_union(uint32_t *par, uint32_t a, uint32_t b)
{
	a = dpi_uf_find(par, a);
	b = dpi_uf_find(par, b);
	if (a < b)
		par[b] = a;
	else if (b < a)
		par[a] = b;
}

#endif
