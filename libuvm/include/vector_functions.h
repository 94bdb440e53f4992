/* SPDX-License-Identifier: MIT */
/*
 * vector_functions.h - make_char1() ... make_double4(): build the vector
 * types of vector_types.h from their members, as CUDA 13.0's header of the
 * same name does (the same set of functions: the _16a and _32a forms of
 * the long, ulong and double 4-vectors included).  No NVIDIA text.
 */
#ifndef UVM_VECTOR_FUNCTIONS_H
#define UVM_VECTOR_FUNCTIONS_H
#define __VECTOR_FUNCTIONS_H__

#include "vector_types.h"

#define UVM_MAKE1(name, type)						\
	static inline name make_##name(type x)				\
	{								\
		name v;							\
		v.x = x;						\
		return v;						\
	}
#define UVM_MAKE2(name, type)						\
	static inline name make_##name(type x, type y)			\
	{								\
		name v;							\
		v.x = x;						\
		v.y = y;						\
		return v;						\
	}
#define UVM_MAKE3(name, type)						\
	static inline name make_##name(type x, type y, type z)		\
	{								\
		name v;							\
		v.x = x;						\
		v.y = y;						\
		v.z = z;						\
		return v;						\
	}
#define UVM_MAKE4(name, type)						\
	static inline name make_##name(type x, type y, type z, type w)	\
	{								\
		name v;							\
		v.x = x;						\
		v.y = y;						\
		v.z = z;						\
		v.w = w;						\
		return v;						\
	}
#define UVM_MAKE_ALL(base, type)					\
	UVM_MAKE1(base##1, type)					\
	UVM_MAKE2(base##2, type)					\
	UVM_MAKE3(base##3, type)					\
	UVM_MAKE4(base##4, type)

UVM_MAKE_ALL(char, signed char)
UVM_MAKE_ALL(uchar, unsigned char)
UVM_MAKE_ALL(short, short)
UVM_MAKE_ALL(ushort, unsigned short)
UVM_MAKE_ALL(int, int)
UVM_MAKE_ALL(uint, unsigned int)
UVM_MAKE_ALL(long, long)
UVM_MAKE_ALL(ulong, unsigned long)
UVM_MAKE_ALL(float, float)
UVM_MAKE_ALL(longlong, long long)
UVM_MAKE_ALL(ulonglong, unsigned long long)
UVM_MAKE_ALL(double, double)
UVM_MAKE4(long4_16a, long)
UVM_MAKE4(ulong4_16a, unsigned long)
UVM_MAKE4(long4_32a, long)
UVM_MAKE4(ulong4_32a, unsigned long)
UVM_MAKE4(double4_16a, double)
UVM_MAKE4(double4_32a, double)

#undef UVM_MAKE_ALL
#undef UVM_MAKE4
#undef UVM_MAKE3
#undef UVM_MAKE2
#undef UVM_MAKE1

#endif /* UVM_VECTOR_FUNCTIONS_H */
