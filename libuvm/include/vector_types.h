/* SPDX-License-Identifier: MIT */
/*
 * vector_types.h - the runtime's small vector types (char1 ... double4) and
 * dim3, for host code that includes them through cuda_runtime.h or by name.
 *
 * Same names, members, sizes and alignments as CUDA 13.0's vector_types.h
 * (tests/libuvm_headers.cpp checks every one); no NVIDIA text.  CUDA 13
 * marks long4, ulong4, longlong4, ulonglong4 and double4 deprecated in
 * favour of their _16a (16-byte aligned, the old alignment) and _32a forms;
 * libuvm provides all of them without the deprecation warning.  The types
 * compile as C and C++; dim3's constructors (x, y, z default to 1) and its
 * conversion to uint3 are C++ only, as in NVIDIA's header.
 */
#ifndef UVM_VECTOR_TYPES_H
#define UVM_VECTOR_TYPES_H
#define __VECTOR_TYPES_H__

/* One struct per vector type: typedef'd, members x, y, z, w as many as N. */
#define UVM_VEC1(name, type, align)					\
	typedef struct __attribute__((aligned(align))) name {		\
		type x;							\
	} name
#define UVM_VEC2(name, type, align)					\
	typedef struct __attribute__((aligned(align))) name {		\
		type x, y;						\
	} name
#define UVM_VEC3(name, type, align)					\
	typedef struct __attribute__((aligned(align))) name {		\
		type x, y, z;						\
	} name
#define UVM_VEC4(name, type, align)					\
	typedef struct __attribute__((aligned(align))) name {		\
		type x, y, z, w;					\
	} name

/* Vectors of 3 keep their element's alignment; 2 and 4 as the table says. */
#define UVM_VEC_ALL(base, type, a2, a4)					\
	UVM_VEC1(base##1, type, sizeof(type));				\
	UVM_VEC2(base##2, type, a2);					\
	UVM_VEC3(base##3, type, sizeof(type));				\
	UVM_VEC4(base##4, type, a4)

UVM_VEC_ALL(char, signed char, 2, 4);
UVM_VEC_ALL(uchar, unsigned char, 2, 4);
UVM_VEC_ALL(short, short, 4, 8);
UVM_VEC_ALL(ushort, unsigned short, 4, 8);
UVM_VEC_ALL(int, int, 8, 16);
UVM_VEC_ALL(uint, unsigned int, 8, 16);
UVM_VEC_ALL(long, long, 2 * sizeof(long), 16);
UVM_VEC_ALL(ulong, unsigned long, 2 * sizeof(unsigned long), 16);
UVM_VEC_ALL(float, float, 8, 16);
UVM_VEC_ALL(longlong, long long, 16, 16);
UVM_VEC_ALL(ulonglong, unsigned long long, 16, 16);
UVM_VEC_ALL(double, double, 16, 16);

/* The 4-vectors of 8-byte elements with their alignment in the name. */
UVM_VEC4(long4_16a, long, 16);
UVM_VEC4(ulong4_16a, unsigned long, 16);
UVM_VEC4(long4_32a, long, 32);
UVM_VEC4(ulong4_32a, unsigned long, 32);
UVM_VEC4(longlong4_16a, long long, 16);
UVM_VEC4(ulonglong4_16a, unsigned long long, 16);
UVM_VEC4(longlong4_32a, long long, 32);
UVM_VEC4(ulonglong4_32a, unsigned long long, 32);
UVM_VEC4(double4_16a, double, 16);
UVM_VEC4(double4_32a, double, 32);

#undef UVM_VEC_ALL
#undef UVM_VEC4
#undef UVM_VEC3
#undef UVM_VEC2
#undef UVM_VEC1

/* Grid and block dimensions. */
typedef struct dim3 {
	unsigned int x, y, z;
#ifdef __cplusplus
	constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) noexcept
		: x(vx), y(vy), z(vz) {}
	constexpr dim3(uint3 v) noexcept : x(v.x), y(v.y), z(v.z) {}
	constexpr operator uint3() const noexcept { return uint3{ x, y, z }; }
#endif
} dim3;

#endif /* UVM_VECTOR_TYPES_H */
