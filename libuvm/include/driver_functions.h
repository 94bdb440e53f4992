/* SPDX-License-Identifier: MIT */
/*
 * driver_functions.h - the runtime's helpers that build pitched pointers,
 * positions and extents, as CUDA 13.0 provides them (cuda_runtime.h
 * includes this header).
 */
#ifndef UVM_DRIVER_FUNCTIONS_H
#define UVM_DRIVER_FUNCTIONS_H
/* NVIDIA's guard too: code that tests for this header sees it included. */
#define __DRIVER_FUNCTIONS_H__

#include "driver_types.h"

static inline struct cudaPitchedPtr make_cudaPitchedPtr(void *d, size_t p, size_t xsz,
							size_t ysz)
{
	struct cudaPitchedPtr s;

	s.ptr = d;
	s.pitch = p;
	s.xsize = xsz;
	s.ysize = ysz;
	return s;
}

static inline struct cudaPos make_cudaPos(size_t x, size_t y, size_t z)
{
	struct cudaPos p;

	p.x = x;
	p.y = y;
	p.z = z;
	return p;
}

static inline struct cudaExtent make_cudaExtent(size_t w, size_t h, size_t d)
{
	struct cudaExtent e;

	e.width = w;
	e.height = h;
	e.depth = d;
	return e;
}

#endif /* UVM_DRIVER_FUNCTIONS_H */
