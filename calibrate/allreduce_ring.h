/*
 * Our ring all-reduce (sum of floats, in place) over MPI point-to-point messages: a
 * reduce-scatter then an all-gather around the ring, each of the 2(n-1) steps cut into chunks
 * that flow through the ring as a pipeline. It moves 2(n-1)/n of the buffer per rank, the
 * volume the communication model of docs/scaling.md assumes, so its timings calibrate that model.
 */
#ifndef SCALEMETER_ALLREDUCE_RING_H
#define SCALEMETER_ALLREDUCE_RING_H

#include <stddef.h>

#include <mpi.h>

/* Chunk size used when chunk_elems is 0: 2 MiB of floats (docs/allreduce.md compares sizes). */
#define SM_RING_DEFAULT_CHUNK_ELEMS ((size_t)524288)

/* Sums buf over the ranks of comm, in place; every rank passes the same count and chunk_elems
 * (0: the default). Any rank count and element count work, 0 included. Returns MPI_SUCCESS or an
 * MPI error code (MPI_ERR_NO_MEM when the scratch buffer cannot be allocated). */
int sm_ring_allreduce(float *buf, size_t count, MPI_Comm comm, size_t chunk_elems);

/* The same with a caller's scratch buffer of sm_ring_scratch_elems() floats, so that a
 * benchmark times the ring and not malloc. */
size_t sm_ring_scratch_elems(size_t count, int ranks, size_t chunk_elems);
int sm_ring_allreduce_scratch(float *buf, size_t count, MPI_Comm comm, size_t chunk_elems,
                              float *scratch);

#endif
