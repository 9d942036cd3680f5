/* heft_slots.h - the busy intervals of one processor, for HEFT's insertion
 * policy: find the earliest idle gap after a ready time that can hold a
 * task, and insert the task there.
 *
 * Intervals are kept sorted in blocks of at most HS_BLOCK; each block knows
 * the longest gap before any of its intervals, so a search skips whole
 * blocks that cannot hold the task. A search costs O(log n + HS_BLOCK +
 * number of blocks after the ready time), an insertion O(HS_BLOCK + number
 * of blocks), instead of a scan over every interval after the ready time.
 */
#ifndef DNNPART_HEFT_SLOTS_H
#define DNNPART_HEFT_SLOTS_H

#include <stdint.h>

#define HS_BLOCK 128

typedef struct hs_block {
	uint32_t len;
	double maxgap;	      /* max of gap[0 .. len) */
	double s[HS_BLOCK];   /* starts, sorted */
	double f[HS_BLOCK];   /* finishes, sorted; s[i] >= f[i-1] */
	double gap[HS_BLOCK]; /* s[i] minus the previous interval's finish
				  (0 before the first interval overall) */
} hs_block;

typedef struct heft_slots {
	hs_block **b;
	uint32_t nb, cap;
} heft_slots;

/* Where dpi_heft_slots_find would put the task. */
typedef struct hs_pos {
	uint32_t block, idx;
} hs_pos;

/* The earliest start t >= ready at which an interval of length dur fits
 * between the intervals (or after the last one); *pos is where it goes.
 * Exactly the paper's scan: from the first interval that ends after ready,
 * the first gap [previous finish, next start) with t + dur <= next start. */
double dpi_heft_slots_find(const heft_slots *ps, double ready, double dur,
			   hs_pos *pos);
/* Inserts [s, f) at pos (from dpi_heft_slots_find, with s at or after the
 * time it returned). Returns 0, or -1 when out of memory. */
int dpi_heft_slots_insert(heft_slots *ps, hs_pos pos, double s, double f);
void dpi_heft_slots_free(heft_slots *ps);

#endif
