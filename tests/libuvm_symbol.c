// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libuvm_symbol - device variables: uvmRegisterVar/uvmUnregisterVar and the
 * runtime's symbol calls (cudaGetSymbolAddress, cudaGetSymbolSize,
 * cudaMemcpyToSymbol, cudaMemcpyFromSymbol and their Async and per-thread
 * forms).
 *
 * This program plays the runtime: a constructor registers its variables
 * before main(), as NVIDIA's runtime registers a program's __device__ and
 * __constant__ variables (__cudaRegisterVar) from its module constructors,
 * with the host shadows below as symbols and their bytes as initial values.
 * The tests check the initial values, copies with offsets in every allowed
 * kind, the device memory behind cudaGetSymbolAddress (pointer attributes,
 * cudaMemcpy, a simulated GPU reading it), every error code, one instance
 * per device, re-initialisation by cudaDeviceReset and by the destruction
 * of a context, the asynchronous forms in stream order, and first use from
 * many threads at once.
 *
 * Each test runs in its own process (the harness forks after the
 * constructor), so each starts with an uninitialised library and the
 * registrations.  Module parameters: num_gpus=2.
 */
#include "kselftest_harness.h"

#include "libuvm_test.h"

/* The per-thread-default-stream symbols (-DCUDA_API_PER_THREAD_DEFAULT_STREAM). */
cudaError_t cudaMemcpyToSymbol_ptds(const void *symbol, const void *src, size_t count,
				    size_t offset, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyFromSymbol_ptds(void *dst, const void *symbol, size_t count,
				      size_t offset, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyToSymbolAsync_ptsz(const void *symbol, const void *src, size_t count,
					 size_t offset, enum cudaMemcpyKind kind,
					 cudaStream_t stream);
cudaError_t cudaMemcpyFromSymbolAsync_ptsz(void *dst, const void *symbol, size_t count,
					   size_t offset, enum cudaMemcpyKind kind,
					   cudaStream_t stream);

#define ARRAY_BYTES (3 * 4096 + 136)	/* not a multiple of 512 or of a page */

/* The host shadows: __device__ int answer = 42; __device__ unsigned char
 * table[ARRAY_BYTES] (filled before registration); __constant__ double
 * coeffs[8] = {...}; a variable nobody registers. */
static int answer = 42;
static unsigned char table[ARRAY_BYTES];
static const double coeffs[8] = { 0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5 };
static long never_registered;

static unsigned char table_byte(size_t i)
{
	return (unsigned char)(i * 7 + 1);
}

static CUresult registered;	/* the constructor's result */

__attribute__((constructor)) static void register_variables(void)
{
	for (size_t i = 0; i < ARRAY_BYTES; i++)
		table[i] = table_byte(i);
	registered = uvmRegisterVar(&answer, "answer", sizeof(answer), 0);
	if (!registered)
		registered = uvmRegisterVar(table, "table", sizeof(table), 0);
	if (!registered)
		registered = uvmRegisterVar(coeffs, "coeffs", sizeof(coeffs), UVM_VAR_CONSTANT);
}

/* The current device's answer, or -1000 - error. */
static int read_answer(void)
{
	int v = -1;
	cudaError_t e = cudaMemcpyFromSymbol(&v, &answer, sizeof(v), 0, cudaMemcpyDeviceToHost);

	return e ? -1000 - (int)e : v;
}

/* The current device's table holds the initial bytes. */
static int table_is_initial(void)
{
	unsigned char *b = malloc(ARRAY_BYTES);
	int ok = b && !cudaMemcpyFromSymbol(b, table, ARRAY_BYTES, 0, cudaMemcpyDefault);

	for (size_t i = 0; ok && i < ARRAY_BYTES; i++)
		ok = b[i] == table_byte(i);
	free(b);
	return ok;
}

/* The fixture of the tests that use the runtime: it initialised. */
FIXTURE(rt) {
	int ndev;
	int sim;
};

FIXTURE_SETUP(rt)
{
	ASSERT_EQ(cudaSuccess, cudaGetDeviceCount(&self->ndev));
	ASSERT_EQ(CUDA_SUCCESS, uvmSimIsAvailable(&self->sim));
}

FIXTURE_TEARDOWN(rt)
{
}

/* Registration */

/* The constructor registered before cuInit; registration checks its
 * arguments, refuses a second registration of a shadow, and a variable
 * unregistered can be registered again. */
TEST(registration)
{
	static char other[16];

	ASSERT_EQ(CUDA_SUCCESS, registered);
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, uvmRegisterVar(NULL, "x", 4, 0));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, uvmRegisterVar(other, NULL, 4, 0));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, uvmRegisterVar(other, "other", 0, 0));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, uvmRegisterVar(other, "other", 4, 2));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, uvmRegisterVar(&answer, "answer", 4, 0));
	ASSERT_EQ(CUDA_ERROR_NOT_FOUND, uvmUnregisterVar(other));
	ASSERT_EQ(CUDA_ERROR_NOT_FOUND, uvmUnregisterVar(NULL));
	/* Before cuInit, as from a module constructor. */
	ASSERT_EQ(CUDA_SUCCESS, uvmRegisterVar(other, "other", sizeof(other), UVM_VAR_CONSTANT));
	ASSERT_EQ(CUDA_SUCCESS, uvmUnregisterVar(other));
	ASSERT_EQ(CUDA_ERROR_NOT_FOUND, uvmUnregisterVar(other));
	ASSERT_EQ(CUDA_SUCCESS, uvmRegisterVar(other, "other", 8, 0));
	ASSERT_EQ(CUDA_SUCCESS, uvmUnregisterVar(other));
}

/* Values and copies */

/* Every instance starts with the shadow's bytes at registration, whatever
 * the shadow holds now. */
TEST(initial_values)
{
	double d[8];

	answer = 7;
	memset(table, 0, sizeof(table));
	ASSERT_EQ(42, read_answer());
	ASSERT_TRUE(table_is_initial());
	ASSERT_EQ(cudaSuccess, cudaMemcpyFromSymbol(d, coeffs, sizeof(d), 0, cudaMemcpyDeviceToHost));
	for (int i = 0; i < 8; i++)
		ASSERT_EQ(0.5 + i, d[i]);
	/* The C calls have no defaults: offset 0 and kind DeviceToHost. */
	ASSERT_EQ(cudaSuccess, cudaMemcpyFromSymbol(d, coeffs, 8, 24, cudaMemcpyDeviceToHost));
	ASSERT_EQ(3.5, d[0]);
	ASSERT_EQ(7, answer);
}

/* Writes at offsets and reads back, in every kind each direction allows,
 * to and from host and device memory. */
TEST_F_TIMEOUT(rt, round_trip, 120)
{
	unsigned char buf[ARRAY_BYTES], part[700];
	void *d = NULL;
	int v = 0;

	memset(part, 0xa5, sizeof(part));
	ASSERT_EQ(cudaSuccess, cudaMemcpyToSymbol(table, part, sizeof(part), 1000,
						  cudaMemcpyHostToDevice));
	memset(part, 0x5a, 3);
	ASSERT_EQ(cudaSuccess, cudaMemcpyToSymbol(table, part, 3, ARRAY_BYTES - 3, cudaMemcpyDefault));
	ASSERT_EQ(cudaSuccess, cudaMemcpyFromSymbol(buf, table, ARRAY_BYTES, 0,
						    cudaMemcpyDeviceToHost));
	for (size_t i = 0; i < ARRAY_BYTES; i++) {
		unsigned char want = i >= 1000 && i < 1700 ? 0xa5 :
				     i >= ARRAY_BYTES - 3 ? 0x5a : table_byte(i);
		ASSERT_EQ(want, buf[i]);
	}
	/* A part of the middle, at an odd offset. */
	memset(part, 0, sizeof(part));
	ASSERT_EQ(cudaSuccess, cudaMemcpyFromSymbol(part, table, 10, 995, cudaMemcpyDefault));
	ASSERT_EQ(table_byte(995), part[0]);
	ASSERT_EQ(0xa5, part[5]);
	ASSERT_EQ(0xa5, part[9]);
	/* Device memory on the other side: DeviceToDevice and Default. */
	ASSERT_EQ(cudaSuccess, cudaMalloc(&d, 4096));
	ASSERT_EQ(cudaSuccess, cudaMemset(d, 0x3c, 4096));
	ASSERT_EQ(cudaSuccess, cudaMemcpyToSymbol(table, d, 100, 2000, cudaMemcpyDeviceToDevice));
	ASSERT_EQ(cudaSuccess, cudaMemcpyToSymbol(&answer, d, 4, 0, cudaMemcpyDefault));
	ASSERT_EQ(0x3c3c3c3c, read_answer());
	ASSERT_EQ(cudaSuccess, cudaMemcpyFromSymbol(d, table, 300, 1900, cudaMemcpyDeviceToDevice));
	ASSERT_EQ(cudaSuccess, cudaMemcpy(buf, d, 300, cudaMemcpyDeviceToHost));
	for (size_t i = 0; i < 300; i++)
		ASSERT_EQ(i >= 100 && i < 200 ? 0x3c : table_byte(1900 + i), buf[i]);
	v = 99;
	ASSERT_EQ(cudaSuccess, cudaMemcpyToSymbol(&answer, &v, sizeof(v), 0, cudaMemcpyHostToDevice));
	ASSERT_EQ(cudaSuccess, cudaMemcpyFromSymbol(d, &answer, sizeof(v), 0, cudaMemcpyDefault));
	v = 0;
	ASSERT_EQ(cudaSuccess, cudaMemcpy(&v, d, sizeof(v), cudaMemcpyDeviceToHost));
	ASSERT_EQ(99, v);
	/* A __constant__ variable is written from the host like any other. */
	double one = 1.0, d8[8];
	ASSERT_EQ(cudaSuccess, cudaMemcpyToSymbol(coeffs, &one, sizeof(one), 56,
						  cudaMemcpyHostToDevice));
	ASSERT_EQ(cudaSuccess, cudaMemcpyFromSymbol(d8, coeffs, sizeof(d8), 0,
						    cudaMemcpyDeviceToHost));
	ASSERT_EQ(6.5, d8[6]);
	ASSERT_EQ(1.0, d8[7]);
	ASSERT_EQ(cudaSuccess, cudaFree(d));
	ASSERT_EQ(cudaSuccess, cudaGetLastError());
}

/* The address and size: device memory of the current device, usable with
 * cudaMemcpy and a GPU, the same at every call; cudaFree refuses it. */
TEST_F_TIMEOUT(rt, address_and_size, 120)
{
	struct cudaPointerAttributes pa;
	void *p = NULL, *q = NULL;
	size_t size = 0;
	int v = 0;

	ASSERT_EQ(cudaSuccess, cudaGetSymbolSize(&size, &answer));
	ASSERT_EQ(sizeof(answer), size);
	ASSERT_EQ(cudaSuccess, cudaGetSymbolSize(&size, table));
	ASSERT_EQ(ARRAY_BYTES, size);
	ASSERT_EQ(cudaSuccess, cudaGetSymbolSize(&size, coeffs));
	ASSERT_EQ(sizeof(coeffs), size);
	ASSERT_EQ(cudaSuccess, cudaGetSymbolAddress(&p, &answer));
	ASSERT_NE(NULL, p);
	ASSERT_NE((void *)&answer, p);
	ASSERT_EQ(cudaSuccess, cudaGetSymbolAddress(&q, &answer));
	ASSERT_EQ(p, q);
	ASSERT_EQ(cudaSuccess, cudaPointerGetAttributes(&pa, p));
	ASSERT_EQ(cudaMemoryTypeDevice, pa.type);
	ASSERT_EQ(0, pa.device);
	ASSERT_EQ(p, pa.devicePointer);
	ASSERT_EQ(NULL, pa.hostPointer);
	ASSERT_EQ(CU_MEMORYTYPE_DEVICE, ptr_attr(CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (uintptr_t)p));
	ASSERT_EQ(0, ptr_attr(CU_POINTER_ATTRIBUTE_IS_MANAGED, (uintptr_t)p));
	/* cudaMemcpy through the address and the symbol see the same bytes. */
	ASSERT_EQ(cudaSuccess, cudaMemcpy(&v, p, sizeof(v), cudaMemcpyDeviceToHost));
	ASSERT_EQ(42, v);
	v = -5;
	ASSERT_EQ(cudaSuccess, cudaMemcpy(p, &v, sizeof(v), cudaMemcpyHostToDevice));
	ASSERT_EQ(-5, read_answer());
	ASSERT_EQ(cudaSuccess, cudaMemset(p, 0, sizeof(v)));
	ASSERT_EQ(0, read_answer());
	/* Bounded by the variable's size. */
	ASSERT_EQ(cudaErrorInvalidValue, cudaMemcpy(&v, p, 2 * sizeof(v), cudaMemcpyDeviceToHost));
	/* Not the caller's to free. */
	ASSERT_EQ(cudaErrorInvalidValue, cudaFree(p));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemFree((uintptr_t)p));
	ASSERT_EQ(cudaSuccess, cudaGetSymbolAddress(&q, &answer));
	ASSERT_EQ(p, q);
	/* A simulated GPU reads the table's initial bytes there. */
	if (self->sim) {
		unsigned long long sum = 0, words[ARRAY_BYTES / 8];

		ASSERT_EQ(cudaSuccess, cudaGetSymbolAddress(&p, table));
		ASSERT_EQ(0, (uintptr_t)p % 8);
		memcpy(words, table, sizeof(words));
		ASSERT_EQ(CUDA_SUCCESS, gpu_read(0, (uintptr_t)p, sizeof(words), NULL, &sum));
		ASSERT_EQ(checksum_of(words, (uintptr_t)p, sizeof(words)), sum);
	}
	cudaGetLastError();
}

/* Every error of the symbol calls, the outputs left alone, the last error
 * recorded. */
TEST_F_TIMEOUT(rt, errors, 120)
{
	const size_t n = sizeof(answer);
	void *p = (void *)1, *d = NULL;
	size_t size = 77;
	cudaStream_t s;
	int v = 0;

	/* A symbol nobody registered, NULL, a byte inside a variable. */
	const void *bad[] = { &never_registered, NULL, table + 1, (char *)&answer + 1 };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ASSERT_EQ(cudaErrorInvalidSymbol, cudaGetSymbolAddress(&p, bad[i]));
		ASSERT_EQ((void *)1, p);
		ASSERT_EQ(cudaErrorInvalidSymbol, cudaGetSymbolSize(&size, bad[i]));
		ASSERT_EQ(77, size);
		ASSERT_EQ(cudaErrorInvalidSymbol, cudaMemcpyToSymbol(bad[i], &v, n, 0,
								     cudaMemcpyHostToDevice));
		ASSERT_EQ(cudaErrorInvalidSymbol, cudaMemcpyFromSymbol(&v, bad[i], n, 0,
								       cudaMemcpyDeviceToHost));
		ASSERT_EQ(cudaErrorInvalidSymbol, cudaMemcpyToSymbolAsync(bad[i], &v, n, 0,
									  cudaMemcpyHostToDevice, 0));
		ASSERT_EQ(cudaErrorInvalidSymbol, cudaMemcpyFromSymbolAsync(&v, bad[i], n, 0,
									    cudaMemcpyDeviceToHost, 0));
		/* Also for 0 bytes. */
		ASSERT_EQ(cudaErrorInvalidSymbol, cudaMemcpyToSymbol(bad[i], &v, 0, 0,
								     cudaMemcpyHostToDevice));
	}
	ASSERT_EQ(cudaErrorInvalidSymbol, cudaGetLastError());
	ASSERT_EQ(cudaSuccess, cudaGetLastError());
	ASSERT_STREQ("cudaErrorInvalidSymbol", cudaGetErrorName(cudaErrorInvalidSymbol));
	ASSERT_STREQ("invalid device symbol", cudaGetErrorString(cudaErrorInvalidSymbol));
	/* NULL outputs. */
	ASSERT_EQ(cudaErrorInvalidValue, cudaGetSymbolAddress(NULL, &answer));
	ASSERT_EQ(cudaErrorInvalidValue, cudaGetSymbolSize(NULL, &answer));
	ASSERT_EQ(cudaErrorInvalidValue, cudaGetSymbolAddress(NULL, &never_registered));
	/* Beyond the variable: offset + count > size, also wrapping. */
	ASSERT_EQ(cudaErrorInvalidValue, cudaMemcpyToSymbol(&answer, &v, n + 1, 0,
							    cudaMemcpyHostToDevice));
	ASSERT_EQ(cudaErrorInvalidValue, cudaMemcpyToSymbol(&answer, &v, 1, n,
							    cudaMemcpyHostToDevice));
	ASSERT_EQ(cudaErrorInvalidValue, cudaMemcpyFromSymbol(&v, &answer, 2, n - 1,
							      cudaMemcpyDeviceToHost));
	ASSERT_EQ(cudaErrorInvalidValue, cudaMemcpyFromSymbol(&v, &answer, 2, SIZE_MAX,
							      cudaMemcpyDeviceToHost));
	ASSERT_EQ(cudaErrorInvalidValue, cudaMemcpyToSymbol(&answer, &v, SIZE_MAX, 2,
							    cudaMemcpyHostToDevice));
	ASSERT_EQ(cudaErrorInvalidValue, cudaMemcpyToSymbolAsync(table, &v, 1, ARRAY_BYTES,
								 cudaMemcpyHostToDevice, 0));
	ASSERT_EQ(cudaErrorInvalidValue, cudaMemcpyFromSymbolAsync(&v, table, ARRAY_BYTES + 1, 0,
								   cudaMemcpyDeviceToHost, 0));
	/* An offset past the end, even for 0 bytes; at the end, 0 bytes are
	 * a copy of nothing. */
	ASSERT_EQ(cudaErrorInvalidValue, cudaMemcpyToSymbol(&answer, &v, 0, n + 1,
							    cudaMemcpyHostToDevice));
	ASSERT_EQ(cudaSuccess, cudaMemcpyToSymbol(&answer, &v, 0, n, cudaMemcpyHostToDevice));
	ASSERT_EQ(cudaSuccess, cudaMemcpyFromSymbol(NULL, &answer, 0, 0, cudaMemcpyDeviceToHost));
	/* Kinds that do not fit the direction, and unknown ones, also for
	 * 0 bytes. */
	const int to_bad[] = { cudaMemcpyDeviceToHost, cudaMemcpyHostToHost, 5, -1 };
	const int from_bad[] = { cudaMemcpyHostToDevice, cudaMemcpyHostToHost, 5, -1 };
	for (int i = 0; i < 4; i++) {
		ASSERT_EQ(cudaErrorInvalidMemcpyDirection,
			  cudaMemcpyToSymbol(&answer, &v, n, 0, (enum cudaMemcpyKind)to_bad[i]));
		ASSERT_EQ(cudaErrorInvalidMemcpyDirection,
			  cudaMemcpyToSymbolAsync(&answer, &v, n, 0,
						  (enum cudaMemcpyKind)to_bad[i], 0));
		ASSERT_EQ(cudaErrorInvalidMemcpyDirection,
			  cudaMemcpyFromSymbol(&v, &answer, n, 0, (enum cudaMemcpyKind)from_bad[i]));
		ASSERT_EQ(cudaErrorInvalidMemcpyDirection,
			  cudaMemcpyFromSymbolAsync(&v, &answer, n, 0,
						    (enum cudaMemcpyKind)from_bad[i], 0));
		ASSERT_EQ(cudaErrorInvalidMemcpyDirection,
			  cudaMemcpyToSymbol(&answer, &v, 0, 0, (enum cudaMemcpyKind)to_bad[i]));
	}
	ASSERT_EQ(cudaErrorInvalidMemcpyDirection, cudaPeekAtLastError());
	/* The symbol is checked before the kind, the kind before the range. */
	ASSERT_EQ(cudaErrorInvalidSymbol, cudaMemcpyToSymbol(&never_registered, &v, n, 0,
							     cudaMemcpyDeviceToHost));
	ASSERT_EQ(cudaErrorInvalidMemcpyDirection, cudaMemcpyToSymbol(&answer, &v, n + 1, 0,
								      cudaMemcpyDeviceToHost));
	/* The other side as cudaMemcpy checks it: NULL, or shorter than the
	 * copy. */
	ASSERT_EQ(cudaErrorInvalidValue, cudaMemcpyToSymbol(&answer, NULL, n, 0,
							    cudaMemcpyHostToDevice));
	ASSERT_EQ(cudaErrorInvalidValue, cudaMemcpyFromSymbol(NULL, &answer, n, 0,
							      cudaMemcpyDeviceToHost));
	ASSERT_EQ(cudaSuccess, cudaMalloc(&d, 2));
	ASSERT_EQ(cudaErrorInvalidValue, cudaMemcpyFromSymbol(d, &answer, n, 0,
							      cudaMemcpyDeviceToDevice));
	/* A stream that does not exist. */
	ASSERT_EQ(cudaSuccess, cudaStreamCreate(&s));
	ASSERT_EQ(cudaSuccess, cudaStreamDestroy(s));
	ASSERT_EQ(cudaErrorInvalidResourceHandle,
		  cudaMemcpyToSymbolAsync(&answer, &v, n, 0, cudaMemcpyHostToDevice, s));
	ASSERT_EQ(cudaErrorInvalidResourceHandle,
		  cudaMemcpyFromSymbolAsync(&v, &answer, n, 0, cudaMemcpyDeviceToHost, s));
	/* Nothing above changed the variable. */
	ASSERT_EQ(42, read_answer());
	cudaGetLastError();
}

/* An unregistered variable is no symbol any more; its instance is freed. */
TEST_F(rt, unregister)
{
	static int scratch = 3;
	struct cudaPointerAttributes pa;
	void *p = NULL;
	int v = 0;

	ASSERT_EQ(CUDA_SUCCESS, uvmRegisterVar(&scratch, "scratch", sizeof(scratch), 0));
	ASSERT_EQ(cudaSuccess, cudaGetSymbolAddress(&p, &scratch));
	ASSERT_EQ(cudaSuccess, cudaMemcpyFromSymbol(&v, &scratch, sizeof(v), 0,
						    cudaMemcpyDeviceToHost));
	ASSERT_EQ(3, v);
	ASSERT_EQ(CUDA_SUCCESS, uvmUnregisterVar(&scratch));
	ASSERT_EQ(cudaErrorInvalidSymbol, cudaMemcpyFromSymbol(&v, &scratch, sizeof(v), 0,
							       cudaMemcpyDeviceToHost));
	ASSERT_EQ(cudaErrorInvalidSymbol, cudaGetSymbolAddress(&p, &scratch));
	ASSERT_EQ(cudaSuccess, cudaPointerGetAttributes(&pa, p));
	ASSERT_EQ(cudaMemoryTypeUnregistered, pa.type);
	/* Registered again, it starts from its (new) initial bytes. */
	scratch = 8;
	ASSERT_EQ(CUDA_SUCCESS, uvmRegisterVar(&scratch, "scratch", sizeof(scratch), 0));
	ASSERT_EQ(cudaSuccess, cudaMemcpyFromSymbol(&v, &scratch, sizeof(v), 0,
						    cudaMemcpyDeviceToHost));
	ASSERT_EQ(8, v);
	ASSERT_EQ(CUDA_SUCCESS, uvmUnregisterVar(&scratch));
	cudaGetLastError();
}

/* Devices and contexts */

/* Each device has its own instance, made from the initial bytes, in its own
 * memory; a simulated GPU sees its device's instance. */
TEST_F_TIMEOUT(rt, two_devices, 120)
{
	struct cudaPointerAttributes pa;
	void *p0 = NULL, *p1 = NULL;
	int v;

	if (self->ndev < 2)
		SKIP(return, "needs 2 GPUs");
	v = 1;
	ASSERT_EQ(cudaSuccess, cudaMemcpyToSymbol(&answer, &v, sizeof(v), 0, cudaMemcpyHostToDevice));
	ASSERT_EQ(cudaSuccess, cudaGetSymbolAddress(&p0, &answer));
	ASSERT_EQ(cudaSuccess, cudaSetDevice(1));
	ASSERT_EQ(42, read_answer());
	ASSERT_TRUE(table_is_initial());
	v = 2;
	ASSERT_EQ(cudaSuccess, cudaMemcpyToSymbol(&answer, &v, sizeof(v), 0, cudaMemcpyHostToDevice));
	ASSERT_EQ(cudaSuccess, cudaGetSymbolAddress(&p1, &answer));
	ASSERT_NE(p0, p1);
	ASSERT_EQ(cudaSuccess, cudaPointerGetAttributes(&pa, p1));
	ASSERT_EQ(cudaMemoryTypeDevice, pa.type);
	ASSERT_EQ(1, pa.device);
	ASSERT_EQ(2, read_answer());
	ASSERT_EQ(cudaSuccess, cudaSetDevice(0));
	ASSERT_EQ(1, read_answer());
	ASSERT_EQ(cudaSuccess, cudaPointerGetAttributes(&pa, p0));
	ASSERT_EQ(0, pa.device);
	/* Each GPU reads its own device's bytes. */
	if (self->sim) {
		unsigned long long sum = 0, words[64];
		void *t0 = NULL, *t1 = NULL;

		memset(words, 0x11, sizeof(words));
		ASSERT_EQ(cudaSuccess, cudaMemcpyToSymbol(table, words, sizeof(words), 0,
							  cudaMemcpyHostToDevice));
		ASSERT_EQ(cudaSuccess, cudaGetSymbolAddress(&t0, table));
		ASSERT_EQ(CUDA_SUCCESS, gpu_read(0, (uintptr_t)t0, sizeof(words), NULL, &sum));
		ASSERT_EQ(checksum_of(words, (uintptr_t)t0, sizeof(words)), sum);
		ASSERT_EQ(cudaSuccess, cudaSetDevice(1));
		ASSERT_EQ(cudaSuccess, cudaGetSymbolAddress(&t1, table));
		memcpy(words, table, sizeof(words));
		ASSERT_EQ(CUDA_SUCCESS, gpu_read(1, (uintptr_t)t1, sizeof(words), NULL, &sum));
		ASSERT_EQ(checksum_of(words, (uintptr_t)t1, sizeof(words)), sum);
	}
	cudaGetLastError();
}

/* cudaDeviceReset frees the instance; the next use makes a new one from
 * the initial bytes, as NVIDIA's runtime loads the module again. */
TEST_F_TIMEOUT(rt, reset_reinitialises, 120)
{
	struct cudaPointerAttributes pa;
	unsigned char junk[64];
	void *p = NULL, *q = NULL;
	int v = 1234;

	ASSERT_EQ(cudaSuccess, cudaMemcpyToSymbol(&answer, &v, sizeof(v), 0, cudaMemcpyHostToDevice));
	memset(junk, 0xee, sizeof(junk));
	ASSERT_EQ(cudaSuccess, cudaMemcpyToSymbol(table, junk, sizeof(junk), 0, cudaMemcpyDefault));
	ASSERT_EQ(cudaSuccess, cudaGetSymbolAddress(&p, &answer));
	ASSERT_EQ(1234, read_answer());
	ASSERT_EQ(cudaSuccess, cudaDeviceReset());
	ASSERT_EQ(cudaSuccess, cudaPointerGetAttributes(&pa, p));
	ASSERT_EQ(cudaMemoryTypeUnregistered, pa.type);
	ASSERT_EQ(42, read_answer());
	ASSERT_TRUE(table_is_initial());
	ASSERT_EQ(cudaSuccess, cudaGetSymbolAddress(&q, &answer));
	ASSERT_EQ(cudaSuccess, cudaPointerGetAttributes(&pa, q));
	ASSERT_EQ(cudaMemoryTypeDevice, pa.type);
	/* Twice, and through the driver API's reset of the primary context. */
	v = 5;
	ASSERT_EQ(cudaSuccess, cudaMemcpyToSymbol(&answer, &v, sizeof(v), 0, cudaMemcpyHostToDevice));
	ASSERT_EQ(cudaSuccess, cudaDeviceReset());
	ASSERT_EQ(42, read_answer());
	v = 6;
	ASSERT_EQ(cudaSuccess, cudaMemcpyToSymbol(&answer, &v, sizeof(v), 0, cudaMemcpyHostToDevice));
	ASSERT_EQ(CUDA_SUCCESS, cuDevicePrimaryCtxReset(0));
	ASSERT_EQ(cudaSuccess, cudaDeviceReset());
	ASSERT_EQ(42, read_answer());
	cudaGetLastError();
}

/* A context of the driver API current in the thread has an instance of its
 * own, freed with it. */
TEST_F(rt, created_context)
{
	CUcontext c = NULL;
	CUdeviceptr b;
	void *p = NULL, *q = NULL;
	size_t s;
	int v = 9;

	ASSERT_EQ(cudaSuccess, cudaMemcpyToSymbol(&answer, &v, sizeof(v), 0, cudaMemcpyHostToDevice));
	ASSERT_EQ(cudaSuccess, cudaGetSymbolAddress(&p, &answer));
	ASSERT_EQ(CUDA_SUCCESS, cuCtxCreate(&c, NULL, 0, 0));
	ASSERT_EQ(42, read_answer());
	ASSERT_EQ(cudaSuccess, cudaGetSymbolAddress(&q, &answer));
	ASSERT_NE(p, q);
	ASSERT_EQ(c, (CUcontext)(uintptr_t)ptr_attr(CU_POINTER_ATTRIBUTE_CONTEXT, (uintptr_t)q));
	ASSERT_EQ(CUDA_SUCCESS, cuMemGetAddressRange(&b, &s, (uintptr_t)q));
	ASSERT_EQ((uintptr_t)q, b);
	ASSERT_EQ(sizeof(answer), s);
	ASSERT_EQ(CUDA_SUCCESS, cuCtxDestroy(c));
	ASSERT_EQ(CUDA_ERROR_NOT_FOUND, cuMemGetAddressRange(&b, &s, (uintptr_t)q));
	/* The primary context's instance is untouched. */
	ASSERT_EQ(9, read_answer());
	cudaGetLastError();
}

/* Streams */

/* The asynchronous forms run in stream order: writes at offsets then a
 * read on one stream, a second stream reading after an event. */
TEST_F_TIMEOUT(rt, async_stream_order, 120)
{
	unsigned char *a = NULL, *b = NULL, *c = NULL;
	cudaStream_t s1, s2;
	cudaEvent_t e;

	/* One source per copy in flight. */
	ASSERT_EQ(cudaSuccess, cudaMallocHost((void **)&a, 8 * ARRAY_BYTES));
	ASSERT_EQ(cudaSuccess, cudaMallocHost((void **)&b, ARRAY_BYTES));
	ASSERT_EQ(cudaSuccess, cudaMallocHost((void **)&c, ARRAY_BYTES));
	ASSERT_EQ(cudaSuccess, cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
	ASSERT_EQ(cudaSuccess, cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
	ASSERT_EQ(cudaSuccess, cudaEventCreate(&e));
	for (int round = 0; round < 4; round++) {
		/* Later writes overlap earlier ones: only stream order gives
		 * the bytes checked below. */
		for (int k = 0; k < 8; k++) {
			size_t off = (size_t)k * 1000;
			unsigned char *src = a + (size_t)k * ARRAY_BYTES;

			memset(src, round * 16 + k, ARRAY_BYTES - off);
			ASSERT_EQ(cudaSuccess, cudaMemcpyToSymbolAsync(table, src, ARRAY_BYTES - off,
								       off, cudaMemcpyHostToDevice,
								       s1));
		}
		ASSERT_EQ(cudaSuccess, cudaMemcpyFromSymbolAsync(b, table, ARRAY_BYTES, 0,
								 cudaMemcpyDeviceToHost, s1));
		ASSERT_EQ(cudaSuccess, cudaEventRecord(e, s1));
		ASSERT_EQ(cudaSuccess, cudaStreamWaitEvent(s2, e, 0));
		ASSERT_EQ(cudaSuccess, cudaMemcpyFromSymbolAsync(c, table, ARRAY_BYTES, 0,
								 cudaMemcpyDefault, s2));
		ASSERT_EQ(cudaSuccess, cudaEventSynchronize(e));
		for (size_t i = 0; i < ARRAY_BYTES; i++) {
			size_t k = i / 1000 < 8 ? i / 1000 : 7;

			ASSERT_EQ(round * 16 + k, b[i]);
		}
		ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(s2));
		ASSERT_EQ(0, memcmp(b, c, ARRAY_BYTES));
	}
	/* Stream 0, and the legacy stream ordering a synchronous read. */
	memset(a, 0x77, 16);
	ASSERT_EQ(cudaSuccess, cudaMemcpyToSymbolAsync(table, a, 16, 100, cudaMemcpyHostToDevice, 0));
	ASSERT_EQ(cudaSuccess, cudaMemcpyFromSymbol(b, table, 16, 100, cudaMemcpyDeviceToHost));
	ASSERT_TRUE(bytes_are(b, 0x77, 16));
	ASSERT_EQ(cudaSuccess, cudaEventDestroy(e));
	ASSERT_EQ(cudaSuccess, cudaStreamDestroy(s1));
	ASSERT_EQ(cudaSuccess, cudaStreamDestroy(s2));
	ASSERT_EQ(cudaSuccess, cudaFreeHost(a));
	ASSERT_EQ(cudaSuccess, cudaFreeHost(b));
	ASSERT_EQ(cudaSuccess, cudaFreeHost(c));
}

/* The per-thread default stream forms (_ptds, _ptsz). */
TEST_F(rt, per_thread_symbols)
{
	int v = 31, w = 0;

	ASSERT_EQ(cudaSuccess, cudaMemcpyToSymbol_ptds(&answer, &v, sizeof(v), 0,
						       cudaMemcpyHostToDevice));
	ASSERT_EQ(cudaSuccess, cudaMemcpyFromSymbol_ptds(&w, &answer, sizeof(w), 0,
							 cudaMemcpyDeviceToHost));
	ASSERT_EQ(31, w);
	v = 32;
	ASSERT_EQ(cudaSuccess, cudaMemcpyToSymbolAsync_ptsz(&answer, &v, sizeof(v), 0,
							    cudaMemcpyHostToDevice, 0));
	ASSERT_EQ(cudaSuccess, cudaMemcpyFromSymbolAsync_ptsz(&w, &answer, sizeof(w), 0,
							      cudaMemcpyDeviceToHost, 0));
	ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(cudaStreamPerThread));
	ASSERT_EQ(32, w);
	ASSERT_EQ(cudaErrorInvalidMemcpyDirection,
		  cudaMemcpyToSymbolAsync_ptsz(&answer, &v, sizeof(v), 0, cudaMemcpyDeviceToHost, 0));
	ASSERT_EQ(cudaErrorInvalidSymbol,
		  cudaMemcpyFromSymbol_ptds(&w, &never_registered, 4, 0, cudaMemcpyDeviceToHost));
	cudaGetLastError();
}

/* Threads */

#define THREADS 8

struct first_use {
	pthread_barrier_t *start;
	int idx;
	int dev;
	void *addr;
	int failures;
};

static void *first_use_worker(void *arg)
{
	struct first_use *w = arg;
	const int reader = w->idx / 2 % 2;
	unsigned char mine[16];
	int v = 0;

	if (cudaSetDevice(w->dev))
		w->failures++;
	pthread_barrier_wait(w->start);
	/* Half read first, half ask for an address first. */
	if (reader ? cudaMemcpyFromSymbol(&v, &answer, sizeof(v), 0, cudaMemcpyDeviceToHost) :
		     cudaGetSymbolAddress(&w->addr, table))
		w->failures++;
	if (!w->addr && cudaGetSymbolAddress(&w->addr, table))
		w->failures++;
	if (reader && v != 42)
		w->failures++;
	if (!table_is_initial())
		w->failures++;
	/* Then each thread writes 16 bytes of the table at its own offset. */
	pthread_barrier_wait(w->start);
	memset(mine, w->idx + 1, sizeof(mine));
	if (cudaMemcpyToSymbol(table, mine, sizeof(mine), 4096 + 16 * (size_t)w->idx,
			       cudaMemcpyHostToDevice))
		w->failures++;
	return NULL;
}

/* Threads using the variables first at the same time, on both devices,
 * get one instance per device, every byte initialised once. */
TEST_F_TIMEOUT(rt, threads_first_use, 120)
{
	struct first_use w[THREADS];
	pthread_barrier_t start;
	pthread_t t[THREADS];
	unsigned char buf[16 * THREADS];
	const int n = self->ndev;

	ASSERT_EQ(0, pthread_barrier_init(&start, NULL, THREADS));
	for (int i = 0; i < THREADS; i++) {
		w[i].start = &start;
		w[i].idx = i;
		w[i].dev = i % n;
		w[i].addr = NULL;
		w[i].failures = 0;
		ASSERT_EQ(0, pthread_create(&t[i], NULL, first_use_worker, &w[i]));
	}
	for (int i = 0; i < THREADS; i++) {
		pthread_join(t[i], NULL);
		ASSERT_EQ(0, w[i].failures);
		ASSERT_EQ(w[i % n].addr, w[i].addr);
	}
	if (n > 1)
		ASSERT_NE(w[0].addr, w[1].addr);
	/* No thread's initialisation overwrote another's bytes. */
	for (int d = 0; d < n; d++) {
		ASSERT_EQ(cudaSuccess, cudaSetDevice(d));
		ASSERT_EQ(cudaSuccess, cudaMemcpyFromSymbol(buf, table, sizeof(buf), 4096,
							    cudaMemcpyDeviceToHost));
		for (size_t b = 0; b < sizeof(buf); b++) {
			const size_t i = b / 16;
			unsigned char want = (int)i % n == d ? (unsigned char)(i + 1) :
					     table_byte(4096 + b);

			ASSERT_EQ(want, buf[b]);
		}
	}
	pthread_barrier_destroy(&start);
}

TEST_HARNESS_MAIN
