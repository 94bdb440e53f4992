/* SPDX-License-Identifier: MIT */
/*
 * builtin_types.h - the runtime's built-in types in one include: the types
 * of driver_types.h and the vector types, as CUDA 13.0's header of this
 * name gathers them (cuda_runtime_api.h includes it).  libuvm has no
 * texture or surface objects, so their headers are not part of it.
 */
#ifndef UVM_BUILTIN_TYPES_H
#define UVM_BUILTIN_TYPES_H

#include "driver_types.h"
#include "vector_types.h"

#endif /* UVM_BUILTIN_TYPES_H */
