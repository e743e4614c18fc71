/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fdtable/bitmap.h - the few bitmap helpers fdtable/ needs (private to
 * fdtable/).  Non-atomic: callers hold the table's file_lock.
 */
#ifndef RCUVFS_FDTABLE_BITMAP_H
#define RCUVFS_FDTABLE_BITMAP_H

#include "fdtable/fdtable.h"

#define BIT_WORD(nr)	  ((nr) / BITS_PER_LONG)
#define BIT_MASK(nr)	  (1UL << ((nr) % BITS_PER_LONG))
#define BITS_TO_LONGS(nr) (((nr) + BITS_PER_LONG - 1) / BITS_PER_LONG)

static inline void __set_bit(unsigned int nr, unsigned long *map)
{
	map[BIT_WORD(nr)] |= BIT_MASK(nr);
}
static inline void __clear_bit(unsigned int nr, unsigned long *map)
{
	map[BIT_WORD(nr)] &= ~BIT_MASK(nr);
}
static inline bool test_bit(unsigned int nr, const unsigned long *map)
{
	return (map[BIT_WORD(nr)] & BIT_MASK(nr)) != 0;
}

/* First bit >= start that is set (invert == 0) or clear (invert == ~0UL). */
static inline unsigned int __find_next_bit(const unsigned long *map, unsigned int size,
					   unsigned int start, unsigned long invert)
{
	unsigned long w;

	if (start >= size)
		return size;
	w = (map[BIT_WORD(start)] ^ invert) & (~0UL << (start % BITS_PER_LONG));
	start -= start % BITS_PER_LONG;
	while (!w) {
		start += BITS_PER_LONG;
		if (start >= size)
			return size;
		w = map[BIT_WORD(start)] ^ invert;
	}
	start += (unsigned int)__builtin_ctzl(w);
	return start < size ? start : size;
}
static inline unsigned int find_next_bit(const unsigned long *map, unsigned int size,
					 unsigned int start)
{
	return __find_next_bit(map, size, start, 0);
}
static inline unsigned int find_next_zero_bit(const unsigned long *map, unsigned int size,
					      unsigned int start)
{
	return __find_next_bit(map, size, start, ~0UL);
}

/* Set bits [start, start + len). */
static inline void bitmap_set(unsigned long *map, unsigned int start, unsigned int len)
{
	for (unsigned int i = start; i < start + len; i++) {
		if (i % BITS_PER_LONG == 0 && start + len - i >= BITS_PER_LONG) {
			map[BIT_WORD(i)] = ~0UL;
			i += BITS_PER_LONG - 1;
			continue;
		}
		__set_bit(i, map);
	}
}

#endif
