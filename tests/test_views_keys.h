/* test_views_keys.h - keys pressed and text typed into the explorer's
 * state on a screen of SCREEN_W x SCREEN_H, as the front end passes them
 * (the action tests: test_views_actions.c, test_views_pins.c). */
#ifndef TEST_VIEWS_KEYS_H
#define TEST_VIEWS_KEYS_H

#include "actions.h"
#include "state.h"

/* The screen the keys go to: the size the views and paging see. */
#define SCREEN_W 100
#define SCREEN_H 30

static inline unsigned press(vstate *st, int key)
{
	return actions_key(st, SCREEN_W, SCREEN_H, key);
}

static inline unsigned type(vstate *st, const char *s)
{
	unsigned r = 0;
	for (const char *p = s; *p; p++)
		r |= press(st, (unsigned char)*p);
	return r;
}

#endif
