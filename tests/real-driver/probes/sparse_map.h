/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * sparse_map.h - the CUarrayMapInfo entries of cuMemMapArrayAsync, for the
 * probes and for libuvm's sparse-array tests: lvl(), a region of a sparse
 * level, and tail(), part of a mip tail, mapped to a tile pool on device 0
 * or (@mem 0) unmapped.
 */
#ifndef SPARSE_MAP_H
#define SPARSE_MAP_H

#include <string.h>

#include <cuda.h>

/* Tiles of a sparse level: (@x, @y, @z) + (@w, @h, @d) of @layer, level 0. */
static inline CUarrayMapInfo lvl(CUarray a, unsigned int layer, unsigned int x, unsigned int y,
				 unsigned int z, unsigned int w, unsigned int h, unsigned int d,
				 CUmemGenericAllocationHandle mem, unsigned long long off)
{
	CUarrayMapInfo m;

	memset(&m, 0, sizeof(m));
	m.resourceType = CU_RESOURCE_TYPE_ARRAY;
	m.resource.array = a;
	m.subresourceType = CU_ARRAY_SPARSE_SUBRESOURCE_TYPE_SPARSE_LEVEL;
	m.subresource.sparseLevel.layer = layer;
	m.subresource.sparseLevel.offsetX = x;
	m.subresource.sparseLevel.offsetY = y;
	m.subresource.sparseLevel.offsetZ = z;
	m.subresource.sparseLevel.extentWidth = w;
	m.subresource.sparseLevel.extentHeight = h;
	m.subresource.sparseLevel.extentDepth = d;
	m.memOperationType = mem ? CU_MEM_OPERATION_TYPE_MAP : CU_MEM_OPERATION_TYPE_UNMAP;
	m.memHandleType = CU_MEM_HANDLE_TYPE_GENERIC;
	m.memHandle.memHandle = mem;
	m.offset = off;
	m.deviceBitMask = 1;
	return m;
}

/* @size bytes at @off of the mip tail of @layer: of mipmapped array @mm, else of @a. */
static inline CUarrayMapInfo tail(CUmipmappedArray mm, CUarray a, unsigned int layer,
				  unsigned long long off, unsigned long long size,
				  CUmemGenericAllocationHandle mem, unsigned long long pool_off)
{
	CUarrayMapInfo m;

	memset(&m, 0, sizeof(m));
	m.resourceType = mm ? CU_RESOURCE_TYPE_MIPMAPPED_ARRAY : CU_RESOURCE_TYPE_ARRAY;
	if (mm)
		m.resource.mipmap = mm;
	else
		m.resource.array = a;
	m.subresourceType = CU_ARRAY_SPARSE_SUBRESOURCE_TYPE_MIPTAIL;
	m.subresource.miptail.layer = layer;
	m.subresource.miptail.offset = off;
	m.subresource.miptail.size = size;
	m.memOperationType = mem ? CU_MEM_OPERATION_TYPE_MAP : CU_MEM_OPERATION_TYPE_UNMAP;
	m.memHandleType = CU_MEM_HANDLE_TYPE_GENERIC;
	m.memHandle.memHandle = mem;
	m.offset = pool_off;
	m.deviceBitMask = 1;
	return m;
}

#endif /* SPARSE_MAP_H */
