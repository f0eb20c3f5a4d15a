/* SPDX-License-Identifier: BSD-3-Clause */
/* mpiio_files.c -- the MPI_File -> traced-file map of the MPI-IO layer.
 *
 * MPI_File_open registers the path with the core (ftio_file_register) and
 * stores {file id, access mode, "is the view trivial", split-collective
 * state} here, keyed by the handle value; every data call looks its handle up
 * to find the file id and how to turn etype offsets into bytes.
 *
 * Open addressing with linear probing.  Data calls only read, without a lock
 * (keys are atomic, an entry's fields are written before its key is
 * published); open/close/set_view write under a mutex.  Deleted slots become
 * tombstones rather than being shifted, so a concurrent reader can never miss
 * a live entry that moved.  A process with more than FILE_SLOTS MPI files open
 * at once leaves the excess untraced (never crashes).
 */
#include <pthread.h>
#include "mpiio.h"

#define FILE_SLOTS 1024u               /* power of two */
#define KEY_EMPTY  FTIO_MPI_KEY_EMPTY
#define KEY_DEAD   FTIO_MPI_KEY_DEAD

static struct ftio_mpi_file file_slots[FILE_SLOTS];
static pthread_mutex_t file_lock = PTHREAD_MUTEX_INITIALIZER;

/* Bumped by every open, close and set_view: a thread's copy of an entry
 * (ftio_mpi_file_view, mpiio.h) is good while the generation it was taken
 * at holds. */
_Atomic unsigned ftio_mpi_files_gen FTIO_HOT;
__thread struct ftio_mpi_file_copy ftio_mpi_last __attribute__((tls_model("initial-exec")));

static inline uint32_t slot_of(uint64_t key)
{
    return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 40) & (FILE_SLOTS - 1);
}

struct ftio_mpi_file *ftio_mpi_file_find(MPI_File fh)
{
    uint64_t key = FTIO_MPI_HANDLE(fh);
    uint32_t i = slot_of(key);
    for (uint32_t n = 0; n < FILE_SLOTS; n++, i = (i + 1) & (FILE_SLOTS - 1)) {
        uint64_t k = atomic_load_explicit(&file_slots[i].key, memory_order_acquire);
        if (k == key)
            return &file_slots[i];
        if (k == KEY_EMPTY)
            return NULL;
    }
    return NULL;
}

void ftio_mpi_file_changed(void)
{
    atomic_fetch_add_explicit(&ftio_mpi_files_gen, 1, memory_order_release);
}

const struct ftio_mpi_file *ftio_mpi_file_view_slow(MPI_File fh, unsigned gen)
{
    struct ftio_mpi_file *f = ftio_mpi_file_find(fh);
    if (!f)
        return NULL;
    ftio_mpi_last.copy.fid = f->fid;
    ftio_mpi_last.copy.amode = f->amode;
    ftio_mpi_last.copy.simple_view = f->simple_view;
    ftio_mpi_last.key = FTIO_MPI_HANDLE(fh);
    ftio_mpi_last.gen = gen;
    return &ftio_mpi_last.copy;
}

struct ftio_mpi_file *ftio_mpi_file_add(MPI_File fh, uint32_t fid, int amode)
{
    uint64_t key = FTIO_MPI_HANDLE(fh);
    struct ftio_mpi_file *slot = NULL;
    if (key <= KEY_DEAD)
        return NULL;
    pthread_mutex_lock(&file_lock);
    /* A handle value can come back after a close we did not see (file
     * opened while tracing was paused): reuse its entry. */
    slot = ftio_mpi_file_find(fh);
    if (!slot) {
        uint32_t i = slot_of(key);
        for (uint32_t n = 0; n < FILE_SLOTS; n++, i = (i + 1) & (FILE_SLOTS - 1)) {
            uint64_t k = atomic_load_explicit(&file_slots[i].key, memory_order_relaxed);
            if (k == KEY_EMPTY || k == KEY_DEAD) {
                slot = &file_slots[i];
                break;
            }
        }
    }
    if (slot) {
        atomic_store_explicit(&slot->key, KEY_DEAD, memory_order_relaxed);
        slot->fid = fid;
        slot->amode = amode;
        slot->simple_view = 1;          /* MPI_File_open's default view */
        slot->split.active = 0;
        atomic_store_explicit(&slot->key, key, memory_order_release);
    }
    pthread_mutex_unlock(&file_lock);
    ftio_mpi_file_changed();
    return slot;
}

void ftio_mpi_file_remove(uint64_t key)
{
    pthread_mutex_lock(&file_lock);
    uint32_t i = slot_of(key);
    for (uint32_t n = 0; n < FILE_SLOTS; n++, i = (i + 1) & (FILE_SLOTS - 1)) {
        uint64_t k = atomic_load_explicit(&file_slots[i].key, memory_order_relaxed);
        if (k == key) {
            atomic_store_explicit(&file_slots[i].key, KEY_DEAD, memory_order_release);
            break;
        }
        if (k == KEY_EMPTY)
            break;
    }
    pthread_mutex_unlock(&file_lock);
    ftio_mpi_file_changed();
}

int64_t ftio_mpi_position(MPI_File fh, const struct ftio_mpi_file *f)
{
    MPI_Offset pos;
    /* MPI_File_get_position is erroneous on MPI_MODE_SEQUENTIAL files. */
    if (f->amode & MPI_MODE_SEQUENTIAL)
        return -1;
    if (ftio_mpi_h.file_get_position(fh, &pos) != MPI_SUCCESS)
        return -1;
    return ftio_mpi_explicit(fh, f, pos);
}
